"""Feedback for exercise notebooks: each check prints one friendly line.

    from teachgrad.course import check

    def predict_flags():
        ### BEGIN SOLUTION
        return {"x": {"is_leaf": True, "requires_grad": True}, ...}
        ### END SOLUTION

    check.leaf_flags(predict_flags, {"x": x, "y": y})

prints one of

    ✔ correct — all 4 predictions match teachgrad
    ✘ 1 of 4 predictions is off (look again at y) — hint: a tensor made by an operation ...
    … not attempted yet — replace raise NotImplementedError() with your code

The helpers:

======================  ==================================================================
``value``               any answer (tensor, array, number, flag, name, list, dict) against
                        the expected one
``leaf_flags``          predicted ``is_leaf`` / ``requires_grad`` / ... against the tensors'
``gradients``           gradients written by hand against teachgrad's autograd and finite
                        differences; or a student's backward (a custom Function) against
                        finite differences
``node_names``          the nodes of a backward graph, as a set or in a topological order
``raises``              code that should fail with a given error
``behaves_like``        a re-implementation (of a piece of the engine, say) against
                        teachgrad's own, on a few cases
``predict``             in a lecture: a prediction written before the next cell shows the
                        answer (``...`` until then, which reveals nothing)
======================  ==================================================================

Conventions, the same for every helper:

- The student's answer comes first. It may be a value, but a *function* is better: the
  helper calls it itself, so a stub that still raises ``NotImplementedError`` gets
  "not attempted yet" instead of a traceback, and the check cell never crashes (it needs no
  ``raises-exception`` tag). For an answer computed at the top level of a cell, pass
  ``lambda: answer``: a name that is not defined yet is reported, not raised.
- A prediction left as ``...`` (Ellipsis) also counts as not attempted.
- The line tells *what* differs and gives a hint: the author's ``hint=``, with a telling
  guess beside it in brackets ("the sign is flipped", "off by a constant factor of 2"); for a
  wrong shape, the shape's own hint. It never prints the expected answer.
- The return value is a :class:`Result`: true when correct, so tests can
  ``assert check.value(...)``. It displays nothing in Jupyter (the line is already printed).
"""
import functools
import inspect
import re
import traceback
from collections import Counter
from pathlib import Path

import numpy as np

import teachgrad
from teachgrad.autograd.graph import Node
from teachgrad.course.build import run as build  # the student's yourgrad, stage by stage
from teachgrad.tensor import Tensor

CORRECT, WRONG, NOT_ATTEMPTED = "correct", "wrong", "not attempted"

__all__ = ["Result", "value", "leaf_flags", "gradients", "node_names", "raises", "behaves_like",
           "predict", "build"]


class Result:
    """What a check found: ``status`` (correct / wrong / not attempted) and the printed line."""

    def __init__(self, status, message):
        self.status = status
        self.message = message

    @property
    def passed(self):
        return self.status == CORRECT

    def __bool__(self):
        return self.passed

    def __eq__(self, other):
        if isinstance(other, (bool, np.bool_)):
            return self.passed == bool(other)
        if isinstance(other, Result):
            return (self.status, self.message) == (other.status, other.message)
        return NotImplemented

    __hash__ = None

    def __repr__(self):
        return f"Result({self.status!r}, {self.message!r})"

    def _ipython_display_(self):
        """Show nothing as the cell's result: the helper has printed its line already."""


class _Stop(Exception):
    """Raised inside a check to end it early with a report.

    ``crashed`` marks a report of the student's code raising: its hint is only a default,
    and the author's ``hint=`` of the check takes its place.
    """

    def __init__(self, status, what="", hint=None, crashed=False):
        super().__init__(what)
        self.status, self.what, self.hint, self.crashed = status, what, hint, crashed


def _report(status, what="", hint=None):
    if status == CORRECT:
        line = "✔ correct" + (f" — {what}" if what else "")
    elif status == NOT_ATTEMPTED:
        line = "… not attempted yet — replace raise NotImplementedError() with your code"
    else:
        line = f"✘ {what}" + (f" — hint: {hint}" if hint else "")
    print(line)
    return Result(status, line)


