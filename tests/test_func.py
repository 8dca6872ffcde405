"""teachgrad.func (grad, grad_and_value, vjp, jvp, jacrev, jacfwd, hessian, vmap,
functional_call) against torch.func 2.13: the same values, shapes, flags and errors."""
import numpy as np
import pytest

import teachgrad

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(300)
X = RNG.standard_normal(3)
M = RNG.standard_normal((2, 3))
BATCH = RNG.standard_normal((4, 3))


def summary(value):
    """What is compared: for a tensor its shape, values and requires_grad; containers
    element by element, keeping their type."""
    if isinstance(value, (tuple, list)):
        return type(value).__name__, [summary(v) for v in value]
    if isinstance(value, dict):
        return "dict", {k: summary(v) for k, v in value.items()}
    if hasattr(value, "detach"):
        return tuple(value.shape), np.round(np.asarray(value.detach().tolist()), 10).tolist(), \
            value.requires_grad
    return value


def outcome(t, program):
    try:
        return "ok", summary(program(t))
    except Exception as error:     # noqa: BLE001  (the error is what is compared)
        return type(error).__name__, str(error).replace("teachgrad", "torch").splitlines()[0]


def assert_same(program):
    expected = outcome(torch, program)
    assert outcome(teachgrad, program) == expected
    return expected


def f(t):
    """A function from R^3 to R^2."""
    w = t.tensor(M)
    return lambda x: (w @ x.sin()).tanh()


def loss(t):
    return lambda x: (x.exp() * x).sum()


