"""Linear algebra compared with torch: einsum, tensordot, kron, cross, det / slogdet / logdet,
inverse, solve, cdist, dist and the torch.linalg norms. For each: values, the whole graph of
the result, the gradients and the nodes they end in, second derivatives, saved attributes,
and the errors for bad input, in float32 and float64, batched and broadcast."""
import subprocess
import sys

import numpy as np
import pytest

try:
    from . import differential as D
except ImportError:
    import differential as D

torch = pytest.importorskip("torch")
run = D.run_both

VERSION_MSG = "one of the variables needed for gradient computation has been modified by an inplace operation"
TOLERANCES = {"float32": {"rtol": 1e-4, "atol": 1e-5}, "float64": {}}


def _leaf(tg, shape, seed, dtype, invertible=False):
    """A leaf of ``shape`` with fixed values; ``invertible``: its matrices are far from
    singular (a multiple of the identity is added), so float32 inverses agree closely."""
    values = np.array(D.data(shape, seed=seed))
    if invertible:
        values = values + 4 * np.eye(shape[-1])
    return tg.tensor(values.tolist(), dtype=getattr(tg, dtype), requires_grad=True)


def _second_derivative_error(error):
    return f"{type(error).__name__}: {str(error).splitlines()[0]}"


def report(tg, op, shapes, dtype, invertible=()):
    """``y = op(tg, *leaves)``: y and its whole graph; the gradients of ``y.sum()`` and the
    nodes they end in; the second derivatives (of the sum of the gradients), or the error
    a second derivative raises."""
    leaves = [_leaf(tg, shape, seed, dtype, seed in invertible) for seed, shape in enumerate(shapes)]
    y = op(tg, *leaves)
    grads = tg.autograd.grad(y.sum(), leaves, create_graph=True, allow_unused=True)
    result = {"y": y, "graph": D.graph(y),
              "grads": [None if g is None else D.snap(g.detach(), version=False) for g in grads],
              "grad_nodes": [None if g is None else D.node_name(g.grad_fn) for g in grads]}
    differentiable = [g for g in grads if g is not None and g.requires_grad]
    if differentiable:
        try:
            second = tg.autograd.grad(sum(g.sum() for g in differentiable), leaves,
                                      allow_unused=True)
        except (RuntimeError, NotImplementedError) as error:
            result["second"] = _second_derivative_error(error)
        else:       # (+ 0: torch gives a zero as a ZeroTensor, which has no numpy values)
            result["second"] = [None if s is None else D.snap(s + 0, version=False) for s in second]
    return result