def _checker(fn):
    """Turn a check body that returns (what, hint) or raises _Stop into one printed line."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return _report(CORRECT, fn(*args, **kwargs) or "")
        except _Stop as stop:
            hint = kwargs.get("hint") if stop.crashed and kwargs.get("hint") else stop.hint
            return _report(stop.status, stop.what, hint)
    return wrapper


# ---------------------------------------------------------------- calling student code

def _is_function(obj):
    """A plain function, lambda, bound method or partial — not a tensor, node or class."""
    return inspect.isfunction(obj) or inspect.ismethod(obj) or isinstance(obj, functools.partial)


def _a_kind(obj):
    """'a list', 'an int': the type of an answer, with its article."""
    kind = type(obj).__name__
    return ("an " if kind[0].lower() in "aeiou" else "a ") + kind


def _first_line(error, limit=90):
    text = str(error).strip().splitlines()[0] if str(error).strip() else ""
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _call(fn, *args, what="your code"):
    """Call the student's code; turn a stub, a missing name or a crash into a _Stop."""
    try:
        return fn(*args)
    except NotImplementedError:
        raise _Stop(NOT_ATTEMPTED) from None
    except NameError as error:
        raise _Stop(WRONG, f"{what} uses a name that is not defined yet ({_first_line(error)})",
                    "run the cells above this one first, top to bottom") from None
    except RecursionError:
        raise _Stop(WRONG, f"{what} went too deep (RecursionError)",
                    "Python allows about a thousand nested calls: walk with a loop and a list "
                    "of your own instead of calling yourself", crashed=True) from None
    except Exception as error:
        raise _Stop(WRONG, f"{what} raised {type(error).__name__}: {_first_line(error)}",
                    _crash_hint(error), crashed=True) from None


_TEACHGRAD_DIR = Path(teachgrad.__file__).resolve().parent


def _crash_hint(error):
    """Point at PyTorch's words only in an error that teachgrad itself raised (as PyTorch
    would); a Python error in the student's own code gets no such advice."""
    frames = traceback.extract_tb(error.__traceback__)
    where = Path(frames[-1].filename).resolve() if frames else None
    if where is not None and where.is_relative_to(_TEACHGRAD_DIR) \
            and not where.is_relative_to(_TEACHGRAD_DIR / "course"):
        return "read the error's first words: they are the same as PyTorch's"
    return None


def _resolve(answer, what="your answer"):
    """The answer's value: call it when it is a function; a stub or ``...`` is not attempted."""
    if _is_function(answer):
        answer = _call(answer, what=what)
    if answer is Ellipsis:
        raise _Stop(NOT_ATTEMPTED)
    return answer


# ---------------------------------------------------------------- comparing values

def _shape_text(shape):
    return "(" + ", ".join(str(int(s)) for s in shape) + ("," if len(shape) == 1 else "") + ")"


def _as_array(obj):
    """A numpy array for a tensor, array, number or nested list of numbers; else None."""
    if isinstance(obj, Tensor):
        return np.asarray(obj.detach().numpy())
    if isinstance(obj, (np.ndarray, np.generic, int, float, bool)):
        return np.asarray(obj)
    if isinstance(obj, (list, tuple)) and obj:
        try:
            array = np.asarray([_as_array(item) if isinstance(item, Tensor) else item
                                for item in obj])
        except (ValueError, TypeError):
            return None
        return array if array.dtype.kind in "biuf" else None
    return None


def _is_numeric(obj):
    if isinstance(obj, (Tensor, np.ndarray)):
        return True
    return isinstance(obj, (int, float, np.number)) and not isinstance(obj, (bool, np.bool_))


def _broadcast_dims(big, small):
    """The dims of ``big`` that broadcasting ``small`` to ``big`` created or stretched."""
    lead = len(big) - len(small)
    return list(range(lead)) + [lead + i for i, s in enumerate(small)
                                if s == 1 and big[lead + i] != 1]


def _shape_hint(got, want, gradient):
    """Why an answer might have the wrong shape — the broadcast sum above all."""
    try:
        common = tuple(np.broadcast_shapes(got, want))
    except ValueError:
        common = None
    if common == tuple(got):
        dims = _broadcast_dims(got, want)
        dims_text = f"dim {dims[0]}" if len(dims) == 1 else "dims " + ", ".join(map(str, dims))
        return (f"the tensor was broadcast in the forward pass: sum the gradient over {dims_text}"
                f" (keepdim=True where the shape keeps a 1) to get back its shape"
                if gradient else
                f"sum over the broadcast {dims_text} to get back the shape {_shape_text(want)}")
    if common == tuple(want):
        return ("a gradient has exactly the shape of its tensor: you reduced over too many "
                "dimensions" if gradient else
                "you reduced over too many dimensions (or forgot keepdim=True)")
    if int(np.prod(got)) == int(np.prod(want)):
        return "the same number of entries in another layout: transposed or reshaped?"
    return "a gradient always has the shape of the tensor it belongs to" if gradient else None


