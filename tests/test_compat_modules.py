"""Module entry points of PyTorch 2.13 that tutorials use (issue 20): nn.LazyLinear, the
full and the old backward hooks, and the fully qualified print of a custom Function's
node. Each program runs on torch and on teachgrad and the records are compared."""
import re
import warnings

import pytest

import teachgrad

torch = pytest.importorskip("torch")


def shapes(grads):
    return [None if g is None else tuple(g.shape) for g in grads]


def node_text(node):
    """A node's repr without its address, the package's name made neutral."""
    return re.sub(r" at 0x[0-9a-f]+", "", repr(node)).replace("teachgrad.", "torch.")


def run_both(program):
    records = []
    for t in (torch, teachgrad):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            record = program(t)
        records.append((record, [(w.category.__name__, str(w.message)) for w in caught]))
    assert records[1] == records[0]
    return records[0]


def test_full_backward_hook_sees_the_module_gradients():
    def program(t):
        t.manual_seed(0)
        layer, calls = t.nn.Linear(3, 2), []
        layer.register_full_backward_hook(
            lambda module, grad_in, grad_out: calls.append((type(module).__name__,
                                                            shapes(grad_in), shapes(grad_out))))
        x = t.randn(4, 3, requires_grad=True)
        y = layer(x)
        graph = [node_text(y.grad_fn), [node_text(n) for n, _ in y.grad_fn.next_functions],
                 [node_text(n) for n, _ in y.grad_fn.next_functions[0][0].next_functions]]
        y.sum().backward()
        return graph, calls, x.grad.tolist()
    (graph, calls, _), _ = run_both(program)
    assert graph[0] == "<torch.autograd.function.BackwardHookFunctionBackward object>"
    assert calls == [("Linear", [(4, 3)], [(4, 2)])]


def test_full_backward_hook_can_replace_grad_input_and_be_removed():
    def program(t):
        layer, x = t.nn.Linear(3, 2), t.ones(2, 3, requires_grad=True)
        handle = layer.register_full_backward_hook(lambda m, gi, go: (gi[0] * 0 + 1,))
        layer(x).sum().backward()
        replaced = x.grad.tolist()
        handle.remove()
        return replaced, node_text(layer(x).grad_fn)
    (replaced, after_removal), _ = run_both(program)
    assert replaced == [[1.0] * 3] * 2 and after_removal == "<AddmmBackward0 object>"


def test_full_backward_hook_without_input_grads_fires_at_the_outputs_with_a_warning():
    def program(t):
        layer, calls = t.nn.Linear(3, 2), []
        layer.register_full_backward_hook(lambda m, gi, go: calls.append((shapes(gi),
                                                                          shapes(go))))
        layer(t.ones(4, 3)).sum().backward()
        return calls
    calls, caught = run_both(program)
    assert calls == [([None], [(4, 2)])] and caught[0][1].startswith("Full backward hook is")


def test_backward_pre_hook_and_several_inputs_and_outputs():
    def program(t):
        class Two(t.nn.Module):
            def forward(self, a, k, b):
                return a * k + b, a - b
        module, calls = Two(), []
        module.register_full_backward_pre_hook(lambda m, go: (go[0] * 2, go[1]))
        module.register_full_backward_hook(lambda m, gi, go: calls.append((shapes(gi),
                                                                           shapes(go))))
        a, b = t.ones(2, requires_grad=True), t.ones(2)
        first, second = module(a, 3.0, b)
        (first.sum() + second.sum()).backward()
        first, _ = module(a, 3.0, b)
        first.sum().backward()
        return calls, a.grad.tolist()
    run_both(program)


def test_mixing_hook_kinds_is_refused():
    def program(t):
        layer = t.nn.Linear(2, 2)
        layer.register_full_backward_hook(lambda *args: None)
        try:
            layer.register_backward_hook(lambda *args: None)
        except RuntimeError as error:
            return str(error)
    message, _ = run_both(program)
    assert message.startswith("Cannot use both regular backward hooks and full backward hooks")


@pytest.mark.parametrize("make", [lambda t: t.nn.Linear(3, 2),
                                  lambda t: t.nn.Sequential(t.nn.Linear(3, 2), t.nn.ReLU())])
def test_old_backward_hook_sees_the_last_node_and_warns(make):
    def program(t):
        t.manual_seed(1)
        module, calls = make(t), []
        module.register_backward_hook(lambda m, gi, go: calls.append((shapes(gi), shapes(go))))
        module(t.ones(4, 3, requires_grad=True)).sum().backward()
        return calls
    calls, caught = run_both(program)
    assert calls and caught and caught[0][0] == "FutureWarning"


def test_custom_function_node_prints_fully_qualified():
    def program(t):
        class Square(t.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                ctx.save_for_backward(a)
                return a * a

            @staticmethod
            def backward(ctx, grad):
                a, = ctx.saved_tensors
                return 2 * a * grad
        y = Square.apply(t.ones(2, requires_grad=True))
        return node_text(y.grad_fn), y.grad_fn.name(), str(y).replace("teachgrad.", "torch.")
    (text, name, printed), _ = run_both(program)
    assert text == "<torch.autograd.function.SquareBackward object>" and name == "SquareBackward"


def test_lazy_linear_becomes_a_linear_with_torch_numbers():
    def program(t):
        t.manual_seed(0)
        layer = t.nn.LazyLinear(3)
        before = [repr(layer), repr(layer.weight), repr(layer.bias),
                  list(layer.state_dict().items()).__repr__()]
        try:
            layer.weight.shape
        except RuntimeError as error:
            before.append(str(error)[:40])
        optimizer = t.optim.SGD(layer.parameters(), lr=0.1)
        y = layer(t.ones(2, 4))
        optimizer.zero_grad()
        y.sum().backward()
        optimizer.step()
        return (before, type(layer).__name__, repr(layer), type(layer.weight).__name__,
                layer.weight.is_leaf, layer.weight.tolist(), y.tolist())
    record, _ = run_both(program)
    assert record[0][0] == "LazyLinear(in_features=0, out_features=3, bias=True)"
    assert record[1] == "Linear"


def test_lazy_linear_in_a_sequential():
    def program(t):
        t.manual_seed(2)
        model = t.nn.Sequential(t.nn.LazyLinear(4), t.nn.ReLU(), t.nn.LazyLinear(1, bias=False))
        out = model(t.ones(5, 7))
        # torch's float32 kernels may round one of five equal rows in its last bit, on some
        # CPUs and not others: compared to 6 digits
        rows = [[round(value, 6) for value in row] for row in out.tolist()]
        return repr(model), rows, repr(t.nn.LazyLinear(2, bias=False).bias)
    run_both(program)
