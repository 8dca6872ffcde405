"""Gradients summed in a node's input buffer, compared with torch: in place into the gradient
already there when nothing else holds it (its version goes up, and a leaf keeps it as its
``.grad``, version and all), a new tensor otherwise; and never into a tensor that a hook, the
caller or another buffer still holds."""
import pytest

try:
    from . import differential as D
except ImportError:
    import differential as D

torch = pytest.importorskip("torch")
run = D.run_both

# Each loss is a function of a leaf x = [1, 2, 3]; which gradient reaches x's buffer first,
# and whether it is held elsewhere then, decides whether the sum is written in place.
LOSSES = {
    "two_products": lambda x: (x * 2 + x * 3).sum(),
    "three_products": lambda x: (x * 2 + x * 3 + x * 4).sum(),
    "x_times_x": lambda x: (x * x).sum(),
    "x_plus_x": lambda x: (x + x).sum(),                      # one tensor down both edges
    "broadcast_first": lambda x: (x * 2 + x).sum(),           # an expanded gradient is held
    "fresh_first": lambda x: (x * 2 + x).pow(2).sum(),
    "slice_then_view": lambda x: (x[:2] * 3).pow(2).sum() + (x.view(3, 1).expand(3, 2)).pow(2).sum(),
    "view_then_slice": lambda x: (x.view(3, 1).expand(3, 2)).pow(2).sum() + (x[:2] * 3).pow(2).sum(),
    "two_slices": lambda x: x[:2].pow(2).sum() + x[1:].pow(2).sum(),
}


@pytest.mark.parametrize("case", sorted(LOSSES))
def test_buffer_sum_and_the_version_of_grad(case):
    def prog(tg):
        x = tg.tensor([1.0, 2.0, 3.0], requires_grad=True)
        LOSSES[case](x).backward()
        return {"grad": x.grad, "version": x.grad._version}
    run(prog)


def test_a_gradient_a_hook_kept_is_not_changed_later():
    def prog(tg):
        x = tg.tensor([1.0, 2.0], requires_grad=True)
        kept = []
        a = x * 2
        a.register_hook(kept.append)          # sees the sum of both paths, then keeps it
        (a * 3 + a.exp()).sum().backward()
        return {"kept": kept[0], "kept_version": kept[0]._version, "grad": x.grad,
                "grad_version": x.grad._version}
    run(prog)


def test_a_gradient_a_post_hook_kept_is_not_added_into():
    def prog(tg):
        x = tg.tensor([1.0, 2.0], requires_grad=True)
        kept = []
        a = x * 2
        b = a * 1
        b.grad_fn.register_hook(lambda grad_inputs, grad_outputs: kept.append(grad_inputs[0]))
        (b + a * 5).pow(2).sum().backward()   # b's node sends its gradient to a's buffer first
        return {"kept": kept[0], "kept_version": kept[0]._version, "grad": x.grad}
    run(prog)


def test_the_callers_gradient_is_not_added_into():
    def prog(tg):
        x = tg.tensor([1.0, 2.0], requires_grad=True)
        given = tg.tensor([1.0, 10.0])
        y = x * 2
        (y + y * 3).backward(given)
        return {"given": given, "given_version": given._version, "grad": x.grad}
    run(prog)


def test_retained_gradients_keep_their_values():
    def prog(tg):
        x = tg.tensor([1.0, 2.0], requires_grad=True)
        a = x * 2
        a.retain_grad()
        b = a * 3
        b.retain_grad()
        (b + a * 4 + b * 5).sum().backward()
        return {"a_grad": a.grad, "a_version": a.grad._version, "b_grad": b.grad,
                "b_version": b.grad._version, "x_grad": x.grad, "x_version": x.grad._version}
    run(prog)


def test_gradients_returned_by_grad_are_fresh():
    def prog(tg):
        x = tg.tensor([1.0, 2.0], requires_grad=True)
        y = x.exp()
        first, = tg.autograd.grad((y * 2 + y * 3).sum(), x, retain_graph=True)
        second, = tg.autograd.grad((y * 2 + y * 3).sum(), x)
        return {"first": first, "second": second, "same": first is second,
                "version": first._version}
    run(prog)


def test_under_create_graph_the_sum_is_recorded():
    def prog(tg):
        x = tg.tensor([1.0, 2.0], requires_grad=True)
        g, = tg.autograd.grad((x * x * x + x * x).sum(), x, create_graph=True)
        gg, = tg.autograd.grad(g.sum(), x)
        return {"g": g, "g_version": g._version, "g_node": D.name(g), "gg": gg}
    run(prog)
