"""teachgrad.compile's guards trace again when the step would do something else, and what
it cannot capture runs eagerly, with a warning that names it -- never a wrong result."""
import warnings

import numpy as np
import pytest

import teachgrad

try:
    from .test_compile import training_step
except ImportError:
    from test_compile import training_step


def same_bits(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def linear_step(w, lr=0.1):
    """A step taking its batch as an argument: w.grad and w change, the loss is returned."""
    def step(x):
        w.grad = None
        loss = (x.float() @ w).tanh().sum()
        loss.backward()
        with teachgrad.no_grad():
            w.sub_(lr * w.grad)
        return loss
    return step


def twins(make_step):
    """Two identical weights, one stepped eagerly and one compiled."""
    eager_w, w = (teachgrad.linspace(-1, 1, 6).reshape(3, 2).requires_grad_() for _ in "ab")
    return eager_w, make_step(eager_w), w, teachgrad.compile(make_step(w))


def run_both(eager_w, eager_step, w, step, *args):
    eager_loss, loss = eager_step(*args), step(*args)
    assert same_bits(eager_loss.detach().numpy(), loss.detach().numpy())
    assert same_bits(eager_w.detach().numpy(), w.detach().numpy())
    assert same_bits(eager_w.grad.numpy(), w.grad.numpy())
    assert eager_w._version == w._version


def batch(*shape, dtype=teachgrad.float32, seed=0):
    teachgrad.manual_seed(seed)
    return teachgrad.randn(*shape, dtype=dtype)


def test_same_shapes_replay_without_tracing_again():
    eager_w, eager_step, w, step = twins(linear_step)
    for seed in range(5):
        run_both(eager_w, eager_step, w, step, batch(4, 3, seed=seed))
    assert step.traces == 2 and step.eager_calls == 0


@pytest.mark.parametrize("other", [
    lambda: batch(5, 3), lambda: batch(4, 3, dtype=teachgrad.float64),
    lambda: batch(4, 3).requires_grad_()], ids=["shape", "dtype", "requires_grad"])
def test_an_input_that_differs_traces_again(other):
    eager_w, eager_step, w, step = twins(linear_step)
    for seed in range(3):
        run_both(eager_w, eager_step, w, step, batch(4, 3, seed=seed))
    traces = step.traces
    for _ in range(2):
        run_both(eager_w, eager_step, w, step, other())
    assert step.traces == traces + 1


def test_requires_grad_input_gets_its_grad_as_eager():
    eager_w, eager_step, w, step = twins(linear_step)
    for seed in range(4):
        x_eager, x = batch(4, 3, seed=seed).requires_grad_(), batch(4, 3, seed=seed).requires_grad_()
        eager_step(x_eager), step(x)
        assert same_bits(x_eager.grad.numpy(), x.grad.numpy())
    assert step.traces == 2 and step.fallback_reason is None


def test_a_different_python_branch_traces_again():
    model = teachgrad.nn.Sequential(teachgrad.nn.Linear(3, 2))
    x = batch(4, 3)

    def step():
        model.zero_grad()
        loss = model(x).sum()
        if model.training:                    # a Python branch on Python state
            loss = loss * 2
        loss.backward()
        return loss
    compiled = teachgrad.compile(step)
    values = [compiled().item() for _ in range(3)]
    traces = compiled.traces
    model.eval()
    values += [compiled().item() for _ in range(2)]
    assert compiled.traces == traces + 1
    assert values[3] == values[0] / 2 and values[4] == values[3]


def sgd_step():
    """A Linear(3, 1) layer, its SGD optimiser (lr 0.1), and a compiled step of them."""
    model = teachgrad.nn.Linear(3, 1)
    optimizer = teachgrad.optim.SGD(model.parameters(), lr=0.1)
    x = batch(4, 3)

    def step():
        optimizer.zero_grad()
        model(x).sum().backward()
        optimizer.step()
    return model, optimizer, teachgrad.compile(step)


def test_a_new_learning_rate_traces_again():
    model, optimizer, compiled = sgd_step()
    for _ in range(3):
        compiled()
    traces, before = compiled.traces, model.bias.detach().clone()
    optimizer.param_groups[0]["lr"] = 1.0
    compiled()
    assert compiled.traces == traces + 1
    assert same_bits((before - 4.0).numpy(), model.bias.detach().numpy())   # d sum / d bias = 4


def test_data_dependent_branch_is_checked_on_every_replay():
    w = teachgrad.ones(3, requires_grad=True)

    def step(x):
        w.grad = None
        loss = (x * w).sum()
        if loss > 0:                          # bool() of a computed value: a check
            loss = loss * 10
        loss.backward()
        return loss
    compiled = teachgrad.compile(step)
    positive = teachgrad.tensor([1.0, 2.0, 3.0])
    for _ in range(3):
        assert compiled(positive).item() == 60.0
    assert "check bool(" in str(compiled.program)
    assert compiled(-positive).item() == -6.0         # the other branch: run eagerly
    assert compiled.eager_calls == 1 and w.grad.tolist() == [-1.0, -2.0, -3.0]
    assert compiled(positive).item() == 60.0 and w.grad.tolist() == [10.0, 20.0, 30.0]


def test_a_failed_check_hands_eager_the_grads_the_replay_would_have_replaced():
    """The replay lets go of the .grad tensors it replaces only once every branch check has
    passed: a call that fails one runs eagerly on the old ones."""
    w = teachgrad.ones(3, requires_grad=True)

    def step(x):
        loss = (x * w).sum()
        if loss > 0:
            loss = loss * 10
        old, w.grad = w.grad, None
        loss.backward()
        w.grad = w.grad + (0 if old is None else old)      # a new tensor: the old one replaced
        return loss
    compiled = teachgrad.compile(step)
    positive = teachgrad.tensor([1.0, 2.0, 3.0])
    for _ in range(4):
        compiled(positive)
    assert w.grad.tolist() == [40.0, 80.0, 120.0] and compiled.eager_calls == 0
    compiled(-positive)                                  # fails the check: eager, on the old grad
    assert compiled.eager_calls == 1 and w.grad.tolist() == [39.0, 78.0, 117.0]


def test_a_branch_after_the_update_cannot_be_checked_in_time():
    def make():
        w = teachgrad.ones(3, requires_grad=True)

        def step():
            w.grad = None
            (w * w).sum().backward()
            with teachgrad.no_grad():
                w.sub_(0.1 * w.grad)
                if w.sum() > 2:               # decided after w changed: too late to check
                    w.mul_(0.5)
        return w, step
    eager_w, eager_step = make()
    w, step = make()
    step = teachgrad.compile(step)
    with pytest.warns(UserWarning, match="decides a branch after the step changed its inputs"):
        step()
    eager_step()
    for _ in range(3):
        step(), eager_step()
        assert same_bits(eager_w.detach().numpy(), w.detach().numpy())
    assert step.fallback_reason is not None


# ---- what cannot be captured: eager, with a warning naming it ---------------------------
def test_tensor_hook_falls_back_to_eager():
    eager_w, eager_step, w, step = twins(linear_step)
    for tensor in (eager_w, w):
        tensor.register_hook(lambda grad: grad * 2)
    with pytest.warns(UserWarning, match="hook"):
        run_both(eager_w, eager_step, w, step, batch(4, 3))
    for seed in range(3):
        run_both(eager_w, eager_step, w, step, batch(4, 3, seed=seed))
    assert "hook" in step.fallback_reason and step.traces == 1


def test_module_forward_hook_falls_back_to_eager():
    model = teachgrad.nn.Linear(3, 2)
    calls = []
    model.register_forward_hook(lambda module, args, output: calls.append(1))
    x = batch(4, 3)
    compiled = teachgrad.compile(lambda: model(x).sum().backward())
    with pytest.warns(UserWarning, match="hook"):
        compiled()
    compiled()
    assert calls == [1, 1]                     # the hook ran on every call


def test_item_steering_control_flow_falls_back_to_eager():
    w = teachgrad.ones(3, requires_grad=True)

    def step(x):
        w.grad = None
        loss = (x * w).sum()
        if loss.item() > 0:
            loss = loss * 10
        loss.backward()
        return loss
    compiled = teachgrad.compile(step)
    with pytest.warns(UserWarning, match=r"\.item\(\)"):
        compiled(teachgrad.tensor([1.0, 2.0, 3.0]))
    assert compiled(teachgrad.tensor([-1.0, -2.0, -3.0])).item() == -6.0
    assert ".item()" in compiled.fallback_reason


def test_inplace_error_falls_back_with_the_eager_error():
    def make():
        w = teachgrad.ones(3, requires_grad=True)

        def step():
            y = w.exp()
            y.add_(1)                         # exp saved its result: backward must refuse
            y.sum().backward()
        return step
    with pytest.raises(RuntimeError) as eager_error:
        make()()
    compiled = teachgrad.compile(make())
    with pytest.warns(UserWarning, match="RuntimeError: one of the variables needed"):
        with pytest.raises(RuntimeError) as error:
            compiled()
    assert str(error.value) == str(eager_error.value)
    with pytest.raises(RuntimeError, match="one of the variables needed"):
        compiled()


def test_tracer_leaves_no_traced_array_behind():
    from teachgrad.compile.tracer import _DATA_SLOT, _ORIGINAL, Traced
    eager_w, eager_step, w, step = twins(linear_step)
    loss = step(batch(4, 3))
    for tensor in (w, w.grad, loss):
        assert type(tensor.detach().numpy()) is np.ndarray
    assert all(getattr(np, name) is function for name, function in _ORIGINAL.items())
    assert teachgrad.Tensor.__dict__["_data"] is _DATA_SLOT
    assert not isinstance(np.zeros(2), Traced)


def test_accumulated_grads_are_read_from_the_tensor_each_call():
    def make():
        model = teachgrad.nn.Linear(3, 2)
        with teachgrad.no_grad():
            model.weight.copy_(teachgrad.linspace(-1, 1, 6).reshape(2, 3))
            model.bias.zero_()
        optimizer = teachgrad.optim.SGD(model.parameters(), lr=0.1)

        def step(x):
            optimizer.zero_grad(set_to_none=False)     # zeroed in place: grads are inputs
            model(x).tanh().sum().backward()
            optimizer.step()
        return model, step
    eager_model, eager_step = make()
    model, step = make()
    step = teachgrad.compile(step)
    for seed in range(5):
        eager_step(batch(4, 3, seed=seed)), step(batch(4, 3, seed=seed))
        if seed == 3:                         # a new .grad tensor: it is the one read next
            model.bias.grad = teachgrad.zeros(2)
            eager_model.bias.grad = teachgrad.zeros(2)
    for p, q in zip(eager_model.parameters(), model.parameters()):
        assert same_bits(p.detach().numpy(), q.detach().numpy())
        assert same_bits(p.grad.numpy(), q.grad.numpy())
    assert "bias.grad" in str(step.program)


def test_random_numbers_fall_back_to_eager():
    model = teachgrad.nn.Sequential(teachgrad.nn.Linear(3, 4), teachgrad.nn.Dropout(0.5))
    x = batch(8, 3)
    compiled = teachgrad.compile(lambda: model(x).sum().backward())
    with pytest.warns(UserWarning, match="random numbers"):
        compiled()
    grads = []
    for _ in range(2):
        model.zero_grad()
        compiled()
        grads.append(model[0].weight.grad.numpy().copy())
    assert not np.array_equal(grads[0], grads[1])      # a new mask on every call


@pytest.mark.parametrize("optimizer, options", [
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True)), ("Adam", dict(lr=0.01)),
    ("RMSprop", dict(lr=0.01)), ("Adagrad", dict(lr=0.1))])
