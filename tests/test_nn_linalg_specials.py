"""nn and linear-algebra ops compared with torch at IEEE special values and in a few details:
losses whose differences overflow, activations of inf, nan and huge inputs (torch's values
and gradients, and no numpy warning from either library); vector norms of values whose
squares overflow; the column-major layout of solve, inv, LU and SVD results; the second
derivative through the singular values; the backward graphs of the norms of
test_linalg_ops.OTHER_NORMS, node by node."""
import math

import numpy as np
import pytest

try:
    from . import differential as D
    from .test_linalg_ops import OTHER_NORMS
except ImportError:
    import differential as D
    from test_linalg_ops import OTHER_NORMS

torch = pytest.importorskip("torch")

INF, NAN = math.inf, math.nan
SPECIAL = [INF, -INF, NAN, 0.0, -0.0, 1e38, -1e38, 1.0, -0.5, 3.0, 40.0, -40.0, 1e10, -1e10]


def run_quietly(prog, **tolerances):
    """Same results as torch, and no warning from either."""
    t_out, g_out = D.run_both(prog, **tolerances)
    assert not t_out.warns, f"bad test: torch warned {t_out.warns}"
    assert not g_out.warns, f"teachgrad warned {g_out.warns}"


# ---- losses whose differences overflow -------------------------------------------------------
INPUT = [1e38, -1e38, 3e38, INF, NAN, 1.0, 0.0, 2e38]
TARGET = [-1e38, 1e38, -3e38, INF, 1.0, 2.0, -1e38, -1e38]   # (x - t: 2e38, 6e38 = inf...)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("loss", ["mse_loss", "l1_loss"])
def test_a_loss_of_overflowing_differences(loss, reduction):
    """torch's mse gradient is (2 / n) * (x - t) * grad: finite where 2 * (x - t) is not."""
    def prog(tg):
        x, t = tg.tensor(INPUT, requires_grad=True), tg.tensor(TARGET, requires_grad=True)
        y = getattr(tg.nn.functional, loss)(x, t, reduction=reduction)
        grads = tg.autograd.grad(y.sum(), (x, t), create_graph=True)
        second = tg.autograd.grad(grads[0].sum(), (x, t))
        return {"y": y.detach(), "grads": [D.loose(g.detach()) for g in grads],
                "second": [D.loose(g.clone()) for g in second]}     # (torch's may be ZeroTensors)
    run_quietly(prog)


@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_mse_loss_whose_sum_overflows(reduction):
    def prog(tg):
        x = tg.tensor([1e19] * 4, requires_grad=True)
        y = tg.nn.functional.mse_loss(x, tg.zeros(4), reduction=reduction)
        return y, D.loose(tg.autograd.grad(y, x)[0])
    run_quietly(prog)