OPS = {
    # einsum, with the equations students write
    "einsum_matmul": (lambda tg, a, b: tg.einsum("ij,jk->ik", a, b), [(3, 3), (3, 4)]),
    "einsum_implicit_output": (lambda tg, a, b: tg.einsum("ij,jk", a, b), [(3, 3), (3, 4)]),
    "einsum_trace": (lambda tg, a: tg.einsum("ii->", a), [(3, 3)]),
    "einsum_trace_implicit": (lambda tg, a: tg.einsum("ii", a), [(3, 3)]),
    "einsum_diagonal": (lambda tg, a: tg.einsum("ii->i", a), [(3, 3)]),
    "einsum_diagonal_of_3d": (lambda tg, a: tg.einsum("iii->i", a), [(2, 2, 2)]),
    "einsum_transpose": (lambda tg, a: tg.einsum("ij->ji", a), [(2, 3)]),
    "einsum_column_sums": (lambda tg, a: tg.einsum("ij->j", a), [(2, 3)]),
    "einsum_sum_of_all": (lambda tg, a: tg.einsum("ij->", a), [(2, 3)]),
    "einsum_outer": (lambda tg, a, b: tg.einsum("i,j->ij", a, b), [(3,), (4,)]),
    "einsum_dot": (lambda tg, a, b: tg.einsum("i,i->", a, b), [(3,), (3,)]),
    "einsum_elementwise": (lambda tg, a, b: tg.einsum("ij,ij->ij", a, b), [(2, 3), (2, 3)]),
    "einsum_row_dots": (lambda tg, a, b: tg.einsum("ij,ij->i", a, b), [(2, 3), (2, 3)]),
    "einsum_size_one_broadcasts": (lambda tg, a, b: tg.einsum("ij,ij->ij", a, b), [(3, 1), (3, 4)]),
    "einsum_batch_matmul": (lambda tg, a, b: tg.einsum("bij,bjk->bik", a, b), [(2, 3, 4), (2, 4, 5)]),
    "einsum_batch_times_matrix": (lambda tg, a, b: tg.einsum("bij,jk->bik", a, b), [(2, 3, 4), (4, 5)]),
    "einsum_output_order_swapped": (lambda tg, a, b: tg.einsum("ij,jk->ki", a, b), [(2, 3), (3, 4)]),
    "einsum_repeated_and_shared": (lambda tg, a, b: tg.einsum("ii,ij->j", a, b), [(3, 3), (3, 4)]),
    "einsum_ellipsis_transpose": (lambda tg, a: tg.einsum("...ij->...ji", a), [(2, 3, 4)]),
    "einsum_ellipsis_broadcast": (lambda tg, a, b: tg.einsum("...i,...i->...", a, b), [(2, 1, 3), (4, 3)]),
    "einsum_ellipsis_summed": (lambda tg, a: tg.einsum("...ij->ij", a), [(2, 3, 4)]),
    "einsum_ellipsis_implicit": (lambda tg, a, b: tg.einsum("b...j,jk", a, b), [(2, 3, 4), (4, 2)]),
    "einsum_three_operands": (lambda tg, a, b, c: tg.einsum("ij,jk,kl->il", a, b, c), [(2, 3), (3, 4), (4, 2)]),
    "einsum_bilinear": (lambda tg, a, b, c: tg.einsum("bi,ij,bj->b", a, b, c), [(2, 3), (3, 3), (2, 3)]),
    "einsum_uppercase_and_spaces": (lambda tg, a, b: tg.einsum(" Ab , bC -> CA ", a, b), [(2, 3), (3, 4)]),
    "einsum_operand_list": (lambda tg, a, b: tg.einsum("ij,jk->ik", [a, b]), [(2, 3), (3, 4)]),
    "einsum_sublist_format": (lambda tg, a, b: tg.einsum(a, [0, 1], b, [1, 2], [0, 2]), [(2, 3), (3, 4)]),
    "einsum_sublist_ellipsis": (lambda tg, a: tg.einsum(a, [Ellipsis, 0, 0], [Ellipsis, 0]), [(2, 3, 3)]),
    # tensordot
    "tensordot_default_two_dims": (lambda tg, a, b: tg.tensordot(a, b), [(2, 3, 4), (3, 4, 5)]),
    "tensordot_one_dim": (lambda tg, a, b: tg.tensordot(a, b, 1), [(3, 4), (4, 5)]),
    "tensordot_zero_dims": (lambda tg, a, b: tg.tensordot(a, b, dims=0), [(2,), (3,)]),
    "tensordot_lists": (lambda tg, a, b: tg.tensordot(a, b, ([1, 2], [1, 0])), [(2, 3, 4), (4, 3, 5)]),
    "tensordot_negative_dims": (lambda tg, a, b: tg.tensordot(a, b, ([-1], [0])), [(2, 3), (3, 4)]),
    "tensordot_size_one_summed": (lambda tg, a, b: tg.tensordot(a, b, ([1], [0])), [(3, 1), (4, 3)]),
    "tensordot_tensor_dims": (lambda tg, a, b: tg.tensordot(a, b, tg.tensor(1)), [(2, 3), (3, 4)]),
    # kron
    "kron_matrices": (lambda tg, a, b: tg.kron(a, b), [(2, 2), (2, 3)]),
    "kron_vectors": (lambda tg, a, b: tg.kron(a, b), [(3,), (2,)]),
    "kron_matrix_and_vector": (lambda tg, a, b: a.kron(b), [(2, 3), (4,)]),
    "kron_3d": (lambda tg, a, b: tg.kron(a, b), [(2, 1, 2), (1, 2, 2)]),
    # cross
    "linalg_cross": (lambda tg, a, b: tg.linalg.cross(a, b), [(4, 3), (4, 3)]),
    "linalg_cross_dim": (lambda tg, a, b: tg.linalg.cross(a, b, dim=0), [(3, 2), (3, 2)]),
    "linalg_cross_broadcast": (lambda tg, a, b: tg.linalg.cross(a, b), [(4, 3), (1, 3)]),
    "cross_dim": (lambda tg, a, b: tg.cross(a, b, dim=1), [(2, 3), (2, 3)]),
    "cross_method": (lambda tg, a, b: a.cross(b, dim=1), [(2, 3, 3), (2, 3, 3)]),
    "cross_vectors": (lambda tg, a, b: tg.cross(a, b, dim=0), [(3,), (3,)]),
    # determinants
    "det": (lambda tg, a: tg.det(a), [(3, 3)]),
    "det_batched": (lambda tg, a: tg.linalg.det(a), [(2, 3, 3)]),
    "det_method_1x1": (lambda tg, a: a.det(), [(1, 1)]),
    "det_times_itself": (lambda tg, a: a.det() * a.det(), [(2, 2)]),
    "slogdet_logabsdet": (lambda tg, a: tg.slogdet(a)[1], [(3, 3)]),
    "slogdet_batched": (lambda tg, a: tg.linalg.slogdet(a).logabsdet, [(2, 3, 3)]),
    "slogdet_method_sign": (lambda tg, a: a.slogdet().sign * 1, [(3, 3)]),
    "logdet_positive_definite": (lambda tg, a: tg.logdet(a @ a.mT), [(3, 3)]),
    "logdet_method_batched": (lambda tg, a: (a @ a.mT).logdet(), [(2, 3, 3)]),
    # inverses and solves
    "inverse": (lambda tg, a: tg.inverse(a), [(3, 3)]),
    "inverse_batched": (lambda tg, a: tg.linalg.inv(a), [(2, 3, 3)]),
    "inverse_method": (lambda tg, a: a.inverse() @ a, [(3, 3)]),
    "solve_matrix": (lambda tg, a, b: tg.linalg.solve(a, b), [(3, 3), (3, 2)]),
    "solve_vector": (lambda tg, a, b: tg.linalg.solve(a, b), [(3, 3), (3,)]),
    "solve_batch_of_vectors": (lambda tg, a, b: tg.linalg.solve(a, b), [(2, 3, 3), (2, 3)]),
    "solve_broadcast_matrix": (lambda tg, a, b: tg.linalg.solve(a, b), [(3, 3), (2, 3, 2)]),
    "solve_broadcast_batch": (lambda tg, a, b: tg.linalg.solve(a, b), [(2, 3, 3), (3, 4)]),
    # distances
    "cdist": (lambda tg, a, b: tg.cdist(a, b), [(4, 3), (5, 3)]),
    "cdist_p1": (lambda tg, a, b: tg.cdist(a, b, p=1), [(4, 3), (5, 3)]),
    "cdist_p3": (lambda tg, a, b: tg.cdist(a, b, p=3.0), [(4, 3), (5, 3)]),
    "cdist_p_between_1_and_2": (lambda tg, a, b: tg.cdist(a, b, p=1.5), [(4, 3), (5, 3)]),
    "cdist_p_below_1": (lambda tg, a, b: tg.cdist(a, b, p=0.5), [(4, 3), (5, 3)]),
    "cdist_p_inf": (lambda tg, a, b: tg.cdist(a, b, p=float("inf")), [(4, 3), (5, 3)]),
    "cdist_p0": (lambda tg, a, b: tg.cdist(a, b, p=0), [(4, 3), (5, 3)]),
    "cdist_batched": (lambda tg, a, b: tg.cdist(a, b), [(2, 4, 3), (2, 5, 3)]),
    "cdist_broadcast_batch": (lambda tg, a, b: tg.cdist(a, b, p=1), [(2, 1, 4, 3), (3, 5, 3)]),
    "cdist_many_rows_uses_matmul": (lambda tg, a, b: tg.cdist(a, b), [(30, 3), (27, 3)]),
    "cdist_matmul_asked_for": (lambda tg, a, b: tg.cdist(a, b, compute_mode="use_mm_for_euclid_dist"),
                               [(4, 3), (5, 3)]),
    "cdist_matmul_refused": (lambda tg, a, b: tg.cdist(a, b, compute_mode="donot_use_mm_for_euclid_dist"),
                             [(30, 3), (27, 3)]),
    "cdist_matmul_batched": (lambda tg, a, b: tg.cdist(a, b), [(2, 30, 3), (2, 26, 3)]),
    "cdist_matmul_broadcast_batch": (lambda tg, a, b: tg.cdist(a, b), [(2, 1, 26, 3), (3, 4, 3)]),
    "dist": (lambda tg, a, b: tg.dist(a, b), [(2, 3), (2, 3)]),
    "dist_p1": (lambda tg, a, b: tg.dist(a, b, 1), [(2, 3), (2, 3)]),
    "dist_p3": (lambda tg, a, b: a.dist(b, 3), [(2, 3), (2, 3)]),
    "dist_p_between_1_and_2": (lambda tg, a, b: tg.dist(a, b, 1.5), [(2, 3), (2, 3)]),
    "dist_p_below_1": (lambda tg, a, b: tg.dist(a, b, 0.5), [(2, 3), (2, 3)]),
    "dist_p_inf": (lambda tg, a, b: tg.dist(a, b, float("inf")), [(2, 3), (2, 3)]),
    "dist_p_minus_inf": (lambda tg, a, b: tg.dist(a, b, -float("inf")), [(2, 3), (2, 3)]),
    "dist_broadcast": (lambda tg, a, b: tg.dist(a, b), [(2, 3), (3,)]),
}
INVERTIBLE = {"inverse", "inverse_batched", "inverse_method", "solve_matrix", "solve_vector",
              "solve_batch_of_vectors", "solve_broadcast_matrix", "solve_broadcast_batch"}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", sorted(OPS))