def test_optimizers_compiled_or_not_end_where_eager_does(optimizer, options):
    def make():
        teachgrad.manual_seed(0)
        model = teachgrad.nn.Linear(4, 3)
        chosen = getattr(teachgrad.optim, optimizer)(model.parameters(), **options)
        return model, training_step(model, chosen, teachgrad.randn(8, 4))
    eager_model, eager_step = make()
    model, step = make()
    step = teachgrad.compile(step)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")               # Adam's step count is read with .item()
        for _ in range(8):
            assert same_bits(eager_step().detach().numpy(), step().detach().numpy())
    for p, q in zip(eager_model.parameters(), model.parameters()):
        assert same_bits(p.detach().numpy(), q.detach().numpy())


def test_guards_that_change_on_every_call_stop_at_the_trace_limit():
    from teachgrad.compile.compiled import TRACE_LIMIT
    w = teachgrad.ones(3, requires_grad=True)

    def step(x):
        w.grad = None
        (x.sum() * w).sum().backward()
    compiled = teachgrad.compile(step)
    with pytest.warns(UserWarning, match=f"traced {TRACE_LIMIT} times"):
        for n in range(1, TRACE_LIMIT + 3):
            compiled(teachgrad.ones(n))               # a new shape every call
            assert w.grad.tolist() == [float(n)] * 3
    assert compiled.traces == TRACE_LIMIT and compiled.fallback_reason is not None


