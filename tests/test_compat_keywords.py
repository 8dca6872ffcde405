"""Keyword spellings PyTorch 2.13 accepts (issue 20): numpy's ``axis``/``keepdims``,
``size=`` for the creation functions, and the losses' deprecated ``size_average`` and
``reduce`` with PyTorch's warning. Each is compared with torch."""
import warnings

import pytest

import teachgrad
from test_compat_devices import assert_same

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("program", [
    lambda t: t.arange(6.0).reshape(2, 3).sum(1, keepdims=True),
    lambda t: t.arange(6.0).reshape(2, 3).sum(axis=0),
    lambda t: t.sum(t.arange(6.0).reshape(2, 3), axis=1, keepdims=True),
    lambda t: t.arange(6.0).reshape(2, 3).mean(dim=1, keepdims=True),
    lambda t: t.mean(t.arange(6.0).reshape(2, 3), axis=0),
    lambda t: t.arange(6.0).reshape(2, 3).max(axis=1, keepdims=True).values,
    lambda t: t.arange(6.0).reshape(2, 3).argmax(axis=1),
    lambda t: t.arange(6.0).reshape(2, 3).std(axis=1, keepdims=True),
    lambda t: t.arange(6.0).reshape(2, 3).logsumexp(axis=1),
    lambda t: t.amax(t.arange(6.0).reshape(2, 3), axis=0, keepdims=True),
])
def test_numpy_names_for_dim_and_keepdim(program):
    assert_same(program)


def test_keepdims_keeps_the_gradient_graph():
    for t in (torch, teachgrad):
        x = t.ones(2, 3, requires_grad=True)
        x.sum(1, keepdims=True).sum().backward()
        assert x.grad.tolist() == [[1.0] * 3] * 2


@pytest.mark.parametrize("program", [
    lambda t: t.zeros(size=(2, 3)), lambda t: t.ones(size=[2]), lambda t: t.empty(size=(2,)).shape,
    lambda t: t.randn(size=(2, 3)).shape, lambda t: t.rand(size=(4,)).shape,
    lambda t: t.randint(0, 3, size=(2,)).shape,
])
def test_size_keyword(program):
    assert_same(program)


def test_randn_size_draws_the_same_numbers():
    def draw(t):
        t.manual_seed(3)
        return t.randn(size=(2, 3)).tolist()
    assert draw(teachgrad) == draw(torch)


def _loss_and_warnings(t, make_loss):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        loss = make_loss(t)
    x = t.tensor([[0.2, 0.9], [0.7, 0.1]])
    y = t.tensor([[0.0, 1.0], [1.0, 0.0]])
    values = loss(x, y).tolist()
    return loss.reduction, [round(v, 6) for v in _flat(values)], [str(w.message) for w in caught]


def _flat(values):
    return values if isinstance(values, list) and not isinstance(values[0], list) else \
        [v for row in values for v in row] if isinstance(values, list) else [values]


@pytest.mark.parametrize("make_loss", [
    lambda t: t.nn.MSELoss(size_average=False), lambda t: t.nn.MSELoss(reduce=False),
    lambda t: t.nn.MSELoss(size_average=True, reduce=True), lambda t: t.nn.MSELoss(False),
    lambda t: t.nn.MSELoss(reduction="sum"), lambda t: t.nn.L1Loss(size_average=False),
    lambda t: t.nn.BCELoss(size_average=False), lambda t: t.nn.BCELoss(None, None, False),
    lambda t: t.nn.BCEWithLogitsLoss(reduce=False), lambda t: t.nn.SmoothL1Loss(reduce=False),
    lambda t: t.nn.KLDivLoss(size_average=False), lambda t: t.nn.HuberLoss("sum"),
])
def test_deprecated_loss_flags(make_loss):
    assert _loss_and_warnings(teachgrad, make_loss) == _loss_and_warnings(torch, make_loss)


@pytest.mark.parametrize("make_loss", [
    lambda t: t.nn.CrossEntropyLoss(size_average=False),
    lambda t: t.nn.NLLLoss(reduce=False), lambda t: t.nn.CrossEntropyLoss(None, None, -100, False),
])
def test_deprecated_flags_of_class_losses(make_loss):
    def run(t):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            loss = make_loss(t)
        scores = t.tensor([[0.2, 0.9, -0.3], [0.7, 0.1, 0.0]])
        value = loss(t.log_softmax(scores, 1), t.tensor([1, 2]))
        return loss.reduction, [round(v, 5) for v in value.reshape(-1).tolist()], \
            [str(w.message) for w in caught]
    assert run(teachgrad) == run(torch)
