"""IEEE special cases, compared with torch: inf * 0, inf - inf, sin(inf), overflow, sums of
opposite infinities... give torch's values (nan, inf) and, as in torch, no warning — numpy's
RuntimeWarnings ("invalid value encountered in multiply"...) must not reach the user, in
forward or in the backward formulas. Also the gradients torch keeps finite or zero where a
plain ``grad * mask`` would make nan (relu, clamp, maximum, atan2 at the origin, pow).

The reductions (max, min, amax, trace, prod, cumprod, var, softmax) are tested the same way
in test_reduction_specials.py; the losses, activations, norms and solves of nn and linalg in
test_nn_linalg_specials.py."""
import math

import pytest

try:
    from . import differential as D
except ImportError:
    import differential as D

torch = pytest.importorskip("torch")

INF, NAN = math.inf, math.nan
SPECIAL = [INF, -INF, NAN, 0.0, -0.0, 1e38, -1e38, 1.0, -0.5, 3.0]


def run_quietly(prog):
    """Same results as torch, and no warning from either."""
    t_out, g_out = D.run_both(prog)
    assert not t_out.warns, f"bad test: torch warned {t_out.warns}"
    assert not g_out.warns, f"teachgrad warned {g_out.warns}"


def pairs(tg):
    """Every pair of special values, as two leaves of the same length."""
    a = [x for x in SPECIAL for _ in SPECIAL]
    b = [y for _ in SPECIAL for y in SPECIAL]
    return tg.tensor(a, requires_grad=True), tg.tensor(b, requires_grad=True)


def gradients(tg, output, inputs, grad_value):
    """The gradients of ``output`` for a gradient filled with ``grad_value``."""
    grad = tg.full(output.shape, grad_value)
    return tg.autograd.grad(output, inputs, grad, allow_unused=True)


FORWARD = {
    "inf_times_zero": lambda tg: tg.tensor([INF, 0.0]) * tg.tensor([0.0, -INF]),
    "inf_minus_inf": lambda tg: tg.tensor([INF]) - tg.tensor([INF]),
    "inf_plus_minus_inf": lambda tg: tg.tensor([INF]) + tg.tensor([-INF]),
    "inf_plus_minus_inf_alpha": lambda tg: tg.tensor([INF]).add(tg.tensor([-INF]), alpha=2),
    "number_minus_inf": lambda tg: INF - tg.tensor([INF]),
    "overflow": lambda tg: tg.tensor([1e38]) * tg.tensor([10.0]),
    "times_number_zero": lambda tg: tg.tensor([INF, -INF]).mul(0),
    "zero_over_zero": lambda tg: tg.tensor([0.0]) / tg.tensor([0.0]),
    "number_over_zero": lambda tg: 1 / tg.tensor([0.0, -0.0]),
    "sin_inf": lambda tg: tg.tensor([INF, -INF, 1.0]).sin(),
    "cos_inf": lambda tg: tg.tensor([INF, -INF, 1.0]).cos(),
    "tan_inf": lambda tg: tg.tensor([INF, -INF, 1.0]).tan(),
    "fmod_inf": lambda tg: tg.tensor([INF, 3.0]).fmod(2.0),
    "lerp_inf": lambda tg: tg.tensor([INF, 1.0]).lerp(tg.tensor([INF, 2.0]), tg.tensor([0.3, 0.7])),
    "addcmul_inf": lambda tg: tg.addcmul(tg.tensor([-INF]), tg.tensor([INF]), tg.tensor([2.0])),
    "addcdiv_zero": lambda tg: tg.addcdiv(tg.tensor([1.0]), tg.tensor([0.0]), tg.tensor([0.0])),
    "sum_of_opposite_infinities": lambda tg: tg.tensor([INF, -INF]).sum(),
    "mean_of_opposite_infinities": lambda tg: tg.tensor([INF, -INF]).mean(),
    "sum_dim": lambda tg: tg.tensor([[INF, 1.0], [-INF, 2.0]]).sum(0),
    "mean_dim": lambda tg: tg.tensor([[INF, 1.0], [-INF, 2.0]]).mean(0),
    "prod_inf_zero": lambda tg: tg.tensor([INF, 0.0]).prod(),
    "prod_dim": lambda tg: tg.tensor([[INF, 1.0], [0.0, 2.0]]).prod(0),
    "cumsum": lambda tg: tg.tensor([INF, -INF, 1.0]).cumsum(0),
    "var": lambda tg: tg.tensor([INF, 1.0, 2.0]).var(),
    "std_dim": lambda tg: tg.tensor([[INF, 1.0], [2.0, 3.0]]).std(0),
    "nansum": lambda tg: tg.tensor([INF, -INF, NAN]).nansum(),
    "logsumexp_inf": lambda tg: tg.tensor([[INF, 1.0], [-INF, 2.0]]).logsumexp(1),
    "mm_inf_zero": lambda tg: tg.tensor([[INF, 1.0]]).mm(tg.tensor([[0.0], [1.0]])),
    "matmul_inf_zero": lambda tg: tg.tensor([[INF, 1.0]]) @ tg.tensor([[0.0], [1.0]]),
    "mv_inf_zero": lambda tg: tg.tensor([[INF, 1.0]]).mv(tg.tensor([0.0, 1.0])),
    "dot_overflow": lambda tg: tg.tensor([1e38, 1e38]).dot(tg.tensor([1e38, -1e38])),
    "bmm_inf_zero": lambda tg: tg.bmm(tg.tensor([[[INF, 1.0]]]), tg.tensor([[[0.0], [1.0]]])),
    "addmm_inf_bias": lambda tg: tg.addmm(tg.tensor([-INF]), tg.tensor([[INF, 1.0]]),
                                          tg.tensor([[1.0], [1.0]])),
    "sign_nan": lambda tg: tg.tensor([NAN, -0.0, -2.0]).sign(),
    "pow_minus_half_of_negative_zero": lambda tg: tg.tensor([-0.0, -INF, 4.0]) ** -0.5,
}


