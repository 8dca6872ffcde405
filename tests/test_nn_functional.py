"""nn.functional and the loss modules against torch: values, gradients (of the input and,
where torch has one, of the target), node names, for every reduction."""
import warnings

import numpy as np
import pytest

import teachgrad as tg
from nn_compare import arrays, assert_close, assert_same_graph, pair

torch = pytest.importorskip("torch")

REDUCTIONS = ["mean", "sum", "none"]


def _compare(call, inputs, grad_inputs=(0,), rtol=1e-5, atol=1e-6):
    """Run ``call(lib, *tensors)`` on both libraries; compare output, graph and gradients.

    ``inputs`` are numpy arrays; those whose position is in ``grad_inputs`` require grad.
    """
    results = []
    for lib in (tg, torch):
        tensors = [lib.tensor(a, requires_grad=i in grad_inputs) for i, a in enumerate(inputs)]
        out = call(lib, *tensors)
        results.append((out, tensors))
    (ours, our_inputs), (theirs, their_inputs) = results
    assert_close(ours, theirs, rtol, atol)
    assert_same_graph(ours, theirs)
    (upstream,) = arrays(99, tuple(theirs.shape))
    ours.backward(tg.tensor(upstream))
    theirs.backward(torch.tensor(upstream))
    for i in grad_inputs:
        assert_close(our_inputs[i].grad, their_inputs[i].grad, rtol * 10, atol * 10)


def _probabilities(seed, shape):
    return np.random.default_rng(seed).uniform(0.02, 0.98, shape).astype(np.float32)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_mse_and_l1_loss(reduction):
    x, y = arrays(0, (4, 5), (4, 5))
    for name in ("mse_loss", "l1_loss"):
        _compare(lambda lib, a, b: getattr(lib.nn.functional, name)(a, b, reduction=reduction),
                 [x, y], grad_inputs=(0, 1))


def test_mse_loss_warns_when_target_broadcasts():
    x, y = arrays(1, (3,), (2, 3))
    with pytest.warns(UserWarning, match="Using a target size"):
        ours = tg.nn.functional.mse_loss(tg.tensor(x), tg.tensor(y))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = torch.nn.functional.mse_loss(torch.tensor(x), torch.tensor(y))
    assert_close(ours, theirs)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
def test_binary_cross_entropy(reduction, weighted):
    p, t = _probabilities(2, (4, 3)), _probabilities(3, (4, 3))
    weight = np.array([0.5, 1.0, 2.0], dtype=np.float32)

    def call(lib, p, t, w):
        return lib.nn.functional.binary_cross_entropy(p, t, w if weighted else None,
                                                      reduction=reduction)
    _compare(call, [p, t, weight], grad_inputs=(0, 1))


def test_binary_cross_entropy_clamps_the_log_at_minus_100():
    for lib in (tg, torch):
        loss = lib.nn.functional.binary_cross_entropy(lib.tensor([0.0, 1.0]),
                                                      lib.tensor([1.0, 0.0]))
        assert loss.item() == 100.0


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("options", ["plain", "weight", "pos_weight", "both"])
def test_binary_cross_entropy_with_logits(reduction, options):
    x = arrays(4, (4, 3))[0] * 4
    t = _probabilities(5, (4, 3))
    weight = np.array([0.5, 1.0, 2.0], dtype=np.float32)
    pos_weight = np.array([3.0, 0.5, 1.0], dtype=np.float32)

    def call(lib, x, t, w, pw):
        return lib.nn.functional.binary_cross_entropy_with_logits(
            x, t, w if options in ("weight", "both") else None, reduction=reduction,
            pos_weight=pw if options in ("pos_weight", "both") else None)
    _compare(call, [x, t, weight, pos_weight], grad_inputs=(0, 1))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shape, target", [((4, 5), [0, 2, 1, 4]), ((5,), 3),
                                           ((2, 3, 2, 2), [[[0, 1], [2, 2]], [[1, 1], [0, 2]]]),
                                           ((2, 3, 4), [[0, 1, 2, 2], [1, 1, 0, 2]])])
