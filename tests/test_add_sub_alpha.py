"""add / sub with ``alpha``: one AddBackward0 / SubBackward0 node with ``_saved_alpha`` (no
extra multiplication node), its gradient graph, PyTorch's checks of alpha, and the errors for
subtracting bool tensors — compared with torch."""
import pytest

try:
    from . import differential as D
except ImportError:
    import differential as D

torch = pytest.importorskip("torch")
run = D.run_both

OPS = {
    "add_alpha": lambda tg, x: x.add(x.exp(), alpha=2) * x,
    "add_alpha_fraction": lambda tg, x: tg.add(x ** 2, x, alpha=0.5) * x,
    "add_number_alpha": lambda tg, x: x.add(2, alpha=3) ** 2,
    "sub_alpha": lambda tg, x: x.sub(x.sin(), alpha=3) * x,
    "sub_negative_alpha": lambda tg, x: tg.sub(x, x ** 2, alpha=-0.25) * x,
    "add_alpha_broadcast": lambda tg, x: x.add(x[0] ** 2, alpha=1.5) * x,
}


@pytest.mark.parametrize("case", sorted(OPS))
def test_values_nodes_gradients_and_second_derivatives(case):
    run(lambda tg: D.op_report(tg, OPS[case]))


def test_alpha_is_saved_on_the_node_and_folded_into_it():
    def prog(tg):
        x = tg.tensor([1.0, 2.0], requires_grad=True)
        y = tg.tensor([3.0, -1.0], requires_grad=True)
        nodes = {"add": x.add(y, alpha=2), "add_default": x + y, "add_number": x + 2,
                 "sub": x.sub(y, alpha=3), "sub_default": x - y, "rsub_number": 2 - x}
        report = {name: (D.name(t), t.grad_fn._saved_alpha, D.graph(t)) for name, t in nodes.items()}
        x.add(y, alpha=2).sub(y, alpha=0.5).sum().backward()
        return {**report, "x_grad": D.snap(x.grad, version=False),
                "y_grad": D.snap(y.grad, version=False)}
    run(prog)


def test_gradient_of_the_alpha_input_has_torchs_graph():
    def prog(tg):
        x = tg.tensor([1.0, 2.0], requires_grad=True)
        y = tg.tensor([3.0, -1.0], requires_grad=True)
        (gx, gy) = tg.autograd.grad(x.sub(y * y, alpha=3).sum(), (x, y), create_graph=True)
        return {"gy": gy, "graph": D.graph(gy)}
    run(prog)


def test_inplace_alpha():
    def prog(tg):
        x = tg.tensor([1.0, 2.0], requires_grad=True)
        y = x * 1
        y.add_(x, alpha=4).sub_(x ** 2, alpha=0.5)
        y.sum().backward()
        # (torch adds the second path's gradient into x.grad in place: versions differ)
        return {"y": y, "node": D.name(y), "alpha": y.grad_fn._saved_alpha,
                "grad": D.snap(x.grad, version=False),
                "version": y._version}
    run(prog)


def test_integer_and_bool_alpha():
    def prog(tg):
        i = tg.tensor([1, 2])
        b = tg.tensor([True, False])
        return {"int": i.add(i, alpha=3), "int_sub": i.sub(i, alpha=-2),
                "int_plus_float_tensor": i.add(tg.tensor([0.5, 1.0]), alpha=0.5),
                "bool_or": b.add(b, alpha=True)}
    run(prog)


ERRORS = {
    "float_alpha_for_ints": lambda tg: tg.tensor([1, 2]).add(tg.tensor([1, 2]), alpha=0.5),
    "float_one_alpha_for_ints": lambda tg: tg.tensor([1, 2]).sub(tg.tensor([3, 4]), alpha=1.0),
    "float_alpha_for_ints_inplace": lambda tg: tg.tensor([1, 2]).add_(tg.tensor([1, 2]), alpha=0.5),
    "bool_alpha_for_floats": lambda tg: tg.ones(2).add(tg.ones(2), alpha=True),
    "bool_minus_bool": lambda tg: tg.tensor([True]) - tg.tensor([False]),
    "bool_minus_number": lambda tg: tg.tensor([True]) - 1,
    "number_minus_bool": lambda tg: 1 - tg.tensor([True]),
    "float_minus_bool": lambda tg: tg.ones(1) - tg.tensor([True]),
    "bool_sub_inplace": lambda tg: tg.tensor([True]).sub_(tg.tensor([True])),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors(case):
    run(ERRORS[case], raises="RuntimeError")


def test_a_refused_inplace_sub_changes_nothing():
    def prog(tg):
        x = tg.ones(2)
        try:
            x.sub_(tg.tensor([True, False]))
        except RuntimeError:
            return {"x": x, "version": x._version}
    run(prog)
