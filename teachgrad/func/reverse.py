"""Reverse-mode transforms: ``grad``, ``grad_and_value``, ``vjp``, ``jacrev``.

Each runs the function on stand-ins for its inputs (``input_to_differentiate``) and calls
``autograd.grad``: one backward pass per gradient, so ``jacrev`` costs one pass per *output*
element. The gradient's graph is always built (``create_graph=True``), so that a transform
around this one, reverse (``grad(grad(f))``) or forward (``jacfwd(jacrev(f))``), can
differentiate it again; a result is detached when it depends on nothing from outside that
requires grad (``handed_back``).
"""
import functools

from teachgrad.autograd import grad_mode
from teachgrad.autograd.functional import grad as autograd_grad
from teachgrad.func._trees import flatten, unit_vectors
from teachgrad.func._wrapping import guarding_captured, handed_back, input_to_differentiate
from teachgrad.tensor import Tensor


def grad(func, argnums=0, has_aux=False):
    """``grad(f)(x)``: the gradient of the scalar ``f(x)`` with respect to ``x`` (the
    arguments ``argnums`` names), in the shape of that argument."""
    @functools.wraps(func)
    def gradient(*args, **kwargs):
        gradients, value = grad_and_value(func, argnums, has_aux)(*args, **kwargs)
        return (gradients, value[1]) if has_aux else gradients
    return gradient


def grad_and_value(func, argnums=0, has_aux=False):
    """``grad_and_value(f)(x)``: ``(gradient, f(x))`` from one forward and one backward."""
    @functools.wraps(func)
    def gradient_and_value(*args, **kwargs):
        chosen = _chosen_arguments(args, argnums)
        leaves, rebuild = flatten(chosen)
        grad_was_enabled = grad_mode.is_grad_enabled()
        stand_ins = [input_to_differentiate(leaf) for leaf in leaves]
        with grad_mode.enable_grad(), guarding_captured(func, _requires_grad):
            output = func(*_with_arguments(args, argnums, rebuild(stand_ins)), **kwargs)
            output, aux = _split_aux(output, has_aux, "grad_and_value(f)(*args)")
            _check_scalar(output)
            gradients = autograd_grad(output, stand_ins, create_graph=True, allow_unused=True)
        value = (output, aux) if has_aux else output
        gradients = _zeros_where_unused(gradients, stand_ins)
        return handed_back((rebuild(gradients), value), stand_ins, grad_was_enabled)
    return gradient_and_value


def vjp(func, *primals, has_aux=False):
    """``output, vjp_fn = vjp(f, *primals)``: ``vjp_fn(v)`` gives ``v^T J`` for each primal
    (a tuple), one backward pass per call."""
    leaves, rebuild = flatten(primals)
    grad_was_enabled = grad_mode.is_grad_enabled()
    stand_ins = [input_to_differentiate(leaf) for leaf in leaves]
    with grad_mode.enable_grad(), guarding_captured(func, _requires_grad):
        output = func(*rebuild(stand_ins))
        output, aux = _split_aux(output, has_aux, "vjp(f, *primals)")
    outputs, _ = flatten(output)

    def vjp_fn(cotangents):
        grad_is_enabled = grad_mode.is_grad_enabled()
        cotangent_leaves, _ = flatten(cotangents)
        with grad_mode.enable_grad():
            gradients = autograd_grad(outputs, stand_ins, cotangent_leaves, retain_graph=True,
                                      create_graph=True, allow_unused=True)
        gradients = _zeros_where_unused(gradients, stand_ins)
        return handed_back(rebuild(gradients), stand_ins, grad_is_enabled)

    returned = handed_back(output, stand_ins, grad_was_enabled)
    if has_aux:
        return returned, vjp_fn, handed_back(aux, stand_ins, grad_was_enabled)
    return returned, vjp_fn


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None):
    """The Jacobian by reverse mode: one backward pass (a ``vjp`` with a unit vector) per
    element of the output, each giving one row. Cheap when the output is small: the
    gradient of a loss is its only row. Its shape: the output's shape, then the input's."""
    @functools.wraps(func)
    def jacobian(*args, **kwargs):
        several = isinstance(argnums, tuple)
        chosen = _chosen_arguments(args, argnums)
        primals = chosen if several else (chosen,)

        def of_chosen(*values):
            return func(*_with_arguments(args, argnums, values if several else values[0]),
                        **kwargs)
        output, vjp_fn, *aux = vjp(of_chosen, *primals, has_aux=has_aux)
        outputs, rebuild_outputs = flatten(output)
        blocks = [stacked_by_leaf([vjp_fn(_unit(outputs, position, k))
                                   for k in range(out.numel())], out, primals)
                  for position, out in enumerate(outputs)]
        jac = rebuild_outputs([block if several else block[0] for block in blocks])
        return (jac, aux[0]) if has_aux else jac
    return jacobian


