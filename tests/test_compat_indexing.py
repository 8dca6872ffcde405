"""Advanced indexing with a ``range`` or a Python list, as tutorials write it
(``logits[range(n), y]``), against PyTorch 2.13 (issue 20)."""
import numpy as np
import pytest

import teachgrad
from test_compat_devices import assert_same

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("key", [
    lambda t: (range(3), t.tensor([0, 3, 1])), lambda t: (range(3), [0, 3, 1]),
    lambda t: range(1, 3), lambda t: (slice(None), range(2)), lambda t: (0, range(2)),
    lambda t: [2, 0], lambda t: ([0, 2], [1, 3]), lambda t: (range(2), 1),
    lambda t: (range(0),), lambda t: (range(2), [0, 1, 2]),
])
def test_index_with_range_or_list(key):
    def program(t):
        x = t.arange(12.0).reshape(3, 4).requires_grad_()
        picked = x[key(t)]
        picked.sum().backward()
        return picked, picked.grad_fn.name(), picked.grad_fn._saved_indices, x.grad
    assert_same(program)


def test_negative_log_likelihood_written_with_range():
    def loss_and_grad(t):
        t.manual_seed(0)
        logits = t.randn(5, 3, requires_grad=True)
        target = t.tensor([0, 2, 1, 1, 0])
        probs = logits.softmax(dim=1)
        loss = -probs[range(5), target].log().mean()
        loss.backward()
        return loss.item(), logits.grad.numpy()
    (loss_tg, grad_tg), (loss_torch, grad_torch) = loss_and_grad(teachgrad), loss_and_grad(torch)
    assert loss_tg == pytest.approx(loss_torch, rel=1e-6)
    np.testing.assert_allclose(grad_tg, grad_torch, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("key", [lambda t: (range(2), [1, 2]), lambda t: range(1, 3),
                                 lambda t: [0, 2]])
def test_assign_with_range_or_list(key):
    def program(t):
        x = t.arange(12.0).reshape(3, 4).requires_grad_()
        y = x * 1
        y[key(t)] = -1.0
        y.sum().backward()
        return y, y.grad_fn.name(), x.grad
    assert_same(program)
