"""Differential testing: run one program on torch and on teachgrad and compare what it observed.

A *program* is a plain function ``prog(tg)`` written against the torch API; ``tg`` is the module
(``torch`` or ``teachgrad``).  It returns the things it wants compared -- tensors, graph nodes,
numbers, strings, lists, tuples, dicts.  :func:`run_both` runs it with both libraries and compares

* tensors: values (``np.testing.assert_allclose``, float32 tolerance by default), dtype by name,
  shape, ``requires_grad``, ``is_leaf``, ``grad_fn`` name, ``_version`` and ``.grad``;
* graph nodes: class names and ``next_functions`` (names and ``input_nr``), recursively;
* errors: the same exception type name, and teachgrad's message starting with torch's first line
  (or a prefix chosen per test, see ``msg=``);
* warnings (opt-in with ``warn=``): the same category and message start, the same number of times.

Inputs are made from numpy data (``data(...)``) and passed through ``tg.tensor(list_values)``, so
both libraries see identical numbers; nothing depends on a library's random generator.

Self-test mode: with ``TEACHGRAD_SELFTEST=1`` in the environment, importing this module makes
``import teachgrad`` resolve to torch, so every test compares torch with itself.  A green run in
that mode shows the tests themselves are right (expected errors, warnings, prefixes).
"""

from __future__ import annotations

import math
import os
import sys
import traceback
import warnings

import numpy as np

SELFTEST = os.environ.get("TEACHGRAD_SELFTEST") == "1"

DTYPE_NAMES = ("float32", "float64", "int64", "bool", "int32", "float16", "int8", "uint8", "int16")


def _install_selftest_alias():
    """In self-test mode, make ``teachgrad`` (and the submodules tests touch) be torch."""
    if not SELFTEST:
        return
    import torch  # noqa: F401  (only in self-test mode)
    import torch.autograd

    sys.modules["teachgrad"] = torch
    sys.modules["teachgrad.autograd"] = torch.autograd


_install_selftest_alias()


def libraries():
    """Return ``(torch, teachgrad)``; raise ImportError when either is missing."""
    import torch
    import teachgrad

    return torch, teachgrad


# --------------------------------------------------------------------------------------------
# data
# --------------------------------------------------------------------------------------------

def data(shape, seed=0, lo=-2.0, hi=2.0, *, away_from=None, dtype=np.float32):
    """Nested Python lists of float32-representable values (a scalar for shape ``()``).

    ``away_from=c`` keeps every value at least 0.1 away from ``c`` (kinks of abs/relu/clamp).
    """
    rng = np.random.default_rng(seed)
    arr = rng.uniform(lo, hi, size=shape).astype(dtype)
    if away_from is not None:
        near = np.abs(arr - away_from) < 0.1
        arr = np.where(near, arr + np.where(arr >= away_from, 0.2, -0.2), arr).astype(dtype)
    return arr.tolist()


def int_data(shape, seed=0, lo=-5, hi=5):
    rng = np.random.default_rng(seed)
    return rng.integers(lo, hi, size=shape).tolist()


def bool_data(shape, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.uniform(size=shape) < 0.5).tolist()


# --------------------------------------------------------------------------------------------
# normalising observations
# --------------------------------------------------------------------------------------------

class Missing:
    """An attribute that could not be read (the reason is kept for the failure message)."""

    def __init__(self, why):
        self.why = why

    def __eq__(self, other):
        return isinstance(other, Missing)

    def __repr__(self):
        return f"<missing: {self.why}>"


class Snap:
    """An observation already normalised (taken at a precise moment inside a program)."""

    def __init__(self, record):
        self.record = record


def is_tensor(x):
    return (not isinstance(x, type)) and hasattr(x, "grad_fn") and hasattr(x, "requires_grad") \
        and hasattr(x, "shape") and hasattr(x, "dtype")


def is_node(x):
    return (not isinstance(x, type)) and hasattr(x, "next_functions") and callable(getattr(x, "name", None))


def dtype_name(d):
    return str(d).split(".")[-1]


def node_name(n):
    return None if n is None else type(n).__name__


def _get(obj, attr):
    try:
        return getattr(obj, attr)
    except Exception as e:  # pragma: no cover - depends on the implementation under test
        return Missing(f"{attr}: {type(e).__name__}: {e}")