# ---- activations of special values ----------------------------------------------------------
ACTIVATIONS = {
    "gelu": lambda F, x: F.gelu(x),
    "gelu_tanh": lambda F, x: F.gelu(x, approximate="tanh"),
    "silu": lambda F, x: F.silu(x),
    "softplus": lambda F, x: F.softplus(x),
    "softplus_beta": lambda F, x: F.softplus(x, beta=2.0, threshold=10.0),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("grad_value", [1.0, 0.0, INF])
@pytest.mark.parametrize("activation", sorted(ACTIVATIONS))
def test_activation_of_special_values(activation, grad_value, dtype):
    """The value, the gradient for ``grad_value`` and the second derivative."""
    def prog(tg):
        values = SPECIAL + ([1e300, -1e300] if dtype == "float64" else [])
        if (activation, dtype) == ("gelu", "float32"):
            values = [v for v in values if v != INF]      # see the next test
        x = tg.tensor(values, dtype=getattr(tg, dtype), requires_grad=True)
        y = ACTIVATIONS[activation](tg.nn.functional, x)
        (grad,) = tg.autograd.grad(y, x, tg.full(y.shape, grad_value, dtype=y.dtype),
                                   create_graph=True)
        (second,) = tg.autograd.grad(grad.sum(), x)
        return {"y": y.detach(), "grad": D.loose(grad.detach()), "second": D.loose(second)}
    run_quietly(prog)


def test_float32_gelu_of_infinity_is_infinity():
    """A known difference: torch 2.13's vectorised float32 erf-gelu gives nan at +inf in a
    tensor of two or more elements (inf for a single element, and in float64 at any size);
    teachgrad gives inf, the limit, at any size."""
    import teachgrad
    x = teachgrad.tensor([INF, 1.0])
    assert teachgrad.nn.functional.gelu(x)[0].item() == INF
    assert teachgrad.nn.functional.gelu(x.double())[0].item() == INF


def test_silu_in_place_of_minus_infinity():
    def prog(tg):
        x = tg.tensor([-INF, INF, NAN, 1.0])
        return tg.nn.functional.silu(x.clone(), inplace=True)
    run_quietly(prog)


# ---- vector norms of values whose squares overflow ------------------------------------------
# (torch does not rescale: the 2-norm of [2e38, 3e38] in float32 is inf, its gradient 0)
@pytest.mark.parametrize("ord", [2, 1, 3, INF, -INF, 0.5, 2.5, -2])
@pytest.mark.parametrize("values", [[2e38, 3e38], [2e19, 2e19], [3e20, INF], [1e-30, 1e-30]],
                         ids=["overflow", "square_overflows", "with_inf", "underflow"])
def test_vector_norm_of_values_whose_powers_overflow(values, ord):
    def prog(tg):
        x = tg.tensor(values, requires_grad=True)
        y = tg.linalg.vector_norm(x, ord)
        return y, D.loose(tg.autograd.grad(y, x)[0])
    run_quietly(prog)


def test_vector_norm_minus_one_of_large_values():
    """(Its gradient takes x.pow(-2), which torch computes as 1 / (x * x): 0 here.)"""
    def prog(tg):
        x = tg.tensor([2e19, 2e19], requires_grad=True)
        return D.loose(tg.autograd.grad(tg.linalg.vector_norm(x, -1), x)[0])
    run_quietly(prog)


# ---- the layout of LAPACK's results: column by column ----------------------------------------
PIVOTING = [[0.5, 2.0, 1.0], [3.0, 1.0, -1.0], [1.0, -2.0, 4.0]]

SOLVES = {      # (A's shape, B's shape, left)
    "matrix": ((3, 3), (3, 2), True),
    "square_rhs": ((3, 3), (3, 3), True),
    "one_column": ((3, 3), (3, 1), True),
    "vector": ((3, 3), (3,), True),
    "batch": ((2, 3, 3), (2, 3, 4), True),
    "batch_of_one_column": ((1, 3, 3), (1, 3, 1), True),
    "batch_of_vectors": ((2, 3, 3), (2, 3), True),
    "vector_broadcast_over_a_batch": ((2, 3, 3), (3,), True),
    "broadcast_matrix": ((3, 3), (2, 3, 4), True),
    "right": ((3, 3), (2, 3), False),
    "right_batch": ((2, 3, 3), (2, 4, 3), False),
}


def _pivoting(tg, shape):
    return tg.tensor(np.broadcast_to(PIVOTING, shape).tolist(), requires_grad=True)


@pytest.mark.parametrize("case", sorted(SOLVES))
def test_solve_result_strides(case):
    a_shape, b_shape, left = SOLVES[case]

    def prog(tg):
        a = _pivoting(tg, a_shape)
        b = tg.tensor((np.arange(np.prod(b_shape)).reshape(b_shape) + 1.0).tolist(),
                      requires_grad=True)
        x = tg.linalg.solve(a, b, left=left)
        node = x.grad_fn
        strides = [x.stride(), node._saved_result.stride(), node._saved_LU.stride(),
                   node._saved_pivots.stride()]
        grads = tg.autograd.grad(x.sum(), (a, b))
        return {"x": x, "strides": strides, "grad_strides": [g.stride() for g in grads],
                "contiguous": x.is_contiguous()}
    run_quietly(prog, rtol=1e-4, atol=1e-5)


def test_solve_gradient_of_a_b_broadcast_over_a_batch():
    """(The engine sums the gradient over the batch: torch's sum is contiguous, whatever
    the layout of what it sums.)"""
    def prog(tg):
        a, b = _pivoting(tg, (2, 3, 3)), tg.ones(3, 4, requires_grad=True)
        (grad,) = tg.autograd.grad(tg.linalg.solve(a, b).sum(), b)
        return grad.stride()
    run_quietly(prog)


@pytest.mark.parametrize("transposed", [True, False])
def test_a_column_major_solution_is_a_view_of_its_columns_only(transposed):
    def prog(tg):
        x = tg.linalg.solve(_pivoting(tg, (3, 3)), tg.ones(3, 2))
        return (x.t() if transposed else x).view(-1)
    D.run_both(prog, raises=None if transposed else "RuntimeError", rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("shape", [(3, 3), (2, 3, 3)])
def test_inverse_and_lu_strides(shape):
    def prog(tg):
        a = _pivoting(tg, shape)
        inverse = tg.linalg.inv(a)
        return {"inverse": inverse, "inv": inverse.stride(),
                "inv_of_transposed": tg.linalg.inv(a.mT).stride(),
                "saved_inverse": inverse.grad_fn._saved_inverse.stride(),
                "det_LU": tg.linalg.det(a).grad_fn._saved_LU.stride(),
                "det_LU_of_transposed": tg.linalg.det(a.mT).grad_fn._saved_LU.stride(),
                "slogdet_LU": tg.linalg.slogdet(a).sign.grad_fn._saved_LU.stride()}
    run_quietly(prog, rtol=1e-4, atol=1e-5)


# ---- the second derivative through the singular values -------------------------------------
SINGULAR_VALUE_FUNCTIONS = {
    "svdvals": lambda tg, x: tg.linalg.svdvals(x).sum(),
    "weighted_squares": lambda tg, x: (tg.linalg.svdvals(x) ** 2 * tg.arange(
        1, min(x.shape[-2:]) + 1, dtype=x.dtype)).sum(),
    "nuc": lambda tg, x: tg.linalg.matrix_norm(x, "nuc").sum(),
    "two": lambda tg, x: tg.linalg.matrix_norm(x, 2).sum(),
    "minus_two": lambda tg, x: tg.linalg.matrix_norm(x, -2).sum(),
}


@pytest.mark.parametrize("shape", [(3, 3), (2, 3), (3, 2), (2, 4, 3), (2, 3, 4), (4, 1)])
@pytest.mark.parametrize("function", sorted(SINGULAR_VALUE_FUNCTIONS))
def test_derivatives_through_the_singular_values(function, shape):
    """The gradient and its graph (which leads back to U and Vh), then the second and third
    derivatives along a fixed direction; and the layout of U, S and Vh."""
    def prog(tg):
        x = tg.tensor(D.data(shape, seed=3), dtype=tg.float64, requires_grad=True)
        direction = tg.tensor(D.data(shape, seed=4), dtype=tg.float64)
        (grad,) = tg.autograd.grad(SINGULAR_VALUE_FUNCTIONS[function](tg, x), x,
                                   create_graph=True)
        (second,) = tg.autograd.grad((grad * direction).sum(), x, create_graph=True)
        (third,) = tg.autograd.grad((second * direction).sum(), x)
        node = tg.linalg.svdvals(x).grad_fn
        strides = [node._saved_U.stride(), node._saved_S.stride(), node._saved_Vh.stride()]
        return {"grad": D.loose(grad.detach()), "graph": D.graph(grad),
                "second": D.loose(second.detach()), "third": D.loose(third),
                "strides": strides}
    run_quietly(prog, rtol=1e-6, atol=1e-8)


def test_second_derivative_at_repeated_singular_values():
    """1 / (S_j^2 - S_i^2) is inf at repeated singular values: torch's nan and inf."""
    def prog(tg):
        x = tg.tensor([[2.0, 0.0], [0.0, 2.0]], dtype=tg.float64, requires_grad=True)
        (grad,) = tg.autograd.grad(tg.linalg.matrix_norm(x, "nuc"), x, create_graph=True)
        return D.loose(tg.autograd.grad(grad[0, 1], x)[0])
    run_quietly(prog)


# ---- the backward graphs of the other norms ---------------------------------------------------


def _norm_leaf(tg):
    return tg.tensor([[1.5, -2.3, 0.5], [2.0, 0.1, -0.7]], requires_grad=True)


@pytest.mark.parametrize("case", sorted(OTHER_NORMS))
def test_other_norms_backward_graph(case):
    """The whole graph of the norm, from its grad_fn along next_functions to the leaf."""
    run_quietly(lambda tg: D.graph(OTHER_NORMS[case](tg, _norm_leaf(tg))))


@pytest.mark.parametrize("case", sorted(OTHER_NORMS))
def test_other_norms_gradient_graph(case):
    """The graph of the gradient under create_graph=True, and the second derivative."""
    def prog(tg):
        x = _norm_leaf(tg)
        (grad,) = tg.autograd.grad(OTHER_NORMS[case](tg, x).sum(), x, create_graph=True)
        (second,) = tg.autograd.grad(grad.sum(), x, allow_unused=True)
        return D.graph(grad), D.loose(second.clone())     # (torch's may be a ZeroTensor)
    run_quietly(prog, rtol=1e-4, atol=1e-5)
