"""The norms of every order and the right-hand solve, compared with torch: vector norms of
order 0 and ±inf (and the others) as one LinalgVectorNormBackward0 node with its saved
ord / dim / keepdim, their gradients at ties, zeros and NaN; the matrix norms 'nuc', ±1,
±2 and ±inf composed from the nodes PyTorch composes them from; ``torch.norm`` and
``linalg.norm`` routing to them; ``linalg.solve(A, B, left=False)``; and the errors."""
import math

import numpy as np
import pytest

try:
    from . import differential as D
except ImportError:
    import differential as D

torch = pytest.importorskip("torch")
run = D.run_both
INF = math.inf

# rows with a tie at the largest |x| (2, -2), zeros, an all-zero row, a tie at the smallest
TIES = [[2.0, -2.0, 1.0, 0.0], [0.0, 0.0, 0.0, 0.0], [1.0, 0.5, 3.0, -3.0]]
ORDERS = [0, 0.0, INF, -INF, 1, 2, 2.0, 3, 0.5, 1.5, -1, -2]


def _vector_norm_report(tg, values, ord, dim, keepdim, **kw):
    x = tg.tensor(values, requires_grad=True)
    y = tg.linalg.vector_norm(x, ord, dim, keepdim, **kw)
    node = y.grad_fn
    y.sum().backward()
    return {"y": y, "node": D.node_name(node), "ord": node._saved_ord, "dim": node._saved_dim,
            "keepdim": node._saved_keepdim, "grad": x.grad}


@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dim", [None, 1, -1, 0, (0, 1), (1, 0), [-1, 0], (), []])
@pytest.mark.parametrize("ord", ORDERS)
def test_vector_norm_values_node_saved_attributes_and_gradient(ord, dim, keepdim):
    run(lambda tg: _vector_norm_report(tg, TIES, ord, dim, keepdim))


@pytest.mark.parametrize("ord", ORDERS)
def test_vector_norm_of_a_number_and_of_one_entry(ord):
    def prog(tg):
        return [_vector_norm_report(tg, -3.0, ord, None, False),
                _vector_norm_report(tg, -3.0, ord, 0, True),
                _vector_norm_report(tg, [[-3.0]], ord, (0, 1), False)]
    run(prog)


@pytest.mark.parametrize("ord", [INF, -INF, 0, 1, 3])
def test_vector_norm_with_nan(ord):
    """(2 and the p-norms give NaN gradients everywhere, torch too; ±inf give the NaN its
    share, and sign(NaN) is 0 in torch: teachgrad's sign(NaN) is NaN, so those gradients are
    compared only where they are not at the NaN.)"""
    def prog(tg):
        x = tg.tensor([[1.0, math.nan, 3.0, -3.0], [1.0, 2.0, -2.0, 0.0]], requires_grad=True)
        y = tg.linalg.vector_norm(x, ord, dim=1)
        (grad,) = tg.autograd.grad(y.sum(), x, allow_unused=True)
        return y, None if grad is None else grad[:, [0, 2, 3]]
    run(prog)


def test_vector_norm_gradient_graph_and_second_derivative():
    def prog(tg):
        x = tg.tensor(TIES, requires_grad=True)
        result = {}
        for ord in [INF, 1, 2, 3, 0.5]:
            y = tg.linalg.vector_norm(x, ord, dim=1)
            (g,) = tg.autograd.grad(y.sum(), x, create_graph=True)
            (second,) = tg.autograd.grad((g * g).sum(), x, allow_unused=True)
            result[str(ord)] = [D.loose(g), D.node_name(g.grad_fn), D.loose(second + 0)]
        return result
    run(prog)


@pytest.mark.parametrize("ord", [2, INF, 0, 3])
def test_vector_norm_dtype_argument_and_half_precision(ord):
    def prog(tg):
        x = tg.tensor([[1.5, -2.3, 0.5], [300.0, 0.1, -0.7]], requires_grad=True)
        y = tg.linalg.vector_norm(x, ord, dtype=tg.float64)
        y.backward()
        half = tg.tensor([[300.0, 400.0], [1e-4, 2e-4]], dtype=tg.float16)
        return {"y": y, "grad": x.grad, "next": D.graph(y),
                "half": tg.linalg.vector_norm(half, ord, dim=1),
                "half_to_float": tg.linalg.vector_norm(half, ord, dtype=tg.float32)}
    run(prog, rtol=1e-3)


