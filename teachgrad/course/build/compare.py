"""Run one build check on teachgrad and on the student's package, and compare what both saw.

A check's scenario is a function of the module (``torch``) returning a dict ``{label: seen}``;
`seen` is a tensor (compared by shape, dtype and values; a line names the first entry that
differs), a :class:`Raised` (by the type of the error and the whole first line of its message,
numbers included), a number (within float32 tolerance) or any other
plain value (names, flags, versions, lists of links: by equality).
"""
import re
import warnings

import numpy as np

import teachgrad

WORDS_COMPARED = 8      # how much of an unexpected error a line shows


class Differ(Exception):
    """What differs between the student's package and teachgrad, in a few words."""


class Check:
    """One named scenario of a chapter, with the hint shown when it fails."""

    def __init__(self, stage, name, scenario, hint, rtol=1e-5, atol=1e-6):
        self.stage, self.name, self.scenario, self.hint = stage, name, scenario, hint
        self.rtol, self.atol = rtol, atol


def checks_list(stage):
    """A list and a decorator adding checks to it: ``CHECKS, check = checks_list("03")``."""
    found = []

    def check(name, hint, **tolerances):
        def register(scenario):
            found.append(Check(stage, name, scenario, hint, **tolerances))
            return scenario
        return register
    return found, check


class Raised:
    """An error a scenario expected, or its absence (``kind`` None)."""

    def __init__(self, kind=None, message=""):
        self.kind, self.message = kind, message


def raised(fn):
    """Call `fn` and note the error it raises (a stub's NotImplementedError and a
    RecursionError are not noted: they end the check)."""
    try:
        fn()
    except (NotImplementedError, RecursionError):
        raise
    except Exception as error:              # noqa: BLE001 — noting any error is the point
        return Raised(type(error).__name__, str(error))
    return Raised()


def warned(fn):
    """Call `fn`; return (its result, [(warning class name, first sentence), ...])."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fn()
    return result, [(w.category.__name__, str(w.message).split(". ")[0]) for w in caught]


def name(node):
    """A node's name as PyTorch prints it (teachgrad's and torch's AccumulateGrad alike)."""
    return None if node is None else node.name().split("::")[-1]


def links(node):
    """node.next_functions with each node shown by its name."""
    return [(name(n), number) for n, number in node.next_functions]


def dtype_name(t):
    """float32, float64, int64 ... whatever module the dtype comes from."""
    return str(t.dtype).split(".")[-1]


def first_words(message):
    """The first words of an error message (up to the first full stop or colon)."""
    head = re.split(r"[.:\n]", message.strip(), maxsplit=1)[0]
    return " ".join(head.split()[:WORDS_COMPARED])


def first_line(message):
    """An error's first line, whole: PyTorch's words and numbers (teachgrad may add a hint
    on a line of its own, and says teachgrad where PyTorch says torch)."""
    if not message.strip():
        return ""
    return " ".join(message.strip().splitlines()[0].replace("teachgrad", "torch").split())


def first_difference(got_words, want_words):
    """The number (from 1) of the first word where two messages part."""
    for i, (got, want) in enumerate(zip(got_words, want_words), 1):
        if got != want:
            return i
    return min(len(got_words), len(want_words)) + 1


def as_numpy(t):
    array = getattr(t, "array", None)           # yourgrad keeps it there; teachgrad:
    return np.asarray(array if array is not None else t.detach().numpy())


def is_tensor(value):
    return hasattr(value, "shape") and hasattr(value, "grad_fn")


def shape_text(shape):
    return "(" + ", ".join(str(int(s)) for s in shape) + ("," if len(shape) == 1 else "") + ")"


def compare(label, got, want, check):
    """Raise Differ if the student's `got` is not teachgrad's `want`."""
    if isinstance(want, Raised):
        compare_errors(label, got, want)
    elif is_tensor(want):
        if not is_tensor(got):
            raise Differ(f"{label}: expected a tensor, got {type(got).__name__}")
        compare_arrays(label, as_numpy(got), as_numpy(want), check)
    elif isinstance(want, np.ndarray):
        compare_arrays(label, np.asarray(got), want, check)
    elif isinstance(want, float):
        if not isinstance(got, (int, float)) or not np.isclose(got, want, check.rtol, check.atol):
            raise Differ(f"{label}: value differs (yours: {got!r})")
    elif got != want:
        raise Differ(f"{label}: yours is {got!r}, teachgrad's differs")


def compare_arrays(label, got, want, check):
    if got.shape != want.shape:
        raise Differ(f"{label}: shape {shape_text(got.shape)} differs from teachgrad's")
    if got.dtype != want.dtype:
        raise Differ(f"{label}: dtype {got.dtype} differs from teachgrad's")
    wrong = ~np.isclose(got, want, check.rtol, check.atol, equal_nan=True)
    if wrong.any():
        where = "" if not got.ndim else \
            f" at entry {tuple(int(i) for i in np.argwhere(wrong)[0])}"
        others = int(wrong.sum()) - 1
        raise Differ(f"{label}: value differs{where}"
                     + (f" (and {others} more entr{'y' if others == 1 else 'ies'})"
                        if others else ""))


def compare_errors(label, got, want):
    if want.kind is None:
        if got.kind is not None:
            raise Differ(f"{label}: raised {got.kind}: {first_words(got.message)}")
    elif got.kind is None:
        raise Differ(f"{label}: missing error (PyTorch raises {want.kind})")
    elif got.kind != want.kind:
        raise Differ(f"{label}: raised {got.kind} where PyTorch raises {want.kind}")
    elif first_line(got.message) != first_line(want.message):
        word = first_difference(first_line(got.message).split(),
                                first_line(want.message).split())
        raise Differ(f"{label}: wrong first words in the {want.kind} message" if word == 1
                     else f"{label}: the {want.kind} message differs from PyTorch's from word "
                          f"{word} on")


_SEEN_BY_TEACHGRAD = {}


def teachgrad_sees(check):
    """What teachgrad's run of a check's scenario gave: it never changes, so it is computed
    once a session (a student runs check.build again and again)."""
    if check not in _SEEN_BY_TEACHGRAD:
        with warnings.catch_warnings():       # teachgrad's warnings are not the student's
            warnings.simplefilter("ignore")
            _SEEN_BY_TEACHGRAD[check] = check.scenario(teachgrad)
    return _SEEN_BY_TEACHGRAD[check]


def run_check(check, package):
    """(status, printed line) of one check against the student's package."""
    from teachgrad.course.check import CORRECT, NOT_ATTEMPTED, WRONG

    title = f"{check.stage} {check.name}"
    want = teachgrad_sees(check)
    try:
        got = check.scenario(package)
        for label, expected in want.items():
            if label not in got:
                raise Differ(f"{label}: not produced")
            compare(label, got[label], expected, check)
    except NotImplementedError as stub:
        todo = str(stub).strip()
        return NOT_ATTEMPTED, f"… {title}: not attempted yet" + (f" ({todo})" if todo else "")
    except RecursionError:
        return WRONG, (f"✘ {title}: RecursionError, Python's limit of nested calls was hit — "
                       "hint: walk the graph with a loop and a to-do list of your own, "
                       "never with a function that calls itself")
    except Differ as difference:
        return WRONG, f"✘ {title}: {difference} — hint: {check.hint}"
    except Exception as error:              # noqa: BLE001 — any crash becomes one line
        text = str(error).strip().splitlines()[0][:90] if str(error).strip() else ""
        return WRONG, f"✘ {title}: raised {type(error).__name__}: {text} — hint: {check.hint}"
    return CORRECT, f"✔ {title}"
