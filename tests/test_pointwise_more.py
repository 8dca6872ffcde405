"""The pointwise functions and reductions added after the first chapters (sgn, asinh...,
erfinv, hypot, xlogy, logit, fmax, float_power...; aliases such as ``multiply``; aminmax,
var_mean, std_mean, cummax, cummin, logcumsumexp) compared with torch: values, dtypes, node
names, the graph of the gradient under create_graph=True, the second derivative, values at
0, ±inf and nan (without a numpy warning), integer inputs, the in-place versions and the
errors."""
import math

import numpy as np
import pytest

try:
    from . import differential as D
except ImportError:
    import differential as D

torch = pytest.importorskip("torch")

INF, NAN = math.inf, math.nan
SPECIAL = [INF, -INF, NAN, 0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -3.0, 1e-30, 40.0, -40.0]


def run_quietly(prog, **options):
    """Same results as torch, and no warning from teachgrad (nor from torch)."""
    t_out, g_out = D.run_both(prog, **options)
    assert not t_out.warns, f"bad test: torch warned {t_out.warns}"
    assert not g_out.warns, f"teachgrad warned {g_out.warns}"


def _leaf(tg, values, dtype=None):
    return tg.tensor(values, dtype=dtype or tg.float32, requires_grad=True)


# inputs inside each function's domain, so that values and gradients are finite
X = [[1.5, -2.3, 0.5], [2.0, 0.1, -0.7]]
Y = [[0.5, 1.3, -0.5], [2.0, -0.1, 0.7]]
P = [[0.2, 0.7, 0.5], [0.9, 0.1, 0.3]]
ABOVE_ONE = [[1.5, 2.3, 1.2], [2.0, 1.1, 3.7]]
POSITIVE = [[1.5, 2.3, 0.5], [2.0, 0.1, 3.7]]

UNARY = {   # name: (function, input)
    "sgn": (lambda tg, x: x.sgn(), X),
    "asinh": (lambda tg, x: tg.asinh(x), X),
    "arcsinh": (lambda tg, x: tg.arcsinh(x), X),
    "acosh": (lambda tg, x: x.acosh(), ABOVE_ONE),
    "arccosh": (lambda tg, x: x.arccosh(), ABOVE_ONE),
    "atanh": (lambda tg, x: tg.atanh(x), P),
    "arctanh": (lambda tg, x: x.arctanh(), P),
    "erfc": (lambda tg, x: tg.erfc(x), X),
    "erfinv": (lambda tg, x: x.erfinv(), P),
    "exp2": (lambda tg, x: tg.exp2(x), X),
    "frac": (lambda tg, x: x.frac(), X),
    "logit": (lambda tg, x: tg.logit(x), P),
    "logit_eps": (lambda tg, x: x.logit(0.25), P),
    "sinc": (lambda tg, x: tg.sinc(x), X),
    "deg2rad": (lambda tg, x: tg.deg2rad(x), X),
    "rad2deg": (lambda tg, x: x.rad2deg(), X),
    "xlogy_number_first": (lambda tg, x: tg.xlogy(2.0, x), POSITIVE),
    "xlogy_number_second": (lambda tg, x: x.xlogy(3.0), X),
    "xlogy_negative_number": (lambda tg, x: x.xlogy(-3.0), X),
    "copysign_number": (lambda tg, x: x.copysign(-1.0), X),
    "float_power_number": (lambda tg, x: x.float_power(2), X),
    "float_power_of_number": (lambda tg, x: tg.float_power(2, x), X),
    "absolute": (lambda tg, x: tg.absolute(x), X),
    "abs": (lambda tg, x: x.abs(), X),
    "negative": (lambda tg, x: x.negative(), X),
    "positive": (lambda tg, x: tg.positive(x) * 2, X),
    "ldexp_by_integers": (lambda tg, x: x.ldexp(tg.tensor([1, 2, -3])), X),
}