def test_vector_norm_of_empty_tensors_where_it_has_a_value():
    def prog(tg):
        e = tg.ones(0, 3)
        return [tg.linalg.vector_norm(e, INF, dim=1), tg.linalg.vector_norm(e, 0),
                tg.linalg.vector_norm(e, 2, dim=0), tg.linalg.vector_norm(e, 1, keepdim=True),
                tg.linalg.vector_norm(tg.ones(3, 0), -INF, dim=0)]
    run(prog)


NORM_CALLS = ["x.norm(p=float('inf'))", "x.norm(p=-float('inf'), dim=1)", "tg.norm(x, p=0)",
              "tg.norm(x, p=0, dim=(0, 1))", "x.norm(3, 1, True)", "x.norm(p=1, dim=-1)",
              "x.norm('fro', dim=1)", "x.norm('fro', dim=(0, 1))", "x.norm(2)", "x.norm(p=2.0)",
              "x.norm(dim=[0])", "x.norm(p=None)", "x.norm(p=0.5, dim=(1,), keepdim=True)",
              "x.norm(dtype=tg.float64)", "tg.norm(x, float('inf'), dtype=tg.float64)"]


@pytest.mark.parametrize("call", NORM_CALLS)
def test_tensor_norm_routes_to_vector_norm(call):
    def prog(tg):
        x = tg.tensor(TIES, requires_grad=True)
        y = eval(call)
        node = y.grad_fn
        y.sum().backward()
        return {"y": y, "ord": node._saved_ord, "dim": node._saved_dim,
                "keepdim": node._saved_keepdim, "grad": x.grad}
    run(prog)


# ---- matrix norms ---------------------------------------------------------------------------
MATRIX_ORDERS = ["fro", "nuc", 1, -1, 2, -2, INF, -INF, 2.0, 1.0]
# (2, 3, 4): distinct singular values and no ties in the row or column sums
BATCH = np.linspace(-1.7, 2.3, 24).reshape(2, 3, 4) ** 3 + np.arange(24).reshape(2, 3, 4) % 5


def _matrix_report(tg, op):
    x = tg.tensor(BATCH.tolist(), requires_grad=True)
    y = op(tg, x)
    (grad,) = tg.autograd.grad(y.sum(), x)
    return {"y": y, "graph": D.graph(y), "grad": D.loose(grad)}


