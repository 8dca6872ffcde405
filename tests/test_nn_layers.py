"""Each layer against torch: default weights after manual_seed, outputs, gradients of the
input and of every parameter, node names down to the leaves, and repr."""
import numpy as np
import pytest

import teachgrad as tg
from nn_compare import arrays, assert_close, assert_same_graph, copy_state, pair

torch = pytest.importorskip("torch")

# (layer, constructor args, constructor kwargs, input shape)
LAYERS = [
    ("Linear", (3, 2), {}, (4, 3)),
    ("Linear", (3, 2), {}, (3,)),
    ("Linear", (3, 2), {}, (2, 4, 3)),
    ("Linear", (3, 2), {"bias": False}, (4, 3)),
    ("Linear", (3, 2), {"bias": False}, (3,)),
    ("Linear", (3, 2), {"bias": False}, (2, 4, 3)),
    ("Conv2d", (3, 4, 3), {}, (2, 3, 7, 6)),
    ("Conv2d", (3, 3), {"kernel_size": 2, "stride": 2}, (1, 3, 4, 4)),
    ("Conv2d", (2, 5, (3, 2)), {"stride": (2, 1), "padding": (1, 2), "dilation": (2, 1)},
     (2, 2, 9, 8)),
    ("Conv2d", (2, 3, 3), {"padding": 1, "bias": False}, (2, 2, 5, 5)),
    ("Conv2d", (2, 3, 3), {"stride": 3}, (2, 2, 8, 7)),
    ("Conv2d", (2, 3, 2), {}, (2, 5, 5)),
    ("Conv2d", (2, 3, 3), {"padding": "same", "dilation": 2}, (2, 2, 7, 6)),
    ("Conv2d", (2, 3, 3), {"padding": "valid"}, (2, 2, 5, 5)),
    ("MaxPool2d", (2,), {}, (2, 3, 6, 6)),
    ("MaxPool2d", (3,), {"stride": 1, "padding": 1}, (2, 3, 5, 5)),
    ("MaxPool2d", (2,), {"stride": 2, "dilation": 2}, (1, 2, 7, 7)),
    ("MaxPool2d", ((2, 3),), {"stride": (1, 2)}, (2, 5, 7)),
    ("AvgPool2d", (2,), {}, (2, 3, 6, 6)),
    ("AvgPool2d", (3,), {"stride": 2, "padding": 1}, (2, 3, 7, 7)),
    ("AvgPool2d", (3,), {"stride": 2, "padding": 1, "count_include_pad": False}, (2, 3, 7, 7)),
    ("AvgPool2d", (2,), {"divisor_override": 3}, (1, 2, 4, 4)),
    ("ReLU", (), {}, (3, 4)),
    ("LeakyReLU", (), {}, (3, 4)),
    ("LeakyReLU", (0.2,), {}, (2, 3, 4)),
    ("Sigmoid", (), {}, (3, 4)),
    ("Tanh", (), {}, (3, 4)),
    ("Softmax", (), {"dim": 1}, (3, 4)),
    ("Softmax", (), {"dim": -1}, (2, 3, 4)),
    ("LogSoftmax", (), {"dim": 1}, (3, 4)),
    ("Flatten", (), {}, (2, 3, 4, 5)),
    ("Flatten", (0, 1), {}, (2, 3, 4)),
    ("BatchNorm1d", (3,), {}, (5, 3)),
    ("BatchNorm1d", (3,), {"momentum": None}, (4, 3, 6)),
    ("BatchNorm1d", (3,), {"affine": False}, (5, 3)),
    ("BatchNorm2d", (3,), {}, (2, 3, 4, 5)),
    ("BatchNorm2d", (3,), {"track_running_stats": False}, (2, 3, 4, 5)),
    ("BatchNorm2d", (3,), {"eps": 1e-3, "momentum": 0.3}, (2, 3, 4, 5)),
]


def _both(name, args, kwargs, seed=0):
    torch.manual_seed(seed)
    theirs = getattr(torch.nn, name)(*args, **kwargs)
    ours = getattr(tg.nn, name)(*args, **kwargs)
    copy_state(ours, theirs)
    return ours, theirs


