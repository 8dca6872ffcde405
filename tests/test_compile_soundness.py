"""teachgrad.compile's one rule (issue 28): a replay gives, bit for bit, what the eager
step would give, and anything the trace cannot vouch for runs eagerly with a warning.
Each test is one of the issue's reproductions: it passes if the compiled step equals the
eager one on every call, or if the step fell back to eager with a warning naming why."""
import functools
import random
import warnings

import numpy as np
import pytest

import teachgrad
from teachgrad import nn


def bits(value):
    if isinstance(value, teachgrad.Tensor):
        array = value.detach().numpy()
        return (array.dtype.str, array.shape, array.tobytes())
    if isinstance(value, (tuple, list)):
        return [bits(item) for item in value]
    return value


def compiled_and_eager(fn, calls):
    """For each of ``calls`` (a zero-argument function that prepares a call and returns its
    arguments): ``fn`` compiled, then ``fn`` eagerly, each on a call prepared for it.
    Returns the two lists of results, and the warnings the compiled calls gave."""
    step = teachgrad.compile(fn)
    compiled, eager = [], []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for prepare in calls:
            compiled.append(bits(step(*prepare())))
            eager.append(bits(fn(*prepare())))
    return compiled, eager, [str(w.message) for w in caught], step


def assert_replays_or_warns(fn, calls, cause=None):
    """Equal to eager on every call; with ``cause``, also a fallback warning naming it."""
    compiled, eager, caught, step = compiled_and_eager(fn, calls)
    assert compiled == eager
    if cause is not None:
        assert any(cause in message for message in caught), caught
    return step


# ---- arrays made outside the recorded numpy calls -----------------------------------
def test_expand_of_a_size_one_dimension_reads_this_calls_array():
    step = assert_replays_or_warns(lambda x: x.expand(2, 3) * 2,
                                   [lambda: (teachgrad.zeros(2, 1),),
                                    lambda: (teachgrad.ones(2, 1),)])
    assert step.program is not None        # as_strided is recorded: it replays


@pytest.mark.parametrize("pool", [
    lambda h: h.mean(dim=(2, 3), keepdim=True).expand_as(h).sum(),
    lambda h: h.pow(2).sum(1).sqrt().sum(),
    lambda h: nn.functional.adaptive_avg_pool2d(h, 1).flatten(1).sum()],
    ids=["expand_as", "norm", "global_pool"])
def test_pooling_and_norms_train_as_eager(pool):
    def make():
        teachgrad.manual_seed(0)
        return nn.Conv2d(2, 3, 3, padding=1)

    def train(conv):
        def step(x):
            conv.zero_grad()
            loss = pool(conv(x))
            loss.backward()
            return loss.detach(), conv.weight.grad.clone()
        return step
    batches = [teachgrad.randn(2, 2, 4, 4) for _ in range(3)]
    eager_step = train(make())
    compiled_step = teachgrad.compile(train(make()))
    for x in batches:
        assert bits(compiled_step(x)) == bits(eager_step(x))


def test_an_array_made_by_an_unrecorded_numpy_call_refuses_the_replay():
    def step(x):
        noise = np.lib.stride_tricks.sliding_window_view(x.numpy(), 2, axis=-1)   # not recorded
        return x + teachgrad.from_numpy(noise.sum(-1).copy())
    assert_replays_or_warns(step, [lambda: (teachgrad.zeros(1, 2),),
                                   lambda: (teachgrad.ones(1, 2),)])


def test_a_numpy_array_the_step_reads_is_read_anew_each_call():
    table = np.ones(2, dtype=np.float32)

    def step(x):
        return x * teachgrad.from_numpy(table)

    def change(value):
        table[:] = value
        return (teachgrad.ones(2),)
    step_ = assert_replays_or_warns(step, [functools.partial(change, v) for v in (1, 3, 5)])
    assert step_.program is not None


# ---- data-dependent shapes -----------------------------------------------------------
def test_a_mask_whose_count_changes_runs_eagerly_where_the_shape_differs():
    s = teachgrad.ones(6)
    masks = [[True] * 6, [True] * 4 + [False] * 2, [True] * 6]
    assert_replays_or_warns(lambda s, m: (s[m] * 2).sum(),
                            [functools.partial(lambda m: (s, teachgrad.tensor(m)), m)
                             for m in masks])


@pytest.mark.parametrize("op", [lambda x, r: x.repeat_interleave(r).sum(),
                                lambda x, r: x[r.nonzero()].sum(),
                                lambda x, r: x.unique().sum() + r.unique().sum()],
                         ids=["repeat_interleave", "nonzero", "unique"])