BINARY = {   # name: (function, first input, second input)
    "hypot": (lambda tg, x, y: tg.hypot(x, y), X, Y),
    "logaddexp": (lambda tg, x, y: x.logaddexp(y), X, Y),
    "logaddexp2": (lambda tg, x, y: tg.logaddexp2(x, y), X, Y),
    "xlogy": (lambda tg, x, y: tg.xlogy(x, y), X, POSITIVE),
    "copysign": (lambda tg, x, y: x.copysign(y), X, Y),
    "fmax": (lambda tg, x, y: tg.fmax(x, y), X, Y),
    "fmin": (lambda tg, x, y: x.fmin(y), X, Y),
    "float_power": (lambda tg, x, y: tg.float_power(x, y), POSITIVE, Y),
    "nextafter": (lambda tg, x, y: x.nextafter(y), X, [[0.5, 1.3, -0.5], [2.0, 0.1, 0.7]]),
    "ldexp": (lambda tg, x, y: tg.ldexp(x, y), X, Y),
    "multiply": (lambda tg, x, y: tg.multiply(x, y), X, Y),
    "divide": (lambda tg, x, y: x.divide(y), X, Y),
    "true_divide": (lambda tg, x, y: tg.true_divide(x, y), X, Y),
    "subtract": (lambda tg, x, y: x.subtract(y), X, Y),
}


def _gradient_report(tg, y, inputs):
    """The gradient of y (weighted, so that ties of the weights do not hide a mistake),
    the graph it makes under create_graph=True, and the second derivative."""
    weights = tg.tensor([[1.0, -2.0, 0.5], [3.0, 1.0, -1.5]])
    grads = tg.autograd.grad((y * weights).sum(), inputs, create_graph=True)
    differentiable = [g for g in grads if g.requires_grad]
    second = tg.autograd.grad(sum(g.sum() for g in differentiable), inputs,
                              allow_unused=True) if differentiable else ()
    return {"grads": [D.loose(g.detach().clone()) for g in grads],     # (torch's may be a
            # ZeroTensor)
            "graphs": [D.graph(g) for g in grads],
            "second": [None if s is None else D.loose(s.clone()) for s in second]}


