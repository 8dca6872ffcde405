"""Saved-tensor hooks as in PyTorch 2.13 (issue 20): ``autograd.graph.saved_tensors_hooks``,
``save_on_cpu`` and ``SavedTensor.register_hooks`` on a node's ``_raw_saved_*``."""
import pytest

from test_compat_modules import run_both

torch = pytest.importorskip("torch")


def text(value):
    return str(value).replace("teachgrad.", "torch.")


def test_hooks_pack_at_save_and_unpack_at_backward():
    def program(t):
        log = []

        def pack(tensor):
            log.append(("pack", tuple(tensor.shape), tensor.requires_grad,
                        tensor.grad_fn is not None))
            return ("box", tensor)

        def unpack(packed):
            log.append(("unpack", packed[0]))
            return packed[1]
        x = t.tensor([1.0, 2.0], requires_grad=True)
        with t.autograd.graph.saved_tensors_hooks(pack, unpack):
            y = x.exp()
            z = (x * y).sum()
            w = x * 3                      # a Python number is not packed
        packed_count = len(log)
        z.backward(retain_graph=True)
        return (packed_count, sorted(log), [round(g, 5) for g in x.grad.tolist()],
                text(y.grad_fn._saved_result),
                type(y.grad_fn._raw_saved_result).__name__, w.requires_grad)
    record, _ = run_both(program)
    assert record[0] == 3


def test_unpacked_leaf_keeps_its_place_in_the_graph():
    def program(t):
        a = t.ones(2, requires_grad=True)
        with t.autograd.graph.saved_tensors_hooks(lambda x: x.detach(), lambda x: x):
            b = a.exp()
            c = a.pow(2)
        grad, = t.autograd.grad(c.sum(), a, create_graph=True)
        grad.sum().backward()
        return (text(b.grad_fn._saved_result), text(c.grad_fn._saved_self),
                c.grad_fn._saved_self is a, a.grad.tolist())
    record, _ = run_both(program)
    assert record[2] is False and record[3] == [2.0, 2.0]


def test_hooks_skip_the_version_check_and_nest():
    def program(t):
        log = []
        with t.autograd.graph.saved_tensors_hooks(lambda x: x, lambda x: x):
            r = (t.ones(2, requires_grad=True) * 1).exp()
        r.mul_(2)
        r.sum().backward()                 # no error: the hooks decided what was kept
        a = t.tensor([3.0], requires_grad=True)
        with t.autograd.graph.saved_tensors_hooks(lambda x: ("outer", x), lambda p: p[1]):
            with t.autograd.graph.saved_tensors_hooks(lambda x: ("inner", x),
                                                      lambda p: log.append(p[0]) or p[1]):
                g = a.sin()
        g.backward()
        with t.autograd.graph.save_on_cpu():
            m = a.exp()
        m.backward()
        return log, a.grad.tolist()
    run_both(program)


def test_register_hooks_on_a_raw_saved_tensor():
    def program(t):
        log = []
        a = t.tensor([3.0], requires_grad=True)
        b = a.pow(2)
        raw = b.grad_fn._raw_saved_self
        raw.register_hooks(lambda x: log.append(("packed", text(x))) or x * 1,
                           lambda x: log.append("unpacked") or x)
        log.append(text(b.grad_fn._saved_self))
        b.backward()
        log.append(a.grad.tolist())
        for target in (raw, a.pow(2).grad_fn._raw_saved_self):
            try:
                target.register_hooks(lambda x: x, lambda x: x)
                target.register_hooks(lambda x: x, lambda x: x)
            except RuntimeError as error:
                log.append(str(error))
        return log
    log, _ = run_both(program)
    assert log[0] == ("packed", "tensor([3.])") and log[1] == "unpacked"


@pytest.mark.parametrize("program", [
    lambda t: _backward_with_hooks(t, lambda x: x, lambda x: 5),
    lambda t: _backward_with_hooks(t, lambda x: x.mul_(2), lambda x: x),
])
def test_hook_errors(program):
    def outcome(t):
        try:
            return program(t)
        except (RuntimeError, TypeError) as error:
            return type(error).__name__, str(error)[:60]
    run_both(outcome)


def _backward_with_hooks(t, pack, unpack):
    with t.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = t.ones(1, requires_grad=True).exp()
    y.backward()


def test_custom_function_saved_tensors_go_through_the_hooks():
    def program(t):
        log = []

        class Square(t.autograd.Function):
            @staticmethod
            def forward(ctx, v):
                ctx.save_for_backward(v)
                return v * v

            @staticmethod
            def backward(ctx, grad):
                v, = ctx.saved_tensors
                return 2 * v * grad
        a = t.tensor([3.0], requires_grad=True)
        with t.autograd.graph.saved_tensors_hooks(lambda x: log.append("pack") or x,
                                                  lambda x: log.append("unpack") or x):
            n = Square.apply(a)
        n.backward()
        return log, a.grad.tolist()
    run_both(program)
