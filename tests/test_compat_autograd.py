"""Autograd entry points of PyTorch 2.13 that tutorials use (issue 20), against torch."""
import warnings

import numpy as np
import pytest

import teachgrad
from test_compat_devices import assert_same

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("program", [
    lambda t: t.autograd.Variable(t.ones(2)),
    lambda t: t.autograd.Variable(t.ones(2), requires_grad=True),
    lambda t: t.autograd.Variable(t.ones(2, requires_grad=True) * 2).grad_fn,
    lambda t: t.autograd.Variable(t.ones(2, requires_grad=True) * 2, requires_grad=True).is_leaf,
    lambda t: t.autograd.Variable(),
    lambda t: t.autograd.Variable([1, 2]),
    lambda t: t.autograd.Variable(t.arange(2), requires_grad=True),
    lambda t: isinstance(t.ones(2), t.autograd.Variable),
    lambda t: isinstance(3.0, t.autograd.Variable),
])
def test_variable(program):
    assert_same(program)


def test_variable_shares_memory_and_version_but_not_the_graph():
    for t in (torch, teachgrad):
        x = t.ones(2)
        v = t.autograd.Variable(x, requires_grad=True)
        assert v is not x and v.is_leaf and v.requires_grad and not x.requires_grad
        x[0] = 5.0
        assert v[0].item() == 5.0 and v._version == x._version == 1


def test_variable_volatile_warns_as_torch():
    messages = []
    for t in (torch, teachgrad):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            t.autograd.Variable(t.ones(1), volatile=True)
        messages.append([str(w.message) for w in caught])
    assert messages[0] == messages[1] and messages[0]


def test_variable_training_step_as_old_tutorials():
    def step(t):
        t.manual_seed(0)
        w = t.autograd.Variable(t.randn(3, 2), requires_grad=True)
        x = t.autograd.Variable(t.randn(4, 3))
        loss = (x.mm(w).clamp(min=0) ** 2).sum()
        loss.backward()
        return w.grad.numpy()
    np.testing.assert_allclose(step(teachgrad), step(torch), rtol=1e-6)
