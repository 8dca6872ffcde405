"""Forward-mode transforms: ``jvp``, ``jacfwd``, and ``hessian`` (forward over reverse).

``jvp`` opens a forward-AD level of its own (levels nest, so ``jacfwd(jacfwd(f))`` works),
makes its inputs dual tensors and reads the output's tangent: ``J v`` in one forward pass.
``jacfwd`` runs one such pass per *input* element, each giving one column of the Jacobian.
"""
import functools

from teachgrad.autograd import forward_ad, grad_mode
from teachgrad.func._trees import flatten, structure, unit_vectors
from teachgrad.func._wrapping import guarding_captured, handed_back
from teachgrad.func.reverse import _chosen_arguments, _split_aux, _with_arguments, jacrev
from teachgrad.tensor import Tensor

_CALL = "jvp(f, primals, tangents)"


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """``(f(*primals), J @ tangents)`` from one forward pass with dual tensors."""
    _check_primals_and_tangents(primals, tangents)
    primal_leaves, rebuild = flatten(primals)
    tangent_leaves, _ = flatten(tangents)
    level = forward_ad.open_level()
    try:
        duals = [forward_ad.make_dual(p, t, level=level)
                 for p, t in zip(primal_leaves, tangent_leaves)]
        with guarding_captured(func, lambda t: isinstance(t, Tensor)
                               and forward_ad.tangent_of(t, level) is not None):
            output = func(*rebuild(duals))
        output, aux = _split_aux(output, has_aux, _CALL)
        outputs, rebuild_outputs = flatten(output)
        for out in outputs:
            if not isinstance(out, Tensor):
                raise RuntimeError(f"{_CALL}: expected f(*primals) to return only tensors, "
                                   f"got unsupported type {type(out)}")
        unpacked = [forward_ad.unpack_dual(out, level=level) for out in outputs]
    finally:
        forward_ad.close_level()
    values = rebuild_outputs([u.primal for u in unpacked])
    speeds = rebuild_outputs([u.primal.new_zeros(u.primal.shape) if u.tangent is None
                              else u.tangent for u in unpacked])
    found = (values, speeds, aux) if has_aux else (values, speeds)
    return handed_back(found, (), grad_mode.is_grad_enabled())


def _check_primals_and_tangents(primals, tangents):
    if not isinstance(primals, tuple):
        raise RuntimeError(f"{_CALL}: Expected primals to be a tuple. E.g. it should be valid "
                           f"to call f(*primals).")
    if structure(primals) != structure(tangents):
        raise RuntimeError(f"{_CALL}: Expected primals and tangents to have the same python "
                           f"structure. For example, if primals is a tuple of 3 tensors, "
                           f"tangents also must be. Got primals with structure "
                           f"{structure(primals)} and tangents with structure "
                           f"{structure(tangents)}")


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """The Jacobian by forward mode: one ``jvp`` per element of the input, each giving one
    column. Cheap when the input is small. Same shape as ``jacrev``'s: output, then input."""
    @functools.wraps(func)
    def jacobian(*args, **kwargs):
        several = isinstance(argnums, tuple)
        chosen = _chosen_arguments(args, argnums)
        primals = chosen if several else (chosen,)
        leaves, rebuild = flatten(primals)

        def of_chosen(*values):
            return func(*_with_arguments(args, argnums, values if several else values[0]),
                        **kwargs)
        columns = []            # per input leaf: the output tangents, one list per element
        for i, leaf in enumerate(leaves):
            leaf_columns = []
            for k in range(leaf.numel()):
                result = jvp(of_chosen, primals, rebuild(unit_vectors(leaves, i, k)), has_aux=has_aux)
                leaf_columns.append(flatten(result[1])[0])
            columns.append(leaf_columns)
        outputs, rebuild_outputs = flatten(result[0])
        blocks = []
        for position, out in enumerate(outputs):
            per_leaf = [_stack_columns([column[position] for column in leaf_columns], out, leaf)
                        for leaf, leaf_columns in zip(leaves, columns)]
            per_primal = rebuild(per_leaf)
            blocks.append(per_primal if several else per_primal[0])
        jac = rebuild_outputs(blocks)
        return (jac, result[2]) if has_aux else jac
    return jacobian


def _stack_columns(columns, out, leaf):
    from teachgrad.ops import shape
    return shape.stack(columns, dim=-1).reshape(*out.shape, *leaf.shape)


def hessian(func, argnums=0):
    """The matrix of second derivatives: ``jacfwd(jacrev(f))``, forward over reverse, as
    PyTorch computes it (the gradient has as many elements as the input, so forward mode
    is the cheap way to differentiate it again)."""
    return jacfwd(jacrev(func, argnums), argnums)