def test_values_graphs_gradients_and_second_derivatives(case, dtype):
    op, shapes = OPS[case]
    invertible = (0,) if case in INVERTIBLE else ()
    run(lambda tg: report(tg, op, shapes, dtype, invertible), **TOLERANCES[dtype])


def test_integer_einsum_tensordot_kron_and_cross():
    def prog(tg):
        a, b = tg.tensor([[1, 2, 3], [4, 5, 6]]), tg.tensor([[7, 8, 9], [1, 0, -1]])
        return {"einsum": tg.einsum("ij,kj->ik", a, b), "tensordot": tg.tensordot(a, b.t(), 1),
                "kron": tg.kron(a, b), "cross": tg.linalg.cross(a, b)}
    run(prog)


def test_mixed_dtypes_promote_where_torch_promotes():
    def prog(tg):
        a, b = tg.ones(2, 3), tg.ones(2, 3, dtype=tg.float64)
        return {"kron": tg.kron(a, b), "dist": tg.dist(a, b), "elementwise": tg.einsum("ij,ij->ij", a, b),
                "dist_of_integers_and_floats": tg.dist(tg.ones(3, dtype=tg.int64), tg.ones(3) * 2)}
    run(prog)


def test_empty_and_size_one_matrices():
    def prog(tg):
        return {"det_0x0": tg.det(tg.ones(0, 0)), "det_batch_of_0x0": tg.det(tg.ones(2, 0, 0)),
                "inverse_0x0": tg.linalg.inv(tg.ones(0, 0)), "inverse_1x1": tg.inverse(tg.tensor([[4.0]])),
                "cdist_no_columns": tg.cdist(tg.ones(2, 0), tg.ones(3, 0)),
                "cdist_no_rows": tg.cdist(tg.ones(0, 2), tg.ones(3, 2))}
    run(prog)