@pytest.mark.parametrize("case", sorted(FORWARD))
def test_special_values_forward(case):
    run_quietly(lambda tg: FORWARD[case](tg))


def test_a_product_with_an_infinite_factor_and_a_zero_gradient():
    """d(x * y)/dx = grad * y: a zero gradient times y = inf is nan, silently."""
    def prog(tg):
        x, y = tg.tensor([2.0], requires_grad=True), tg.tensor([INF], requires_grad=True)
        return gradients(tg, x * y, (x, y), 0.0)
    run_quietly(prog)


@pytest.mark.parametrize("grad_value", [1.0, 0.0, INF, NAN])
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "pow", "atan2", "maximum",
                                "minimum", "fmod", "addcmul", "addcdiv", "lerp"])
def test_binary_op_on_every_pair_of_special_values(op, grad_value):
    functions = {
        "add": lambda tg, a, b: a + b, "sub": lambda tg, a, b: a - b,
        "mul": lambda tg, a, b: a * b, "div": lambda tg, a, b: a / b,
        "pow": lambda tg, a, b: a ** b, "atan2": lambda tg, a, b: tg.atan2(a, b),
        "maximum": lambda tg, a, b: tg.maximum(a, b), "minimum": lambda tg, a, b: tg.minimum(a, b),
        "fmod": lambda tg, a, b: a.fmod(b), "addcmul": lambda tg, a, b: tg.addcmul(a, a, b, value=2),
        "addcdiv": lambda tg, a, b: tg.addcdiv(a, a, b, value=2),
        "lerp": lambda tg, a, b: a.lerp(b, tg.full(a.shape, 0.3)),
    }

    def prog(tg):
        a, b = pairs(tg)
        out = functions[op](tg, a, b)
        return {"out": out.detach(), "grads": gradients(tg, out, (a, b), grad_value)}
    run_quietly(prog)