VALUES = {
    "grad": lambda t: t.func.grad(loss(t))(t.tensor(X)),
    "grad_and_value": lambda t: t.func.grad_and_value(loss(t))(t.tensor(X)),
    "grad_argnums": lambda t: t.func.grad(lambda a, b: (a * b.exp()).sum(), argnums=(0, 1))(
        t.tensor(X), t.tensor(X) * 2),
    "grad_has_aux": lambda t: t.func.grad(lambda x: (x.sum() ** 2, x * 3), has_aux=True)(
        t.tensor(X)),
    "grad_of_dict": lambda t: t.func.grad(lambda p: (p["a"] * p["b"]).sum())(
        {"a": t.tensor(X), "b": t.tensor(X) + 1}),
    "grad_of_grad": lambda t: t.func.grad(lambda x: t.func.grad(loss(t))(x).sum())(t.tensor(X)),
    "grad_under_autograd": lambda t: t.func.grad(loss(t))(t.tensor(X, requires_grad=True)),
    "vjp": lambda t: _vjp(t),
    "jvp": lambda t: t.func.jvp(f(t), (t.tensor(X),), (t.ones(3, dtype=t.float64),)),
    "jvp_has_aux": lambda t: t.func.jvp(lambda x: (x.exp(), x.sum()), (t.tensor(X),),
                                        (t.tensor(X),), has_aux=True),
    "jacrev": lambda t: t.func.jacrev(f(t))(t.tensor(X)),
    "jacfwd": lambda t: t.func.jacfwd(f(t))(t.tensor(X)),
    "jacrev_argnums": lambda t: t.func.jacrev(lambda a, b: a * b.sum(), argnums=(0, 1))(
        t.tensor(X), t.tensor(M)),
    "jacfwd_argnums": lambda t: t.func.jacfwd(lambda a, b: a * b.sum(), argnums=(0, 1))(
        t.tensor(X), t.tensor(M)),
    "jacrev_two_outputs": lambda t: t.func.jacrev(lambda x: (x.sin(), x.sum()))(t.tensor(M)),
    "jacfwd_two_outputs": lambda t: t.func.jacfwd(lambda x: (x.sin(), x.sum()))(t.tensor(M)),
    "jacrev_has_aux": lambda t: t.func.jacrev(lambda x: (x.exp(), x.sum()), has_aux=True)(
        t.tensor(X)),
    "hessian": lambda t: t.func.hessian(loss(t))(t.tensor(X)),
    "hessian_of_a_network": lambda t: t.func.hessian(
        lambda x: t.nn.functional.softplus(t.tensor(M) @ x).pow(2).sum())(t.tensor(X)),
    "jacrev_of_jacrev": lambda t: t.func.jacrev(t.func.jacrev(f(t)))(t.tensor(X)),
    "jacfwd_of_jacfwd": lambda t: t.func.jacfwd(t.func.jacfwd(f(t)))(t.tensor(X)),
    "vmap": lambda t: t.func.vmap(f(t))(t.tensor(BATCH)),
    "vmap_in_dims": lambda t: t.func.vmap(lambda a, b: a * b, in_dims=(1, None))(
        t.tensor(BATCH), t.tensor(X[:1].repeat(4))),
    "vmap_out_dims": lambda t: t.func.vmap(lambda a: (a.exp(), a.sum()), out_dims=(1, 0))(
        t.tensor(BATCH)),
    "vmap_out_dims_none": lambda t: t.func.vmap(lambda a: (a * 2, t.ones(1)), out_dims=(0, None))(
        t.tensor(BATCH)),
    "vmap_nested": lambda t: t.func.vmap(t.func.vmap(lambda a: a.exp().sum()))(
        t.tensor(BATCH).reshape(2, 2, 3)),
    "vmap_dict_output": lambda t: t.func.vmap(lambda a: {"x": a, "y": a.sum()})(t.tensor(BATCH)),
    "vmap_of_grad": lambda t: t.func.vmap(t.func.grad(loss(t)))(t.tensor(BATCH)),
    "vmap_of_jacrev": lambda t: t.func.vmap(t.func.jacrev(f(t)))(t.tensor(BATCH)),
    "vmap_nested_in_dims": lambda t: t.func.vmap(lambda p, c: p[0] * p[1] + c,
                                                 in_dims=((0, None), 1))(
        (t.tensor(BATCH), t.tensor(X)), t.tensor(BATCH).t()),
    "vmap_negative_dims": lambda t: t.func.vmap(lambda c: c.exp(), in_dims=-1, out_dims=-1)(
        t.tensor(BATCH)),
    "vmap_of_jvp": lambda t: t.func.vmap(lambda x, v: t.func.jvp(t.sin, (x,), (v,)))(
        t.tensor(BATCH), t.tensor(BATCH) * 0 + 1),
    "vjp_two_primals": lambda t: _vjp_of_two(t),
    "jvp_two_primals": lambda t: t.func.jvp(lambda a, b: a @ b, (t.tensor(M), t.tensor(X)),
                                            (t.tensor(M) * 0 + 1, t.tensor(X) * 0)),
    "jacfwd_has_aux": lambda t: t.func.jacfwd(lambda y: (t.tensor(M) @ y.sin(), y.sum()),
                                              has_aux=True)(t.tensor(X)),
    "jacrev_dict_output": lambda t: t.func.jacrev(lambda y: {"a": y.exp(), "b": (y * 2).sum()})(
        t.tensor(X)),
    "jacfwd_dict_output": lambda t: t.func.jacfwd(lambda y: {"a": y.exp(), "b": (y * 2).sum()})(
        t.tensor(X)),
    "hessian_two_arguments": lambda t: t.func.hessian(lambda a, b: (a * b).sum() ** 2,
                                                      argnums=(0, 1))(t.tensor(X), t.tensor(X)),
    "jacfwd_of_a_number": lambda t: t.func.jacfwd(lambda s: t.stack([s.sin(), s.cos()]))(
        t.tensor(0.3, dtype=t.float64)),
    "functional_call_two_dicts": lambda t: t.func.functional_call(
        t.nn.Linear(3, 2).double(), ({"weight": t.tensor(M)}, {"bias": t.ones(2, dtype=t.float64)}),
        t.tensor(X)),
    "vmap_random_same": lambda t: _random_under_vmap(t, "same"),
    "vmap_random_different": lambda t: _random_under_vmap(t, "different"),
}


def _vjp_of_two(t):
    output, vjp_fn = t.func.vjp(lambda a, b: (a @ b, b.sin()), t.tensor(M), t.tensor(X))
    return output, vjp_fn((t.ones(2, dtype=t.float64), t.ones(3, dtype=t.float64)))