def _numpy_of(t):
    try:
        arr = t.detach().numpy()
    except Exception as e:
        return Missing(f"detach().numpy(): {type(e).__name__}: {e}")
    return np.array(arr, copy=True)


def tensor_record(t, *, grad=True, loose=False, version=True):
    """Everything comparable about a tensor.  ``loose`` keeps only value/dtype/shape/requires_grad
    (used for gradients, whose graph depends on how a backward formula is written)."""
    rec = {
        "kind": "tensor",
        "value": _numpy_of(t),
        "dtype": dtype_name(_get(t, "dtype")),
        "shape": tuple(int(s) for s in t.shape) if not isinstance(_get(t, "shape"), Missing) else _get(t, "shape"),
        "requires_grad": _get(t, "requires_grad"),
    }
    if loose:
        return rec
    fn = _get(t, "grad_fn")
    rec["grad_fn"] = fn if isinstance(fn, Missing) else node_name(fn)
    rec["is_leaf"] = _get(t, "is_leaf")
    if version:
        v = _get(t, "_version")
        rec["version"] = v if isinstance(v, Missing) else int(v)
    if grad:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            g = _get(t, "grad")
        rec["grad"] = g if (g is None or isinstance(g, Missing)) else tensor_record(g, loose=True)
    return rec


def graph_record(node, depth=None, _seen=None, _keep=None):
    """``(name, ((child, input_nr), ...))`` down to ``depth`` levels (None: all the way).
    Nodes met again are written ``("ref", k)`` with k their first-visit number, so sharing in the
    DAG is compared too.  depth=0 gives just the name."""
    if node is None:
        return None
    if _seen is None:
        _seen, _keep = {}, []
    _keep.append(node)  # keep wrappers alive so that id() is not reused during the walk
    key = id(node)
    if key in _seen:
        return ("ref", _seen[key])
    _seen[key] = len(_seen)
    name = node_name(node)
    if depth == 0:
        return (name,)
    nf = _get(node, "next_functions")
    if isinstance(nf, Missing):
        return (name, nf)
    children = tuple(
        (graph_record(child, None if depth is None else depth - 1, _seen, _keep), int(nr))
        for child, nr in nf
    )
    return (name, children)


class _Graph:
    def __init__(self, node, depth):
        self.node, self.depth = node, depth


def graph(node_or_tensor, depth=None):
    """Mark a node (or a tensor's grad_fn) to be compared as a graph structure."""
    node = node_or_tensor.grad_fn if is_tensor(node_or_tensor) else node_or_tensor
    return Snap(graph_record(node, depth))


def snap(x, **kw):
    """Normalise now (a snapshot of the current state); ``version=False`` leaves _version out."""
    return Snap(normalise(x, **kw))


def op_report(tg, op):
    """What an op test compares for ``y = op(tg, x)`` on a fixed 2x3 leaf ``x``: ``y``, the
    gradient of ``y.sum()`` and the node its graph ends in, and the second derivative.
    (Versions of gradients are left out: torch adds a second path's gradient in place.)"""
    x = tg.tensor([[1.5, -2.3, 0.5], [2.0, 0.1, -0.7]], requires_grad=True)
    y = op(tg, x)
    (g,) = tg.autograd.grad(y.sum(), x, create_graph=True)
    second = tg.autograd.grad(g.sum(), x, allow_unused=True)[0] if g.requires_grad else None
    return {"y": y, "grad": snap(g.detach(), version=False), "grad_node": node_name(g.grad_fn),
            "second": None if second is None else snap(second, version=False)}


def loose(x):
    """Snapshot comparing only value/dtype/shape/requires_grad of tensors (nested allowed)."""
    return Snap(normalise(x, loose=True))


def meta(t):
    """Shape, dtype and flags of a tensor, not its values (for rand/randn/empty)."""
    rec = tensor_record(t, grad=False)
    del rec["value"]
    return Snap(rec)


def name(t_or_node):
    """The grad_fn class name of a tensor, or the class name of a node."""
    n = t_or_node.grad_fn if is_tensor(t_or_node) else t_or_node
    return node_name(n)


