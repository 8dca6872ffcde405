"""What ``mm`` and ``addmm`` nodes save, compared with torch: ``MmBackward0`` shows both
factors' ``_saved_*_sym_sizes``, and ``_saved_*_sym_strides`` for those that need a
gradient (``()`` for the others); ``AddmmBackward0`` shows the same for mat1 and mat2, plus
``_saved_alpha`` and ``_saved_beta``. And ``addmm(bias, a, b, beta=, alpha=)`` computes and
differentiates ``beta * bias + alpha * (a @ b)`` as torch does."""
import math

import numpy as np
import pytest

try:
    from . import differential as D
except ImportError:
    import differential as D

torch = pytest.importorskip("torch")
run = D.run_both


MM_NAMES = ("_saved_self", "_saved_mat2", "_saved_self_sym_sizes", "_saved_self_sym_strides",
            "_saved_mat2_sym_sizes", "_saved_mat2_sym_strides")
ADDMM_NAMES = ("_saved_mat1", "_saved_mat2", "_saved_mat1_sym_sizes", "_saved_mat1_sym_strides",
               "_saved_mat2_sym_sizes", "_saved_mat2_sym_strides", "_saved_alpha", "_saved_beta")


def _saved(node):
    """The node's saved attributes (a tensor by its shape, None if not saved), and which of
    the numbers ``dir()`` lists. (The saved tensors' names are left out of ``dir()``: teachgrad
    lists only those it saved, see tests/test_saved_attributes.py.)"""
    names = MM_NAMES if type(node).__name__ == "MmBackward0" else ADDMM_NAMES
    values = {name: getattr(node, name) for name in names}
    listed = sorted(n for n in dir(node) if "_sym_" in n or n in ("_saved_alpha", "_saved_beta"))
    return {"listed": listed, **{name: tuple(value.shape) if D.is_tensor(value) else value
                                 for name, value in values.items()}}


def _matrix(tg, rows, columns, seed, requires_grad=True):
    return tg.tensor(D.data((rows, columns), seed=seed), requires_grad=requires_grad)


FACTORS = {      # (self, mat2) of mm, made from a 3x4 and a 4x5 matrix
    "both_need_grad": lambda tg: (_matrix(tg, 3, 4, 0), _matrix(tg, 4, 5, 1)),
    "self_only": lambda tg: (_matrix(tg, 3, 4, 0), _matrix(tg, 4, 5, 1, False)),
    "mat2_only": lambda tg: (_matrix(tg, 3, 4, 0, False), _matrix(tg, 4, 5, 1)),
    "transposed_mat2": lambda tg: (_matrix(tg, 3, 4, 0), _matrix(tg, 5, 4, 1).t()),
    "transposed_self": lambda tg: (_matrix(tg, 4, 3, 0).t(), _matrix(tg, 4, 5, 1)),
    "column_vector_mat2": lambda tg: (_matrix(tg, 3, 4, 0), _matrix(tg, 1, 4, 1).t()),
}


@pytest.mark.parametrize("case", sorted(FACTORS))
def test_mm_saves_sizes_and_strides_like_torch(case):
    def prog(tg):
        a, b = FACTORS[case](tg)
        return _saved(a.mm(b).grad_fn)
    run(prog)


@pytest.mark.parametrize("case", sorted(FACTORS))
def test_addmm_saves_sizes_strides_alpha_and_beta_like_torch(case):
    def prog(tg):
        a, b = FACTORS[case](tg)
        bias = tg.tensor(D.data((b.shape[1],), seed=2), requires_grad=True)
        return [_saved(tg.addmm(bias, a, b, **scales).grad_fn)
                for scales in ({}, {"alpha": 2}, {"beta": 0.5}, {"alpha": 1.0, "beta": True})]
    run(prog)


def test_matmul_and_linear_record_the_same_attributes():
    def prog(tg):
        tg.manual_seed(0)
        layer = tg.nn.Linear(4, 3)
        x = _matrix(tg, 2, 4, 0, False)
        return {"linear": _saved(layer(x).grad_fn),
                "matmul": _saved((x @ layer.weight.t()).grad_fn)}
    run(prog)


def test_the_attributes_outlive_backward():
    """Sizes and strides are numbers, not tensors: they stay readable after backward frees
    the saved factors."""
    def prog(tg):
        a, b = _matrix(tg, 3, 4, 0), _matrix(tg, 4, 5, 1)
        out = a.mm(b)
        out.sum().backward()
        return {name: getattr(out.grad_fn, name) for name in (
            "_saved_self_sym_sizes", "_saved_self_sym_strides", "_saved_mat2_sym_sizes",
            "_saved_mat2_sym_strides")}
    run(prog)


SCALES = [{}, {"alpha": 2}, {"beta": 0.5}, {"alpha": -1.5, "beta": 3}, {"alpha": 0.25, "beta": 0},
          {"alpha": 0.0, "beta": 2.0}]


@pytest.mark.parametrize("scales", SCALES,
                         ids=lambda s: ",".join(f"{k}={v}" for k, v in s.items()) or "default")
@pytest.mark.parametrize("bias_shape", [(5,), (3, 5), (1, 5)])
def test_addmm_with_alpha_and_beta_computes_and_differentiates_like_torch(scales, bias_shape):
    def prog(tg):
        a, b = _matrix(tg, 3, 4, 0), _matrix(tg, 5, 4, 1).t()
        bias = tg.tensor(D.data(bias_shape, seed=2), requires_grad=True)
        out = tg.addmm(bias, a, b, **scales)
        weights = tg.tensor(D.data((3, 5), seed=3))
        grads = tg.autograd.grad((out * weights).sum(), (bias, a, b), create_graph=True)
        return {"out": out, "grads": [D.snap(g.detach(), version=False) for g in grads],
                "grad_nodes": [D.name(g) for g in grads],
                "mat2_grad_strides": grads[2].stride()}
    run(prog)


def test_beta_zero_ignores_the_values_of_the_bias():
    """beta = 0: a nan or inf bias does not reach the result, and its gradient is 0."""
    def prog(tg):
        a, b = _matrix(tg, 2, 3, 0), _matrix(tg, 3, 2, 1)
        bias = tg.tensor([math.nan, math.inf], requires_grad=True)
        out = tg.addmm(bias, a, b, beta=0, alpha=2)
        out.sum().backward()
        return {"out": out, "bias_grad": bias.grad, "a_grad": a.grad}
    run(prog)


def test_beta_zero_still_checks_the_shape_of_the_bias():
    def prog(tg):
        tg.addmm(tg.ones(3), tg.ones(2, 2), tg.ones(2, 2), beta=0)
    run(prog, raises="RuntimeError", msg="")


def test_an_integer_addmm_casts_alpha_and_beta_to_integers():
    def prog(tg):
        ones = tg.ones(2, 2, dtype=tg.int64)
        return [tg.addmm(ones * 3, ones, ones * 2, **scales)
                for scales in ({"alpha": 2.5}, {"beta": 1.5}, {"alpha": 3, "beta": 0})]
    run(prog)


def test_a_linear_layer_trains_the_same_through_addmm():
    """nn.Linear's addmm with the default alpha = beta = 1: the gradients and the weight's
    layout (contiguous, like the weight) as in torch."""
    def prog(tg):
        tg.manual_seed(0)
        layer = tg.nn.Linear(4, 3)
        x = tg.tensor(np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4).tolist())
        layer(x).pow(2).sum().backward()
        return {"weight_grad": layer.weight.grad, "bias_grad": layer.bias.grad,
                "weight_grad_strides": layer.weight.grad.stride()}
    run(prog)