def test_returned_containers_are_made_again_each_call():
    w = teachgrad.ones(3, requires_grad=True)

    def step(x):
        w.grad = None
        loss = (x * w).sum()
        loss.backward()
        return {"loss": loss, "parts": [(loss * 2).detach(), 7]}
    compiled = teachgrad.compile(step)
    for n in range(1, 5):
        result = compiled(teachgrad.full((3,), float(n)))
        assert result["loss"].item() == 3 * n and result["parts"][0].item() == 6 * n
        assert result["parts"][1] == 7 and isinstance(result["parts"], list)


def test_a_returned_object_the_replay_cannot_make_falls_back():
    compiled = teachgrad.compile(lambda: object())
    with pytest.warns(UserWarning, match="returns a value of type object"):
        compiled()


def test_random_numbers_of_a_generator_of_its_own_fall_back_too():
    generator = teachgrad.Generator()
    generator.manual_seed(0)
    w = teachgrad.ones(3, requires_grad=True)

    def step():
        w.grad = None
        noise = teachgrad.randn(3, generator=generator)
        (w * noise).sum().backward()
    compiled = teachgrad.compile(step)
    with pytest.warns(UserWarning, match="random numbers"):
        compiled()
    grads = []
    for _ in range(2):
        compiled()
        grads.append(w.grad.numpy().copy())
    assert not np.array_equal(grads[0], grads[1])


