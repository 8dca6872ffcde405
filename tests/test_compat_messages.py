"""Messages, reprs and small entry points that copied programs meet (issue 30), compared
with torch 2.13: ``loss.data[0]`` on a 0-dim tensor, ``type(x)``, ``set_grad_enabled``'s
repr, the warning of ``float(x)`` on a tensor that requires grad, a whole model saved and
loaded under ``safe_globals``, ``autograd.grad(..., only_inputs=...)`` and
``LSTM.flatten_parameters()``."""
import io
import subprocess
import sys

import pytest

import program_compare
import teachgrad
from program_compare import outcome

torch = pytest.importorskip("torch")


def run_both(program):
    return program_compare.run_both(program, torch, teachgrad)


@pytest.mark.parametrize("index", [0, -1, 2, slice(0, 1), (0,), (None, 0), True])
def test_indexing_a_zero_dim_tensor(index):
    def program(t):
        loss = t.tensor(2.0, requires_grad=True) * 3
        def write():
            loss.data[index] = 1.0
        return outcome(lambda: loss.data[index].tolist()), outcome(lambda: loss[index].tolist()), \
            outcome(write)
    run_both(program)


def test_old_tutorials_loss_data_zero_gets_torchs_advice():
    with pytest.raises(IndexError, match=r"^invalid index of a 0-dim tensor. Use `tensor.item\(\)`"):
        (teachgrad.ones(2, requires_grad=True).sum()).data[0]


def test_type_names():
    def program(t):
        x = t.ones(2)
        return (repr(type(x)).replace("teachgrad", "torch"), type(x).__name__,
                repr(type(t.nn.Parameter(x))).replace("teachgrad", "torch"),
                isinstance(t.nn.Parameter(x), t.Tensor))
    assert run_both(program)[0] == "<class 'torch.Tensor'>"


def test_set_grad_enabled_repr():
    def program(t):
        switch = t.set_grad_enabled(False)
        shown = repr(switch).replace("teachgrad", "torch"), str(switch).replace("teachgrad",
                                                                               "torch")
        t.set_grad_enabled(True)
        with t.set_grad_enabled(False) as inside:
            mode = t.is_grad_enabled()
        return shown, inside, mode, t.is_grad_enabled()
    assert run_both(program)[0][0] == "torch.autograd.grad_mode.set_grad_enabled(mode=False)"


SCALAR_PROGRAM = """
import warnings, {lib} as t
warnings.simplefilter("always")
x = t.tensor([2.0], requires_grad=True)
for convert in (int, lambda v: v.item(), bool, float, float, lambda v: float(v * 2)):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        convert(x)
    print([(w.category.__name__, str(w.message).split(" (Triggered")[0]) for w in caught])
print(float(t.tensor(1.5)), float(x.detach()))
"""


def test_float_of_a_tensor_that_requires_grad_warns_once_a_process():
    printed = [subprocess.run([sys.executable, "-c", SCALAR_PROGRAM.format(lib=lib)],
                              capture_output=True, text=True, check=True).stdout
               for lib in ("torch", "teachgrad")]
    assert printed[1] == printed[0]
    assert printed[0].count("Converting a tensor with requires_grad=True to a scalar") == 1


def whole_model_program(t):
    class TwoLayers(t.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = t.nn.Linear(2, 3)
            self.act = t.nn.ReLU()
            self.register_buffer("steps", t.zeros(1), persistent=False)

        def forward(self, x):
            return self.act(self.fc(x))
    TwoLayers.__qualname__ = "TwoLayers"
    globals()["TwoLayers"] = TwoLayers          # pickle finds the class by its module's name
    t.manual_seed(0)
    buffer = io.BytesIO()
    t.save(TwoLayers(), buffer)
    buffer.seek(0)
    refused = outcome(lambda: t.load(buffer))
    buffer.seek(0)
    with t.serialization.safe_globals([TwoLayers, t.nn.Linear, t.nn.ReLU]):
        loaded = t.load(buffer)
    output = loaded(t.ones(1, 2))
    calls = []
    loaded.register_forward_hook(lambda module, args, out: calls.append(tuple(out.shape)))
    loaded.fc = t.nn.Linear(2, 3)
    loaded(t.ones(4, 2))
    return (refused[0], refused[1].split("WeightsUnpickler error: ")[-1].split(".")[0],
            repr(loaded), output.tolist(), list(loaded.state_dict()), loaded.steps.tolist(),
            [name for name, _ in loaded.named_children()], calls)


def test_a_whole_model_loads_under_safe_globals():
    record = run_both(whole_model_program)
    assert record[0] == "UnpicklingError" and record[6] == ["fc", "act"]


@pytest.mark.parametrize("only_inputs", [True, False])
def test_grad_accepts_only_inputs_as_wgan_gp_writes_it(only_inputs):
    def program(t):
        t.manual_seed(0)
        critic = t.nn.Linear(3, 1)
        real, fake = t.randn(4, 3), t.randn(4, 3)
        alpha = t.rand(4, 1)
        mixed = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
        scores = critic(mixed)
        gradients = t.autograd.grad(outputs=scores, inputs=mixed,
                                    grad_outputs=t.ones(scores.size()), create_graph=True,
                                    retain_graph=True, only_inputs=only_inputs)[0]
        penalty = ((gradients.norm(2, dim=1) - 1) ** 2).mean()
        penalty.backward()
        return penalty.item(), critic.weight.grad.tolist(), mixed.grad
    run_both(program)


def test_lstm_flatten_parameters_does_nothing_on_the_cpu():
    def program(t):
        t.manual_seed(0)
        lstm = t.nn.LSTM(3, 4, num_layers=2)
        before = [p.clone() for p in lstm.parameters()]
        result = lstm.flatten_parameters()
        return result, all(bool((a == b).all()) for a, b in zip(before, lstm.parameters()))
    assert run_both(program) == (None, True)


def test_slice_bounds_may_be_one_element_int_tensors():
    def program(t):
        data = t.arange(10.0)
        i = t.tensor(3)
        return (data[i:i + 4].tolist(), data[i:t.tensor(9):t.tensor(2)].tolist(),
                outcome(lambda: data[t.tensor(1.5):3]), outcome(lambda: data[t.tensor([1, 2]):3]),
                data[t.tensor([1]):3].tolist())
    assert run_both(program)[0] == [3.0, 4.0, 5.0, 6.0]
