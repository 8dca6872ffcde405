"""Forward-mode AD (autograd.forward_ad, ops/forward_rules.py), against torch 2.13.

Each program runs on both libraries inside a dual level and returns the output's tangent
(or the error it raised); the tangents must agree, and be J @ v computed by hand where the
formula is short.
"""
import numpy as np
import pytest

import teachgrad
from teachgrad.autograd import forward_ad
from teachgrad.ops import forward_rules

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(30)
X = RNG.standard_normal((3, 4))
V = RNG.standard_normal((3, 4))
W = RNG.standard_normal((4, 2))


def tangent_of(t, f, x=X, v=V):
    """The tangent of ``f(t, dual)`` where dual carries ``v`` at ``x`` (float64)."""
    fw = t.autograd.forward_ad
    with fw.dual_level():
        dual = fw.make_dual(t.tensor(x), t.tensor(v))
        out = f(t, dual)
        outs = out if isinstance(out, tuple) else (out,)
        return [np.asarray(fw.unpack_dual(o).tangent.detach().tolist()) for o in outs]


def same_tangents(f, **kwargs):
    expected = tangent_of(torch, f, **kwargs)
    got = tangent_of(teachgrad, f, **kwargs)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-10, atol=1e-12)
    return got


F = {
    "pointwise": lambda t, x: (x.exp() * x.sin() - x.cos() / (x.abs() + 1)).tanh().sigmoid(),
    "unary": lambda t, x: (x.abs() + 1).log() + (x.abs() + 1).sqrt() + (x.abs() + 1).rsqrt()
    + x.log1p().nan_to_num() * 0 + x.expm1() + (x.abs() + 2).reciprocal() + x.relu(),
    "numbers": lambda t, x: 3 - x * 2 + x / 4 - 1 + x ** 3 + 2 ** x,
    "pow_tensor": lambda t, x: (x.abs() + 1) ** x,
    "reductions": lambda t, x: (x.sum(), x.mean(1), x.sum(0, keepdim=True), x.cumsum(1),
                                x.var(1), x.norm(), x.logsumexp(1), x.prod(1), x.max(1).values),
    "softmax": lambda t, x: (x.softmax(1), x.log_softmax(0)),
    "matmul": lambda t, x: (x @ t.tensor(W), x.t() @ x, x.mv(x[0]), x[0].dot(x[1]),
                            t.addmm(t.ones(2, dtype=t.float64), x, t.tensor(W))),
    "views": lambda t, x: (x.view(12), x.reshape(2, 6), x.t(), x.transpose(0, 1),
                           x.permute(1, 0), x.unsqueeze(0).expand(2, 3, 4), x[1:, ::2], x[0],
                           x[t.tensor([2, 0])], x.squeeze(), x.flip(0), x.split(2, 1)[1]),
    "joining": lambda t, x: (t.cat([x, x * 2]), t.stack([x, x.exp()], 1), x.unbind(0)[2]),
    "selection": lambda t, x: (x.gather(1, t.tensor([[0], [3], [1]])),
                               t.where(x > 0, x, x * x), x.clamp(-0.5, 0.5),
                               x.index_select(1, t.tensor([0, 0, 2]))),
    "nn": lambda t, x: (t.nn.functional.gelu(x), t.nn.functional.silu(x),
                        t.nn.functional.softplus(x), t.nn.functional.leaky_relu(x, 0.1),
                        t.nn.functional.layer_norm(x, (4,)),
                        t.nn.functional.mse_loss(x, x.exp()),
                        t.nn.functional.cross_entropy(x, t.tensor([0, 3, 1])),
                        t.nn.functional.linear(x, t.tensor(W).t(), t.ones(2, dtype=t.float64))),
    "convolution": lambda t, x: t.nn.functional.max_pool1d(t.nn.functional.conv1d(
        x.unsqueeze(0), t.tensor(W).t().reshape(2, 1, 4).expand(2, 3, 4).contiguous(),
        padding=2), 2),
}


@pytest.mark.parametrize("name", F)
def test_tangents_match_torch(name):
    same_tangents(F[name])


def test_tangents_are_the_formulas():
    x, v = X, V
    exp, = same_tangents(lambda t, d: d.exp())
    np.testing.assert_allclose(exp, np.exp(x) * v)
    product, = same_tangents(lambda t, d: d * d.sin())
    np.testing.assert_allclose(product, v * np.sin(x) + x * np.cos(x) * v)
    mm, = same_tangents(lambda t, d: d @ t.tensor(W))
    np.testing.assert_allclose(mm, v @ W)
    total, = same_tangents(lambda t, d: d.sum())
    np.testing.assert_allclose(total, v.sum())


def test_an_op_without_a_rule_uses_its_backward_transposed():
    """No hand-written rule for gelu: its tangent comes from the double-vjp trick."""
    assert teachgrad.nn.functional.gelu(teachgrad.ones(1, requires_grad=True)).grad_fn.__class__ \
        not in forward_rules.RULES
    same_tangents(lambda t, d: t.nn.functional.gelu(d))