# ---- the tensors a program reads by identity -----------------------------------------------
# A tensor passed directly as an argument is read by position; every other tensor the step
# reads is bound to the program as that very object. Put another in its place, even of the
# same shape, and the step must trace again -- or, if the guards cannot see the place, run
# eagerly from the start.
def replays_then_matches(compiled, step, change):
    for _ in range(3):
        compiled()
    change()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return compiled().item() == step().item()


def test_a_layer_replaced_by_one_of_the_same_shape_traces_again():
    teachgrad.manual_seed(0)
    model, x = teachgrad.nn.Sequential(teachgrad.nn.Linear(3, 2)), teachgrad.randn(4, 3)

    def step():
        return model(x).sum().detach()
    compiled = teachgrad.compile(step)
    assert replays_then_matches(compiled, step,
                                lambda: model.__setitem__(0, teachgrad.nn.Linear(3, 2)))
    assert compiled.traces == 2


def test_a_closure_tensor_rebound_to_another_of_the_same_shape_traces_again():
    teachgrad.manual_seed(0)
    w, x = teachgrad.randn(3), teachgrad.randn(3)

    def step():
        return (w * x).sum().detach()

    def rebind():
        nonlocal x
        x = teachgrad.randn(3)
    compiled = teachgrad.compile(step)
    assert replays_then_matches(compiled, step, rebind)
    assert compiled.traces == 2