def _run(layer, theirs_layer, shape, seed=1, training=True):
    layer.train(training)
    theirs_layer.train(training)
    (x,) = arrays(seed, shape)
    ours_x, theirs_x = pair(x, torch, requires_grad=True)
    ours_out, theirs_out = layer(ours_x), theirs_layer(theirs_x)
    assert_close(ours_out, theirs_out)
    assert_same_graph(ours_out, theirs_out)
    (upstream,) = arrays(seed + 1, tuple(theirs_out.shape))
    ours_out.backward(tg.tensor(upstream))
    theirs_out.backward(torch.tensor(upstream))
    assert_close(ours_x.grad, theirs_x.grad, rtol=1e-4, atol=1e-5)
    for (name, ours_p), (_, theirs_p) in zip(layer.named_parameters(),
                                             theirs_layer.named_parameters()):
        assert_close(ours_p.grad, theirs_p.grad, rtol=1e-4, atol=1e-5)
    for (name, ours_b), (_, theirs_b) in zip(layer.named_buffers(), theirs_layer.named_buffers()):
        assert_close(ours_b, theirs_b)


@pytest.mark.parametrize("name, args, kwargs, shape", LAYERS,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(LAYERS)])
def test_layer_matches_torch(name, args, kwargs, shape):
    ours, theirs = _both(name, args, kwargs)
    assert repr(ours) == repr(theirs)
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert list(ours.state_dict()) == list(theirs.state_dict())
    _run(ours, theirs, shape)


@pytest.mark.parametrize("name, args, kwargs, shape",
                         [c for c in LAYERS if c[0].startswith("BatchNorm") and
                          c[2].get("track_running_stats", True)])
def test_batch_norm_eval_uses_running_statistics(name, args, kwargs, shape):
    ours, theirs = _both(name, args, kwargs)
    for seed in range(3):                        # a few training batches move the statistics
        _run(ours, theirs, shape, seed=10 + seed)
    assert ours.num_batches_tracked.item() == theirs.num_batches_tracked.item() == 3
    _run(ours, theirs, shape, seed=20, training=False)
    assert ours.num_batches_tracked.item() == 3


@pytest.mark.parametrize("name, args", [("Linear", (5, 3)), ("Conv2d", (3, 4, 3)),
                                        ("Conv2d", (2, 6, (2, 3))), ("Embedding", (10, 4)),
                                        ("Embedding", (10, 4, 0)), ("BatchNorm2d", (3,))])
def test_default_weights_match_torch_after_manual_seed(name, args):
    torch.manual_seed(7)
    theirs = getattr(torch.nn, name)(*args)
    after_torch = torch.rand(3)
    tg.manual_seed(7)
    ours = getattr(tg.nn, name)(*args)
    after_ours = tg.rand(3)
    for (key, value), (their_key, their_value) in zip(ours.state_dict().items(),
                                                      theirs.state_dict().items()):
        assert key == their_key
        np.testing.assert_array_equal(value.numpy(), their_value.numpy())
    np.testing.assert_array_equal(after_ours.numpy(), after_torch.numpy())
    for (_, p), (_, q) in zip(ours.named_parameters(), theirs.named_parameters()):
        assert p._version == q._version
        assert p.requires_grad and p.is_leaf


def test_embedding_matches_torch():
    ours, theirs = _both("Embedding", (6, 3), {"padding_idx": 2})
    indices = [[1, 2, 5], [2, 2, 0]]
    ours_out = ours(tg.tensor(indices))
    theirs_out = theirs(torch.tensor(indices))
    assert_close(ours_out, theirs_out)
    assert_same_graph(ours_out, theirs_out)
    (upstream,) = arrays(3, (2, 3, 3))
    ours_out.backward(tg.tensor(upstream))
    theirs_out.backward(torch.tensor(upstream))
    assert_close(ours.weight.grad, theirs.weight.grad)
    assert repr(ours) == repr(theirs)


@pytest.mark.parametrize("p", [0.0, 0.3, 0.5, 1.0])
def test_dropout_draws_the_same_mask_as_torch(p):
    (x,) = arrays(4, (6, 50))
    ours_x, theirs_x = pair(x, torch, requires_grad=True)
    torch.manual_seed(3)
    theirs_out = torch.nn.Dropout(p)(theirs_x)
    tg.manual_seed(3)
    ours_out = tg.nn.Dropout(p)(ours_x)
    assert_close(ours_out, theirs_out, rtol=0, atol=0)
    if p == 0:
        assert ours_out is ours_x
    else:
        assert_same_graph(ours_out, theirs_out)
    np.testing.assert_array_equal(tg.rand(4).numpy(), torch.rand(4).numpy())


def test_dropout_in_eval_mode_returns_its_input():
    layer = tg.nn.Dropout(0.5).eval()
    x = tg.ones(3, requires_grad=True)
    assert layer(x) is x
    assert repr(layer) == repr(torch.nn.Dropout(0.5))