UNARY = {
    "neg": lambda tg, x: -x, "exp": lambda tg, x: x.exp(), "log": lambda tg, x: x.log(),
    "sqrt": lambda tg, x: x.sqrt(), "rsqrt": lambda tg, x: x.rsqrt(), "reciprocal": lambda tg, x: x.reciprocal(),
    "abs": lambda tg, x: x.abs(), "sign": lambda tg, x: x.sign(), "sin": lambda tg, x: x.sin(),
    "cos": lambda tg, x: x.cos(), "tan": lambda tg, x: x.tan(), "tanh": lambda tg, x: x.tanh(),
    "sigmoid": lambda tg, x: x.sigmoid(), "relu": lambda tg, x: x.relu(), "square": lambda tg, x: x.square(),
    "log1p": lambda tg, x: x.log1p(), "expm1": lambda tg, x: x.expm1(), "erf": lambda tg, x: x.erf(),
    "asin": lambda tg, x: x.asin(), "acos": lambda tg, x: x.acos(), "atan": lambda tg, x: x.atan(),
    "sinh": lambda tg, x: x.sinh(), "cosh": lambda tg, x: x.cosh(), "log2": lambda tg, x: x.log2(),
    "log10": lambda tg, x: x.log10(), "nan_to_num": lambda tg, x: x.nan_to_num(),
    "pow_half": lambda tg, x: x ** 0.5, "pow_minus_half": lambda tg, x: x ** -0.5,
    "pow_minus_one": lambda tg, x: x ** -1, "pow_three": lambda tg, x: x ** 3,
    "two_to_the": lambda tg, x: 2 ** x, "zero_to_the": lambda tg, x: 0 ** x,
    "times_inf": lambda tg, x: x * INF, "times_zero": lambda tg, x: x * 0, "over_zero": lambda tg, x: x / 0,
    "number_over": lambda tg, x: 1 / x, "zero_over": lambda tg, x: 0 / x,
    "clamp": lambda tg, x: x.clamp(-1, 1), "clamp_min": lambda tg, x: x.clamp_min(0),
    "x_times_x": lambda tg, x: x * x, "x_minus_x": lambda tg, x: x - x,
    "sum": lambda tg, x: x.sum(), "mean": lambda tg, x: x.mean(), "prod": lambda tg, x: x.prod(),
    "sum_dim": lambda tg, x: x.reshape(5, 2).sum(1), "mean_dim": lambda tg, x: x.reshape(2, 5).mean(0),
    "var": lambda tg, x: x.var(), "std_dim": lambda tg, x: x[:4].reshape(2, 2).std(1),
    "cumsum": lambda tg, x: x.cumsum(0), "logsumexp": lambda tg, x: x.reshape(2, 5).logsumexp(1),
    "nansum": lambda tg, x: x.nansum(), "nanmean": lambda tg, x: x.nanmean(),
    "mm": lambda tg, x: x.reshape(2, 5).mm(x.reshape(5, 2)),
    "matmul": lambda tg, x: x.reshape(5, 2) @ x.reshape(2, 5),
    "mv": lambda tg, x: x.reshape(2, 5).mv(x.flip(0)[:5]), "dot": lambda tg, x: x.dot(x.flip(0)),
    "outer": lambda tg, x: tg.outer(x[::2], x[1::2]),
}


@pytest.mark.parametrize("grad_value", [1.0, 0.0, INF])
@pytest.mark.parametrize("op", sorted(UNARY))
def test_op_of_special_values(op, grad_value):
    def prog(tg):
        x = tg.tensor(SPECIAL, requires_grad=True)
        out = UNARY[op](tg, x)
        return {"out": out.detach(), "grads": gradients(tg, out, (x,), grad_value)}
    run_quietly(prog)


@pytest.mark.parametrize("alpha, beta", [(1, 1), (2.0, 0.5), (1, 0)])
def test_addmm_of_special_values(alpha, beta):
    def prog(tg):
        x = tg.tensor(SPECIAL, requires_grad=True)
        bias = tg.tensor([INF, NAN], requires_grad=True)
        out = tg.addmm(bias, x.reshape(5, 2), x.reshape(2, 5)[:, :2], alpha=alpha, beta=beta)
        return {"out": out.detach(), "grads": gradients(tg, out, (bias, x), 1.0)}
    run_quietly(prog)


def test_a_linear_layer_with_an_infinite_input():
    def prog(tg):
        tg.manual_seed(0)
        layer = tg.nn.Linear(3, 2)
        with tg.no_grad():
            layer.weight.copy_(tg.tensor([[0.0, 1.0, 2.0], [-1.0, 0.5, 0.0]]))
        out = layer(tg.tensor([[INF, 1.0, 2.0], [1.0, -INF, 0.0]]))
        out.sum().backward()
        return {"out": out, "weight_grad": layer.weight.grad, "bias_grad": layer.bias.grad}
    run_quietly(prog)