def _values_hint(got, want, gradient):
    """A guess at the mistake behind wrong numbers: a sign, a factor, a transpose."""
    if not np.any(got) and np.any(want):
        return ("it is all zeros — did backward reach this tensor?" if gradient
                else "it is all zeros")
    if np.allclose(got, -want, rtol=1e-4, atol=1e-6):
        return "the sign is flipped"
    nonzero = want != 0
    if np.any(nonzero) and np.array_equal(got == 0, ~nonzero):
        ratios = got[nonzero] / want[nonzero]
        # One number is always some factor off another: name a factor only when it is telling.
        telling = want.size > 1 or any(abs(r - round(r)) < 1e-4 and 2 <= round(r) <= 10
                                       for r in (abs(ratios[0]), 1 / abs(ratios[0])))
        if telling and np.allclose(ratios, ratios[0], rtol=1e-4):
            factor = f"it is off by a constant factor of {ratios[0]:.3g}"
            return factor + (": a factor missing or extra in the chain rule?" if gradient else "")
    if got.ndim == 2 and got.shape[0] == got.shape[1] and np.allclose(got.T, want):
        return "it looks transposed"
    return CHAIN_RULE_HINT if gradient else None


IGNORED_GRAD_OUTPUT_HINT = ("backward must multiply by the gradient it receives from above "
                            "(grad_output): it is right only when that gradient is all ones")
CHAIN_RULE_HINT = ("apply the chain rule one step at a time: the gradient arriving from above "
                   "times the local derivative")


def _pick_hint(what, specific, author):
    """The hint for a difference. A shape's own hint comes alone (an author's hint is about
    values); otherwise the author's, with a telling guess (a factor, a sign, a transpose)
    beside it in brackets; with no author's hint, the guess."""
    if author is None or "shape" in what:
        return specific or author
    if specific is None or specific == CHAIN_RULE_HINT:
        return author
    return f"{author} ({specific})"


def _numeric_difference(answer, expected, name, atol, rtol, gradient):
    want = _as_array(expected)
    got = _as_array(answer)
    if got is None:
        kind = "None" if answer is None else _a_kind(answer)
        hint = ("a gradient stays None until backward reaches its tensor" if answer is None
                and gradient else "return a tensor (or a number)")
        return f"{name}: {kind}, not a tensor of numbers", hint
    if got.shape != want.shape:
        return (f"{name}: shape {_shape_text(got.shape)}, expected {_shape_text(want.shape)}",
                _shape_hint(got.shape, want.shape, gradient))
    if want.dtype == bool or got.dtype == bool:
        bad = got != want
    else:
        bad = ~np.isclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol,
                          atol=atol, equal_nan=True)
    if not np.any(bad):
        return None
    where = "wrong value" if want.size == 1 else \
        f"wrong values at {int(bad.sum())} of {want.size} entries"
    got64, want64 = got.astype(np.float64), want.astype(np.float64)
    return f"{name}: {where}", _values_hint(got64, want64, gradient)


def _node_name(obj):
    """A node's class name, as its repr shows it: ``MulBackward0``, ``AccumulateGrad``.

    ``node.name()`` spells a few in C++ style (``torch::autograd::AccumulateGrad``); given as
    an answer, that spelling is accepted too.
    """
    if isinstance(obj, Node):
        return type(obj).__name__
    if isinstance(obj, str):
        return re.sub(r"^(torch|teachgrad)::autograd::", "", obj)
    return obj


def _difference(answer, expected, name="your answer", atol=1e-6, rtol=1e-5, gradient=False):
    """None when ``answer`` matches ``expected``; else (what differs, hint or None)."""
    if isinstance(expected, Node) or isinstance(answer, Node):
        answer, expected = _node_name(answer), _node_name(expected)
    if _is_numeric(expected) or (isinstance(expected, (list, tuple)) and expected
                                 and all(_is_numeric(e) for e in expected)):
        return _numeric_difference(answer, expected, name, atol, rtol, gradient)
    if isinstance(expected, dict):
        keys = "keep the keys the exercise's dict starts with"
        if not isinstance(answer, dict):
            return (f"{name}: {_a_kind(answer)}, expected a dict",
                    "return a dict, as the exercise's template does")
        missing = [k for k in expected if k not in answer]
        if missing:
            return f"{name}: no entry for {missing[0]!r}", keys
        extra = [k for k in answer if k not in expected]
        if extra:
            return f"{name}: an unexpected entry {extra[0]!r}", keys
        return _dict_difference(answer, expected, name, atol, rtol, gradient)
    if isinstance(expected, (list, tuple)):
        if not isinstance(answer, (list, tuple)):
            return f"{name}: {_a_kind(answer)}, expected a list", None
        if len(answer) != len(expected):
            return f"{name}: {len(answer)} items, expected {len(expected)}", None
        for i, (a, e) in enumerate(zip(answer, expected)):
            found = _difference(a, e, f"{name}[{i}]", atol, rtol, gradient)
            if found:
                return found
        return None
    if isinstance(expected, (bool, np.bool_)):
        if not isinstance(answer, (bool, np.bool_)):
            return f"{name}: {answer!r}, expected True or False", None
        return None if bool(answer) == bool(expected) else (f"{name}: not right", None)
    if isinstance(expected, str) and not isinstance(answer, str):
        return f"{name}: {_a_kind(answer)}, expected a str", None
    if answer == expected:
        return None
    return f"{name}: not right", None