# ---- saved attributes -----------------------------------------------------------------------
def _saved(node, names):
    """The node's saved attributes ``names`` (a saved tensor with the node it belongs to)."""
    record = {}
    for name in names:
        value = getattr(node, f"_saved_{name}")
        record[name] = (D.snap(value, version=False), D.node_name(value.grad_fn)) \
            if D.is_tensor(value) else value
    return record


DETERMINANT = ("A", "LU", "pivots", "result")
SAVED = {
    "det": (lambda tg, a, b: tg.det(a), DETERMINANT),
    "det_of_a_transposed_view": (lambda tg, a, b: tg.det(a.mT), DETERMINANT),
    "det_batched": (lambda tg, a, b: tg.det(tg.stack([a, b])), DETERMINANT),
    "slogdet": (lambda tg, a, b: tg.slogdet(a)[1], ("A", "LU", "pivots", "sign")),
    "slogdet_of_a_transposed_view": (lambda tg, a, b: tg.slogdet(b.mT)[1], ("A", "LU", "pivots", "sign")),
    "inverse": (lambda tg, a, b: tg.inverse(a), ("inverse",)),
    "solve": (lambda tg, a, b: tg.linalg.solve(a, b), ("A", "LU", "pivots", "left", "result")),
    "solve_vector": (lambda tg, a, b: tg.linalg.solve(a, b[:, 1]), ("A", "LU", "pivots", "left", "result")),
    "cross": (lambda tg, a, b: tg.cross(a, b, dim=1), ("self", "other", "dim")),
    "cross_only_self_needs_grad": (lambda tg, a, b: tg.linalg.cross(a, b.detach(), dim=0),
                                   ("self", "other", "dim")),
    "cross_only_other_needs_grad": (lambda tg, a, b: tg.linalg.cross(a.detach(), b, dim=0),
                                    ("self", "other", "dim")),
    "cdist": (lambda tg, a, b: tg.cdist(a, b, p=3), ("x1", "x2", "p", "result")),
    "cdist_matmul": (lambda tg, a, b: tg.cdist(a, b, compute_mode="use_mm_for_euclid_dist")
                     .grad_fn.next_functions[0][0], ("x1", "x2", "result")),
    "dist": (lambda tg, a, b: tg.dist(a, b), ("self", "other", "p", "result")),
    "dist_p": (lambda tg, a, b: tg.dist(a, b, 3.5), ("self", "other", "p", "result")),
}


@pytest.mark.parametrize("case", sorted(SAVED))
def test_saved_attributes_match(case):
    make, names = SAVED[case]

    def prog(tg):
        a = tg.tensor([[2.0, 1.0, 0.5], [3.0, 1.0, 0.2], [0.5, -2.0, 4.0]], requires_grad=True)
        b = tg.tensor([[1.0, 0.0, 2.0], [0.0, 1.0, 1.0], [3.0, 1.0, 0.0]], requires_grad=True)
        out = make(tg, a, b)
        return _saved(out if D.is_node(out) else out.grad_fn, names)
    run(prog)