def test_opposite_infinite_gradients_of_one_leaf_add_up_to_nan():
    """The engine's input buffer and ``.grad`` add gradients in place: inf + -inf is nan
    there too, without a warning, and the sum counts as a change of the gradient."""
    def prog(tg):
        x = tg.tensor([1.0, 2.0], requires_grad=True)
        (x * INF + x * -INF).sum().backward()          # two gradients meet in the buffer
        in_buffer = (x.grad.clone(), x.grad._version)
        x.grad = None
        (x * INF).sum().backward()
        (x * -INF).sum().backward()                     # the second one is added into .grad
        return {"in_buffer": in_buffer, "into_grad": (x.grad, x.grad._version)}
    run_quietly(prog)


def test_numpy_outside_teachgrad_still_warns():
    """The warnings are switched off for teachgrad's own numpy calls only."""
    import warnings

    import numpy as np
    import teachgrad as tg
    tg.tensor([INF]) * tg.tensor([0.0])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        np.array([INF]) * 0
    assert [w.category for w in caught] == [RuntimeWarning]


def test_a_blocked_gradient_is_a_positive_zero():
    """relu passes the gradient where its output is above 0 and gives +0.0 elsewhere, bit for
    bit as torch (inf, nan and -0.0 pass; a negative gradient does not leave -0.0 behind)."""
    import numpy as np

    def prog(tg):
        x, g = pairs(tg)
        grad = tg.autograd.grad(x.relu(), x, g)[0]
        return {"grad": grad, "sign_bits": np.signbit(grad.detach().numpy()).tolist()}
    run_quietly(prog)


TIES = {
    "relu": lambda tg, x, b: x.relu(),
    "relu_": lambda tg, x, b: x.clone().relu_(),
    "clamp_min_number": lambda tg, x, b: x.clamp(min=b),
    "clamp_max_number": lambda tg, x, b: x.clamp(max=b),
    "clamp_both_numbers": lambda tg, x, b: x.clamp(b, b),
    "clamp_min_method": lambda tg, x, b: x.clamp_min(b),
    "clamp_max_method": lambda tg, x, b: x.clamp_max(b),
    "clamp_min_tensor": lambda tg, x, b: x.clamp(min=tg.full_like(x, b)),
    "clamp_max_tensor": lambda tg, x, b: x.clamp(max=tg.full_like(x, b)),
    "clamp_both_tensors": lambda tg, x, b: x.clamp(tg.full_like(x, b), tg.full_like(x, b)),
    "maximum": lambda tg, x, b: tg.maximum(x, tg.full_like(x, b)),
    "minimum": lambda tg, x, b: tg.minimum(x, tg.full_like(x, b)),
}


@pytest.mark.parametrize("bound", [0.0, -0.0])
@pytest.mark.parametrize("op", sorted(TIES))
def test_a_tie_with_the_bound_keeps_the_input(op, bound):
    """-0.0 and 0.0 are equal: where the input ties with the bound, torch keeps the input's
    own zero (relu(-0.0) is -0.0), whichever zero the bound is."""
    import numpy as np

    def prog(tg):
        out = TIES[op](tg, tg.tensor([-0.0, 0.0, -1.0, 2.0]), bound)
        return {"out": out, "sign_bits": np.signbit(out.numpy()).tolist()}
    run_quietly(prog)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("exponent", [-2, -1, -0.5, 2, 3])
def test_powers_torch_computes_by_products_are_bit_for_bit_torchs(exponent, dtype):
    """torch's CPU kernel computes x ** 2, 3, -1, -2 and -0.5 as products and roots, not
    with pow(): the same last bits, and 1 / (x * x) = 0 for a large x where pow(x, -2) is
    a subnormal. (Other exponents go through pow(), whose last bit differs between torch's
    vectorised code and numpy's now and then: the gradients are compared loosely.)"""
    import numpy as np

    def power(tg):
        values = np.random.default_rng(0).standard_normal(2000) * 50
        x = tg.tensor(np.concatenate([values, [0.0, -0.0, 1e20, -3e19, 1e-20]]),
                      dtype=getattr(tg, dtype), requires_grad=True)
        return x, x ** exponent

    def gradient(tg):
        x, y = power(tg)
        return tg.autograd.grad(y.sum(), x)[0]

    t_out, g_out = D.run_both(lambda tg: power(tg)[1], rtol=0, atol=0)
    assert not g_out.warns, f"teachgrad warned {g_out.warns}"
    run_quietly(gradient)