def test_cross_entropy_and_nll_loss_with_class_indices(reduction, shape, target):
    (x,) = arrays(6, shape)
    for name in ("cross_entropy", "nll_loss"):
        def call(lib, x):
            return getattr(lib.nn.functional, name)(x, lib.tensor(target), reduction=reduction)
        _compare(call, [x])


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("smoothing", [0.0, 0.2])
def test_cross_entropy_options(reduction, smoothing):
    (x,) = arrays(7, (5, 4))
    target = [0, 3, 1, 3, 2]
    weight = np.array([0.2, 1.0, 2.0, 0.7], dtype=np.float32)
    for ignore_index, use_weight in ((-100, False), (3, False), (-100, True), (3, True)):
        def call(lib, x, w):
            return lib.nn.functional.cross_entropy(
                x, lib.tensor(target), w if use_weight else None, ignore_index=ignore_index,
                reduction=reduction, label_smoothing=smoothing)
        _compare(call, [x, weight])


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_nll_loss_with_every_sample_ignored(reduction):
    """The mean over no counted sample is 0 / 0: nan, as in torch, and zero gradients."""
    (x,) = arrays(10, (3, 4))

    def call(lib, x):
        return lib.nn.functional.nll_loss(x, lib.tensor([1, 1, 1]), ignore_index=1,
                                          reduction=reduction)
    _compare(call, [x])


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("smoothing", [0.0, 0.1])
def test_cross_entropy_with_class_probabilities(reduction, smoothing):
    (x,) = arrays(8, (3, 4))
    probabilities = np.random.default_rng(8).dirichlet(np.ones(4), 3).astype(np.float32)

    def call(lib, x, p):
        return lib.nn.functional.cross_entropy(x, p, reduction=reduction,
                                               label_smoothing=smoothing)
    _compare(call, [x, probabilities])


def test_loss_modules_match_functions_and_torch():
    x, t = arrays(9, (4, 3), (4, 3))
    p = _probabilities(9, (4, 3))
    labels = [0, 2, 1, 1]
    weight = np.array([1.0, 2.0, 0.5], dtype=np.float32)
    cases = [("MSELoss", {}, x, t), ("L1Loss", {"reduction": "sum"}, x, t),
             ("BCELoss", {}, p, p[::-1].copy()),
             ("BCEWithLogitsLoss", {"pos_weight": weight}, x, p),
             ("CrossEntropyLoss", {"label_smoothing": 0.1, "weight": weight}, x, labels),
             ("NLLLoss", {"ignore_index": 1}, x, labels)]
    for name, kwargs, inputs, target in cases:
        our_kwargs = {k: tg.tensor(v) if isinstance(v, np.ndarray) else v
                      for k, v in kwargs.items()}
        their_kwargs = {k: torch.tensor(v) if isinstance(v, np.ndarray) else v
                        for k, v in kwargs.items()}
        ours = getattr(tg.nn, name)(**our_kwargs)
        theirs = getattr(torch.nn, name)(**their_kwargs)
        assert repr(ours) == repr(theirs)
        assert list(ours.state_dict()) == list(theirs.state_dict())
        assert_close(ours(tg.tensor(inputs), tg.tensor(target)),
                     theirs(torch.tensor(inputs), torch.tensor(target)))


def test_linear_records_addmm_or_matmul_like_torch():
    weight, bias = arrays(10, (2, 3), (2,))
    for shape in ((4, 3), (3,), (2, 4, 3)):
        (x,) = arrays(11, shape)
        _compare(lambda lib, x, w, b: lib.nn.functional.linear(x, w, b), [x, weight, bias],
                 grad_inputs=(0, 1, 2))
        _compare(lambda lib, x, w: lib.nn.functional.linear(x, w), [x, weight],
                 grad_inputs=(0, 1))
        _compare(lambda lib, x, w, b: lib.nn.functional.linear(x, w, b), [x, weight, bias],
                 grad_inputs=(1, 2))


CONV_GEOMETRIES = [{}, {"stride": 2}, {"padding": 2, "dilation": 2},
                   {"stride": (1, 2), "padding": (0, 1)}]


@pytest.mark.parametrize("kwargs", CONV_GEOMETRIES)
def test_conv2d_unfold_and_fold(kwargs):
    x, w, b = arrays(12, (2, 3, 7, 8), (4, 3, 3, 2), (4,))
    _compare(lambda lib, x, w, b: lib.nn.functional.conv2d(x, w, b, **kwargs), [x, w, b],
             grad_inputs=(0, 1, 2), rtol=1e-4, atol=1e-5)
    _compare(lambda lib, x, w: lib.nn.functional.conv2d(x, w, **kwargs), [x, w],
             grad_inputs=(0, 1), rtol=1e-4, atol=1e-5)
    _compare(lambda lib, x: lib.nn.functional.unfold(x, (3, 2), **kwargs), [x])
    columns = tg.nn.functional.unfold(tg.tensor(x), (3, 2), **kwargs).numpy()
    _compare(lambda lib, c: lib.nn.functional.fold(c, (7, 8), (3, 2), **kwargs), [columns])