def test_a_buffer_replaced_by_one_of_the_same_shape_traces_again():
    norm = teachgrad.nn.BatchNorm1d(3).eval()
    x = teachgrad.randn(4, 3)

    def step():
        return norm(x).sum().detach()
    compiled = teachgrad.compile(step)
    assert replays_then_matches(compiled, step,
                                lambda: setattr(norm, "running_mean", teachgrad.ones(3)))
    assert compiled.traces == 2


def test_a_tensor_in_a_dict_is_watched_too():
    settings = {"scale": teachgrad.tensor([2.0, 3.0])}
    x = teachgrad.tensor([1.0, 1.0])

    def step():
        return (settings["scale"] * x).sum().detach()
    compiled = teachgrad.compile(step)
    assert [compiled().item() for _ in range(3)] == [5.0] * 3
    settings["scale"] = teachgrad.tensor([10.0, 10.0])
    assert compiled().item() == 20.0 and compiled.traces == 2


def test_a_tensor_the_guards_cannot_watch_runs_eagerly_with_a_warning():
    bank = [teachgrad.tensor([float(n)]) for n in range(300)]    # too long to look into
    x = teachgrad.tensor([1.0])

    def step():
        return (bank[-1] * x).sum().detach()
    compiled = teachgrad.compile(step)
    with pytest.warns(UserWarning, match="cannot watch"):
        assert compiled().item() == 299.0
    bank[-1] = teachgrad.tensor([7.0])
    assert compiled().item() == 7.0 and compiled.fallback_reason is not None


# ---- Python state the step reads: module attributes, objects, lists, helpers ----------------
@pytest.mark.parametrize("module, change", [
    (teachgrad.nn.CrossEntropyLoss(), lambda m: setattr(m, "reduction", "sum")),
    (teachgrad.nn.LeakyReLU(0.1), lambda m: setattr(m, "negative_slope", 0.5)),
    (teachgrad.nn.Softmax(dim=1), lambda m: setattr(m, "dim", 0)),
], ids=["reduction", "negative_slope", "dim"])
def test_a_module_attribute_changed_traces_again(module, change):
    teachgrad.manual_seed(0)
    x, y = teachgrad.randn(4, 3), teachgrad.tensor([0, 1, 2, 1])

    def step():
        out = module(x, y) if isinstance(module, teachgrad.nn.CrossEntropyLoss) else module(x)
        return out.sum().detach()
    compiled = teachgrad.compile(step)
    assert replays_then_matches(compiled, step, lambda: change(module))
    assert compiled.traces == 2