_LIB_NAME = ["torch"]  # the module name replaced by "torch" in strings (set by run_one)


def _neutral(s):
    lib = _LIB_NAME[0]
    return s if lib == "torch" else s.replace(lib, "torch")


def normalise(x, *, loose=False, version=True):
    if isinstance(x, Snap):
        return x.record
    if x is None or isinstance(x, Missing):
        return x
    if isinstance(x, (bool, int, float)) and type(x) in (bool, int, float):
        return ("py", type(x).__name__, x)
    if isinstance(x, str):
        return ("str", _neutral(x))
    if isinstance(x, np.ndarray):
        return {"kind": "ndarray", "value": np.array(x, copy=True), "dtype": str(x.dtype), "shape": x.shape}
    if isinstance(x, np.generic):
        return ("npscalar", type(x).__name__, x.item())
    if is_tensor(x):
        return tensor_record(x, loose=loose, version=version)
    if is_node(x):
        return ("node", node_name(x))
    if isinstance(x, dict):
        return {"kind": "dict", "items": {k: normalise(v, loose=loose, version=version) for k, v in x.items()}}
    if isinstance(x, tuple):
        return ("tuple", [normalise(v, loose=loose, version=version) for v in x])
    if isinstance(x, list):
        return ("list", [normalise(v, loose=loose, version=version) for v in x])
    if isinstance(x, type) and issubclass(x, BaseException):
        return ("exctype", x.__name__)
    s = str(x)
    if s.split(".")[-1] in DTYPE_NAMES:
        return ("dtype", dtype_name(s))
    raise TypeError(f"differential.normalise: don't know how to compare {type(x).__name__}: {x!r}")


# --------------------------------------------------------------------------------------------
# running a program
# --------------------------------------------------------------------------------------------

class ErrInfo:
    def __init__(self, exc):
        self.type_name = type(exc).__name__
        self.mro = [c.__name__ for c in type(exc).__mro__]
        self.message = _neutral(str(exc))
        self.tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)[-12:])

    @property
    def first_line(self):
        return self.message.split("\n", 1)[0]

    def __repr__(self):
        return f"{self.type_name}({self.message!r})"


class Outcome:
    def __init__(self, lib_name, result=None, error=None, warns=()):
        self.lib_name, self.result, self.error, self.warns = lib_name, result, error, list(warns)

    def __repr__(self):
        return f"Outcome({self.lib_name}, error={self.error!r})"


def run_one(prog, lib):
    """Run ``prog(lib)``; return an :class:`Outcome` with the normalised result or the error and
    the list of ``(category name, message)`` warnings emitted while it ran."""
    _LIB_NAME[0] = lib.__name__
    result = error = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            raw = prog(lib)
            result = normalise(raw)
        except Exception as e:  # noqa: BLE001 - the point is to record any error
            error = ErrInfo(e)
        finally:
            try:  # a failing program must not leave grad mode off for the next test
                lib.set_grad_enabled(True)
            except Exception:
                pass
    warns = [(w.category.__name__, _neutral(str(w.message))) for w in caught]
    _LIB_NAME[0] = "torch"
    return Outcome(lib.__name__, result, error, warns)


# --------------------------------------------------------------------------------------------
# comparing
# --------------------------------------------------------------------------------------------

class Mismatch(AssertionError):
    pass


def _fail(path, what):
    raise Mismatch(f"at {path or '<result>'}: {what}")