def _as_pairs(kwargs):
    """conv2d's keyword arguments as the (rows, columns) pairs the kernels take."""
    defaults = {"dilation": 1, "padding": 0, "stride": 1}
    return {name: kwargs.get(name, value) if isinstance(kwargs.get(name, value), tuple)
            else (kwargs.get(name, value),) * 2 for name, value in defaults.items()}


@pytest.mark.parametrize("kwargs", CONV_GEOMETRIES)
def test_conv2d_input_gradient_folds_columns_laid_out_batch_last(kwargs):
    """The input gradient's col2im takes its columns kernel position first and batch
    last: it must give what fold gives the same columns in fold's own layout."""
    from teachgrad.ops.nn_ops import fold_batch_last
    (x,) = arrays(14, (3, 2, 7, 8))
    columns = tg.nn.functional.unfold(tg.tensor(x), (3, 2), **kwargs).numpy()   # (N, C*K, L)
    batch, rows, length = columns.shape
    kernel_first = columns.reshape(batch, 2, 6, length).transpose(2, 1, 3, 0)
    ours = fold_batch_last(tg.tensor(kernel_first.reshape(rows, length * batch)), batch, (7, 8),
                           (3, 2), **_as_pairs(kwargs))
    folded = tg.nn.functional.fold(tg.tensor(columns), (7, 8), (3, 2), **kwargs)
    np.testing.assert_array_equal(ours.numpy(), folded.numpy())
    assert ours.numpy().flags.c_contiguous


@pytest.mark.parametrize("kwargs", CONV_GEOMETRIES)
def test_conv2d_input_gradient_and_its_gradients_match_torch(kwargs):
    x, w, upstream = arrays(15, (3, 2, 7, 8), (4, 2, 3, 2), (3, 2, 7, 8))
    results = []
    for lib in (tg, torch):
        x_t, w_t = lib.tensor(x, requires_grad=True), lib.tensor(w, requires_grad=True)
        out = lib.nn.functional.conv2d(x_t, w_t, **kwargs)
        (grad_x,) = lib.autograd.grad((out * out).sum(), x_t, create_graph=True)
        second = lib.autograd.grad((grad_x * lib.tensor(upstream)).sum(), (x_t, w_t))
        results.append([t.detach().numpy() for t in (grad_x, *second)])
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-4)


def test_max_pool2d_return_indices():
    (x,) = arrays(13, (2, 3, 7, 7))
    for kwargs in ({"kernel_size": 2}, {"kernel_size": 3, "stride": 2, "padding": 1},
                   {"kernel_size": 2, "dilation": 2, "stride": 1}):
        ours = tg.nn.functional.max_pool2d(tg.tensor(x), return_indices=True, **kwargs)
        theirs = torch.nn.functional.max_pool2d(torch.tensor(x), return_indices=True, **kwargs)
        assert_close(ours[0], theirs[0])
        np.testing.assert_array_equal(ours[1].numpy(), theirs[1].numpy())


def test_max_pool_gradient_goes_to_the_first_maximum_on_ties():
    x = np.zeros((1, 1, 4, 4), dtype=np.float32)
    x[0, 0, 1, 1] = x[0, 0, 0, 3] = 1.0
    _compare(lambda lib, x: lib.relu(lib.nn.functional.max_pool2d(x, 2)), [x])
    _compare(lambda lib, x: lib.nn.functional.max_pool2d(x, 3, 1, 1), [x])


# (kernel_size, stride, padding, dilation): windows that tile the image, leave gaps between
# them, overlap, are dilated or rectangular; with odd sizes the last rows and columns drop
MAX_POOL_GEOMETRIES = [(2, 2, 0, 1), (3, 3, 0, 1), (2, 3, 0, 1), (3, 1, 1, 1), (3, 2, 1, 1),
                       (2, 1, 0, 2), ((2, 3), (1, 2), (1, 0), 1), (1, 1, 0, 1)]


