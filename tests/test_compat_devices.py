"""Devices and legacy tensor types as PyTorch 2.13 without CUDA has them (issue 20).

Each test runs the same small program on torch and on teachgrad and compares the
outcome: the printed result, or the exception's type and first words.
"""
import pytest

import teachgrad

torch = pytest.importorskip("torch")


def outcome(program, package):
    """What ``program(package)`` gives: ("ok", its repr) or (error type, first words)."""
    try:
        result = program(package)
    except Exception as error:  # noqa: BLE001 - the error is what we compare
        return type(error).__name__, str(error).split("\n")[0][:70]
    return "ok", repr(result).replace("torch.", "").replace("teachgrad.", "")


def assert_same(program):
    expected = outcome(program, torch)
    assert outcome(program, teachgrad) == expected


@pytest.mark.parametrize("program", [
    lambda t: t.device("cpu"),
    lambda t: t.device("cpu", 0),
    lambda t: t.device("cuda:1"),
    lambda t: str(t.device("cuda:1")),
    lambda t: (t.device("cpu").type, t.device("cpu").index),
    lambda t: t.device("cpu") == t.device("cpu"),
    lambda t: t.device("cpu:0") == t.device("cpu"),
    lambda t: t.device("cpu") == "cpu",
    lambda t: {t.device("cpu"): 1}[t.device("cpu")],
    lambda t: t.device(t.device("cpu")),
    lambda t: t.device("gpu"),
    lambda t: t.device("cpu:x"),
    lambda t: t.device(0),
])
def test_device_objects(program):
    assert_same(program)


@pytest.mark.parametrize("make", [
    lambda t, d: t.zeros(2, 3, device=d), lambda t, d: t.ones(2, device=d),
    lambda t, d: t.empty(2, device=d).shape, lambda t, d: t.full((2,), 1.5, device=d),
    lambda t, d: t.tensor([1.0, 2.0], device=d), lambda t, d: t.arange(3, device=d),
    lambda t, d: t.linspace(0, 1, 3, device=d), lambda t, d: t.eye(2, device=d),
    lambda t, d: t.randn(2, device=d).shape, lambda t, d: t.rand(2, device=d).shape,
    lambda t, d: t.randint(0, 5, (2,), device=d).shape, lambda t, d: t.randperm(3, device=d).shape,
    lambda t, d: t.zeros_like(t.ones(2), device=d), lambda t, d: t.ones(2).new_zeros(3, device=d),
    lambda t, d: t.as_tensor([1, 2], device=d), lambda t, d: t.nn.Linear(2, 2, device=d).weight.shape,
    lambda t, d: t.nn.LSTM(2, 2, device=d).weight_ih_l0.shape,
    lambda t, d: t.Tensor([1.0], device=d), lambda t, d: t.FloatTensor([1.0], device=d),
])
@pytest.mark.parametrize("device", ["cpu", "cpu:0", "cuda", "cuda:0", "xpu"])
def test_device_arguments(make, device):
    assert_same(lambda t: make(t, device))
    assert_same(lambda t: make(t, t.device(device)))


def test_device_attribute_is_a_device_object():
    assert_same(lambda t: t.ones(2).device)
    assert_same(lambda t: t.ones(2, requires_grad=True).exp().device)
    assert_same(lambda t: t.zeros(2, device="cpu").device == t.device("cpu"))
    assert_same(lambda t: t.ones(2).is_cuda)


@pytest.mark.parametrize("move", [
    lambda t: t.ones(2).to(t.device("cpu")), lambda t: t.ones(2).to("cpu"),
    lambda t: t.ones(2).to("cpu", t.float64), lambda t: t.ones(2).to(device="cpu", dtype=t.float64),
    lambda t: t.ones(2).to("cpu", non_blocking=True), lambda t: t.ones(2).to("cuda"),
    lambda t: t.ones(2).to(t.device("cuda", 0)), lambda t: t.ones(2).to("mps"),
    lambda t: t.ones(2).to("gpu"), lambda t: t.ones(2).cuda(), lambda t: t.ones(2).cpu(),
    lambda t: t.ones(2).to(t.ones(1, dtype=t.float64)),
    lambda t: t.nn.Linear(2, 2).to(t.device("cpu")), lambda t: t.nn.Linear(2, 2).to("cuda"),
    lambda t: t.nn.Linear(2, 2).cuda(), lambda t: t.nn.Linear(2, 2).to("cpu", t.float64).weight.dtype,
])
def test_to_device(move):
    assert_same(move)