def test_slogdet_keeps_its_sign_output_and_logdet_ends_in_where():
    def prog(tg):
        a = tg.tensor([[0.0, 2.0], [1.0, 0.5]], requires_grad=True)
        sign, logabsdet = tg.slogdet(a)
        logdet = tg.logdet(a)
        saved_sign = logabsdet.grad_fn._saved_sign
        record = {"sign": sign, "logabsdet": logabsdet, "same_node": sign.grad_fn is logabsdet.grad_fn,
                  "saved_sign": D.snap(saved_sign), "saved_sign_node": D.node_name(saved_sign.grad_fn),
                  "logdet": logdet, "logdet_graph": D.graph(logdet),
                  "named": [tg.slogdet(a).sign, tg.linalg.slogdet(a).logabsdet]}
        (record["gradient_of_the_sign"],) = tg.autograd.grad(sign, a, allow_unused=True)
        return record
    run(prog)


def test_slogdet_prints_as_a_named_result():
    run(lambda tg: [repr(tg.slogdet(tg.tensor([[2.0, 1.0], [1.0, 3.0]]))),
                    repr(tg.linalg.slogdet(tg.tensor([[0.0, 1.0], [1.0, 0.0]])))])


def test_changing_the_saved_inverse_in_place_is_caught():
    def prog(tg):
        inverse = tg.inverse(tg.tensor([[2.0, 1.0], [1.0, 3.0]], requires_grad=True))
        inverse.mul_(2)
        inverse.sum().backward()
    run(prog, raises="RuntimeError", msg=VERSION_MSG)


# ---- singular matrices ----------------------------------------------------------------------
# Singular in every elimination order: each LU step multiplies by a power of two, so no
# LAPACK (with or without fused multiply-add) is left with a rounding error for a pivot.
# ([[1, 2, 3], [2, 4, 6], [1, 0, 1]] is not: torch's LAPACK found det 3.6e-07, numpy's 0.)
SINGULAR = [[4.0, 2.0, 1.0], [8.0, 4.0, 2.0], [1.0, 0.0, 1.0]]


def test_det_of_a_singular_matrix_and_its_zero_gradient():
    def prog(tg):
        a = tg.tensor(SINGULAR, requires_grad=True)
        batch = tg.tensor([SINGULAR, [[2.0, 0.0, 0.0], [0.0, 3.0, 0.0], [1.0, 0.0, 1.0]]], requires_grad=True)
        det, batch_det = tg.det(a), tg.det(batch)
        (det * 3).backward()
        batch_det.sum().backward()
        slog = tg.slogdet(a)
        return {"det": det, "a": a, "batch_det": batch_det, "batch": batch,
                "sign": slog.sign, "logabsdet": slog.logabsdet, "logdet": tg.logdet(a)}
    run(prog)


SINGULAR_ERRORS = {
    "inverse": lambda tg: tg.linalg.inv(tg.tensor([[1.0, 2.0], [2.0, 4.0]])),
    "inverse_of_zeros": lambda tg: tg.inverse(tg.zeros(2, 2)),
    "inverse_batch_element": lambda tg: tg.inverse(tg.stack([tg.eye(2), tg.tensor([[1.0, 2.0], [2.0, 4.0]])])),
    "inverse_batch_of_one": lambda tg: tg.linalg.inv(tg.zeros(1, 2, 2)),
    "solve": lambda tg: tg.linalg.solve(tg.tensor([[1.0, 2.0], [2.0, 4.0]]), tg.ones(2)),
    "solve_batch_element": lambda tg: tg.linalg.solve(tg.stack([tg.eye(2), tg.zeros(2, 2)]), tg.ones(2, 2)),
    "inverse_method_requiring_grad": lambda tg: tg.zeros(3, 3, requires_grad=True).inverse(),
}


@pytest.mark.parametrize("case", sorted(SINGULAR_ERRORS))
def test_singular_matrices_raise_linalg_error(case):
    run(lambda tg: SINGULAR_ERRORS[case](tg), raises="_LinAlgError")


def test_linalg_error_is_a_runtime_error_to_catch():
    def prog(tg):
        try:
            tg.inverse(tg.zeros(2, 2))
        except tg.linalg.LinAlgError as error:
            return isinstance(error, RuntimeError), type(error).__name__
    run(prog)