def test_a_backward_hook_registered_after_tracing_is_not_skipped():
    layer, x = teachgrad.nn.Linear(3, 2), teachgrad.ones(4, 3)
    seen = []

    def step():
        layer.zero_grad()
        layer(x).sum().backward()
    compiled = teachgrad.compile(step)
    for _ in range(3):
        compiled()
    layer.register_full_backward_hook(lambda module, grad_in, grad_out: seen.append(1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compiled()
    assert seen == [1]


def test_an_attribute_of_a_plain_object_traces_again():
    class Settings:
        double = False
    settings, x = Settings(), teachgrad.tensor([1.0, 2.0])
    settings.double = False

    def step():
        return (x * 2).sum() if settings.double else x.sum().detach()
    compiled = teachgrad.compile(step)
    assert replays_then_matches(compiled, step, lambda: setattr(settings, "double", True))
    assert compiled.traces == 2


def test_a_list_the_step_reads_is_watched_past_sixteen_entries():
    weights = [teachgrad.tensor([float(n)]) for n in range(20)]
    x = teachgrad.tensor([1.0])

    def step():
        return (weights[-1] * x).sum().detach()
    compiled = teachgrad.compile(step)
    assert replays_then_matches(compiled, step,
                                lambda: weights.append(teachgrad.tensor([100.0])))
    assert compiled.traces == 2


def test_a_global_helper_function_is_looked_into():
    compiled = teachgrad.compile(_step_through_a_helper)
    assert replays_then_matches(compiled, _step_through_a_helper,
                                lambda: _HELPER_LAYER.__setitem__(0, teachgrad.nn.Linear(3, 1)))
    assert compiled.traces == 2 and compiled.fallback_reason is None


def test_an_equal_learning_rate_written_again_replays():
    _, optimizer, compiled = sgd_step()
    for _ in range(5):
        optimizer.param_groups[0]["lr"] = float("0.1")      # equal, but a new object
        compiled()
    assert compiled.traces == 2


def test_a_closure_variable_the_step_binds_first_is_watched_too():
    def make():
        def step(x):
            nonlocal last
            last = (x * 2).sum()
            return last
        compiled = teachgrad.compile(step)
        return compiled, lambda: last
        last = None                                 # (never run: the cell starts empty)
    compiled, read_last = make()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for n in range(3):
            assert compiled(teachgrad.full((2,), float(n))).item() == 4 * n
            assert read_last().item() == 4 * n      # the step's own binding, every call


_HELPER_LAYER = teachgrad.nn.Sequential(teachgrad.nn.Linear(3, 1))


def _forward(x):
    return _HELPER_LAYER(x)


def _step_through_a_helper():
    return _forward(teachgrad.ones(2, 3)).sum().detach()


def test_modules_are_compared_again_only_when_the_count_of_changes_moved(monkeypatch):
    from teachgrad.compile import guards
    compared = []
    original = guards.Snapshot._modules_now
    monkeypatch.setattr(guards.Snapshot, "_modules_now",
                        lambda self: compared.append(1) or original(self))
    model, optimizer, compiled = sgd_step()
    for _ in range(3):
        compiled()
    compared.clear()
    for _ in range(3):
        compiled()
    assert compared == [] and compiled.traces == 2
    model.train()                           # a change, though to the same value
    compiled(), compiled()
    assert compared == [1] and compiled.traces == 2


def test_the_guards_read_as_python_naming_what_they_check():
    model, optimizer, compiled = sgd_step()
    compiled(), compiled()
    lines = compiled.guards.splitlines()
    assert lines[0] == "def holds(args):" and "if len(args) != 0: return False" in lines[2]
    assert any(line.endswith("# model") for line in lines)
    assert any(line.endswith("# model.weight") for line in lines)
    assert any("'lr'" in line for line in lines)


def test_a_defaultdict_is_checked_without_adding_to_it():
    from collections import defaultdict
    table = defaultdict(lambda: teachgrad.ones(1))
    table["a"] = teachgrad.tensor([2.0])
    x = teachgrad.tensor([3.0])

    def step():
        return (table["a"] * x).sum().detach()
    compiled = teachgrad.compile(step)
    assert [compiled().item() for _ in range(3)] == [6.0] * 3
    del table["a"]
    table["b"] = teachgrad.tensor([5.0])            # the same length, another key
    snapshot, _ = compiled.cache[-1]
    assert not snapshot.holds(()) and list(table) == ["b"]      # no "a" added by looking
    assert compiled().item() == 3.0 and compiled.traces == 2    # the step adds it: ones(1)


def test_dict_keys_of_any_kind_are_compared_as_themselves():
    import enum

    class Part(enum.IntEnum):
        SCALE = 1
    table = {Part.SCALE: teachgrad.tensor([2.0]), (1, "b"): 3.0}
    x = teachgrad.tensor([1.5])

    def step():
        return (table[Part.SCALE] * x).sum() * table[(1, "b")]
    compiled = teachgrad.compile(step)
    assert [compiled().item() for _ in range(3)] == [9.0] * 3
    table[(1, "b")] = 1.0
    assert compiled().item() == 3.0 and compiled.traces == 2


def test_a_module_given_another_class_traces_again():
    class Double(teachgrad.nn.Module):
        def forward(self, x):
            return x * 2

    class Triple(teachgrad.nn.Module):
        def forward(self, x):
            return x * 3
    module, x = Double(), teachgrad.tensor([1.0, 2.0])

    def step():
        return module(x).sum().detach()
    compiled = teachgrad.compile(step)
    assert replays_then_matches(compiled, step, lambda: setattr(module, "__class__", Triple))
    assert compiled.traces == 2 and compiled().item() == 9.0
