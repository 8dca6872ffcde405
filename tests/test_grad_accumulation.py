"""How a leaf's ``.grad`` is made, compared with torch: kept as it is (version 0), copied with
``copy_`` (version 1) when it arrives broadcast, added into in place later, and under
``create_graph=True`` always copied, through a ``CopyBackwards`` node; plus the C++-style
``name()`` of the hand-written nodes."""
import pytest

try:
    from . import differential as D
except ImportError:
    import differential as D

torch = pytest.importorskip("torch")
run = D.run_both

BACKWARDS = {
    "fresh_gradient_is_kept": lambda tg, x: (x * 2).sum().backward(),
    "broadcast_gradient_is_copied": lambda tg, x: x.sum().backward(),
    "second_backward_adds_in_place": lambda tg, x: [(x * 3).sum().backward() for _ in range(2)],
    "third_backward_adds_in_place": lambda tg, x: [x.exp().sum().backward() for _ in range(3)],
}


@pytest.mark.parametrize("case", sorted(BACKWARDS))
def test_version_of_grad(case):
    def prog(tg):
        x = tg.tensor([1.0, 2.0], requires_grad=True)
        BACKWARDS[case](tg, x)
        return {"grad": x.grad, "version": x.grad._version}
    run(prog)


def test_create_graph_copies_the_first_gradient_through_copy_backwards():
    def prog(tg):
        x = tg.tensor([1.0, 2.0], requires_grad=True)
        (x ** 3).sum().backward(create_graph=True)
        first = x.grad
        report = {"first": first, "first_version": first._version, "first_graph": D.graph(first),
                  "first_name": first.grad_fn.name()}
        (x ** 3).sum().backward(create_graph=True)
        report.update(second=x.grad, second_graph=D.graph(x.grad), replaced=x.grad is not first)
        x.grad.sum().backward()        # second derivative through both: 2 * 6x on top of 2 * 3x^2
        report["after_third_backward"] = D.snap(x.grad, version=False)
        return report
    run(prog)       # (the create_graph warning comes once per process: not compared here)


def test_a_constant_gradient_under_create_graph_is_copied_without_a_node():
    def prog(tg):
        x = tg.tensor([1.0, 2.0], requires_grad=True)
        (x * 2).sum().backward(create_graph=True)
        return {"grad": x.grad, "version": x.grad._version, "node": D.name(x.grad)}
    run(prog)       # (the create_graph warning comes once per process: not compared here)


def test_hand_written_nodes_are_named_in_cpp_style():
    def prog(tg):
        x = tg.ones(2, requires_grad=True)
        copied = tg.zeros(2)
        copied.copy_(x)
        sliced = tg.zeros(2, 2)
        sliced[0] = x
        return {"copy": copied.grad_fn.name(), "copy_slices": sliced.grad_fn.name(),
                "accumulate": copied.grad_fn.next_functions[1][0].name()}
    run(prog)