# ---- norms ----------------------------------------------------------------------------------
NORMS = {   # these record PyTorch's node: the 2-norm of all the elements
    "vector_norm": lambda tg, x: tg.linalg.vector_norm(x),
    "vector_norm_all_dims": lambda tg, x: tg.linalg.vector_norm(x, dim=(0, 1)),
    "matrix_norm": lambda tg, x: tg.linalg.matrix_norm(x),
    "norm": lambda tg, x: tg.linalg.norm(x),
    "norm_fro": lambda tg, x: tg.linalg.norm(x, "fro"),
}
OTHER_NORMS = {   # these are composed from sums and powers: values and gradients only
    "vector_norm_p3_over_a_dim": lambda tg, x: tg.linalg.vector_norm(x, 3, dim=1),
    "vector_norm_p1_keepdim": lambda tg, x: tg.linalg.vector_norm(x, 1, dim=0, keepdim=True),
    "vector_norm_keepdim": lambda tg, x: tg.linalg.vector_norm(x, keepdim=True),
    "matrix_norm_batched": lambda tg, x: tg.linalg.matrix_norm(x.reshape(1, 2, 3)),
    "norm_over_a_dim": lambda tg, x: tg.linalg.norm(x, dim=1),
    "norm_of_a_vector_p3": lambda tg, x: tg.linalg.norm(x[0], 3),
}


def _norm_report(tg, norm):
    """Values and gradients; the graph of the norm itself is compared where it is PyTorch's."""
    x = tg.tensor([[1.5, -2.3, 0.5], [2.0, 0.1, -0.7]], requires_grad=True)
    y = norm(tg, x)
    (grad,) = tg.autograd.grad(y.sum(), x)
    return y, D.loose(grad)


@pytest.mark.parametrize("case", sorted(NORMS))
def test_norms_with_pytorchs_node(case):
    run(lambda tg: _norm_report(tg, NORMS[case]))


@pytest.mark.parametrize("case", sorted(OTHER_NORMS))
def test_other_norms_values_and_gradients(case):
    run(lambda tg: [D.loose(t) for t in _norm_report(tg, OTHER_NORMS[case])])


# ---- errors ---------------------------------------------------------------------------------
def _m(tg, *shape, dtype=None):
    return tg.ones(*shape, dtype=dtype)


EINSUM_ERRORS = {      # (equation, shapes of the operands): all RuntimeErrors
    "fewer_operands": ("ij,jk->ik", [(2, 2)]),
    "more_operands": ("ij->ij", [(2, 2), (2, 2)]),
    "bad_subscript": ("i1->i", [(2, 2)]),
    "bad_output_subscript": ("ij->i1", [(2, 2)]),
    "half_arrow": ("ij-", [(2, 2)]),
    "too_few_subscripts": ("i->i", [(2, 2)]),
    "too_many_subscripts": ("ijk->i", [(2, 2)]),
    "too_many_with_ellipsis": ("ijk...->i", [(2, 2)]),
    "output_twice": ("ij->ii", [(2, 2)]),
    "output_unknown": ("ij->k", [(2, 2)]),
    "sizes_differ": ("ij,jk->ik", [(2, 3), (2, 3)]),
    "repeated_sizes_differ": ("ii->i", [(2, 3)]),
    "two_ellipses": ("...i...->i", [(2, 2)]),
    "broken_ellipsis": ("..i->i", [(2, 2)]),
    "broken_output_ellipsis": ("...i->..i", [(2, 2)]),
    "two_output_ellipses": ("...i->......", [(2, 2)]),
    "ellipsis_sizes_differ": ("...i,...i->...", [(2, 3), (4, 3)]),
}


@pytest.mark.parametrize("case", sorted(EINSUM_ERRORS))
def test_einsum_errors(case):
    equation, shapes = EINSUM_ERRORS[case]
    run(lambda tg: tg.einsum(equation, *[tg.ones(shape) for shape in shapes]), raises="RuntimeError")