def test_results_whose_shape_follows_the_data_are_checked(op):
    counts = [[1, 1, 1], [1, 1, 1], [2, 0, 3], [1, 1, 1]]
    assert_replays_or_warns(op, [functools.partial(lambda c: (teachgrad.arange(3.0),
                                                              teachgrad.tensor(c)), c)
                                 for c in counts])


def test_a_mask_inside_a_training_step():
    def make():
        teachgrad.manual_seed(0)
        return nn.Linear(3, 1)

    def train(model):
        def step(x, keep):
            model.zero_grad()
            loss = model(x)[keep].pow(2).sum()
            loss.backward()
            return loss.detach(), model.weight.grad.clone()
        return step
    x = teachgrad.randn(5, 3)
    keeps = [teachgrad.tensor(k) for k in ([True] * 5, [True, False] * 2 + [True], [True] * 5)]
    eager_step, compiled_step = train(make()), teachgrad.compile(train(make()))
    for keep in keeps:
        assert bits(compiled_step(x, keep)) == bits(eager_step(x, keep))


# ---- grad mode, and a returned graph -------------------------------------------------
def test_a_returned_tensor_that_still_needs_its_graph_runs_eagerly():
    teachgrad.manual_seed(0)
    lin = nn.Linear(3, 2)
    forward = teachgrad.compile(lambda x: lin(x))
    x = teachgrad.ones(4, 3)
    with pytest.warns(UserWarning, match="graph"):
        forward(x).sum().backward()
    forward(x).sum().backward()             # a graph again: eager, as it warned
    assert lin.weight.grad is not None and forward.fallback_reason is not None