def test_inplace_ops_carry_the_tangent():
    def program(t, d):
        buffer = t.zeros(3, 4, dtype=t.float64)
        buffer.add_(d)
        buffer.mul_(d)
        copy = t.zeros(3, 4, dtype=t.float64)
        copy.copy_(d)
        return buffer, copy
    buffer, copy = same_tangents(program)
    np.testing.assert_allclose(buffer, 2 * X * V)
    np.testing.assert_allclose(copy, V)


@pytest.mark.parametrize("program", [
    lambda t, d: _filled(t.zeros(3, 4, dtype=t.float64), lambda z: z.__setitem__(0, d[1])),
    lambda t, d: _filled(d.clone(), lambda c: c.__setitem__(1, 5.0)),
    lambda t, d: _filled(t.zeros(2, 3, 4, dtype=t.float64), lambda z: z[1].copy_(d)),
    lambda t, d: _filled(d * 1, lambda c: c[1:, ::2].mul_(3)),
])
def test_inplace_on_views_writes_into_the_base_tangent(program):
    """A view's tangent is a view of its base's: writing through the view changes both."""
    same_tangents(program)


def _filled(tensor, write):
    write(tensor)
    return tensor


def test_inplace_changes_the_given_tangent_as_torch_does():
    def program(t):
        fw = t.autograd.forward_ad
        with fw.dual_level():
            given = t.ones(3)
            dual = fw.make_dual(t.tensor([1.0, 2.0, 3.0]), given)
            dual[1:].mul_(3)
            return given.tolist(), fw.unpack_dual(dual).tangent.tolist()
    assert program(teachgrad) == program(torch) == ([1.0, 3.0, 3.0], [1.0, 3.0, 3.0])


def test_second_order_forward_over_reverse():
    """The gradient computed inside a dual level carries H v as its tangent."""
    def program(t, d):
        with t.enable_grad():
            x = d.detach().requires_grad_() if t is torch else forward_ad.carry_tangents(
                d, d.detach().requires_grad_())
            if t is torch:
                x = t.autograd.forward_ad.make_dual(x, t.tensor(V))
            y = (x.sin() * x).sum()
            g, = t.autograd.grad(y, x, create_graph=True)
        return g
    hv, = same_tangents(program)
    np.testing.assert_allclose(hv, (2 * np.cos(X) - X * np.sin(X)) * V)


def outcome(t, program):
    try:
        return "ok", program(t)
    except Exception as error:     # noqa: BLE001  (the error is what is compared)
        return type(error).__name__, str(error).splitlines()[0]


@pytest.mark.parametrize("program", [
    lambda t: t.autograd.forward_ad.make_dual(t.ones(2), t.ones(2)),
    lambda t: _in_level(t, lambda fw: fw.make_dual(t.ones(3), t.ones(2))),
    lambda t: _in_level(t, lambda fw: fw.make_dual(t.tensor([1, 2]), t.ones(2))),
    lambda t: _in_level(t, lambda fw: fw.dual_level().__enter__()),
    lambda t: _in_level(t, lambda fw: t.unique(fw.make_dual(t.ones(3), t.ones(3)))),
    lambda t: _in_level(t, lambda fw: _Twice(t).apply(fw.make_dual(t.ones(3), t.ones(3)))),
    lambda t: t.autograd.gradcheck(t.sin, (t.ones(2, dtype=t.float64, requires_grad=True),),
                                   check_backward_ad=False),
])
def test_errors_match_torch(program):
    expected = outcome(torch, program)
    got = outcome(teachgrad, program)
    assert expected[0] != "ok"
    assert got[0] == expected[0]
    assert got[1].replace("teachgrad", "torch") == expected[1]


def _in_level(t, body):
    with t.autograd.forward_ad.dual_level():
        return body(t.autograd.forward_ad)