def _dict_difference(answer, expected, name, atol, rtol, gradient):
    """Every wrong entry of a dict answer, not just the first: one alone is described in full,
    several are listed by key ("3 of 9 entries of your answer are off: a, c, e")."""
    wrong = {}
    for key in expected:
        found = _difference(answer[key], expected[key], f"{name}[{key!r}]", atol, rtol, gradient)
        if found:
            wrong[key] = found
    if len(wrong) <= 1:
        return next(iter(wrong.values()), None)
    keys = ", ".join(str(key) for key in wrong)
    first_hint = next(iter(wrong.values()))[1]
    return f"{len(wrong)} of {len(expected)} entries of {name} are off: {keys}", first_hint


# ---------------------------------------------------------------- the checks

@_checker
def value(answer, expected, *, name="your answer", atol=1e-6, rtol=1e-5, hint=None):
    """Compare any answer with the expected one.

    Tensors, arrays, numbers and lists of numbers are compared by shape, then by value
    (``np.isclose`` with ``atol``/``rtol``); a wrong shape that a broadcast explains gets the
    broadcast hint. Flags, names (a node counts as its name), ``None``, lists and dicts are
    compared exactly, item by item; the first difference is reported by its place, e.g.
    ``your answer['y']``.

        check.value(lambda: y.grad_fn, "MulBackward0", name="the node that made y")
    """
    answer = _resolve(answer)
    _stop_at_placeholders(answer, name)
    found = _difference(answer, expected, name, atol, rtol)
    if found:
        raise _Stop(WRONG, found[0], _pick_hint(*found, hint))


def _placeholders(answer):
    """(entries still ``...``, all entries) of a dict / list / tuple answer, at any depth."""
    if answer is Ellipsis:
        return 1, 1
    if isinstance(answer, dict):
        answer = list(answer.values())
    if not isinstance(answer, (list, tuple)):
        return 0, 1
    counts = [_placeholders(item) for item in answer]
    return sum(left for left, _ in counts), sum(total for _, total in counts)


def _stop_at_placeholders(answer, name):
    """A dict or list whose entries are all ``...`` is not attempted; some, unfinished."""
    if not isinstance(answer, (dict, list, tuple)):
        return
    left, total = _placeholders(answer)
    if left and left == total:
        raise _Stop(NOT_ATTEMPTED)
    if left:
        raise _Stop(WRONG, f"{left} of {total} entries of {name} are still ...",
                    "replace each ... with your answer")


_FLAG_HINTS = {
    "is_leaf": "a tensor is a leaf when no recorded operation made it: you created it, or it "
               "does not require grad",
    "requires_grad": "an operation's result requires grad when any of its inputs does (and "
                     "grad mode is on)",
    "retains_grad": "only a non-leaf tensor on which you called retain_grad() keeps its .grad",
    "grad_fn": "grad_fn names the node of the operation that made the tensor; leaves have None",
    "_version": "each in-place change (add_, x[i] = ..., mul_) of a tensor or of a view of it "
                "adds one to the shared version counter",
}


def _flag(tensor, flag):
    real = getattr(tensor, flag)
    if flag == "grad_fn":
        return None if real is None else _node_name(real)
    if flag == "grad":
        return real is not None       # predict: does it have a gradient?
    return real