@pytest.mark.parametrize("case", sorted(UNARY))
def test_function_of_one_tensor(case):
    function, values = UNARY[case]

    def prog(tg):
        x = _leaf(tg, values)
        y = function(tg, x)
        return {"y": y, "graph": D.graph(y), **_gradient_report(tg, y, (x,))}
    run_quietly(prog, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("case", sorted(BINARY))
def test_function_of_two_tensors(case):
    function, first, second = BINARY[case]

    def prog(tg):
        x, y = _leaf(tg, first), _leaf(tg, second)
        z = function(tg, x, y)
        return {"z": z, "graph": D.graph(z), **_gradient_report(tg, z, (x, y))}
    run_quietly(prog, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("case", sorted(set(UNARY) - {"ldexp_by_integers"}))
def test_function_of_one_tensor_at_special_values(case):
    """Values and first gradients at inf, nan, 0, -0.0, 1... in float64 and float32."""
    function, _ = UNARY[case]
    values = SPECIAL
    if case.startswith("logit"):
        # torch's logit_backward kernel answers -0.0 and nan differently in its vectorised
        # and its scalar loops (so by position and dtype): left out
        values = [v for v in SPECIAL if v == v and math.copysign(1, v) > 0]

    def prog(tg):
        out = {}
        for dtype in (tg.float32, tg.float64):
            x = _leaf(tg, values, dtype)
            y = function(tg, x)
            (grad,) = tg.autograd.grad(y.sum(), x)
            out[str(dtype).split(".")[-1]] = [y.detach(), D.loose(grad.clone())]
        return out
    run_quietly(prog, rtol=1e-6, atol=1e-12)


@pytest.mark.parametrize("case", sorted(BINARY))
def test_function_of_two_tensors_at_special_values(case):
    function, _, _ = BINARY[case]

    def prog(tg):
        x = _leaf(tg, [v for v in SPECIAL for _ in SPECIAL], tg.float64)
        y = _leaf(tg, [v for _ in SPECIAL for v in SPECIAL], tg.float64)
        z = function(tg, x.view(14, 14), y.view(14, 14))
        grads = tg.autograd.grad(z.sum(), (x, y), allow_unused=True)
        return [z.detach()] + [None if g is None else D.loose(g.clone()) for g in grads]
    run_quietly(prog, rtol=1e-6, atol=1e-12)


def test_logit_gradients_outside_zero_one():
    """Without create_graph torch's logit_backward kernel runs; with it, a where of ops: the
    two differ at nan with eps."""
    def prog(tg):
        out = []
        for eps in (None, 0.1, 0.6):
            for create_graph in (False, True):
                x = _leaf(tg, [-0.5, 0.0, 1.0, 1.5, 0.5, NAN, 0.05, INF])
                y = x.logit(eps)
                (grad,) = tg.autograd.grad(y.sum(), x, create_graph=create_graph)
                out.append([y.detach(), D.loose(grad.detach())])
        return out
    run_quietly(prog)


# ---- erfinv, as precise as torch's ------------------------------------------------------
def _ulps(a, b):
    """How many representable numbers apart two arrays of the same float dtype are."""
    bits = {np.float64: np.int64, np.float32: np.int32}[a.dtype.type]
    ia, ib = a.view(bits).astype(np.int64), b.view(bits).astype(np.int64)
    ia = np.where(ia < 0, np.iinfo(bits).min - ia, ia)
    ib = np.where(ib < 0, np.iinfo(bits).min - ib, ib)
    return np.abs(ia - ib)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_erfinv_within_a_few_ulps_of_torch(dtype):
    import teachgrad
    rng = np.random.default_rng(0)
    values = np.concatenate([rng.uniform(-1, 1, 5000), 1 - np.logspace(-16, -1, 200),
                             -1 + np.logspace(-16, -1, 200), np.logspace(-300, -1, 200),
                             [0.0, -0.0, 0.7, -0.7, 0.69999999, 0.70000001]]).astype(dtype)
    ours = teachgrad.tensor(values).erfinv().numpy()
    theirs = torch.tensor(values).erfinv().numpy()
    assert (np.isfinite(ours) == np.isfinite(theirs)).all()
    # torch's Newton steps on erf lose digits where erf(x) is within a few ulps of 1
    # (teachgrad's work on erfc there): compared up to |y| = 1 - 1e-6
    inside = np.abs(values) < 1 - 1e-6
    assert _ulps(ours[inside], theirs[inside]).max() <= 2
    if dtype == "float64":       # and it inverts erf to the precision of erf and erfc
        x = ours[np.isfinite(ours)]
        y = values[np.isfinite(ours)]
        tail = np.abs(y) > 0.7
        np.testing.assert_allclose(np.vectorize(math.erf)(x[~tail]), y[~tail], rtol=4e-16,
                                   atol=0)
        np.testing.assert_allclose(np.vectorize(math.erfc)(np.abs(x[tail])), 1 - np.abs(y[tail]),
                                   rtol=1e-14, atol=0)


def test_erfinv_at_the_ends():
    run_quietly(lambda tg: tg.tensor([1.0, -1.0, 1.5, -2.0, NAN, 0.0, -0.0, INF]).erfinv())


# ---- integer and bool inputs, and errors ----------------------------------------------
INTEGER_CASES = {
    "asinh": lambda tg, i, b: tg.asinh(i),
    "acosh": lambda tg, i, b: tg.acosh(i),
    "atanh": lambda tg, i, b: tg.atanh(i),
    "erfc": lambda tg, i, b: tg.erfc(i),
    "erfinv": lambda tg, i, b: tg.erfinv(b),
    "exp2": lambda tg, i, b: tg.exp2(i),
    "sinc": lambda tg, i, b: tg.sinc(i),
    "logit": lambda tg, i, b: tg.logit(i),
    "sgn": lambda tg, i, b: tg.sgn(i),
    "sgn_bool": lambda tg, i, b: tg.sgn(b),
    "frac": lambda tg, i, b: tg.frac(i),
    "deg2rad": lambda tg, i, b: tg.deg2rad(i),
    "rad2deg": lambda tg, i, b: tg.rad2deg(i),
    "signbit": lambda tg, i, b: tg.signbit(i),
    "isneginf": lambda tg, i, b: tg.isneginf(i),
    "isreal": lambda tg, i, b: tg.isreal(i),
    "xlogy": lambda tg, i, b: tg.xlogy(i, i),
    "xlogy_number": lambda tg, i, b: tg.xlogy(i, 2),
    "copysign": lambda tg, i, b: tg.copysign(i, -i),
    "hypot": lambda tg, i, b: tg.hypot(i, i),
    "logaddexp": lambda tg, i, b: tg.logaddexp(i, i),
    "fmax": lambda tg, i, b: tg.fmax(i, -i),
    "float_power": lambda tg, i, b: tg.float_power(i, 2),
    "nextafter": lambda tg, i, b: tg.nextafter(i, i),
    "ldexp": lambda tg, i, b: tg.ldexp(i, i.abs()),
    "heaviside": lambda tg, i, b: tg.heaviside(i, i),
    "heaviside_mixed": lambda tg, i, b: tg.heaviside(i, i.float()),
    "positive_bool": lambda tg, i, b: tg.positive(b),
    "logical_xor": lambda tg, i, b: tg.logical_xor(i, b),
    "not_equal": lambda tg, i, b: i.not_equal(2),
    "isin": lambda tg, i, b: tg.isin(i, tg.tensor([2, -3])),
    "isin_number": lambda tg, i, b: tg.isin(2, i),
    "isin_invert": lambda tg, i, b: tg.isin(i, tg.tensor([2]), invert=True),
    "aminmax": lambda tg, i, b: tg.aminmax(i),
    "cummax": lambda tg, i, b: tg.cummax(i, 0),
    "cummin_bool": lambda tg, i, b: tg.cummin(b, 0),
    "logcumsumexp": lambda tg, i, b: tg.logcumsumexp(i, 0),
    "var_mean": lambda tg, i, b: tg.var_mean(i),
}


@pytest.mark.parametrize("case", sorted(INTEGER_CASES))
def test_integer_and_bool_inputs(case):
    """torch's promotion (asinh of int64 is float32) or its error."""
    def prog(tg):
        ints = tg.tensor([2, -3, 0, 1, 2])
        bools = tg.tensor([True, False, False, True, True])
        return INTEGER_CASES[case](tg, ints, bools)
    run_quietly(prog, raises=D.ANY)


def test_promotion_between_float_dtypes():
    def prog(tg):
        a = tg.tensor([1.5, -2.0])
        b = tg.tensor([0.5, 3.0], dtype=tg.float64)
        c = tg.tensor(2.0, dtype=tg.float64)
        return [tg.hypot(a, b), tg.xlogy(a, c), tg.copysign(a, c), tg.fmax(a, b),
                tg.logaddexp(a, c), tg.ldexp(a, c), tg.float_power(a, b), tg.xlogy(3, a)]
    run_quietly(prog)


def test_heaviside():
    def prog(tg):
        x = tg.tensor([-1.0, 0.0, -0.0, 2.0, NAN, INF], requires_grad=True)
        y = tg.heaviside(x, tg.tensor([0.5]))
        return y, D.graph(y)
    run_quietly(prog)


def test_heaviside_has_no_derivative():
    def prog(tg):
        x = tg.tensor([-1.0, 0.0, 2.0], requires_grad=True)
        tg.heaviside(x, tg.tensor(0.5)).sum().backward()
    D.run_both(prog, raises="RuntimeError")


def test_isin_and_float_predicates():
    def prog(tg):
        x = tg.tensor([-1.0, 0.0, -0.0, 2.0, NAN, INF, -INF])
        return [tg.signbit(x), x.isposinf(), tg.isneginf(x), x.isreal(),
                tg.isin(x, tg.tensor([2.0, NAN, -INF])), tg.isin(x, 0.0)]
    run_quietly(prog)


# ---- in place ---------------------------------------------------------------------------
INPLACE = {   # name: (method call, input)
    "sgn_": (lambda tg, x: x.sgn_(), X),
    "erfc_": (lambda tg, x: x.erfc_(), X),
    "erfinv_": (lambda tg, x: x.erfinv_(), P),
    "exp2_": (lambda tg, x: x.exp2_(), X),
    "frac_": (lambda tg, x: x.frac_(), X),
    "logit_": (lambda tg, x: x.logit_(0.15), P),
    "sinc_": (lambda tg, x: x.sinc_(), X),
    "deg2rad_": (lambda tg, x: x.deg2rad_(), X),
    "rad2deg_": (lambda tg, x: x.rad2deg_(), X),
    "hypot_": (lambda tg, x: x.hypot_(tg.tensor(Y)), X),
    "xlogy_": (lambda tg, x: x.xlogy_(tg.tensor(POSITIVE)), X),
    "xlogy_number": (lambda tg, x: x.xlogy_(2.0), X),
    "copysign_": (lambda tg, x: x.copysign_(tg.tensor(Y)), X),
    "copysign_number": (lambda tg, x: x.copysign_(-2.0), X),
    "nextafter_": (lambda tg, x: x.nextafter_(tg.tensor(Y)), X),
    "ldexp_": (lambda tg, x: x.ldexp_(tg.tensor(Y)), X),
    "absolute_": (lambda tg, x: x.absolute_(), X),
    "negative_": (lambda tg, x: x.negative_(), X),
    "multiply_": (lambda tg, x: x.multiply_(tg.tensor(Y)), X),
    "divide_": (lambda tg, x: x.divide_(tg.tensor(Y)), X),
    "true_divide_": (lambda tg, x: x.true_divide_(2.0), X),
    "subtract_": (lambda tg, x: x.subtract_(tg.tensor(Y)), X),
    "float_power_": (lambda tg, x: x.double().float_power_(2), X),
    "float_power_tensor": (lambda tg, x: x.double().float_power_(tg.tensor(Y)), POSITIVE),
    "torch_exp2_": (lambda tg, x: tg.exp2_(x), X),
    "torch_negative_": (lambda tg, x: tg.negative_(x), X),
    "torch_logit_": (lambda tg, x: tg.logit_(x), P),
}


@pytest.mark.parametrize("case", sorted(INPLACE))
def test_inplace_versions(case):
    function, values = INPLACE[case]

    def prog(tg):
        leaf = _leaf(tg, values)
        x = leaf * 1.0
        y = function(tg, x)
        (grad,) = tg.autograd.grad(y.sum(), leaf)
        return {"x": x, "same": y is x, "version": x._version, "grad": D.loose(grad.clone())}
    run_quietly(prog)


@pytest.mark.parametrize("name", ["asinh_", "arcsinh_", "acosh_", "arccosh_", "atanh_",
                                  "arctanh_"])
def test_inplace_inverse_hyperbolics_have_no_derivative(name):
    def prog(tg):
        leaf = _leaf(tg, ABOVE_ONE if "cosh" in name else P)
        x = getattr(leaf * 1.0, name)()
        out = [x.detach().clone(), D.name(x)]
        x.sum().backward()
        return out
    D.run_both(prog, raises="NotImplementedError")


@pytest.mark.parametrize("name", ["asinh_", "erfc_", "sinc_", "logit_", "sgn_", "frac_"])
def test_inplace_on_integers(name):
    D.run_both(lambda tg: getattr(tg.tensor([1, 2]), name)(), raises=D.ANY)


def test_float_power_inplace_needs_double():
    D.run_both(lambda tg: tg.tensor([1.0, 2.0]).float_power_(2), raises="RuntimeError")


def test_heaviside_inplace():
    def prog(tg):
        x = tg.tensor([-1.0, 0.0, 2.0], requires_grad=True) * 1
        y = x.heaviside_(tg.tensor(0.5))
        out = [y.detach().clone(), D.name(y)]
        y.sum().backward()
        return out
    D.run_both(prog, raises="RuntimeError")


# ---- reductions ---------------------------------------------------------------------------
REDUCTIONS = {   # name: function returning a tuple of tensors
    "aminmax": lambda tg, x: tg.aminmax(x),
    "aminmax_dim": lambda tg, x: x.aminmax(dim=1),
    "aminmax_keepdim": lambda tg, x: tg.aminmax(x, dim=-2, keepdim=True),
    "aminmax_all_keepdim": lambda tg, x: tg.aminmax(x, keepdim=True),
    "var_mean": lambda tg, x: tg.var_mean(x),
    "var_mean_dim": lambda tg, x: tg.var_mean(x, 1),
    "var_mean_unbiased": lambda tg, x: tg.var_mean(x, 0, False, True),
    "var_mean_correction": lambda tg, x: tg.var_mean(x, dim=(0, 1), correction=0),
    "var_mean_keepdim": lambda tg, x: tg.var_mean(x, dim=-1, keepdim=True),
    "std_mean": lambda tg, x: tg.std_mean(x),
    "std_mean_dim": lambda tg, x: tg.std_mean(x, dim=0, keepdim=True),
    "std_mean_correction": lambda tg, x: tg.std_mean(x, 1, correction=2),
    "cummax": lambda tg, x: tg.cummax(x, 1),
    "cummax_dim0": lambda tg, x: x.cummax(0),
    "cummin": lambda tg, x: x.cummin(-1),
    "logcumsumexp": lambda tg, x: (tg.logcumsumexp(x, 1),),
    "logcumsumexp_dim0": lambda tg, x: (x.logcumsumexp(-2),),
}
TIES = [[1.5, -2.3, 1.5], [2.0, 2.0, -0.7], [-2.3, 0.1, 2.0]]


@pytest.mark.parametrize("case", sorted(REDUCTIONS))
def test_reductions(case):
    """Each result, the gradient through each result alone and through all, its graph
    under create_graph, the second derivative; on values with ties."""
    def prog(tg):
        x = _leaf(tg, TIES)
        results = REDUCTIONS[case](tg, x)
        floats = [r for r in results if r.dtype.is_floating_point]
        weights = tg.tensor(D.data(floats[0].shape, seed=1))
        report = {"results": list(results), "graphs": [D.graph(r) for r in results]}
        for i, r in enumerate(floats):
            (grad,) = tg.autograd.grad((r * weights).sum(), x, create_graph=True)
            report[f"grad{i}"] = [D.loose(grad.detach()), D.graph(grad)]
        total = sum((r * weights).sum() for r in floats)
        (grad,) = tg.autograd.grad(total, x, create_graph=True)
        report["grad_all"] = [D.loose(grad.detach()), D.graph(grad)]
        if grad.requires_grad:
            report["second"] = D.loose(tg.autograd.grad(grad.pow(2).sum(), x)[0])
        return report
    run_quietly(prog, rtol=1e-5, atol=1e-6)


def test_named_results():
    def prog(tg):
        x = tg.tensor(TIES)
        pair, running = tg.aminmax(x, dim=0), tg.cummin(x, 1)
        return [pair.min, pair.max, running.values, running.indices]
    run_quietly(prog)


@pytest.mark.parametrize("case", ["cummax", "cummin", "logcumsumexp", "aminmax"])
def test_reductions_at_special_values(case):
    """NaN takes over a running extreme (at the last NaN so far); inf in logcumsumexp."""
    rows = [[NAN, 1.0, NAN, 2.0, 0.0], [1.0, INF, -INF, INF, 3.0], [-INF, -INF, 0.0, -0.0, NAN],
            [2.0, 2.0, 1.0, 2.0, 2.0], [-INF, -INF, -INF, -INF, -INF]]

    def prog(tg):
        x = _leaf(tg, rows, tg.float64)
        if case == "aminmax":
            results = tg.aminmax(x, dim=1)
        elif case == "logcumsumexp":
            results = (tg.logcumsumexp(x, 1),)
        else:
            results = getattr(tg, case)(x, 1)
        (grad,) = tg.autograd.grad(results[0].sum(), x)
        return [r.detach() for r in results] + [D.loose(grad)]
    run_quietly(prog)


def test_logcumsumexp_gradient_of_mixed_signs():
    def prog(tg):
        x = _leaf(tg, [[0.5, -1.0, 2.0, 30.0], [-20.0, 1.0, 0.0, 3.0]], tg.float64)
        y = x.logcumsumexp(1)
        (grad,) = tg.autograd.grad(y, x, tg.tensor([[1.0, -2.0, 0.0, 3.0], [-1.0, -1.0, 2.0, 0.5]],
                                                   dtype=tg.float64))
        return y, D.loose(grad)
    run_quietly(prog)


REDUCTION_EDGES = {
    "cummax_of_a_number": lambda tg: tg.cummax(tg.tensor(3.0, requires_grad=True), 0),
    "cummax_dim_out_of_range": lambda tg: tg.cummax(tg.tensor([1.0, 2.0]), 1),
    "cummax_empty": lambda tg: tg.cummax(tg.zeros(0, 3), 0),
    "logcumsumexp_of_a_number": lambda tg: tg.logcumsumexp(tg.tensor(3.0), -1),
    "aminmax_empty": lambda tg: tg.aminmax(tg.zeros(0)),
    "aminmax_empty_dim": lambda tg: tg.aminmax(tg.zeros(2, 0), dim=1),
    "aminmax_of_a_number": lambda tg: tg.aminmax(tg.tensor(2.0), dim=0),
    "var_mean_of_ints": lambda tg: tg.var_mean(tg.tensor([1, 2])),
    "std_mean_of_ints": lambda tg: tg.std_mean(tg.tensor([1, 2])),
}


@pytest.mark.parametrize("case", sorted(REDUCTION_EDGES))
def test_reduction_edges(case):
    run_quietly(lambda tg: list(REDUCTION_EDGES[case](tg)), raises=D.ANY)


def test_var_mean_without_degrees_of_freedom_warns():
    D.run_both(lambda tg: list(tg.var_mean(tg.tensor([1.0]))),
               warn=("UserWarning", "var_mean(): degrees of freedom is <= 0"))
