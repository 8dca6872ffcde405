"""What every transform does around the function it runs: fresh inputs to differentiate with
respect to, the outputs handed back without the transform's own graph, and the guard against
writing into a tensor the function captured."""
import contextlib

from teachgrad.autograd import forward_ad
from teachgrad.tensor import Tensor

CAPTURED_MUTATION = (
    "During a grad (vjp, jvp, grad, etc) transform, the function provided attempted to call "
    "in-place operation ({op}) that would mutate a captured Tensor. This is not supported; "
    "please rewrite the function being transformed to explicitly accept the mutated "
    "Tensor(s) as inputs.")


def input_to_differentiate(tensor):
    """A tensor standing for ``tensor`` that autograd can differentiate with respect to.

    If ``tensor`` already belongs to a graph (an outer ``grad``), the stand-in is a view of
    it, so that the outer transform can differentiate through ours; else a fresh leaf. Either
    way it keeps the tangents of any ``jvp`` around us."""
    if not tensor.dtype.is_floating_point:
        raise RuntimeError("only Tensors of floating point dtype can require gradients")
    if tensor.requires_grad:
        return tensor.view_as(tensor)
    return forward_ad.carry_tangents(tensor, tensor.detach().requires_grad_())


def handed_back(tree, stand_ins, grad_was_enabled):
    """The transform's results, each still in the graph if it depends on a tensor from
    outside that requires grad (an input of an outer ``grad``, a parameter the function
    captured) and grad mode was on; else detached, keeping its tangents for a ``jvp``
    around us. The transform's own stand-ins do not count: they are gone after it."""
    from teachgrad.func._trees import flatten
    leaves, rebuild = flatten(tree)
    own = {id(s) for s in stand_ins}
    return rebuild([_outside_part(leaf, own, grad_was_enabled) if isinstance(leaf, Tensor)
                    else leaf for leaf in leaves])


def _outside_part(tensor, own, grad_was_enabled):
    """``tensor`` as it is, or detached; its tangents, by the same rule, stay on it."""
    if grad_was_enabled and _reaches_outside(tensor, own):
        return tensor
    plain = tensor.detach()
    for level, tangent in forward_ad.tangents_of(tensor).items():
        forward_ad.set_tangent(plain, level, _outside_part(tangent, own, grad_was_enabled))
    return plain


def _reaches_outside(tensor, own):
    """Does ``tensor``'s graph lead to a leaf that requires grad, other than ``own``'s?"""
    if tensor.grad_fn is None:
        return tensor.requires_grad and id(tensor) not in own
    seen, waiting = set(), [tensor.grad_fn]
    while waiting:
        node = waiting.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        variable = getattr(node, "variable", None)
        if variable is not None and id(variable) not in own \
                and not forward_ad.is_scratch_leaf(variable):
            return True
        waiting.extend(next_node for next_node, _ in node.next_functions)
    return False


def captured_tensors(function):
    """The ids of the tensors ``function`` reaches from outside: its closure, the globals
    it names, its defaults, and a module's parameters and buffers."""
    from teachgrad.nn import Module
    values = [getattr(function, "__self__", None)]
    code = getattr(function, "__code__", None)
    if code is not None:
        values += [cell.cell_contents for cell in function.__closure__ or ()
                   if cell.cell_contents is not None]
        values += [function.__globals__[name] for name in code.co_names
                   if name in function.__globals__]
        values += list(function.__defaults__ or ())
    values.append(function)
    found = set()
    for value in values:
        if isinstance(value, Tensor):
            found.add(id(value))
        elif isinstance(value, Module):
            found.update(id(t) for t in (*value.parameters(), *value.buffers()))
    return found


@contextlib.contextmanager
def guarding_captured(function, is_transformed, message=CAPTURED_MUTATION):
    """While ``function`` runs, an in-place write of a transformed value into a captured
    tensor raises PyTorch's error (see ``forward_ad.refuse_captured_mutation``)."""
    forward_ad.transforms_running.append((message, captured_tensors(function), is_transformed))
    try:
        yield
    finally:
        forward_ad.transforms_running.pop()
