"""nn.utils.clip_grad_norm_ and clip_grad_value_ against torch, and nn.init."""
import math

import numpy as np
import pytest

import teachgrad as tg
from nn_compare import arrays, assert_close

torch = pytest.importorskip("torch")


def _parameters_with_grads(lib, seed=0, scale=1.0):
    values = arrays(seed, (3, 4), (4,), (2, 2))
    grads = arrays(seed + 1, (3, 4), (4,), (2, 2))
    params = []
    for value, grad in zip(values, grads):
        p = lib.tensor(value, requires_grad=True)
        p.grad = lib.tensor(grad * scale)
        params.append(p)
    return params


@pytest.mark.parametrize("max_norm, norm_type", [(0.5, 2.0), (100.0, 2.0), (1.0, 1.0),
                                                 (0.3, math.inf), (2.0, 3)])
def test_clip_grad_norm_matches_torch(max_norm, norm_type):
    ours, theirs = _parameters_with_grads(tg), _parameters_with_grads(torch)
    our_norm = tg.nn.utils.clip_grad_norm_(ours, max_norm, norm_type)
    their_norm = torch.nn.utils.clip_grad_norm_(theirs, max_norm, norm_type)
    assert_close(our_norm, their_norm)
    for p, q in zip(ours, theirs):
        assert_close(p.grad, q.grad)
        assert p.grad._version == q.grad._version


def test_clip_grad_norm_edge_cases():
    assert tg.nn.utils.clip_grad_norm_([tg.zeros(2, requires_grad=True)], 1.0).item() == 0.0
    single = tg.ones(4, requires_grad=True)
    single.grad = tg.full((4,), 3.0)
    assert tg.nn.utils.clip_grad_norm_(single, 1.0).item() == pytest.approx(6.0)
    assert np.linalg.norm(single.grad.numpy()) == pytest.approx(1.0, rel=1e-5)
    infinite = tg.ones(1, requires_grad=True)
    infinite.grad = tg.tensor([float("inf")])
    with pytest.raises(RuntimeError, match="The total norm of order 2.0 for gradients"):
        tg.nn.utils.clip_grad_norm_([infinite], 1.0, error_if_nonfinite=True)


def test_clip_grad_value_matches_torch():
    ours, theirs = _parameters_with_grads(tg), _parameters_with_grads(torch)
    assert tg.nn.utils.clip_grad_value_(ours, 0.4) is None
    torch.nn.utils.clip_grad_value_(theirs, 0.4)
    for p, q in zip(ours, theirs):
        assert_close(p.grad, q.grad)


INIT_CALLS = [
    ("uniform_", (-0.5, 2.0), {}), ("normal_", (1.0, 0.3), {}), ("constant_", (0.7,), {}),
    ("zeros_", (), {}), ("ones_", (), {}), ("xavier_uniform_", (), {}),
    ("xavier_normal_", (), {"gain": 2.0}), ("kaiming_uniform_", (), {"a": math.sqrt(5)}),
    ("kaiming_uniform_", (), {"mode": "fan_out", "nonlinearity": "relu"}),
    ("kaiming_normal_", (), {}), ("kaiming_normal_", (), {"nonlinearity": "tanh"}),
]


@pytest.mark.parametrize("name, args, kwargs", INIT_CALLS)
@pytest.mark.parametrize("shape", [(5, 3), (4, 3, 2, 2), (40, 7)])
def test_init_functions_draw_like_torch(name, args, kwargs, shape):
    torch.manual_seed(11)
    theirs = torch.nn.Parameter(torch.empty(shape))
    their_result = getattr(torch.nn.init, name)(theirs, *args, **kwargs)
    tg.manual_seed(11)
    ours = tg.nn.Parameter(tg.empty(shape))
    our_result = getattr(tg.nn.init, name)(ours, *args, **kwargs)
    assert our_result is ours and their_result is theirs
    np.testing.assert_array_equal(ours.detach().numpy(), theirs.detach().numpy())
    assert ours.requires_grad and ours.grad_fn is None
    for nonlinearity in ("linear", "tanh", "relu", "leaky_relu", "selu"):
        assert tg.nn.init.calculate_gain(nonlinearity) == torch.nn.init.calculate_gain(
            nonlinearity)