def test_an_l2_term_added_outside_the_compiled_forward_keeps_the_data_gradient():
    def make():
        teachgrad.manual_seed(0)
        return nn.Linear(3, 1)
    eager_model, model = make(), make()
    forward = teachgrad.compile(lambda x: model(x).pow(2).mean())
    x = teachgrad.randn(4, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for m, f in ((eager_model, lambda x: eager_model(x).pow(2).mean()), (model, forward)):
            for _ in range(2):
                m.zero_grad()
                (f(x) + 0.1 * m.weight.pow(2).sum()).backward()
    assert bits(model.weight.grad) == bits(eager_model.weight.grad)


def test_a_step_called_under_no_grad_raises_as_eager():
    teachgrad.manual_seed(0)
    lin = nn.Linear(2, 1)
    opt = teachgrad.optim.SGD(lin.parameters(), lr=0.1)

    def step(x):
        opt.zero_grad()
        loss = lin(x).sum()
        loss.backward()
        opt.step()
        return loss.detach()
    compiled = teachgrad.compile(step)
    compiled(teachgrad.ones(1, 2))
    compiled(teachgrad.ones(1, 2))
    with teachgrad.no_grad(), pytest.raises(RuntimeError, match="does not require grad"), \
            pytest.warns(UserWarning):
        compiled(teachgrad.ones(1, 2))


@pytest.mark.parametrize("setting", ["inference_mode", "anomaly", "saved_tensors_hooks"])
def test_autograd_settings_are_guarded(setting):
    contexts = {"inference_mode": teachgrad.inference_mode,
                "anomaly": teachgrad.autograd.set_detect_anomaly,
                "saved_tensors_hooks": lambda: teachgrad.autograd.graph.saved_tensors_hooks(
                    lambda t: t * 2, lambda t: t)}
    w = teachgrad.ones(2, requires_grad=True)

    def step(x):
        w.grad = None
        (w * x).sum().backward()
        return w.grad.clone()
    compiled = teachgrad.compile(step)
    compiled(teachgrad.ones(2))
    compiled(teachgrad.ones(2))
    with contexts[setting]() if setting != "anomaly" else contexts[setting](True):
        try:
            eager = bits(step(teachgrad.ones(2)))
        except RuntimeError as error:
            with pytest.raises(RuntimeError, match=str(error).split("\n")[0][:30]), \
                    warnings.catch_warnings():
                warnings.simplefilter("ignore")
                compiled(teachgrad.ones(2))
            return
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert bits(compiled(teachgrad.ones(2))) == eager
    assert compiled.traces >= 3             # the setting made it trace again


def test_the_default_dtype_is_guarded():
    step = teachgrad.compile(lambda: teachgrad.ones(2) * 2)
    step(), step()
    teachgrad.set_default_dtype(teachgrad.float64)
    try:
        assert step().dtype == teachgrad.float64
    finally:
        teachgrad.set_default_dtype(teachgrad.float32)
    assert step().dtype == teachgrad.float32


# ---- Python's and numpy's random numbers ---------------------------------------------
@pytest.mark.parametrize("draw", [lambda: random.uniform(0.8, 1.2),
                                  lambda: float(np.random.beta(0.4, 0.4)),
                                  lambda: float(_RNG.normal())],
                         ids=["random", "numpy.random", "numpy_generator"])
def test_random_numbers_drawn_in_python_are_not_frozen(draw):
    random.seed(0)
    np.random.seed(0)
    step = teachgrad.compile(lambda x: x * draw())
    with pytest.warns(UserWarning, match="random"):
        values = [step(teachgrad.ones(1)).item() for _ in range(3)]
    assert len(set(values)) == 3


_RNG = np.random.default_rng(0)


@pytest.mark.parametrize("make", [lambda: random.Random(), lambda: np.random.default_rng()],
                         ids=["random.Random", "numpy.default_rng"])
def test_a_generator_made_inside_the_step_is_not_frozen(make):
    step = teachgrad.compile(lambda x: x * float(make().random()))
    with pytest.warns(UserWarning, match="generator"):
        values = [step(teachgrad.ones(1)).item() for _ in range(3)]
    assert len(set(values)) == 3


# ---- arguments -----------------------------------------------------------------------
def test_aliased_arguments_are_guarded():
    a, b = teachgrad.ones(3), teachgrad.full((3,), 6.0)
    assert_replays_or_warns(lambda p, q: (p - q).sum(),
                            [lambda: (a, a), lambda: (b, a), lambda: (a, a)])


def test_arguments_sharing_memory_are_guarded():
    def apart():
        return teachgrad.arange(3.0), teachgrad.arange(3.0) * 2

    def overlapping():
        base = teachgrad.arange(3.0)
        return base, base.view(3)
    assert_replays_or_warns(lambda p, q: (p.add_(1) + q).sum(),
                            [apart, apart, overlapping, apart])


def test_an_argument_that_is_a_watched_tensor_is_guarded():
    def world():
        w = teachgrad.full((2,), 3.0)
        return w, (lambda x: (x.mul_(2) + w).sum())
    (eager_w, eager_step), (w, step) = world(), world()
    step = teachgrad.compile(step)
    for passes_w in (True, True, False, False, True):
        eager_x, x = (eager_w, w) if passes_w else (teachgrad.ones(2), teachgrad.ones(2))
        assert bits(step(x)) == bits(eager_step(eager_x))
        assert bits(w) == bits(eager_w)


@pytest.mark.parametrize("op", [lambda x: x.flatten() * 2, lambda x: x.reshape(6) + 1,
                                lambda x: x.contiguous().div_(2).sum()],
                         ids=["flatten", "reshape", "contiguous_div_"])
def test_a_non_contiguous_argument_traces_again(op):
    made = []

    def contiguous():
        return (teachgrad.ones(2, 3),)

    def transposed():
        made.append(teachgrad.arange(6.0).reshape(3, 2).t())
        return made[-1:]
    assert_replays_or_warns(op, [contiguous, transposed, contiguous, transposed])
    assert bits(made) == bits([teachgrad.arange(6.0).reshape(3, 2).t()] * 4)


def test_view_of_a_non_contiguous_argument_raises_as_eager():
    step = teachgrad.compile(lambda x: x.view(6) * 2)
    step(teachgrad.ones(2, 3))
    with pytest.raises(RuntimeError, match="view size is not compatible"), \
            warnings.catch_warnings():
        warnings.simplefilter("ignore")
        step(teachgrad.ones(3, 2).t())


def test_a_transposed_data_assigned_to_a_parameter_trains_as_eager():
    def make():
        teachgrad.manual_seed(0)
        return nn.Linear(3, 3)

    def train(model):
        def step(x):
            model.zero_grad()
            loss = model(x).pow(2).sum()
            loss.backward()
            return loss.detach(), model.weight.grad.clone()
        return step
    eager_model, model = make(), make()
    eager_step, compiled_step = train(eager_model), teachgrad.compile(train(model))
    x = teachgrad.randn(4, 3)
    for n in range(4):
        if n == 2:
            for m in (eager_model, model):
                m.weight.data = m.weight.data.t()
        assert bits(compiled_step(x)) == bits(eager_step(x))


# ---- state the guards must look into -------------------------------------------------
class Slotted:
    __slots__ = ("scale",)

    def __init__(self, scale):
        self.scale = scale


class Plain:
    pass


SCALE = 2.0


def _scaled_three_deep(x):
    return _scaled_two_deep(x)


def _scaled_two_deep(x):
    return _scaled(x)


def _scaled(x):
    return x * SCALE


class ScaleByGlobal(nn.Module):
    def forward(self, x):
        return x * SCALE


def _nested(depth, value):
    root = obj = Plain()
    for _ in range(depth):
        obj.inner = Plain()
        obj = obj.inner
    obj.value = value
    return root, obj


@pytest.mark.parametrize("case", ["slots", "set", "deep", "helper", "module_global",
                                  "deque", "partial"])
def test_python_state_changed_between_calls_is_seen(case, monkeypatch):
    import collections
    holder = Slotted(2.0)
    members = {1}
    root, leaf = _nested(6, 2.0)
    queue = collections.deque([2.0])
    module = ScaleByGlobal()
    scale = functools.partial(lambda a, b: a * b, 2.0)
    steps = {"slots": lambda x: x * holder.scale, "set": lambda x: x * len(members),
             "deep": lambda x: x * root.inner.inner.inner.inner.inner.inner.value,
             "helper": _scaled_three_deep, "module_global": lambda x: module(x),
             "deque": lambda x: x * queue[0], "partial": lambda x: scale(x)}
    changes = {"slots": lambda: setattr(holder, "scale", 3.0), "set": lambda: members.add(2),
               "deep": lambda: setattr(leaf, "value", 5.0),
               "helper": lambda: monkeypatch.setitem(globals(), "SCALE", 7.0),
               "module_global": lambda: monkeypatch.setitem(globals(), "SCALE", 7.0),
               "deque": lambda: queue.appendleft(9.0),
               "partial": lambda: None}

    def call(change=None):
        if change is not None:
            change()
        return (teachgrad.ones(2),)
    step = assert_replays_or_warns(steps[case], [call, call, call,
                                                 functools.partial(call, changes[case]),
                                                 call])
    assert step.fallback_reason is None


def test_an_attribute_of_the_users_module_is_guarded(tmp_path, monkeypatch):
    (tmp_path / "settings_for_compile.py").write_text("scale = 2.0\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import settings_for_compile

    def step(x):
        return x * settings_for_compile.scale

    def call(scale):
        monkeypatch.setattr(settings_for_compile, "scale", scale)
        return (teachgrad.ones(2),)
    assert_replays_or_warns(step, [functools.partial(call, s) for s in (2.0, 2.0, 5.0, 5.0)])


class ScaledByClassAttribute(nn.Module):
    scale = 2.0

    def forward(self, x):
        return x * self.scale


def test_a_class_attribute_of_the_users_module_is_guarded(monkeypatch):
    module = ScaledByClassAttribute()

    def call(scale):
        monkeypatch.setattr(ScaledByClassAttribute, "scale", scale)
        return (teachgrad.ones(2),)
    assert_replays_or_warns(lambda x: module(x),
                            [functools.partial(call, s) for s in (2.0, 2.0, 3.0, 3.0)])


def test_a_mutable_default_argument_is_guarded():
    def step(x, options={"scale": 2.0}):
        return x * options["scale"]
    defaults = step.__defaults__[0]

    def call(scale):
        defaults["scale"] = scale
        return (teachgrad.ones(2),)
    assert_replays_or_warns(step, [functools.partial(call, s) for s in (2.0, 2.0, 4.0, 4.0)])


def test_an_iterator_the_step_reads_runs_eagerly_with_a_warning():
    batches = iter([teachgrad.full((2,), float(n)) for n in range(4)])
    step = teachgrad.compile(lambda: next(batches) * 2)
    with pytest.warns(UserWarning, match="iterator"):
        values = [step().sum().item() for _ in range(4)]
    assert values == [0.0, 4.0, 8.0, 12.0]


class Settings:
    scale = 1.0


def test_a_class_used_as_a_namespace_is_guarded(monkeypatch):
    def call(scale):
        monkeypatch.setattr(Settings, "scale", scale)
        return (teachgrad.ones(3),)
    assert_replays_or_warns(lambda x: (x * Settings.scale).sum(),
                            [functools.partial(call, s) for s in (1.0, 1.0, 100.0, 100.0)])


BUMPS = 0


class Bumper:
    """Reached only as the step runs (a class is not looked into before the trace)."""

    def scale(self, x):
        global BUMPS
        BUMPS += 1
        return x * BUMPS


def test_python_state_a_method_changes_is_not_replayed_stale():
    step = teachgrad.compile(lambda x: Bumper().scale(x))
    with pytest.warns(UserWarning, match="changes Python state"):
        values = [step(teachgrad.ones(1)).item() for _ in range(5)]
    assert values == [BUMPS - 4.0, BUMPS - 3.0, BUMPS - 2.0, BUMPS - 1.0, BUMPS]


def test_the_default_gelu_compiles():
    gelu = nn.GELU()
    step = assert_replays_or_warns(lambda x: gelu(x), [lambda: (teachgrad.linspace(-2, 2, 5),),
                                                       lambda: (teachgrad.linspace(-1, 3, 5),)])
    assert step.program is not None


def test_the_fallback_warning_names_the_users_line():
    def step(x):
        return x * random.random()
    with pytest.warns(UserWarning, match=r"random.*\(at test_compile_soundness\.py:\d+\)"):
        teachgrad.compile(step)(teachgrad.ones(1))
