"""Forward-mode AD, as in ``torch.autograd.forward_ad``.

    with forward_ad.dual_level():
        x = forward_ad.make_dual(primal, tangent)     # x carries a direction v
        y = f(x)                                      # every op pushes v forward
        jvp = forward_ad.unpack_dual(y).tangent       # J_f(primal) @ v, in one pass

Reverse mode (``backward``) gives one row of the Jacobian per pass, forward mode one column.
A *dual tensor* is a tensor with a tangent attached at a *level*. Each operation whose inputs
carry tangents computes its output's tangent from the inputs' primals and tangents: its JVP
rule. The rules are not written here (this layer knows nothing of the operations): ops/
registers them with ``register_rules``, and ``Operation.apply`` calls ``propagate`` after its
forward. Leaving a level takes every tangent made at it off its tensor.

Levels nest (``teachgrad.func.jvp`` inside another ``jvp``); PyTorch's public
``dual_level`` allows one at a time, and so does ours. While the rule of level ``i`` runs,
the tangents of levels ``i`` and deeper are not pushed through the rule's own operations,
those of the outer levels are: so an inner tangent carries the outer derivative, and
``jacfwd(jacfwd(f))`` gives second derivatives.
"""
import re
import weakref
from collections import namedtuple

from teachgrad.autograd.graph import SavedTensor

__all__ = ["UnpackedDualTensor", "dual_level", "enter_dual_level", "exit_dual_level",
           "make_dual", "unpack_dual"]

UnpackedDualTensor = namedtuple("UnpackedDualTensor", ["primal", "tangent"])
UnpackedDualTensor.__doc__ = "What ``unpack_dual`` returns: the primal and its tangent (or None)."

active_levels = []       # the levels entered, outermost first: each a list of weak refs to
                         # the tensors holding a tangent at it
_rule_limits = []        # while level i's rule runs, only levels below i are pushed forward
                         # (see _pushing_only_below)
_rules = {}              # node class -> JVP rule, filled by ops/forward_rules.py
_fallback = None         # a rule for the classes without one (see register_rules)


def register_rules(rules, fallback=None):
    """Called by ops/forward_rules.py: ``rules`` maps a node class (``MulBackward0``) to
    ``rule(inputs, tangents, outputs, **params)``, which returns the output's tangent (a
    tuple for several outputs). ``fallback(cls, ...)`` serves the other classes."""
    global _fallback
    _rules.update(rules)
    _fallback = fallback


# ---- levels -----------------------------------------------------------------------
def enter_dual_level():
    """Open the level dual tensors live at and return its number (0: one at a time)."""
    if active_levels:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    return open_level()


def exit_dual_level(*, level=None):
    """Close the level: the tangents made at it are taken off their tensors."""
    if level is not None and level != len(active_levels) - 1:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one "
                           "that was created. This is not supported.")
    close_level()


def open_level():
    """A new level, nested or not: what ``teachgrad.func.jvp`` and ``jacfwd`` use."""
    active_levels.append([])
    return len(active_levels) - 1


def close_level():
    """Close the innermost level: the tangents made at it are taken off their tensors."""
    level = len(active_levels) - 1
    for ref in active_levels.pop():
        tensor = ref()
        if tensor is not None:
            tangents_of(tensor).pop(level, None)


class dual_level:
    """``with dual_level():`` the context in which dual tensors live (one at a time)."""

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, *exc_info):
        exit_dual_level()


# ---- dual tensors -------------------------------------------------------------------
def make_dual(tensor, tangent, *, level=None):
    """A view of ``tensor`` that carries ``tangent`` at ``level`` (the innermost by default)."""
    if not active_levels:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, "
                           "make sure to enter_dual_level() first.")
    level = len(active_levels) - 1 if level is None else level
    for name, value in (("primal", tensor), ("tangent", tangent)):
        if not value.dtype.is_floating_point:
            raise ValueError(f"Expected {name} to be floating point or complex, but got: "
                             f"{value.dtype}")
    if tangent.shape != tensor.shape:
        raise RuntimeError(f"Trying to set a forward gradient that has a different size than "
                           f"that of the original Tensor, this is not supported. Tensor is of "
                           f"size {list(tensor.shape)} while the given forward gradient is of "
                           f"size {list(tangent.shape)}.")
    with _pushing_only_below(level):      # (the tangents of outer levels stay on the view)
        dual = tensor.view(tensor.shape)
    set_tangent(dual, level, tangent)
    return dual


def unpack_dual(tensor, *, level=None):
    """``(primal, tangent)``: a view of ``tensor`` without its tangent, and the tangent at
    ``level`` (None where it has none, or outside any level)."""
    level = len(active_levels) - 1 if level is None else level
    with _pushing_only_below(max(level, 0)):      # (-1: outside any level)
        primal = tensor.view(tensor.shape)
    return UnpackedDualTensor(primal, tangent_of(tensor, level))


def tangent_of(tensor, level):
    """The tangent ``tensor`` carries at ``level``, or None."""
    return tangents_of(tensor).get(level)


def set_tangent(tensor, level, tangent):
    tensor.__dict__.setdefault("_tangents", {})[level] = tangent
    active_levels[level].append(weakref.ref(tensor))


def tangent_text(tensor):
    """How ``repr`` shows the tangent of the innermost level (None: no tangent)."""
    tangent = tangent_of(tensor, len(active_levels) - 1) if active_levels else None
    if tangent is None:
        return None
    return str(tangent.item()) if tangent.dim() == 0 else repr(tangent)


def tangents_of(tensor):
    """``{level: tangent}`` for every level at which ``tensor`` carries one."""
    return tensor.__dict__.get("_tangents", {})