def _random_under_vmap(t, randomness):
    """The numbers drawn inside, and the generator's next number after."""
    t.manual_seed(0)
    drawn = t.func.vmap(lambda x: x + t.rand(3), randomness=randomness)(t.zeros(2, 3))
    return drawn, t.rand(1)


def _vjp(t):
    output, vjp_fn = t.func.vjp(f(t), t.tensor(X))
    return output, vjp_fn(t.tensor([1.0, -2.0], dtype=t.float64)), vjp_fn(t.ones(2, dtype=t.float64))


@pytest.mark.parametrize("name", VALUES)
def test_values_and_shapes_match_torch(name):
    status, _ = assert_same(VALUES[name])
    assert status == "ok"


def test_jacobians_are_the_derivatives_by_hand():
    x = teachgrad.tensor(X)
    inner = M @ np.sin(X)
    by_hand = (1 - np.tanh(inner) ** 2)[:, None] * M * np.cos(X)[None, :]
    for transform in (teachgrad.func.jacrev, teachgrad.func.jacfwd):
        np.testing.assert_allclose(transform(f(teachgrad))(x).numpy(), by_hand, rtol=1e-12)
    hessian = teachgrad.func.hessian(loss(teachgrad))(x).numpy()
    np.testing.assert_allclose(hessian, np.diag(np.exp(X) * (X + 2)), rtol=1e-12)