def _pool_input(seed, shape, nans, negative_zeros=True):
    """Few distinct values (many ties), zeros (of both signs if ``negative_zeros``) and, if
    ``nans``, several NaNs."""
    rng = np.random.default_rng(seed)
    x = rng.integers(-2, 3, shape).astype(np.float32)
    if negative_zeros:
        x[x == 0] = rng.choice(np.float32([0.0, -0.0]), int((x == 0).sum()))
    if nans:
        x[rng.random(shape) < 0.2] = np.nan
    return x


@pytest.mark.parametrize("geometry", MAX_POOL_GEOMETRIES)
@pytest.mark.parametrize("nans,negative_zeros", [(False, False), (False, True), (True, True)])
@pytest.mark.parametrize("shape", [(2, 3, 7, 9), (3, 8, 6)])
def test_max_pool2d_matches_torch_bit_for_bit(geometry, nans, negative_zeros, shape):
    """Values (with the sign of zero), indices, gradient and gradient of the gradient: the
    first maximum wins a tie, the last NaN wins among NaNs, overlapping windows add up.
    (Without NaN or -0.0, the maxima are numpy's running maximum, gathered otherwise.)"""
    kernel_size, stride, padding, dilation = geometry
    x = _pool_input(sum(shape) + nans + 2 * negative_zeros, shape, nans, negative_zeros)
    results = []
    for lib in (tg, torch):
        x_t = lib.tensor(x, requires_grad=True)
        out, indices = lib.nn.functional.max_pool2d(x_t, kernel_size, stride, padding, dilation,
                                                    return_indices=True)
        (upstream, weights) = arrays(7, tuple(out.shape), tuple(x.shape))
        grad_out = lib.tensor(upstream, requires_grad=True)
        (grad_x,) = lib.autograd.grad(out, x_t, grad_out, create_graph=True)
        (grad_x * lib.tensor(weights)).sum().backward()
        results.append([t.detach().numpy() for t in (out, indices, grad_x, grad_out.grad)])
        assert type(grad_x.grad_fn).__name__ == "MaxPool2DWithIndicesBackwardBackward0"
    for ours, theirs in zip(*results):
        assert ours.dtype == theirs.dtype
        np.testing.assert_array_equal(ours, theirs)
        np.testing.assert_array_equal(np.signbit(ours), np.signbit(theirs))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_negative_zero_is_found_by_its_bits(dtype):
    """Max pooling takes numpy's running maximum as it is unless the image has a -0.0 (or
    a NaN): then it gathers the winners' own bits. The check must see every -0.0."""
    from teachgrad.ops.nn_ops import has_negative_zero
    others = np.array([0.0, 1.0, -1.0, -np.inf, np.inf, np.nan, -np.nan], dtype=dtype)
    assert not has_negative_zero(others)
    assert has_negative_zero(np.append(others, dtype(-0.0)))
    assert not has_negative_zero(np.zeros(0, dtype)) and not has_negative_zero(np.arange(-3, 3))


def test_max_pool2d_nan_wins_over_infinity_and_the_last_nan_wins():
    x = np.float32([[[[1, np.nan, np.inf, np.nan], [np.nan, 3, 4, -np.inf],
                      [-np.inf, -np.inf, -0.0, 0.0], [-np.inf, -np.inf, 0.0, -0.0]]]])
    for kwargs in ({"kernel_size": 2}, {"kernel_size": 3, "stride": 1}):
        ours = tg.nn.functional.max_pool2d(tg.tensor(x), return_indices=True, **kwargs)
        theirs = torch.nn.functional.max_pool2d(torch.tensor(x), return_indices=True, **kwargs)
        for o, t in zip(ours, theirs):
            np.testing.assert_array_equal(o.numpy(), t.numpy())
            np.testing.assert_array_equal(np.signbit(o.numpy()), np.signbit(t.numpy()))


@pytest.mark.parametrize("geometry", [g for g in MAX_POOL_GEOMETRIES if g[2] != 0])
def test_max_pool2d_window_of_minus_infinity_points_into_the_input(geometry):
    """A padded window whose real values are all -inf: its index is its first place inside
    the input (where PyTorch starts the search), never the padding around it."""
    kernel_size, stride, padding, dilation = geometry
    x = np.full((1, 2, 5, 6), -np.inf, dtype=np.float32)
    x[0, 1, 2, 3] = 1.0
    results = []
    for lib in (tg, torch):
        x_t = lib.tensor(x, requires_grad=True)
        out, indices = lib.nn.functional.max_pool2d(x_t, kernel_size, stride, padding, dilation,
                                                    return_indices=True)
        out.sum().backward()
        results.append([t.detach().numpy() for t in (out, indices, x_t.grad)])
    for ours, theirs in zip(*results):
        np.testing.assert_array_equal(ours, theirs)


