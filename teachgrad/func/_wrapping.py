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


def handed_back(tree, keep_graph):
    """The transform's results: still in the graph if an outer transform needs them, else
    detached (keeping their tangents, for a ``jvp`` around us)."""
    from teachgrad.func._trees import flatten
    leaves, rebuild = flatten(tree)
    if keep_graph:
        return tree
    return rebuild([forward_ad.carry_tangents(leaf, leaf.detach())
                    if isinstance(leaf, Tensor) else leaf for leaf in leaves])


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