def _unit(outputs, position, k):
    """The cotangent that picks element ``k`` of output ``position``."""
    units = unit_vectors(outputs, position, k)
    return tuple(units) if len(outputs) > 1 else units[0]


def stacked_by_leaf(pieces, out, primals):
    """Stack one derivative per element of ``out`` (each shaped like ``primals``) into
    Jacobians shaped ``out.shape + leaf.shape``, in the structure of ``primals``."""
    from teachgrad.ops import shape
    leaves, rebuild = flatten(primals)
    pieces = [flatten(piece)[0] for piece in pieces]
    blocks = []
    for i, leaf in enumerate(leaves):
        if pieces:
            blocks.append(shape.stack([piece[i] for piece in pieces]).reshape(
                *out.shape, *leaf.shape))
        else:
            blocks.append(leaf.new_zeros((*out.shape, *leaf.shape)))
    return rebuild(blocks)


def _zeros_where_unused(gradients, stand_ins):
    """An input the output does not depend on has a gradient of zeros (PyTorch's too)."""
    return [s.new_zeros(s.shape) if g is None else g for g, s in zip(gradients, stand_ins)]


def _requires_grad(tensor):
    return isinstance(tensor, Tensor) and tensor.requires_grad


# ---- arguments, outputs and their checks ---------------------------------------------
def _chosen_arguments(args, argnums):
    """The argument(s) ``argnums`` names: one, or a tuple for a tuple of numbers."""
    numbers = argnums if isinstance(argnums, tuple) else (argnums,)
    for number in numbers:
        if not isinstance(number, int):
            raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(number)}")
        if not -len(args) <= number < len(args):
            raise RuntimeError(f"Got argnum={number}, but only {len(args)} positional inputs")
    if isinstance(argnums, tuple):
        return tuple(args[number] for number in argnums)
    return args[argnums]


def _with_arguments(args, argnums, values):
    """``args`` with the chosen argument(s) replaced by ``values``."""
    args = list(args)
    if isinstance(argnums, tuple):
        for number, value in zip(argnums, values):
            args[number] = value
    else:
        args[argnums] = values
    return args


def _split_aux(output, has_aux, call):
    if not has_aux:
        return output, None
    if not (isinstance(output, tuple) and len(output) == 2):
        raise RuntimeError(f"{call}: output of function f should be a tuple: (output, aux) "
                           f"if has_aux is True")
    for leaf in flatten(output[1])[0]:
        if not isinstance(leaf, Tensor):
            raise RuntimeError(f"Expected tensors, got unsupported type {type(leaf)}")
    return output


def _check_scalar(output):
    if not isinstance(output, Tensor):
        raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a Tensor, "
                           f"got {type(output)}")
    if output.dim() != 0:
        raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a scalar "
                           f"Tensor, got tensor with {output.dim()} dims. Maybe you wanted to "
                           f"use the vjp or jacrev APIs instead?")