@_checker
def leaf_flags(answer, tensors, *, flags=("is_leaf", "requires_grad"), hint=None):
    """Compare predicted flags of some tensors with their real values.

    ``tensors`` maps names to tensors; ``answer`` (or the function returning it) maps the same
    names to the predicted flags, ``{"x": {"is_leaf": True, "requires_grad": True}, ...}``.
    With a single flag, ``{"x": True, ...}`` is enough. ``flags`` are the ones the task asks
    about: ``is_leaf``, ``requires_grad``, ``retains_grad``, ``_version``, ``grad_fn``
    (predict the node's name, or None) and ``grad`` (predict whether ``.grad`` is set).
    The line names the tensors to look at again, never the flags' values.
    """
    answer = _resolve(answer, "your prediction")
    shape = "{" + ", ".join(f"{f!r}: ..." for f in flags) + "}"
    example = "{" + repr(next(iter(tensors), "x")) + ": " + (shape if len(flags) > 1 else "...") + "}"
    if not isinstance(answer, dict):
        raise _Stop(WRONG, f"your prediction is {_a_kind(answer)}, expected a dict",
                    f"one entry per tensor, like {example}")
    missing = [n for n in tensors if n not in answer]
    if missing:
        raise _Stop(WRONG, "no prediction for " + ", ".join(missing),
                    f"one entry per tensor, like {example}")
    unfilled, wrong, total = 0, [], 0
    for name, tensor in tensors.items():
        predicted = answer[name]
        if len(flags) == 1 and not isinstance(predicted, dict):
            predicted = {flags[0]: predicted}
        if not isinstance(predicted, dict):
            raise _Stop(WRONG, f"the prediction for {name} is not a dict",
                        f"one entry per tensor, like {example}")
        for flag in flags:
            total += 1
            guess = predicted.get(flag, ...)
            if guess is Ellipsis:
                unfilled += 1
            elif _difference(guess, _flag(tensor, flag)):
                wrong.append((name, flag))
    if unfilled == total:
        raise _Stop(NOT_ATTEMPTED)
    if unfilled:
        raise _Stop(WRONG, f"{unfilled} of {total} predictions are still ...",
                    "replace each ... with your prediction")
    if wrong:
        names = list(dict.fromkeys(name for name, _ in wrong))
        verb = "is" if len(wrong) == 1 else "are"
        raise _Stop(WRONG, f"{len(wrong)} of {total} predictions {verb} off (look again at "
                    f"{', '.join(names)})", hint or _FLAG_HINTS.get(wrong[0][1]))
    return f"all {total} predictions match teachgrad"


def _fresh(obj):
    """A copy that one call cannot disturb for the next: tensors become fresh leaves."""
    if isinstance(obj, Tensor):
        return obj.detach().clone().requires_grad_(obj.requires_grad)
    if isinstance(obj, np.ndarray):
        return obj.copy()
    if isinstance(obj, (list, tuple)):
        return type(obj)(_fresh(o) for o in obj)
    if isinstance(obj, dict):
        return {k: _fresh(v) for k, v in obj.items()}
    return obj


def _finite_differences(f, inputs, index, weights=None, eps=1e-6):
    """d sum(weights * f(inputs)) / d inputs[index] by central differences, in float64
    (weights of ones, the gradient of the sum, when none are given)."""
    arrays = [np.array(x.detach().numpy(), dtype=np.float64) if isinstance(x, Tensor) else x
              for x in inputs]
    target = arrays[index]
    flat = target.reshape(-1)
    grad = np.zeros_like(flat)

    def total():
        args = [teachgrad.tensor(a, dtype=teachgrad.float64) if isinstance(inputs[i], Tensor)
                else a for i, a in enumerate(arrays)]
        with teachgrad.no_grad():
            out = np.asarray(f(*args).detach().numpy(), dtype=np.float64)
        return float(np.sum(out if weights is None else weights * out))

    for i in range(flat.size):
        original = flat[i]
        flat[i] = original + eps
        plus = total()
        flat[i] = original - eps
        minus = total()
        flat[i] = original
        grad[i] = (plus - minus) / (2 * eps)
    return grad.reshape(target.shape)


