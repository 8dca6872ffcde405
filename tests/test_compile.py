"""teachgrad.compile replays the benchmark models' training steps bit for bit, and leaves
exactly the state an eager step leaves: parameters, .grad, versions, optimiser state, loss."""
import tracemalloc

import numpy as np
import pytest

import teachgrad
from benchmarks import chain, cnn, mlp

STEPS = 100


def same_bits(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def assert_same_state(eager_model, compiled_model):
    for p, q in zip(eager_model.parameters(), compiled_model.parameters()):
        assert same_bits(p.detach().numpy(), q.detach().numpy())
        assert same_bits(p.grad.numpy(), q.grad.numpy())
        assert p._version == q._version


def twin_steps(module, **sizes):
    """The same model and step twice, from the same weights: one eager, one compiled."""
    params, x, y = module.make_data(**sizes.pop("data", {}))
    eager_model, eager_step = module.framework_step(teachgrad, params, x, y, **sizes)
    model, step = module.framework_step(teachgrad, params, x, y, **sizes)
    return eager_model, eager_step, model, teachgrad.compile(step)


def training_step(model, optimizer, x):
    """zero_grad, the mean square of the model's output, backward, the optimiser's step."""
    def step():
        optimizer.zero_grad()
        loss = model(x).pow(2).mean()
        loss.backward()
        optimizer.step()
        return loss
    return step


@pytest.mark.parametrize("module", [mlp, cnn], ids=["mlp", "cnn"])
def test_benchmark_model_bit_for_bit_over_100_steps(module):
    eager_model, eager_step, model, step = twin_steps(module)
    for _ in range(STEPS):
        eager_loss, loss = eager_step(), step()
        assert same_bits(eager_loss.detach().numpy(), loss.detach().numpy())
        assert_same_state(eager_model, model)
    assert step.fallback_reason is None
    assert step.traces == 2         # the first call made the .grad fields: traced once more


def test_replaced_grads_are_let_go_before_the_new_ones_are_made():
    """As the eager step's zero_grad() does, the replay releases the .grad tensors it
    replaces before making the new ones: a step's memory does not hold both sets."""
    model, step = mlp.framework_step(teachgrad, *mlp.make_data())
    compiled = teachgrad.compile(step)
    for _ in range(4):
        compiled()
    grad_bytes = sum(p.grad.numpy().nbytes for p in model.parameters())
    tracemalloc.start()
    try:
        compiled()                        # (the grads it replaces were made while traced)
        tracemalloc.reset_peak()
        start, _ = tracemalloc.get_traced_memory()
        compiled()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak - start < grad_bytes / 4


def test_batch_norm_buffers_end_as_eager_leaves_them():
    """Buffers are state as parameters are: their values and version counters too."""
    def make():
        teachgrad.manual_seed(0)
        model = teachgrad.nn.Sequential(teachgrad.nn.Linear(3, 4), teachgrad.nn.BatchNorm1d(4),
                                        teachgrad.nn.ReLU(), teachgrad.nn.Linear(4, 2))
        optimizer, x = teachgrad.optim.SGD(model.parameters(), lr=0.1), teachgrad.randn(8, 3)
        return model, training_step(model, optimizer, x)
    (eager_model, eager_step), (model, step) = make(), make()
    step = teachgrad.compile(step)
    for _ in range(6):
        assert same_bits(eager_step().detach().numpy(), step().detach().numpy())
    assert step.fallback_reason is None and step.program is not None
    for name in ("running_mean", "running_var", "num_batches_tracked"):
        ours, eager = getattr(model[1], name), getattr(eager_model[1], name)
        assert same_bits(ours.numpy(), eager.numpy()) and ours._version == eager._version


def closure(fn):
    return {name: cell.cell_contents for name, cell in zip(fn.__code__.co_freevars,
                                                           fn.__closure__)}


def test_scalar_chain_bit_for_bit_over_100_steps():
    eager = chain.chain_step(teachgrad, steps=50)
    compiled = teachgrad.compile(chain.chain_step(teachgrad, steps=50))
    for _ in range(STEPS):
        assert same_bits(eager().detach().numpy(), compiled().detach().numpy())
        for name in ("w", "x"):
            assert same_bits(closure(eager)[name].grad.numpy(),
                             closure(compiled.fn)[name].grad.numpy())
    assert compiled.fallback_reason is None


def test_replay_makes_no_graph_and_fresh_grad_tensors():
    eager_model, eager_step, model, step = twin_steps(mlp, sizes=(6, 5, 3),
                                                      data=dict(sizes=(6, 5, 3), batch=4))
    step(), step()
    first = [p.grad for p in model.parameters()]
    loss = step()
    assert loss.grad_fn is None and not loss.requires_grad
    assert all(p.grad is not g for p, g in zip(model.parameters(), first))   # as eager: new tensors
    assert all(p.grad.grad_fn is None and not p.grad.requires_grad for p in model.parameters())


def test_momentum_state_is_left_as_eager_leaves_it():
    def make():
        teachgrad.manual_seed(0)
        model = teachgrad.nn.Linear(4, 3)
        optimizer = teachgrad.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        x = teachgrad.randn(8, 4)
        return model, optimizer, training_step(model, optimizer, x)
    eager_model, eager_optimizer, eager_step = make()
    model, optimizer, step = make()
    step = teachgrad.compile(step)
    for _ in range(6):
        assert same_bits(eager_step().detach().numpy(), step().detach().numpy())
    assert_same_state(eager_model, model)
    for p, q in zip(eager_model.parameters(), model.parameters()):
        assert same_bits(eager_optimizer.state[p]["momentum_buffer"].numpy(),
                         optimizer.state[q]["momentum_buffer"].numpy())
    assert step.traces == 2          # the first step made the momentum buffers


def test_numpy_arguments_are_inputs():
    w = teachgrad.zeros(3, requires_grad=True)

    def step(batch):
        w.grad = None
        loss = (teachgrad.from_numpy(batch) * w).sum()
        loss.backward()
        return loss
    step = teachgrad.compile(step)
    rng = np.random.default_rng(0)
    for _ in range(3):
        batch = rng.standard_normal(3).astype(np.float32)
        step(batch)
        assert same_bits(w.grad.numpy(), batch)
    assert step.traces == 2


def test_compile_as_a_decorator_with_or_without_parentheses():
    w = teachgrad.ones(2, requires_grad=True)

    @teachgrad.compile
    def plain():
        return (w * 3).sum().detach()

    @teachgrad.compile()
    def called():
        return (w * 4).sum().detach()
    for _ in range(3):
        assert plain().item() == 6.0 and called().item() == 8.0
    assert plain.program is not None and called.program is not None
