"""An in-place op keeps the old value of its target for backward as a *recorded* clone
(``CloneBackward0``), as PyTorch does, so a second derivative through ``x.mul_(y)`` reaches
the old value too."""
import pytest

try:
    from . import differential as D
except ImportError:
    import differential as D

torch = pytest.importorskip("torch")

INPLACE_OPS = {
    "mul_": lambda a, b: a.mul_(b),
    "div_": lambda a, b: a.div_(b),
    "pow_": lambda a, b: a.pow_(b),
    "pow_number": lambda a, b: a.pow_(3).mul_(b),
    "mul_twice": lambda a, b: a.mul_(b).mul_(b),
}


@pytest.mark.parametrize("op", sorted(INPLACE_OPS))
def test_second_derivative_through_an_inplace_op(op):
    def prog(tg):
        x = tg.tensor([1.5, 0.7, 2.0], requires_grad=True)
        z = tg.tensor([0.5, 3.0, -1.25], requires_grad=True)
        y = INPLACE_OPS[op](x * 2, z * x)
        saved = D.graph(y.grad_fn._saved_self)           # the clone, and what it came from
        gx, gz = tg.autograd.grad((y * y).sum(), (x, z), create_graph=True)
        hx, hz = tg.autograd.grad((gx + gz).sum(), (x, z))
        return {"y": D.loose(y), "first": D.loose([gx, gz]), "second": [hx, hz],
                "saved": saved}
    D.run_both(prog, rtol=1e-4, atol=1e-5)