def test_passes_counted():
    """jacrev runs one backward pass per output element, jacfwd one forward pass per input
    element (counted with a custom Function whose backward and jvp count their calls)."""
    calls = {"backward": 0, "jvp": 0}

    class Counted(teachgrad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 1.0

        @staticmethod
        def backward(ctx, grad):
            calls["backward"] += 1
            return grad

        @staticmethod
        def jvp(ctx, dx):
            calls["jvp"] += 1
            return dx

    wide = teachgrad.tensor(RNG.standard_normal(6))
    teachgrad.func.jacrev(lambda x: Counted.apply(x).sum(0, keepdim=True))(wide)
    teachgrad.func.jacfwd(lambda x: Counted.apply(x).sum(0, keepdim=True))(wide)
    assert calls == {"backward": 1, "jvp": 6}


def test_per_example_gradients_with_functional_call():
    def program(t):
        t.manual_seed(0)
        model = t.nn.Sequential(t.nn.Linear(3, 4), t.nn.Tanh(), t.nn.Linear(4, 1)).double()
        params = {name: p.detach() for name, p in model.named_parameters()}

        def loss_of(params, x, y):
            return ((t.func.functional_call(model, params, (x,)) - y) ** 2).mean()
        ys = t.tensor(BATCH[:, :1])
        per_example = t.func.vmap(t.func.grad(loss_of), in_dims=(None, 0, 0))(
            params, t.tensor(BATCH), ys)
        untouched = all(p.grad is None for p in model.parameters())
        return per_example, untouched, model.state_dict()["0.weight"]
    assert_same(program)


def test_functional_call_puts_the_parameters_back():
    for t in (torch, teachgrad):
        layer = t.nn.Linear(2, 1)
        weight = layer.weight
        out = t.func.functional_call(layer, {"weight": t.ones(1, 2), "bias": t.zeros(1)},
                                     (t.tensor([[1.0, 2.0]]),))
        assert out.tolist() == [[3.0]]
        assert layer.weight is weight and isinstance(layer.weight, t.nn.Parameter)


ERRORS = {
    "grad_not_scalar": lambda t: t.func.grad(lambda x: x * 2)(t.tensor(X)),
    "grad_not_tensor": lambda t: t.func.grad(lambda x: 2.0)(t.tensor(X)),
    "grad_aux_not_tuple": lambda t: t.func.grad(lambda x: x.sum(), has_aux=True)(t.tensor(X)),
    "grad_aux_not_tensor": lambda t: t.func.grad(lambda x: (x.sum(), 1), has_aux=True)(
        t.tensor(X)),
    "grad_argnum": lambda t: t.func.grad(lambda x: x.sum(), argnums=1)(t.tensor(X)),
    "grad_integer": lambda t: t.func.grad(lambda x: x.sum())(t.tensor([1, 2])),
    "grad_mutates_captured": lambda t: _mutating(t, t.func.grad),
    "jvp_primals_not_tuple": lambda t: t.func.jvp(lambda a: a * 2, t.tensor(X), t.tensor(X)),
    "jvp_structures": lambda t: t.func.jvp(lambda a: a * 2, (t.tensor(X),), [t.tensor(X)]),
    "jvp_sizes": lambda t: t.func.jvp(lambda a: a * 2, (t.tensor(X),), (t.ones(2),)),
    "jvp_not_tensor": lambda t: t.func.jvp(lambda a: 2.0, (t.tensor(X),), (t.tensor(X),)),
    "vmap_sizes": lambda t: t.func.vmap(lambda a, b: a + b)(t.ones(2, 3), t.ones(3, 3)),
    "vmap_in_dims_structure": lambda t: t.func.vmap(lambda a: a, in_dims=(0, 0))(t.ones(2, 3)),
    "vmap_in_dims_type": lambda t: t.func.vmap(lambda a: a, in_dims=[0])(t.ones(2, 3)),
    "vmap_in_dim_range": lambda t: t.func.vmap(lambda a: a, in_dims=2)(t.ones(2)),
    "vmap_non_tensor": lambda t: t.func.vmap(lambda a, n: a + n, in_dims=(0, 0))(t.ones(2), 3),
    "vmap_returns_number": lambda t: t.func.vmap(lambda a: 1.0)(t.ones(2)),
    "vmap_mutates_captured": lambda t: _mutating(t, t.func.vmap, batch=True),
    "vmap_random_refused": lambda t: t.func.vmap(lambda x: x + t.rand(3))(t.ones(2, 3)),
    "vmap_randomness_value": lambda t: t.func.vmap(lambda x: x, randomness="sometimes")(
        t.ones(2, 3)),
    "functional_call_strict": lambda t: t.func.functional_call(
        t.nn.Linear(2, 1), {"weight": t.ones(1, 2)}, (t.ones(1, 2),), strict=True),
}


def _mutating(t, transform, batch=False):
    captured = t.zeros(3)

    def writes_into_captured(x):
        captured.copy_(x * 2)
        return captured.sum()
    return transform(writes_into_captured)(t.ones(2, 3) if batch else t.ones(3))


@pytest.mark.parametrize("name", ERRORS)
def test_errors_match_torch(name):
    status, _ = assert_same(ERRORS[name])
    assert status != "ok"


def test_a_fresh_tensor_may_be_written_in_place():
    def program(t):
        def fills_a_buffer(x):
            buffer = t.zeros(3)
            buffer.copy_(x)
            return (buffer * buffer).sum()
        return t.func.grad(fills_a_buffer)(t.tensor([1.0, 2.0, 3.0]))
    assert assert_same(program)[0] == "ok"


def test_results_stay_in_the_graph_of_what_the_function_captured():
    """A parameter the function captured keeps the result in the caller's graph, as in
    PyTorch; under no_grad, or with nothing from outside, the result is detached."""
    def program(t):
        w = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
        x = t.tensor([0.5, -1.0, 2.0])
        g = t.func.grad(lambda x: (x * w).sum() ** 2)(x)
        g.sum().backward()
        output, tangent = t.func.jvp(lambda x: (x * w).sin(), (x,), (t.ones(3),))
        with t.no_grad():
            quiet = t.func.grad(lambda x: (x * w).sum() ** 2)(x)
        alone = t.func.jacrev(lambda x: x.sin())(x)
        return (g.grad_fn is not None, w.grad, output.requires_grad, tangent.requires_grad,
                quiet.requires_grad, alone.requires_grad,
                t.func.jacfwd(lambda x: x * w)(x).requires_grad)
    assert assert_same(program)[0] == "ok"