def test_inplace_relu_on_conv_output_rebases_it_like_torch():
    ours, theirs = _both("Conv2d", (3, 3), {"kernel_size": 2, "stride": 2})
    (x,) = arrays(5, (1, 3, 4, 4))
    ours_conv, theirs_conv = ours(tg.tensor(x)), theirs(torch.tensor(x))
    ours_relu = tg.nn.ReLU(inplace=True)(ours_conv)
    theirs_relu = torch.nn.ReLU(inplace=True)(theirs_conv)
    assert ours_relu is ours_conv
    assert type(ours_conv.grad_fn).__name__ == type(theirs_conv.grad_fn).__name__ == "ReluBackward0"
    assert ours_conv._version == theirs_conv._version == 1
    assert_same_graph(ours_relu, theirs_relu)


@pytest.mark.parametrize("slope", [0.01, 0.3])
def test_inplace_leaky_relu(slope):
    (x,) = arrays(6, (3, 4))
    ours_x, theirs_x = pair(x, torch, requires_grad=True)
    ours_out = tg.nn.LeakyReLU(slope, inplace=True)(ours_x * 1)
    theirs_out = torch.nn.LeakyReLU(slope, inplace=True)(theirs_x * 1)
    assert_close(ours_out, theirs_out)
    assert_same_graph(ours_out, theirs_out)
    ours_out.sum().backward()
    theirs_out.sum().backward()
    assert_close(ours_x.grad, theirs_x.grad)


def test_identity_returns_the_same_tensor():
    x = tg.ones(2)
    assert tg.nn.Identity(3, unused=True)(x) is x


def test_conv_weight_and_pool_gradients_survive_create_graph():
    """backward is written with teachgrad operations, so it can be differentiated again."""
    ours, theirs = _both("Conv2d", (2, 2, 3), {"padding": 1})
    (x,) = arrays(8, (1, 2, 6, 6))
    results = []
    for lib, layer in ((tg, ours), (torch, theirs)):
        x_t = lib.tensor(x, requires_grad=True)
        out = lib.nn.functional.max_pool2d(lib.tanh(layer(x_t)), 2)
        (grad_x,) = lib.autograd.grad(out.pow(2).sum(), x_t, create_graph=True)
        grad_x.pow(2).sum().backward()
        results.append((grad_x, x_t.grad, layer.weight.grad))
    for o, t in zip(*results):
        assert_close(o, t, rtol=1e-4, atol=1e-5)


def test_batch_norm_double_backward():
    ours, theirs = _both("BatchNorm1d", (3,), {})
    (x,) = arrays(9, (6, 3))
    results = []
    for lib, layer in ((tg, ours), (torch, theirs)):
        x_t = lib.tensor(x, requires_grad=True)
        out = layer(x_t)
        (grad_x,) = lib.autograd.grad((out ** 3).sum(), x_t, create_graph=True)
        grad_x.sum().backward()
        results.append((grad_x, x_t.grad, layer.weight.grad))
    for o, t in zip(*results):
        assert_close(o, t, rtol=1e-3, atol=1e-4)


def test_sequential_and_module_list_repr_indexing_and_slicing():
    torch.manual_seed(0)
    theirs = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU(),
                                 torch.nn.Sequential(torch.nn.Linear(3, 1)))
    ours = tg.nn.Sequential(tg.nn.Linear(2, 3), tg.nn.ReLU(), tg.nn.Sequential(tg.nn.Linear(3, 1)))
    assert repr(ours) == repr(theirs)
    assert repr(ours[1:]) == repr(theirs[1:])
    assert list(ours[1:]._modules) == ["1", "2"]
    assert repr(ours[-1]) == repr(theirs[-1])
    assert len(ours) == 3
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert [n for n, _ in ours.named_modules()] == [n for n, _ in theirs.named_modules()]
    listed = [tg.nn.Linear(2, 2), tg.nn.Linear(2, 2), tg.nn.ReLU()]
    their_list = [torch.nn.Linear(2, 2), torch.nn.Linear(2, 2), torch.nn.ReLU()]
    assert repr(tg.nn.ModuleList(listed)) == repr(torch.nn.ModuleList(their_list))
    assert repr(tg.nn.ModuleList()) == repr(torch.nn.ModuleList())
    assert repr(tg.nn.ModuleList(listed)[1:]) == repr(torch.nn.ModuleList(their_list)[1:])
    with pytest.raises(IndexError, match="index 5 is out of range"):
        ours[5]
    copy_state(ours, theirs)
    (x,) = arrays(1, (4, 2))
    assert_close(ours(tg.tensor(x)), theirs(torch.tensor(x)))