def _Twice(t):
    """x * 2 as a custom Function, without a jvp."""
    class Twice(t.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * 2
    return Twice


def test_unpack_dual_and_levels_as_torch():
    for t in (torch, teachgrad):
        fw = t.autograd.forward_ad
        x, v = t.tensor([1.0, 2.0]), t.tensor([3.0, 4.0])
        with fw.dual_level() as level:
            assert level == 0
            dual = fw.make_dual(x, v)
            primal, tangent = fw.unpack_dual(dual)
            assert isinstance(fw.unpack_dual(dual), fw.UnpackedDualTensor)
            assert tangent is v and dual._base is x and primal._base is x
            assert fw.unpack_dual(x).tangent is None
            assert fw.unpack_dual(dual.detach()).tangent is None
            y = dual * 3
        assert fw.unpack_dual(dual).tangent is None and fw.unpack_dual(y).tangent is None


def test_custom_function_jvp_as_torch():
    def program(t):
        class Scaled(t.autograd.Function):
            @staticmethod
            def forward(ctx, a, b, k):
                ctx.save_for_forward(a, b)
                ctx.k = k
                return a * b * k

            @staticmethod
            def jvp(ctx, da, db, dk):
                a, b = ctx.saved_tensors
                assert dk is None and db.abs().sum() == 0     # zeros for b, None for k
                return (da * b + a * db) * ctx.k

            @staticmethod
            def backward(ctx, grad):
                return None, None, None
        fw = t.autograd.forward_ad
        with fw.dual_level():
            a = fw.make_dual(t.tensor([1.0, 2.0]), t.tensor([1.0, -1.0]))
            return fw.unpack_dual(Scaled.apply(a, t.tensor([3.0, 4.0]), 2.0)).tangent.tolist()
    assert program(teachgrad) == program(torch) == [6.0, -8.0]


def test_gradcheck_checks_forward_mode():
    def wrong_jvp(t):
        class Square(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_forward(x)
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            def backward(ctx, grad):
                x, = ctx.saved_tensors
                return 2 * x * grad

            @staticmethod
            def jvp(ctx, dx):
                x, = ctx.saved_tensors
                return 3 * x * dx
        x = t.tensor([1.0, 2.0], dtype=t.float64, requires_grad=True)
        check = t.autograd.gradcheck
        return (check(Square.apply, (x,)),
                check(Square.apply, (x,), check_forward_ad=True, raise_exception=False),
                check(Square.apply, (x,), check_forward_ad=True, check_backward_ad=False,
                      raise_exception=False))
    assert wrong_jvp(teachgrad) == wrong_jvp(torch) == (True, False, False)
    with pytest.raises(teachgrad.autograd.GradcheckError,
                       match="Jacobian computed with forward mode mismatch"):
        x = teachgrad.tensor([1.0], dtype=teachgrad.float64, requires_grad=True)
        wrong = type("Wrong", (_Twice(teachgrad),), {"jvp": staticmethod(lambda ctx, dx: dx)})
        teachgrad.autograd.gradcheck(wrong.apply, (x,), check_forward_ad=True)


@pytest.mark.parametrize("strategy, vectorize", [("reverse-mode", True), ("forward-mode", True),
                                                 ("forward-mode", False), ("sideways", True)])
def test_functional_jacobian_strategies(strategy, vectorize):
    def program(t):
        x = t.tensor([1.0, 2.0, 3.0], dtype=t.float64)
        y = t.tensor([0.5, -1.0], dtype=t.float64)
        jac = t.autograd.functional.jacobian(lambda a, b: (a.sin().sum() * b, a * 2), (x, y),
                                             vectorize=vectorize, strategy=strategy)
        return [[type(block).__name__, [j.tolist() for j in block]] for block in jac], \
            type(jac).__name__
    assert outcome(teachgrad, program) == outcome(torch, program)


def test_functional_hessian_forward_over_reverse():
    def program(t):
        x = t.tensor([1.0, 2.0, 3.0], dtype=t.float64)
        return t.autograd.functional.hessian(lambda a: (a ** 3).sin().sum(), x, vectorize=True,
                                             outer_jacobian_strategy="forward-mode").tolist()
    np.testing.assert_allclose(program(teachgrad), program(torch), rtol=1e-12)


def test_a_dual_tensor_prints_its_tangent_as_torch():
    def program(t):
        fw = t.autograd.forward_ad
        with fw.dual_level():
            x = t.tensor([1.0, 2.0], requires_grad=True)
            dual = fw.make_dual(x, t.ones(2))
            scalar = fw.make_dual(t.tensor(3.0, dtype=t.float64), t.tensor(1.0, dtype=t.float64))
            texts = [repr(dual), repr(dual * 2), repr(scalar),
                     repr(fw.make_dual(t.zeros(2, 2), t.ones(2, 2)))]
        return [text.replace("teachgrad.", "torch.") for text in texts + [repr(dual)]]
    assert program(teachgrad) == program(torch)


def test_batch_norm_updates_its_running_statistics_once():
    """Batch norm's tangent comes from its backward transposed, which runs the op again: the
    running statistics must still move once, as without a dual input."""
    def program(t, dual):
        t.manual_seed(0)
        layer = t.nn.BatchNorm1d(4).double()
        x = t.tensor(X)
        fw = t.autograd.forward_ad
        with fw.dual_level():
            out = layer(fw.make_dual(x, t.tensor(V)) if dual else x)
            tangent = fw.unpack_dual(out).tangent
        return layer.running_mean.tolist(), layer.running_var.tolist(), tangent
    plain = program(teachgrad, dual=False)
    with_tangent = program(teachgrad, dual=True)
    assert with_tangent[:2] == plain[:2]
    expected = program(torch, dual=True)
    np.testing.assert_allclose(with_tangent[0], expected[0], rtol=1e-12)
    np.testing.assert_allclose(with_tangent[2].tolist(), expected[2].tolist(), rtol=1e-10)


def test_the_second_run_draws_no_random_numbers():
    """uniform_ on a dual tensor: its tangent is zero, and the generator moves once."""
    def program(t):
        fw = t.autograd.forward_ad
        t.manual_seed(0)
        with fw.dual_level():
            z = t.zeros(3)
            z.add_(fw.make_dual(t.full((3,), 0.5), t.ones(3)))
            z.uniform_()
            tangent = fw.unpack_dual(z).tangent.tolist()
        return tangent, z.tolist(), t.rand(1).item()
    assert program(teachgrad) == program(torch)
