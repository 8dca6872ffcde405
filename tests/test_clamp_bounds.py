"""clamp_min / clamp_max (and their in-place forms), compared with torch: values, nodes
(ClampMin/MaxBackward0 for a number, ...Backward1 for a tensor), saved bounds, gradients and
second derivatives, ties going to the input."""
import pytest

try:
    from . import differential as D
except ImportError:
    import differential as D

torch = pytest.importorskip("torch")
run = D.run_both

OPS = {
    "clamp_min_number": lambda tg, x: x.clamp_min(0.5) ** 2,
    "clamp_max_number": lambda tg, x: tg.clamp_max(x, 0.5) * x,
    "clamp_min_tie": lambda tg, x: x.clamp_min(-0.7) ** 2,
    "clamp_min_tensor": lambda tg, x: x.clamp_min(x.flip(1)) * x,
    "clamp_max_tensor_broadcast": lambda tg, x: tg.clamp_max(x, x[0].exp()) ** 2,
    "clamp_min_inplace": lambda tg, x: (x * 1).clamp_min_(0.1) * x,
    "clamp_max_inplace_tensor": lambda tg, x: (x * 2).clamp_max_(x.sin()) ** 2,
}


@pytest.mark.parametrize("case", sorted(OPS))
def test_values_nodes_gradients_and_second_derivatives(case):
    run(lambda tg: D.op_report(tg, OPS[case]))


def test_saved_bounds_and_integer_input():
    def prog(tg):
        x = tg.tensor([-1.0, 0.5, 2.0], requires_grad=True)
        low = tg.tensor([0.0, 1.0, 1.0], requires_grad=True)
        by_number, by_tensor = x.clamp_min(0.5).grad_fn, x.clamp_max(low).grad_fn
        return {"min": by_number._saved_min, "self": by_number._saved_self,
                "max_tensor": by_tensor._saved_max, "node": D.node_name(by_tensor),
                "ints": tg.tensor([1, 5, 3]).clamp_min(2), "ints_to_float": tg.tensor([1, 5]).clamp_max(2.5)}
    run(prog)