ERRORS = {
    # einsum
    "einsum_no_operands": (lambda tg: tg.einsum("ij"), "ValueError"),
    "einsum_empty_operand_list": (lambda tg: tg.einsum("ij", []), "ValueError"),
    "einsum_dtypes_differ": (lambda tg: tg.einsum("i,i->", _m(tg, 3), _m(tg, 3, dtype=tg.float64)), "RuntimeError"),
    "einsum_not_a_tensor": (lambda tg: tg.einsum("i->i", [1, 2]), "TypeError"),
    "einsum_sublist_out_of_range": (lambda tg: tg.einsum(_m(tg, 2), [60]), "ValueError"),
    # tensordot
    "tensordot_negative_dims": (lambda tg: tg.tensordot(_m(tg, 2, 2), _m(tg, 2, 2), -1), "RuntimeError"),
    "tensordot_too_many_dims": (lambda tg: tg.tensordot(_m(tg, 2, 2), _m(tg, 2, 2), 3), "RuntimeError"),
    "tensordot_sizes_differ": (lambda tg: tg.tensordot(_m(tg, 3, 3), _m(tg, 2, 3), ([0], [0])), "RuntimeError"),
    "tensordot_lists_differ_in_length": (lambda tg: tg.tensordot(_m(tg, 2, 2), _m(tg, 2, 2), ([0, 1], [0])),
                                         "RuntimeError"),
    "tensordot_dtypes_differ": (lambda tg: tg.tensordot(_m(tg, 2, 2), _m(tg, 2, 2, dtype=tg.float64), 1),
                                "RuntimeError"),
    "tensordot_dims_not_lists": (lambda tg: tg.tensordot(_m(tg, 2, 2), _m(tg, 2, 2), [1, 0]), "TypeError"),
    "tensordot_dim_out_of_range": (lambda tg: tg.tensordot(_m(tg, 2, 2), _m(tg, 2, 2), ([2], [0])), "IndexError"),
    # cross
    "cross_no_dimension_of_size_3": (lambda tg: tg.cross(_m(tg, 2, 2), _m(tg, 2, 2)), "RuntimeError"),
    "cross_dimension_not_3": (lambda tg: tg.linalg.cross(_m(tg, 2, 2), _m(tg, 2, 2)), "RuntimeError"),
    "cross_given_dimension_not_3": (lambda tg: tg.cross(_m(tg, 3, 2), _m(tg, 3, 2), dim=1), "RuntimeError"),
    "cross_shapes_do_not_broadcast": (lambda tg: tg.linalg.cross(_m(tg, 4, 3), _m(tg, 2, 3)), "RuntimeError"),
    "cross_dimensions_differ": (lambda tg: tg.linalg.cross(_m(tg, 4, 3), _m(tg, 3)), "RuntimeError"),
    "cross_dim_out_of_range": (lambda tg: tg.linalg.cross(_m(tg, 4, 3), _m(tg, 4, 3), dim=2), "IndexError"),
    "cross_dtypes_differ": (lambda tg: tg.linalg.cross(_m(tg, 3), _m(tg, 3, dtype=tg.int64)), "RuntimeError"),
    # det, slogdet, logdet, inverse
    "det_not_square": (lambda tg: tg.det(_m(tg, 2, 3)), "RuntimeError"),
    "det_of_a_vector": (lambda tg: tg.det(_m(tg, 3)), "RuntimeError"),
    "det_of_integers": (lambda tg: tg.det(_m(tg, 3, 3, dtype=tg.int64)), "RuntimeError"),
    "det_of_integers_not_square": (lambda tg: _m(tg, 2, 3, dtype=tg.int64).det(), "RuntimeError"),
    "slogdet_not_square": (lambda tg: tg.linalg.slogdet(_m(tg, 2, 3)), "RuntimeError"),
    "slogdet_of_integers": (lambda tg: tg.slogdet(_m(tg, 2, 2, dtype=tg.int64)), "RuntimeError"),
    "logdet_not_square": (lambda tg: tg.logdet(_m(tg, 2, 3)), "RuntimeError"),
    "logdet_of_integers": (lambda tg: tg.logdet(_m(tg, 2, 2, dtype=tg.int64)), "RuntimeError"),
    "inverse_not_square": (lambda tg: tg.inverse(_m(tg, 2, 3)), "RuntimeError"),
    "inverse_of_a_vector": (lambda tg: tg.linalg.inv(_m(tg, 3)), "RuntimeError"),
    "inverse_of_integers": (lambda tg: tg.inverse(_m(tg, 3, 3, dtype=tg.int64)), "RuntimeError"),
    # solve
    "solve_shapes": (lambda tg: tg.linalg.solve(tg.eye(3), _m(tg, 4)), "RuntimeError"),
    "solve_matrix_shapes": (lambda tg: tg.linalg.solve(tg.eye(3), _m(tg, 4, 2)), "RuntimeError"),
    "solve_dtypes_differ": (lambda tg: tg.linalg.solve(tg.eye(3), _m(tg, 3, dtype=tg.float64)), "RuntimeError"),
    "solve_not_square": (lambda tg: tg.linalg.solve(_m(tg, 2, 3), _m(tg, 2)), "RuntimeError"),
    "solve_integers": (lambda tg: tg.linalg.solve(tg.eye(2, dtype=tg.int64), _m(tg, 2, dtype=tg.int64)),
                       "RuntimeError"),
    "solve_b_scalar": (lambda tg: tg.linalg.solve(tg.eye(3), tg.tensor(1.0)), "RuntimeError"),
    "solve_a_vector": (lambda tg: tg.linalg.solve(_m(tg, 3), _m(tg, 3)), "RuntimeError"),
    "solve_batches_do_not_broadcast": (lambda tg: tg.linalg.solve(_m(tg, 2, 3, 3), _m(tg, 4, 3, 4)), "RuntimeError"),
    # cdist and dist
    "cdist_columns_differ": (lambda tg: tg.cdist(_m(tg, 4, 3), _m(tg, 5, 2)), "RuntimeError"),
    "cdist_of_vectors": (lambda tg: tg.cdist(_m(tg, 3), _m(tg, 3)), "RuntimeError"),
    "cdist_second_a_vector": (lambda tg: tg.cdist(_m(tg, 4, 3), _m(tg, 3)), "RuntimeError"),
    "cdist_negative_p": (lambda tg: tg.cdist(_m(tg, 4, 3), _m(tg, 5, 3), p=-1), "RuntimeError"),
    "cdist_of_integers": (lambda tg: tg.cdist(_m(tg, 4, 3, dtype=tg.int64), _m(tg, 5, 3, dtype=tg.int64)),
                          "RuntimeError"),
    "cdist_second_integers": (lambda tg: tg.cdist(_m(tg, 4, 3), _m(tg, 5, 3, dtype=tg.int64)), "RuntimeError"),
    "cdist_dtypes_differ": (lambda tg: tg.cdist(_m(tg, 4, 3), _m(tg, 5, 3, dtype=tg.float64)), "RuntimeError"),
    "cdist_batches_do_not_broadcast": (lambda tg: tg.cdist(_m(tg, 2, 4, 3), _m(tg, 3, 5, 3)), "RuntimeError"),
    "cdist_compute_mode": (lambda tg: tg.cdist(_m(tg, 4, 3), _m(tg, 5, 3), compute_mode="fast"), "ValueError"),
    "dist_shapes_do_not_broadcast": (lambda tg: tg.dist(_m(tg, 4, 3), _m(tg, 5, 3)), "RuntimeError"),
    "dist_of_integers": (lambda tg: tg.dist(_m(tg, 3, dtype=tg.int64), _m(tg, 3, dtype=tg.int64)), "RuntimeError"),
    # norms
    "vector_norm_of_integers": (lambda tg: tg.linalg.vector_norm(_m(tg, 3, dtype=tg.int64)), "RuntimeError"),
    "vector_norm_string_order": (lambda tg: tg.linalg.vector_norm(_m(tg, 3), "fro"), "TypeError"),
    "matrix_norm_of_a_vector": (lambda tg: tg.linalg.matrix_norm(_m(tg, 3)), "RuntimeError"),
    "matrix_norm_of_integers": (lambda tg: tg.linalg.matrix_norm(_m(tg, 3, 3, dtype=tg.int64)), "RuntimeError"),
    "norm_order_of_3d": (lambda tg: tg.linalg.norm(_m(tg, 2, 3, 4), 2), "RuntimeError"),
    "norm_fro_of_a_vector": (lambda tg: tg.linalg.norm(_m(tg, 3), "fro"), "RuntimeError"),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors(case):
    make, error = ERRORS[case]
    run(lambda tg: make(tg), raises=error)


def test_second_derivative_of_cdist_is_refused():
    def prog(tg):
        x1 = tg.tensor([[0.0, 1.0], [2.0, 0.5]], requires_grad=True)
        x2 = tg.tensor([[1.0, 1.0], [0.0, -1.0], [3.0, 2.0]], requires_grad=True)
        (g,) = tg.autograd.grad(tg.cdist(x1, x2).sum(), x1, create_graph=True)
        tg.autograd.grad(g.sum(), x1)
    run(prog, raises="NotImplementedError")


def test_gradient_of_dist_with_p0():
    """torch: no gradient for self; for other, an error (it cannot negate "no gradient")."""
    def prog(tg):
        a = tg.tensor([1.0, 2.0], requires_grad=True)
        b = tg.tensor([1.0, 0.0])
        (grad,) = tg.autograd.grad(tg.dist(a, b, 0), a, allow_unused=True)
        return grad
    run(prog)
    run(lambda tg: tg.dist(tg.ones(2, requires_grad=True), tg.zeros(2, requires_grad=True), 0).backward(),
        raises="RuntimeError")


def test_cross_without_dim_warns_once_per_process():
    script = ("import warnings, torch, teachgrad\n"
              "warnings.simplefilter('always')\n"
              "for lib in (torch, teachgrad):\n"
              "    with warnings.catch_warnings(record=True) as caught:\n"
              "        warnings.simplefilter('always')\n"
              "        for _ in range(3):\n"
              "            lib.cross(lib.ones(2, 3), lib.ones(2, 3))\n"
              "    print(len(caught), str(caught[0].message).splitlines()[0] if caught else '')\n")
    output = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            check=True).stdout.splitlines()
    assert output[0] == "1 Using torch.cross without specifying the dim arg is deprecated."
    assert output[1] == output[0]