def test_to_cpu_returns_the_same_tensor():
    x = teachgrad.ones(2)
    assert x.to("cpu") is x and x.to(teachgrad.device("cpu")) is x


@pytest.mark.parametrize("program", [
    lambda t: t.cuda.is_available(), lambda t: t.cuda.device_count(),
    lambda t: t.cuda.manual_seed(0), lambda t: t.cuda.manual_seed_all(0),
    lambda t: t.cuda.empty_cache(), lambda t: t.cuda.current_device(),
    lambda t: t.cuda.synchronize(), lambda t: t.cuda.get_device_name(),
    lambda t: t.backends.mps.is_available(), lambda t: t.backends.mps.is_built(),
    lambda t: t.backends.cudnn.is_available(),
    lambda t: (t.backends.cudnn.deterministic, t.backends.cudnn.benchmark),
    lambda t: t.device("cuda" if t.cuda.is_available() else "cpu"),
    lambda t: t.get_default_device(),
    lambda t: t.accelerator.is_available(), lambda t: t.accelerator.device_count(),
    lambda t: t.accelerator.current_accelerator(),
    lambda t: t.accelerator.current_accelerator().type if t.accelerator.is_available() else "cpu",
    lambda t: t.accelerator.current_device_index(), lambda t: t.accelerator.synchronize(),
])
def test_accelerator_queries(program):
    assert_same(program)


@pytest.mark.parametrize("default", ["cpu", "cuda", None])
def test_set_default_device(default):
    def program(t):
        t.set_default_device(default)
        try:
            return t.get_default_device(), t.zeros(2), t.zeros_like(t.tensor([1.0]))
        finally:
            t.set_default_device(None)
    assert_same(program)


@pytest.mark.parametrize("program", [
    lambda t: t.FloatTensor([1, 2]), lambda t: t.FloatTensor(2, 3).shape,
    lambda t: t.LongTensor([1.7, 2.2]), lambda t: t.DoubleTensor([[1, 2]]),
    lambda t: t.IntTensor([3]), lambda t: t.ByteTensor([1]), lambda t: t.BoolTensor([1, 0]),
    lambda t: t.HalfTensor([1]), lambda t: t.FloatTensor(), lambda t: t.LongTensor(t.Size([2])).shape,
    lambda t: t.FloatTensor(t.ones(2)), lambda t: t.FloatTensor(t.ones(2, dtype=t.float64)),
    lambda t: t.FloatTensor([1.0]).requires_grad, lambda t: t.Tensor(2, 3).shape,
    lambda t: t.Tensor([1, 2]), lambda t: t.Tensor(),
    lambda t: isinstance(t.ones(2), t.FloatTensor), lambda t: isinstance(t.ones(2), t.LongTensor),
    lambda t: isinstance(t.arange(2), t.LongTensor), lambda t: isinstance(3, t.FloatTensor),
    lambda t: isinstance(t.ones(2), t.Tensor), lambda t: issubclass(t.FloatTensor, t.Tensor),
    lambda t: t.FloatTensor, lambda t: t.FloatTensor.dtype, lambda t: t.LongTensor.__name__,
    lambda t: t.ones(2).type(), lambda t: t.arange(2).type(), lambda t: t.ones(2).type(t.LongTensor),
    lambda t: t.ones(2).type(t.float64), lambda t: t.ones(2).type("torch.DoubleTensor"),
    lambda t: t.ones(2).type("float"),
])
def test_legacy_tensor_types(program):
    assert_same(program)