def test_batch_norm_function_and_running_statistics():
    x, w, b = arrays(14, (6, 3), (3,), (3,))
    stats = []
    for lib in (tg, torch):
        mean, var = lib.zeros(3), lib.ones(3)
        x_t = lib.tensor(x, requires_grad=True)
        out = lib.nn.functional.batch_norm(x_t, mean, var, lib.tensor(w), lib.tensor(b),
                                           training=True, momentum=0.2)
        stats.append((out, mean, var))
    for ours, theirs in zip(*stats):
        assert_close(ours, theirs)
    assert stats[0][1]._version == stats[1][1]._version


def test_activations_softmax_and_pad():
    (x,) = arrays(15, (3, 4, 5))
    for call in (lambda lib, x: lib.nn.functional.relu(x),
                 lambda lib, x: lib.nn.functional.leaky_relu(x, 0.2),
                 lambda lib, x: lib.nn.functional.sigmoid(x),
                 lambda lib, x: lib.nn.functional.tanh(x),
                 lambda lib, x: lib.nn.functional.softmax(x, dim=0),
                 lambda lib, x: lib.nn.functional.log_softmax(x, dim=-1),
                 lambda lib, x: lib.nn.functional.pad(x, (1, 2)),
                 lambda lib, x: lib.nn.functional.pad(x, (1, -2, 0, 3), value=0.5),
                 lambda lib, x: lib.nn.functional.pad(x, (-1, -1, -1, -1, 1, 1))):
        _compare(call, [x])


def test_softmax_without_dim_warns_and_picks_torchs_dim():
    (x,) = arrays(16, (2, 3))
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmax"):
        ours = tg.nn.functional.softmax(tg.tensor(x))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = torch.nn.functional.softmax(torch.tensor(x))
    assert_close(ours, theirs)


def test_one_hot_and_embedding():
    labels = [[0, 2], [3, 1]]
    for classes in (-1, 5):
        ours = tg.nn.functional.one_hot(tg.tensor(labels), classes)
        theirs = torch.nn.functional.one_hot(torch.tensor(labels), classes)
        assert ours.dtype == tg.int64
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    (weight,) = arrays(17, (4, 3))
    _compare(lambda lib, w: lib.nn.functional.embedding(lib.tensor(labels), w), [weight])


def test_dropout_functional_outside_training_is_the_identity():
    ours_x, _ = pair(np.ones(3, dtype=np.float32), torch)
    assert tg.nn.functional.dropout(ours_x, 0.5, training=False) is ours_x


def _node_names(node, depth):
    if node is None or depth == 0:
        return None
    return type(node).__name__, [_node_names(child, depth - 1) for child, _ in node.next_functions]


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shape, target", [((2, 3), [2, 0]), ((2, 3, 2, 2), [[[0, 1], [2, 2]],
                                                                             [[1, 1], [0, 2]]])])
def test_nll_loss_gradient_is_one_node_under_create_graph(reduction, shape, target):
    """As in torch, nll_loss's gradient is NllLoss(2D)BackwardBackward0, wired to the
    incoming gradient and to the input, whose second derivative there is 0."""
    results = []
    for lib in (tg, torch):
        (x,) = arrays(12, shape)
        x = lib.tensor(x, requires_grad=True)
        log_probs = lib.log_softmax(x, 1)
        weight = lib.tensor([1.0, 2.0, 0.5])
        loss = lib.nn.functional.nll_loss(log_probs, lib.tensor(target), weight,
                                          reduction=reduction)
        if reduction == "none":
            loss = (loss * 2).sum()
        (g,) = lib.autograd.grad(loss, log_probs, create_graph=True)
        (h,) = lib.autograd.grad((g * g).sum(), log_probs)
        (hx,) = lib.autograd.grad(lib.autograd.grad(loss, x, create_graph=True)[0].sum(), x)
        results.append((_node_names(g.grad_fn, 3), g.detach().numpy(), h.numpy(), hx.numpy()))
    ours, theirs = results
    assert ours[0] == theirs[0]
    for a, b in zip(ours[1:], theirs[1:]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