@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dim", [(-2, -1), (0, 2), (2, 0), (1, 0)])
@pytest.mark.parametrize("ord", MATRIX_ORDERS)
def test_matrix_norm_values_graph_and_gradient(ord, dim, keepdim):
    run(lambda tg: _matrix_report(tg, lambda tg, x: tg.linalg.matrix_norm(x, ord, dim, keepdim)),
        rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("ord", MATRIX_ORDERS)
def test_matrix_norm_of_a_matrix_with_ties_and_in_float64(ord):
    def prog(tg):
        a = tg.tensor([[2.0, -2.0, 0.0], [1.0, 1.0, 2.0], [0.0, 3.0, 1.0]], requires_grad=True)
        b = tg.tensor(BATCH[0].tolist(), dtype=tg.float64, requires_grad=True)
        ya, yb = tg.linalg.matrix_norm(a, ord), tg.linalg.matrix_norm(b, ord)
        (ga,) = tg.autograd.grad(ya, a)
        (gb,) = tg.autograd.grad(yb, b)
        vector_node = ya.grad_fn.next_functions[0][0] if ord in (1, -1, INF, -INF) else None
        saved = None if vector_node is None else [vector_node._saved_ord, vector_node._saved_dim]
        return {"a": ya, "grad_a": D.loose(ga), "b": yb, "grad_b": D.loose(gb), "saved": saved}
    run(prog, rtol=1e-4, atol=1e-5)


def test_matrix_norm_dtype_argument():
    def prog(tg):
        x = tg.tensor(BATCH[0].tolist(), requires_grad=True)
        ys = [tg.linalg.matrix_norm(x, ord, dtype=tg.float64) for ord in MATRIX_ORDERS]
        grads = tg.autograd.grad(sum(y for y in ys), x)
        return {"ys": ys, "graphs": [D.graph(y) for y in ys], "grad": D.loose(grads[0])}
    run(prog)


def test_matrix_norm_of_empty_matrices():
    def prog(tg):
        out = []
        for ord in ["fro", "nuc", 1, 2, INF]:
            for shape in [(0, 3), (3, 0), (2, 0, 3)]:
                out.append(D.loose(tg.linalg.matrix_norm(tg.ones(*shape, requires_grad=True), ord)))
        return out
    run(prog)


LINALG_NORMS = {
    "none": lambda tg, x: tg.linalg.norm(x),
    "none_two_dims": lambda tg, x: tg.linalg.norm(x, dim=(-2, -1)),
    "inf_of_a_matrix": lambda tg, x: tg.linalg.norm(x[0], INF),
    "minus_one_of_a_matrix": lambda tg, x: tg.linalg.norm(x[0], -1),
    "two_of_a_matrix": lambda tg, x: tg.linalg.norm(x[0], 2),
    "nuc_of_a_matrix": lambda tg, x: tg.linalg.norm(x[0], "nuc"),
    "nuc_two_dims": lambda tg, x: tg.linalg.norm(x, "nuc", dim=(0, 2), keepdim=True),
    "inf_two_dims": lambda tg, x: tg.linalg.norm(x, INF, dim=(2, 1)),
    "inf_one_dim": lambda tg, x: tg.linalg.norm(x, INF, dim=1),
    "three_of_a_vector": lambda tg, x: tg.linalg.norm(x[0, 0], 3),
    "inf_int_dim": lambda tg, x: tg.linalg.norm(x, -INF, dim=-1),
    "nuc_dtype": lambda tg, x: tg.linalg.norm(x[1], "nuc", dtype=tg.float64),
    "torch_norm_nuc": lambda tg, x: tg.norm(x[0], p="nuc"),
    "torch_norm_nuc_dims": lambda tg, x: tg.norm(x, p="nuc", dim=(0, 2)),
}


@pytest.mark.parametrize("case", sorted(LINALG_NORMS))
def test_linalg_norm_and_torch_norm_route_as_torch_does(case):
    run(lambda tg: _matrix_report(tg, LINALG_NORMS[case]), rtol=1e-4, atol=1e-5)


def test_svdvals():
    def prog(tg):
        x = tg.tensor(BATCH.tolist(), requires_grad=True)
        s = tg.linalg.svdvals(x)
        node = s.grad_fn
        saved = [node._saved_full_matrices, node._saved_S_sym_argsize_minus_1,
                 D.loose(node._saved_S)]
        (grad,) = tg.autograd.grad((s * tg.tensor([1.0, 2.0, 3.0])).sum(), x)
        return {"s": s, "graph": D.graph(s), "output_nr": s.output_nr, "grad": D.loose(grad),
                "saved": saved}
    run(prog, rtol=1e-4, atol=1e-5)


# ---- solve(A, B, left=False): X A = B -------------------------------------------------------
PIVOTING = [[0.5, 2.0, 1.0], [3.0, 1.0, -1.0], [1.0, -2.0, 4.0]]     # needs row swaps


def _solve_report(tg, a_values, b_shape):
    A = tg.tensor(a_values, requires_grad=True)
    B = tg.tensor(D.data(b_shape, seed=3), requires_grad=True)
    X = tg.linalg.solve(A, B, left=False)
    node = X.grad_fn
    saved = [D.loose(node._saved_A), D.loose(node._saved_LU), node._saved_pivots,
             node._saved_left, D.loose(node._saved_result)]
    gA, gB = tg.autograd.grad(X.sum(), (A, B), create_graph=True)
    second = tg.autograd.grad((gA.sum() + gB.sum()), (A, B), allow_unused=True)
    return {"X": X, "graph": D.graph(X), "grads": [D.snap(gA.detach(), version=False),
                                                    D.snap(gB.detach(), version=False)],
            "grad_nodes": [D.name(gA), D.name(gB)], "is_contiguous": X.is_contiguous(),
            "second": [None if s is None else D.loose(s) for s in second], "saved": saved}


@pytest.mark.parametrize("b_shape", [(2, 3), (3, 3), (1, 3), (4, 2, 3)])
def test_solve_from_the_right(b_shape):
    run(lambda tg: _solve_report(tg, PIVOTING, b_shape), rtol=1e-4, atol=1e-5)


def test_solve_from_the_right_in_batches_that_broadcast():
    def prog(tg):
        A = tg.tensor([PIVOTING, np.add(PIVOTING, np.eye(3)).tolist()], dtype=tg.float64,
                      requires_grad=True)
        B = tg.tensor(D.data((3, 1, 4, 3), seed=5), dtype=tg.float64, requires_grad=True)
        X = tg.linalg.solve(A, B, left=False)
        X.sum().backward()
        return {"X": X, "check": (X @ A - B).abs().max() < 1e-12, "A": A.grad, "B": B.grad}
    run(prog)


# ---- errors ---------------------------------------------------------------------------------
def _m(tg, *shape, dtype=None):
    return tg.ones(*shape, dtype=dtype)


ERRORS = {
    # vector norms
    "vector_order_none": (lambda tg: tg.linalg.vector_norm(_m(tg, 3), None), "TypeError"),
    "vector_order_complex": (lambda tg: tg.linalg.vector_norm(_m(tg, 3), 1j), "RuntimeError"),
    "vector_dim_float": (lambda tg: tg.linalg.vector_norm(_m(tg, 3), INF, 1.0), "TypeError"),
    "vector_dim_out_of_range": (lambda tg: tg.linalg.vector_norm(_m(tg, 2, 3), INF, 5), "IndexError"),
    "vector_dim_twice": (lambda tg: tg.linalg.vector_norm(_m(tg, 2, 3), 0, (1, -1)), "RuntimeError"),
    "vector_dim_twice_of_a_number": (lambda tg: tg.linalg.vector_norm(tg.tensor(1.0), INF, (0, 0)),
                                     "RuntimeError"),
    "vector_dim_of_a_number": (lambda tg: tg.linalg.vector_norm(tg.tensor(1.0), INF, 1), "IndexError"),
    "vector_bool": (lambda tg: tg.linalg.vector_norm(_m(tg, 2, dtype=tg.bool), INF), "RuntimeError"),
    "vector_dtype_integer": (lambda tg: tg.linalg.vector_norm(_m(tg, 2), 0, dtype=tg.int64), "RuntimeError"),
    "vector_dtype_narrowing": (lambda tg: tg.linalg.vector_norm(_m(tg, 2), 2, dtype=tg.float16),
                               "RuntimeError"),
    "vector_inf_of_nothing": (lambda tg: tg.linalg.vector_norm(_m(tg, 0, 3), INF), "RuntimeError"),
    "vector_minus_inf_of_nothing": (lambda tg: tg.linalg.vector_norm(_m(tg, 0, 3), -INF, ()), "RuntimeError"),
    "vector_minus_one_of_nothing": (lambda tg: tg.linalg.vector_norm(_m(tg, 0, 3), -1.0), "RuntimeError"),
    "vector_negative_half_of_nothing": (lambda tg: tg.linalg.vector_norm(_m(tg, 0, 3), -0.5), "RuntimeError"),
    "vector_inf_over_an_empty_dim": (lambda tg: tg.linalg.vector_norm(_m(tg, 0, 3), INF, (1, -2)),
                                     "RuntimeError"),
    "vector_empty_dim_checked_before_twice": (lambda tg: tg.linalg.vector_norm(_m(tg, 0, 3), INF, (0, 0)),
                                              "RuntimeError"),
    "vector_empty_dim_out_of_range": (lambda tg: tg.linalg.vector_norm(_m(tg, 0, 3), INF, 4), "IndexError"),
    "vector_empty_before_dtype": (lambda tg: tg.linalg.vector_norm(_m(tg, 0, 3), INF, dtype=tg.int64),
                                  "RuntimeError"),
    "tensor_norm_fro_of_three_dims_is_a_matrix_norm": (lambda tg: tg.norm(_m(tg, 2, 3, 4), p="fro", dim=(0, 1, 2)),
                                                        "RuntimeError"),
    "tensor_norm_bad_string": (lambda tg: _m(tg, 2, 3).norm("abc"), "RuntimeError"),
    "tensor_norm_fro_of_three_dims": (lambda tg: _m(tg, 2, 3, 4).norm("nuc"), "RuntimeError"),
    "tensor_norm_of_integers": (lambda tg: tg.norm(_m(tg, 3, dtype=tg.int64), float("inf")), "RuntimeError"),
    # matrix norms
    "matrix_order_3": (lambda tg: tg.linalg.matrix_norm(_m(tg, 3, 3), 3), "RuntimeError"),
    "matrix_order_0": (lambda tg: tg.linalg.matrix_norm(_m(tg, 3, 3), 0), "RuntimeError"),
    "matrix_order_2_5": (lambda tg: tg.linalg.matrix_norm(_m(tg, 3, 3), 2.5), "RuntimeError"),
    "matrix_order_string": (lambda tg: tg.linalg.matrix_norm(_m(tg, 3, 3), "inf"), "RuntimeError"),
    "matrix_order_before_the_shape": (lambda tg: tg.linalg.matrix_norm(_m(tg, 3), 3), "RuntimeError"),
    "matrix_of_a_vector": (lambda tg: tg.linalg.matrix_norm(_m(tg, 3), "nuc"), "RuntimeError"),
    "matrix_of_integers": (lambda tg: tg.linalg.matrix_norm(_m(tg, 3, 3, dtype=tg.int64), INF), "RuntimeError"),
    "matrix_half_nuc": (lambda tg: tg.linalg.matrix_norm(_m(tg, 3, 3, dtype=tg.float16), "nuc"),
                        "RuntimeError"),
    "matrix_half_2": (lambda tg: tg.linalg.matrix_norm(_m(tg, 3, 3, dtype=tg.float16), -2), "RuntimeError"),
    "matrix_three_dims": (lambda tg: tg.linalg.matrix_norm(_m(tg, 2, 3, 4), 1, (0, 1, 2)), "RuntimeError"),
    "matrix_one_dim": (lambda tg: tg.linalg.matrix_norm(_m(tg, 2, 3, 4), 1, (0,)), "RuntimeError"),
    "matrix_same_dims": (lambda tg: tg.linalg.matrix_norm(_m(tg, 2, 3, 4), "nuc", (1, -2)), "RuntimeError"),
    "matrix_dim_out_of_range": (lambda tg: tg.linalg.matrix_norm(_m(tg, 2, 3), 2, (1, 5)), "IndexError"),
    "matrix_dtype_narrowing": (lambda tg: tg.linalg.matrix_norm(_m(tg, 2, 2, dtype=tg.float64), 1,
                                                                dtype=tg.float32), "RuntimeError"),
    "linalg_norm_three_dims": (lambda tg: tg.linalg.norm(_m(tg, 2, 3, 4), dim=(0, 1, 2)), "RuntimeError"),
    "linalg_norm_no_dims": (lambda tg: tg.linalg.norm(_m(tg, 2, 3, 4), 2, dim=()), "RuntimeError"),
    "linalg_norm_order_0_of_a_matrix": (lambda tg: tg.linalg.norm(_m(tg, 2, 3), 0), "RuntimeError"),
    "linalg_norm_nuc_of_3d": (lambda tg: tg.linalg.norm(_m(tg, 2, 3, 4), "nuc"), "RuntimeError"),
    "linalg_norm_nuc_of_a_vector": (lambda tg: tg.linalg.norm(_m(tg, 3), "nuc"), "RuntimeError"),
    "svdvals_of_a_vector": (lambda tg: tg.linalg.svdvals(_m(tg, 3)), "RuntimeError"),
    "svdvals_of_integers": (lambda tg: tg.linalg.svdvals(_m(tg, 3, 3, dtype=tg.int64)), "RuntimeError"),
    # solve from the right
    "solve_right_columns": (lambda tg: tg.linalg.solve(tg.eye(3), _m(tg, 3, 2), left=False), "RuntimeError"),
    "solve_right_wide": (lambda tg: tg.linalg.solve(tg.eye(3), _m(tg, 2, 4), left=False), "RuntimeError"),
    "solve_right_vector": (lambda tg: tg.linalg.solve(tg.eye(3), _m(tg, 3), left=False), "RuntimeError"),
    "solve_right_batch_of_vectors": (lambda tg: tg.linalg.solve(tg.eye(3).expand(2, 3, 3), _m(tg, 2, 3),
                                                                left=False), "RuntimeError"),
    "solve_right_1x1_vector": (lambda tg: tg.linalg.solve(tg.eye(1), _m(tg, 1), left=False), "RuntimeError"),
    "solve_right_batches": (lambda tg: tg.linalg.solve(_m(tg, 2, 3, 3), _m(tg, 5, 2, 3), left=False),
                            "RuntimeError"),
    "solve_right_scalar": (lambda tg: tg.linalg.solve(tg.eye(3), tg.tensor(1.0), left=False), "RuntimeError"),
    "solve_right_not_square": (lambda tg: tg.linalg.solve(_m(tg, 2, 3), _m(tg, 2, 3), left=False),
                               "RuntimeError"),
    "solve_right_dtypes": (lambda tg: tg.linalg.solve(tg.eye(3), _m(tg, 2, 3, dtype=tg.float64), left=False),
                           "RuntimeError"),
    "solve_right_singular": (lambda tg: tg.linalg.solve(tg.zeros(3, 3), _m(tg, 2, 3), left=False),
                             "_LinAlgError"),
    "solve_right_singular_batch": (lambda tg: tg.linalg.solve(tg.stack([tg.eye(3), tg.zeros(3, 3)]),
                                                              _m(tg, 2, 2, 3), left=False), "_LinAlgError"),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors(case):
    prog, error = ERRORS[case]
    run(prog, raises=error)