def compare(expected, actual, path="", rtol=1e-5, atol=1e-6):
    """Compare two normalised records; ``expected`` is torch's."""
    if isinstance(expected, Missing) or isinstance(actual, Missing):
        if isinstance(expected, Missing):
            _fail(path, f"torch could not be observed: {expected!r} (bad test?)")
        _fail(path, f"teachgrad attribute missing/failed: {actual!r}")
    if expected is None or actual is None:
        if expected is not actual:
            _fail(path, f"torch gives {_short(expected)}, teachgrad gives {_short(actual)}")
        return
    if isinstance(expected, dict):
        if not isinstance(actual, dict) or expected.get("kind") != actual.get("kind"):
            _fail(path, f"torch gives {_short(expected)}, teachgrad gives {_short(actual)}")
        if expected["kind"] == "dict":
            ek, ak = set(expected["items"]), set(actual["items"])
            if ek != ak:
                _fail(path, f"keys differ: torch {sorted(map(str, ek))}, teachgrad {sorted(map(str, ak))}")
            for k in expected["items"]:
                compare(expected["items"][k], actual["items"][k], f"{path}[{k!r}]", rtol, atol)
            return
        # tensor / ndarray record: check metadata first, then values
        for key in expected:
            if key == "value":
                continue
            if key not in actual:
                _fail(path, f"teachgrad record lacks {key}")
            if key == "grad":
                compare(expected[key], actual[key], f"{path}.grad", rtol, atol)
                continue
            e, a = expected[key], actual[key]
            if isinstance(a, Missing):
                # both refusing to give it, with the same error, is agreement
                # (why: "attribute: ErrorType: message", compared up to the message's first colon)
                if isinstance(e, Missing) and e.why.split(":")[:3] == a.why.split(":")[:3]:
                    continue
                _fail(f"{path}.{key}", f"teachgrad attribute missing/failed: {a!r}")
            if e != a or type(e) is not type(a):
                _fail(f"{path}.{key}", f"torch {e!r} ({type(e).__name__}), teachgrad {a!r} ({type(a).__name__})")
        if "value" in expected:
            _compare_values(expected["value"], actual["value"], f"{path}.value", rtol, atol)
        return
    if isinstance(expected, tuple) and expected and expected[0] in ("py", "str", "npscalar", "dtype", "exctype", "node"):
        if not isinstance(actual, tuple) or not actual or actual[0] != expected[0]:
            _fail(path, f"torch gives {_short(expected)}, teachgrad gives {_short(actual)}")
        if expected[0] == "py":
            if expected[1] != actual[1]:
                _fail(path, f"python type: torch {expected[1]} {expected[2]!r}, teachgrad {actual[1]} {actual[2]!r}")
            e, a = expected[2], actual[2]
            if isinstance(e, float):
                if not (math.isclose(e, a, rel_tol=rtol, abs_tol=atol) or (math.isnan(e) and math.isnan(a))):
                    _fail(path, f"torch {e!r}, teachgrad {a!r}")
            elif e != a:
                _fail(path, f"torch {e!r}, teachgrad {a!r}")
            return
        if expected != actual:
            _fail(path, f"torch {expected!r}, teachgrad {actual!r}")
        return
    if isinstance(expected, tuple) and expected and expected[0] in ("tuple", "list"):
        if not isinstance(actual, tuple) or not actual or actual[0] not in ("tuple", "list"):
            _fail(path, f"torch gives a {expected[0]}, teachgrad gives {_short(actual)}")
        if expected[0] != actual[0]:
            _fail(path, f"torch gives a {expected[0]}, teachgrad a {actual[0]}")
        if len(expected[1]) != len(actual[1]):
            _fail(path, f"length: torch {len(expected[1])}, teachgrad {len(actual[1])}")
        for i, (e, a) in enumerate(zip(expected[1], actual[1])):
            compare(e, a, f"{path}[{i}]", rtol, atol)
        return
    # graph records: plain nested tuples of names / ints
    if expected != actual:
        _fail(path, f"torch {expected!r}\n   teachgrad {actual!r}")


def _compare_values(e, a, path, rtol, atol):
    if isinstance(a, Missing):
        _fail(path, f"teachgrad values unreadable: {a!r}")
    if e.shape != a.shape:
        _fail(path, f"shape torch {e.shape}, teachgrad {a.shape}")
    if e.dtype.kind in "biu" or a.dtype.kind in "biu":
        try:
            np.testing.assert_array_equal(a, e)
        except AssertionError as err:
            _fail(path, str(err))
        return
    try:
        np.testing.assert_allclose(a.astype(np.float64), e.astype(np.float64), rtol=rtol, atol=atol, equal_nan=True)
    except AssertionError as err:
        _fail(path, str(err))


def _short(rec):
    s = repr(rec)
    return s if len(s) < 300 else s[:300] + "..."


FIRST_LINE = "first_line"
UPTO_COLON = "upto_colon"
ANY = "any"  # for run_both(raises=ANY): torch may or may not raise (data-dependent programs)