def carry_tangents(source, target):
    """Give ``target`` the tangents ``source`` has (for a copy made outside the ops)."""
    for level, tangent in tangents_of(source).items():
        set_tangent(target, level, tangent)
    return target


def scratch_leaf(tensor):
    """Mark a leaf a rule makes for its own use (``transposed_backward``'s copies): a tangent
    that still leads to it in the graph depends on nothing the caller has."""
    tensor.__dict__["_scratch_leaf"] = True
    return tensor


def is_scratch_leaf(tensor):
    return tensor.__dict__.get("_scratch_leaf", False)


class _pushing_only_below:
    """Within it, operations push forward only the tangents of the levels below ``limit``
    (while level ``limit``'s rule runs: its own tangents are what the rule computes)."""

    def __init__(self, limit):
        self.limit = limit

    def __enter__(self):
        _rule_limits.append(self.limit)

    def __exit__(self, *exc_info):
        _rule_limits.pop()


def rules_paused():
    """Within it, no operation pushes a tangent forward (bookkeeping, a custom Function's
    forward: its ``jvp`` gives the tangents)."""
    return _pushing_only_below(0)


# ---- the hook that Operation.apply calls -------------------------------------------
def propagate(cls, inputs, outputs, params, node=None):
    """Give ``outputs`` their tangents at each level where an input has one."""
    limit = _rule_limits[-1] if _rule_limits else len(active_levels)
    pushed = False
    for level in range(limit):
        tangents = [tangent_of(t, level) for t in inputs]
        if all(tangent is None for tangent in tangents):
            continue
        tangents = [_zero_if_missing(t, tangent) for t, tangent in zip(inputs, tangents)]
        rule = _rules.get(cls)
        with _pushing_only_below(level):
            if rule is None:
                out_tangents = _fallback(cls, inputs, tangents, outputs, params)
            else:
                out_tangents = rule(inputs, tangents, outputs, **params)
        if not isinstance(out_tangents, tuple):
            out_tangents = (out_tangents,)
        for output, tangent in zip(outputs, out_tangents):
            if tangent is not None and output.dtype.is_floating_point:
                set_tangent(output, level, tangent)
                pushed = True
    if pushed and node is not None and node._recording and "result" in node._saved:
        # A saved output is normally kept without the tensor (no reference cycle); a
        # backward run under forward AD needs its tangent, so here the output itself is kept.
        # (The cycle ends when backward frees the saved tensors.)
        node._saved["result"] = SavedTensor(outputs[0], node)


def propagate_inplace(cls, inputs, result, params):
    """For ``target.op_(...)``: the new tangent, computed from the inputs as they are before
    ``result`` is written into the target, is written into the target's tangent in place,
    as PyTorch does: a view's tangent is a view of its base's, so the base's tangent (and
    the tensor given to ``make_dual``) changes too."""
    from teachgrad.tensor import Tensor
    target = inputs[0]
    output = Tensor._make(result)
    propagate(cls, inputs, (output,), params)
    for level, tangent in tangents_of(output).items():
        holder = _tangent_to_write(target, level)
        if holder._data.flags.writeable:
            holder._data[...] = tangent._data
        else:                       # (a broadcast tangent: the target gets one of its own)
            with rules_paused():
                set_tangent(target, level, tangent.expand(target.shape).contiguous())


def _tangent_to_write(target, level):
    """The target's tangent; a tensor without one gets zeros (a view, a view of zeros given
    to its base)."""
    existing = tangent_of(target, level)
    if existing is not None:
        return existing
    with rules_paused():
        if target._base is None:
            tangent = target.new_zeros(target.shape)
        else:
            base_tangent = tangent_of(target._base, level)
            if base_tangent is None:
                base_tangent = target._base.new_zeros(target._base.shape)
                set_tangent(target._base, level, base_tangent)
            tangent = target._view_replay(base_tangent)
    set_tangent(target, level, tangent)
    return tangent


def _zero_if_missing(tensor, tangent):
    """An input without a tangent moves with speed zero (None for an integer input)."""
    if tangent is not None or not tensor.dtype.is_floating_point:
        return tangent
    with rules_paused():
        return tensor.new_zeros(tensor.shape)


def not_implemented(name):
    """PyTorch's error for an operation without a forward derivative."""
    return NotImplementedError(
        f"Trying to use forward AD with {name} that does not support it because it has not "
        f"been implemented yet.\nPlease file an issue to PyTorch at "
        f"https://github.com/pytorch/pytorch/issues/new?template=feature-request.yml so that "
        f"we can prioritize its implementation or submit a PR adding the implementation")


# ---- function transforms (teachgrad.func) refuse to change a captured tensor --------
transforms_running = []    # one (message, captured tensors' ids, is_transformed) per transform


def refuse_captured_mutation(cls, target, others):
    """Called by ``Operation.apply_inplace`` while a transform runs: writing a value made
    inside the transform into a tensor the function captured from outside is refused, as
    in PyTorch (the captured tensor would keep a value of one level in a tensor of another)."""
    message, captured, is_transformed = transforms_running[-1]
    written_into = target if target._base is None else target._base
    if id(written_into) in captured and any(is_transformed(t) for t in others):
        raise RuntimeError(message.format(op=aten_name(cls)))


def aten_name(cls):
    """``AddBackward0`` -> ``aten::add_``: the in-place op's name, as PyTorch's errors give it."""
    stem = re.sub(r"Backwards?\d*$", "", cls.__name__)
    return "aten::" + re.sub(r"(?<!^)([A-Z])", r"_\1", stem).lower() + "_"