def _input_names(f, inputs, names):
    if names is not None:
        return list(names)
    try:
        params = [p.name for p in inspect.signature(f).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []
    return [params[i] if i < len(params) else f"input {i}" for i in range(len(inputs))]


@_checker
def gradients(f, *inputs, answer=None, names=None, atol=1e-5, rtol=1e-4, hint=None):
    """Check gradients of ``f`` at ``inputs`` (the tensors that require grad).

    ``f(*inputs)`` returns a tensor; when it is not a scalar, the gradient of its sum is meant.

    - With ``answer`` — the student's gradients, one per input that requires grad, or
      better the student's function that computes them from the inputs: they are compared
      with teachgrad's autograd (and finite differences are consulted as a second opinion).
    - Without ``answer``, ``f``'s own backward is under test — say a custom Function the
      student wrote: teachgrad's backward through ``f`` is compared with finite differences.
      As in ``gradcheck``, the output is weighted by fixed random numbers (the gradient
      arriving from above is not all ones), so a backward that ignores it is caught.

    Every call gets fresh copies of the inputs, so no ``.grad`` is left behind. Inputs are
    named after ``f``'s parameters (or ``names=``). Finite differences run in float64.

        check.gradients(lambda x, w: (x * w).sigmoid().sum(), x, w, answer=my_grads)
        check.gradients(MyExp.apply, x)
    """
    if not all(isinstance(x, Tensor) for x in inputs) or \
            not any(x.requires_grad for x in inputs):
        raise ValueError("check.gradients needs tensor inputs, at least one requiring grad")
    labels = _input_names(f, inputs, names)
    wrt = [i for i, x in enumerate(inputs) if x.requires_grad]
    under_test = "backward" if answer is None else "f"

    weights = []      # the random weights of the output, when backward is under test

    def autograd():
        xs = _fresh(list(inputs))
        out = f(*xs)
        if not isinstance(out, Tensor):
            raise TypeError(f"f returned {_a_kind(out)}, not a tensor")
        if answer is None:
            weights.append(np.random.default_rng(0).standard_normal(tuple(out.shape)))
            seed = teachgrad.tensor(weights[0], dtype=out.dtype)
        else:
            seed = teachgrad.ones_like(out)
        grads = teachgrad.autograd.grad(out, [xs[i] for i in wrt], grad_outputs=seed,
                                        allow_unused=True)
        return [teachgrad.zeros_like(xs[i]) if g is None else g for i, g in zip(wrt, grads)]

    reference = _call(autograd, what="your backward" if answer is None else "f")
    numerical = [_finite_differences(f, inputs, i, weights[0] if weights else None)
                 for i in wrt]

    if answer is None:
        for i, got, fd in zip(wrt, reference, numerical):
            found = _difference(got, fd, f"backward's gradient of {labels[i]}", 1e-4, 1e-3,
                                gradient=True)
            if found:
                of_the_sum = _finite_differences(f, inputs, i)
                if _difference(got, of_the_sum, "", 1e-4, 1e-3) is None:
                    found = (found[0], IGNORED_GRAD_OUTPUT_HINT)
                raise _Stop(WRONG, found[0] + " (compared with finite differences)",
                            _pick_hint(*found, hint))
        return "backward agrees with finite differences"

    if _is_function(answer):
        given = _call(answer, *_fresh(list(inputs)), what="your gradient function")
    else:
        given = answer
    if given is Ellipsis:
        raise _Stop(NOT_ATTEMPTED)
    if not isinstance(given, (list, tuple)) or (len(wrt) == 1 and len(given) != 1):
        given = (given,)      # a single gradient, not wrapped in a tuple
    if len(given) != len(wrt):
        raise _Stop(WRONG, f"{len(given)} gradients given, expected one per input that "
                    f"requires grad ({', '.join(labels[i] for i in wrt)})",
                    "return them as a tuple, in the order of the inputs")
    for i, got, want in zip(wrt, given, reference):
        found = _difference(got, want, f"the gradient of {labels[i]}", atol, rtol, gradient=True)
        if found:
            raise _Stop(WRONG, found[0], _pick_hint(*found, hint))
    agrees = all(_difference(g, fd, "", 1e-4, 1e-3) is None for g, fd in zip(given, numerical))
    return ("agrees with teachgrad's autograd and with finite differences" if agrees
            else "agrees with teachgrad's autograd")


def _graph_nodes(roots):
    """Every node reachable from the roots, each once, in the order a depth-first walk finds them."""
    start = []
    for root in roots:
        node = root.grad_fn if isinstance(root, Tensor) else root
        if node is None:
            raise ValueError("check.node_names: a root has no grad_fn (is it a leaf?)")
        start.append(node)
    seen, order, stack = set(), [], list(reversed(start))
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        order.append(node)
        stack.extend(n for n, _ in reversed(node.next_functions) if n is not None)
    return order


# What node names look like: MulBackward0, MyExpBackward (a custom Function), AccumulateGrad.
_NODE_NAME = re.compile(r"^[A-Z]\w*Backward\d*$|^AccumulateGrad$|^CopySlices$")


@_checker
def node_names(answer, *roots, order=None, hint=None):
    """Compare a list of backward-graph nodes (or their names) with the graph of ``roots``.

    ``roots`` are tensors (their ``grad_fn`` is used) or nodes. The answer lists nodes or
    node names (``"MulBackward0"``, ``"AccumulateGrad"``).

    - ``order=None``: the same nodes, in any order (compared as a multiset of names).
    - ``order="topological"``: every node exactly once, each before all the nodes in its
      ``next_functions`` — the order in which backward may run them. Any valid order is
      accepted, so this checks a student's own topological sort. Names are accepted only
      where no two nodes of the graph share one.
    """
    if order not in (None, "topological"):
        raise ValueError("order must be None or 'topological'")
    answer = _resolve(answer, "your answer")
    nodes = _graph_nodes(roots)
    if not isinstance(answer, (list, tuple)):
        raise _Stop(WRONG, f"your answer is {_a_kind(answer)}, expected a list of nodes "
                    "or node names", "e.g. ['MulBackward0', 'AccumulateGrad', ...]")
    for i, item in enumerate(answer):
        if item is None:
            raise _Stop(WRONG, f"item {i} is None, not a node",
                        "a (None, 0) entry of next_functions is an input without a node: skip it")
        if not isinstance(item, (str, Node)):
            raise _Stop(WRONG, f"item {i} is {_a_kind(item)}, expected a node or its "
                        "name", "node names look like 'MulBackward0' or 'AccumulateGrad'")
    if order is None:
        given = Counter(_node_name(item) for item in answer)
        real = Counter(_node_name(node) for node in nodes)
        if given == real:
            return f"the same {len(nodes)} nodes as teachgrad's graph"
        missing, extra = sum((real - given).values()), sum((given - real).values())
        odd = [n for n in given if n not in real and not _NODE_NAME.search(n)]
        objects = [item for item in answer if not isinstance(item, str)]
        if len({id(item) for item in objects}) < len(objects):
            tip = ("a node appears more than once: a node reached along two paths is still one "
                   "node (keep a set of the nodes already seen)")
        elif odd:
            tip = ("node names look like 'MulBackward0' or 'AccumulateGrad' — "
                   "type(y.grad_fn).__name__ shows one")
        elif given["AccumulateGrad"] < real["AccumulateGrad"]:
            tip = "each leaf that requires grad ends in one AccumulateGrad node"
        elif given["AccumulateGrad"] > real["AccumulateGrad"]:
            tip = "only leaves that require grad get an AccumulateGrad node"
        else:
            tip = hint or "follow next_functions from the root all the way down"
        parts = [f"{missing} missing" if missing else "", f"{extra} extra" if extra else ""]
        raise _Stop(WRONG, f"your {len(answer)} nodes are not the graph's: "
                    + " and ".join(p for p in parts if p), tip)

    by_name = Counter(_node_name(node) for node in nodes)
    resolved = []
    for i, item in enumerate(answer):
        if isinstance(item, str):
            item = _node_name(item)
            if by_name[item] > 1:
                raise _Stop(WRONG, "some node names repeat in this graph, so names are ambiguous",
                            "list the node objects themselves, not their names")
            match = [n for n in nodes if _node_name(n) == item]
            if not match:
                raise _Stop(WRONG, f"item {i} ({item!r}) is not a node of this graph",
                            hint or "follow next_functions from the root")
            item = match[0]
        elif item not in set(nodes):
            raise _Stop(WRONG, f"item {i} ({_node_name(item)}) is not a node of this graph",
                        hint or "follow next_functions from the root")
        resolved.append(item)
    position = {}
    for i, node in enumerate(resolved):
        if node in position:
            raise _Stop(WRONG, f"{_node_name(node)} appears twice (items {position[node]} and {i})",
                        "visit each node once: keep a set of the nodes already seen")
        position[node] = i
    if len(position) < len(nodes):
        lost = len(nodes) - len(position)
        raise _Stop(WRONG, f"{lost} of the graph's {len(nodes)} nodes {'is' if lost == 1 else 'are'}"
                    " missing", "follow next_functions all the way down to the AccumulateGrad nodes")
    for node in resolved:
        for child, _ in node.next_functions:
            if child is not None and position[child] < position[node]:
                raise _Stop(WRONG, f"{_node_name(child)} (item {position[child]}) comes before "
                            f"{_node_name(node)} (item {position[node]}), which sends it a "
                            "gradient",
                            hint or "a node can run only after every node that sends it a "
                            "gradient: put each node before the nodes in its next_functions")
    return f"a valid topological order of all {len(nodes)} nodes"


def _exception_names(expected):
    types = expected if isinstance(expected, tuple) else (expected,)
    return " or ".join(t.__name__ for t in types)


@_checker
def raises(fn, expected=Exception, match=None, *, hint=None):
    """Check that calling ``fn()`` raises ``expected`` (a type or tuple of types).

    ``match``, if given, is a piece of text the error message must contain — PyTorch's first
    words, say. Use it for "make this fail" tasks:

        check.raises(break_the_graph, RuntimeError, "modified by an inplace operation")
    """
    types = expected if isinstance(expected, tuple) else (expected,)
    try:
        fn()
    except NotImplementedError as error:
        if NotImplementedError not in types:    # a stub (even where a RuntimeError is asked)
            raise _Stop(NOT_ATTEMPTED) from None
        caught = error
    except Exception as error:
        caught = error
    else:
        raise _Stop(WRONG, "no error was raised", hint or "the task asks for code that fails")
    if not isinstance(caught, types):
        raise _Stop(WRONG, f"it raised {type(caught).__name__}, not {_exception_names(expected)}"
                    f" ({_first_line(caught, 60)})", hint)
    if match is not None and match not in str(caught):
        raise _Stop(WRONG, f"it raised {type(caught).__name__}, but not the expected one "
                    f"(yours says: {_first_line(caught, 60)})", hint)
    return f"it raised {type(caught).__name__}: {_first_line(caught, 60)}"


def _describe(args):
    parts = []
    for arg in args:
        if isinstance(arg, Tensor):
            parts.append(f"a tensor of shape {_shape_text(arg.shape)}")
        elif isinstance(arg, Node):
            parts.append(_node_name(arg))
        elif isinstance(arg, (int, float, bool, str)) or arg is None:
            parts.append(repr(arg))
        else:
            parts.append(_a_kind(arg))
    return ", ".join(parts)


@_checker
def behaves_like(answer, reference, cases, *, atol=1e-6, rtol=1e-5, hint=None):
    """Run a student's function and teachgrad's own on each case; compare what they return.

    ``cases`` is a list of argument tuples (a single non-tuple argument is fine too). Each
    call gets fresh copies of tensor arguments (same values and ``requires_grad``), so one
    implementation cannot disturb the other. Where the reference raises, the answer must raise
    an exception of the same type.

        check.behaves_like(my_accumulate, reference_accumulate, [(None, g), (g, g)])
    """
    cases = list(cases)
    for k, args in enumerate(cases, 1):
        args = args if isinstance(args, tuple) else (args,)
        where = f"for case {k} of {len(cases)} ({_describe(args)})"
        try:
            want, want_error = reference(*_fresh(args)), None
        except Exception as error:
            want, want_error = None, error
        try:
            got = answer(*_fresh(args))
        except NotImplementedError:
            raise _Stop(NOT_ATTEMPTED) from None
        except Exception as error:
            if want_error is not None and isinstance(error, type(want_error)):
                continue
            raise _Stop(WRONG, f"{where}: your function raised {type(error).__name__}: "
                        f"{_first_line(error, 60)}", hint) from None
        if want_error is not None:
            raise _Stop(WRONG, f"{where}: your function returned, but teachgrad raises "
                        f"{type(want_error).__name__}", hint)
        found = _difference(got, want, "the result", atol, rtol)
        if found:
            raise _Stop(WRONG, f"{where}: {found[0]}", _pick_hint(*found, hint))
    return f"the same results as teachgrad on all {len(cases)} cases"


# ---------------------------------------------------------------- predictions in lectures

PREDICT_FIRST = "✎ write your prediction in place of ... and run this cell, then run the next one"


def predict(guess, actual, *, name="your prediction", hint=None):
    """Commit to a prediction before the lecture's next cell shows what happens.

    ``guess`` is the student's answer, ``...`` until they write one; ``actual`` is a function
    of no arguments that computes the truth (called only once there is a guess, so nothing is
    revealed before). The line says right or wrong and, when wrong, which part differs — never
    the answer: the next cell shows it.

        guess = ...          # how many links does y.grad_fn have?
        check.predict(guess, lambda: len(y.grad_fn.next_functions))
    """
    left, total = _placeholders(guess)
    if left:
        line = PREDICT_FIRST if left == total else \
            f"✎ {left} of {total} entries of {name} are still ...: fill them in first"
        print(line)
        return Result(NOT_ATTEMPTED, line)
    found = _difference(guess, actual() if _is_function(actual) else actual, name)
    if found is None:
        line = "✔ right — run the next cell and see why"
        status = CORRECT
    else:
        line = f"✘ {found[0]} — run the next cell and find out why"
        status = WRONG
        if found[1] or hint:
            line += f" (hint: {hint or found[1]})"
    print(line)
    return Result(status, line)