def expected_prefix(torch_err, msg):
    first = torch_err.first_line
    if msg == FIRST_LINE:
        return first
    if msg == UPTO_COLON:
        return first.split(":", 1)[0]
    if isinstance(msg, str):
        return msg
    raise ValueError(msg)


def check_errors(t_err, g_err, msg=FIRST_LINE, contains=()):
    """Same exception type name, teachgrad's message starts with the chosen torch prefix and
    contains every fragment of ``contains`` (which torch's message must contain as well)."""
    prefix = expected_prefix(t_err, msg)
    if isinstance(msg, str) and msg not in (FIRST_LINE, UPTO_COLON):
        assert t_err.message.startswith(msg), \
            f"bad test: torch's message {t_err.message!r} does not start with {msg!r}"
    for frag in contains:
        assert frag in t_err.message, f"bad test: torch's message {t_err.message!r} lacks {frag!r}"
    if g_err.type_name != t_err.type_name:
        raise Mismatch(f"torch raised {t_err!r}; teachgrad raised {g_err!r}\n{g_err.tb}")
    if not g_err.message.startswith(prefix):
        raise Mismatch(f"{t_err.type_name} message differs.\n  torch:     {t_err.message!r}\n"
                       f"  teachgrad: {g_err.message!r}\n  required prefix: {prefix!r}")
    for frag in contains:
        if frag not in g_err.message:
            raise Mismatch(f"teachgrad's message {g_err.message!r} lacks {frag!r} (torch: {t_err.message!r})")


def check_outcomes(t_out, g_out, *, raises=None, msg=FIRST_LINE, contains=(), warn=None, warn_count=None,
                   rtol=1e-5, atol=1e-6):
    # 1. validate the test against torch
    if raises is None and t_out.error is not None:
        raise AssertionError(f"bad test: torch raised unexpectedly: {t_out.error!r}\n{t_out.error.tb}")
    if raises not in (None, ANY):
        assert t_out.error is not None, f"bad test: torch did not raise {raises}"
        assert raises in t_out.error.mro, f"bad test: torch raised {t_out.error!r}, expected {raises}"
    # 2. compare
    if t_out.error is not None or g_out.error is not None:
        if g_out.error is None:
            raise Mismatch(f"torch raised {t_out.error!r}; teachgrad did not (it returned {_short(g_out.result)})")
        if t_out.error is None:
            raise Mismatch(f"teachgrad raised {g_out.error!r}; torch did not.\n{g_out.error.tb}")
        check_errors(t_out.error, g_out.error, msg, contains)
    else:
        compare(t_out.result, g_out.result, "", rtol, atol)
    if warn is not None:
        category, prefix = warn
        tw = [w for w in t_out.warns if w[0] == category and w[1].startswith(prefix)]
        gw = [w for w in g_out.warns if w[1].startswith(prefix)]
        if warn_count is not None:
            assert len(tw) == warn_count, f"bad test: torch emitted {len(tw)} matching warnings: {t_out.warns}"
        else:
            assert tw, f"bad test: torch emitted no {category} starting {prefix!r}: {t_out.warns}"
        if len(gw) != len(tw):
            raise Mismatch(f"warnings starting {prefix!r}: torch {len(tw)}, teachgrad {len(gw)}; "
                           f"teachgrad emitted {g_out.warns}")
        bad = [w for w in gw if w[0] != category]
        if bad:
            raise Mismatch(f"warning category: torch {category}, teachgrad {bad}")
    return t_out, g_out


def run_both(prog, **kw):
    """Run ``prog`` with torch and teachgrad and compare (see :func:`check_outcomes`).

    raises:   None (torch must not raise), an exception type name torch must raise (checked through
              the MRO, so "RuntimeError" accepts GradcheckError), or ANY.
    msg:      FIRST_LINE (default), UPTO_COLON, or an explicit prefix string.
    contains: fragments both messages must contain.
    warn:     (category name, message prefix): both must emit the same number of such warnings
              (torch at least one, or exactly ``warn_count``).
    """
    torch, tg = libraries()
    t_out = run_one(prog, torch)
    g_out = run_one(prog, tg)
    return check_outcomes(t_out, g_out, **kw)
