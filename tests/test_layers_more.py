"""The layers added after Conv2d and the first activations -- adaptive pooling, conv1d, 1-d
pooling, group norm, Unflatten, channel dropout, constant padding, prelu, celu, softmin, glu
and the shrinks -- against torch: values, node names down to the leaves, saved fields,
gradients, second derivatives, module printing, parameters after manual_seed, errors."""
import warnings

import numpy as np
import pytest

try:
    from . import differential as D
except ImportError:
    import differential as D

torch = pytest.importorskip("torch")
run = D.run_both


def _saved(node, names=None):
    """Every ``_saved_`` field the node lists, or those ``names`` (tensors compared with
    their flags)."""
    names = names or [name for name in dir(node) if name.startswith("_saved_")]
    fields = {name: getattr(node, name) for name in names}
    return {name: D.snap(value, version=False) if D.is_tensor(value) else value
            for name, value in fields.items()}


def _report(tg, y, inputs, second=True, saved=True):
    """The output, its graph and saved fields, the gradients of a weighted sum of squares
    and (with ``second``) the gradients of the gradients' sum of squares."""
    if isinstance(y, tuple):
        y, extra = y
    else:
        extra = None
    result = {"y": y, "extra": extra, "graph": D.graph(y),
              "saved": _saved(y.grad_fn) if saved else None}
    weights = tg.tensor(D.data(tuple(y.shape), seed=7))
    grads = tg.autograd.grad((y * y * weights).sum(), inputs, create_graph=second)
    result["grads"] = D.snap([g.detach() for g in grads], version=False)
    if second:
        total = sum((g * g).sum() for g in grads)
        result["second"] = D.loose(list(tg.autograd.grad(total, inputs, allow_unused=True)))
    return result


def _input(tg, shape, seed=1, **kw):
    return tg.tensor(D.data(shape, seed=seed, **kw), requires_grad=True)


# ---- adaptive pooling -----------------------------------------------------------------------
ADAPTIVE = [
    ("adaptive_avg_pool2d", (2, 3, 5, 7), 3),
    ("adaptive_avg_pool2d", (2, 3, 5, 7), (2, 4)),
    ("adaptive_avg_pool2d", (3, 5, 7), (None, 4)),
    ("adaptive_avg_pool2d", (3, 5, 7), (8, 9)),          # windows overlap
    ("adaptive_avg_pool2d", (2, 3, 5, 7), 1),            # torch takes the mean (MeanBackward1)
    ("adaptive_avg_pool2d", (2, 3, 5, 7), (1, None)),
    ("adaptive_max_pool2d", (2, 3, 5, 7), 3),
    ("adaptive_max_pool2d", (3, 5, 7), (2, 4)),
    ("adaptive_max_pool2d", (3, 5, 7), (8, 9)),
    ("adaptive_max_pool2d", (2, 3, 5, 7), 1),
    ("adaptive_avg_pool1d", (2, 3, 7), 3),
    ("adaptive_avg_pool1d", (3, 7), 1),
    ("adaptive_max_pool1d", (2, 3, 7), 3),
    ("adaptive_max_pool1d", (3, 7), 1),
]


@pytest.mark.parametrize("name,shape,size", ADAPTIVE)
def test_adaptive_pooling_values_nodes_saved_fields_and_gradients(name, shape, size):
    def prog(tg):
        x = _input(tg, shape)
        y = getattr(tg.nn.functional, name)(x, size)
        # (the 1-d forms end in SqueezeBackward1, whose _saved_dim teachgrad's shape module
        # shows normalised: their saved fields are compared one node down)
        node = y.grad_fn.next_functions[0][0] if "1d" in name else y.grad_fn
        result = _report(tg, y, (x,), saved=False)
        return result, D.name(node)
    run(prog)


@pytest.mark.parametrize("name", ["adaptive_avg_pool2d", "adaptive_max_pool2d"])
def test_adaptive_pooling_saved_fields_and_gradient_nodes(name):
    def prog(tg):
        x = _input(tg, (2, 3, 6, 5))
        y = getattr(tg.nn.functional, name)(x, (4, 3))
        saved = _saved(y.grad_fn)
        (g,) = tg.autograd.grad((y * y).sum(), x, create_graph=True)
        return saved, D.graph(g, 1), _saved(g.grad_fn)
    run(prog)


@pytest.mark.parametrize("name", ["adaptive_max_pool2d", "adaptive_max_pool1d"])
def test_adaptive_max_pool_returns_indices_and_picks_ties_and_nans_as_torch(name):
    def prog(tg):
        values = [[[1.0, 3.0, 3.0, 0.0, float("nan"), 2.0, float("nan")],
                   [2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0]]]
        x = tg.tensor(values, requires_grad=True)
        if name == "adaptive_max_pool2d":
            x = tg.tensor([values], requires_grad=True)
        y, indices = getattr(tg.nn.functional, name)(x, 3, return_indices=True)
        y.sum().backward()
        return y, indices, x.grad
    run(prog)



@pytest.mark.parametrize("name,output_size", [("adaptive_max_pool2d", (2, 3)),
                                              ("max_pool2d", 16)])
def test_max_pool_indices_past_255_windows_and_places_as_torch(name, output_size):
    """Many planes (more than 255 windows share a kernel position) and windows of 256
    places: the winning positions must not wrap around in a small integer type."""
    def prog(tg):
        values = np.random.default_rng(0).standard_normal((4, 80, 32, 32), dtype=np.float32)
        x = tg.tensor(values, requires_grad=True)
        y, indices = getattr(tg.nn.functional, name)(x, output_size, return_indices=True)
        y.sum().backward()
        return y, indices, x.grad
    run(prog)

ADAPTIVE_ERRORS = [
    lambda F, tg: F.adaptive_avg_pool2d(tg.ones(3, 4), 2),
    lambda F, tg: F.adaptive_avg_pool2d(tg.ones(2, 3, 4, 4), -1),
    lambda F, tg: F.adaptive_avg_pool2d(tg.ones(2, 3, 4, 4), (1, 2, 3)),
    lambda F, tg: F.adaptive_avg_pool2d(tg.ones(2, 3, 0, 4), 2),
    lambda F, tg: F.adaptive_avg_pool2d(tg.ones(2, 3, 4, 4, dtype=tg.int64), 2),
    lambda F, tg: F.adaptive_max_pool2d(tg.ones(3, 4), 2),
    lambda F, tg: F.adaptive_max_pool2d(tg.ones(2, 3, 4, 4), -1),
    lambda F, tg: F.adaptive_max_pool2d(tg.ones(2, 0, 4, 4), 2),
    lambda F, tg: F.adaptive_max_pool2d(tg.ones(2, 3, 4, 4, dtype=tg.int64), 2),
    lambda F, tg: F.adaptive_avg_pool1d(tg.ones(2, 3, 4, 4), 2),
    lambda F, tg: F.adaptive_avg_pool1d(tg.ones(2, 3, 4), (2, 3)),
    lambda F, tg: F.adaptive_max_pool1d(tg.ones(5), 2),
    lambda F, tg: F.adaptive_max_pool1d(tg.ones(2, 3, 0), 2),
]


@pytest.mark.parametrize("call", ADAPTIVE_ERRORS)
def test_adaptive_pooling_errors(call):
    run(lambda tg: call(tg.nn.functional, tg), raises="Exception")


def test_adaptive_pooling_of_an_empty_batch_and_to_size_zero():
    def prog(tg):
        F = tg.nn.functional
        return (F.adaptive_avg_pool2d(tg.ones(0, 3, 4, 4), 2), F.adaptive_max_pool2d(
            tg.ones(0, 3, 4, 4), 2), F.adaptive_avg_pool2d(tg.ones(2, 3, 4, 4), 0))
    run(prog)


# ---- modules: parameters after manual_seed, outputs, gradients, repr -------------------------
MODULES = [
    ("AdaptiveAvgPool2d", (2,), {}, (2, 3, 5, 6)),
    ("AdaptiveAvgPool2d", ((None, 3),), {}, (2, 3, 5, 6)),
    ("AdaptiveAvgPool1d", (4,), {}, (2, 3, 9)),
    ("AdaptiveMaxPool2d", ((2, 3),), {}, (2, 3, 5, 6)),
    ("AdaptiveMaxPool1d", (2,), {}, (2, 3, 9)),
    ("Conv1d", (3, 4, 3), {}, (2, 3, 9)),
    ("Conv1d", (3, 4, 2), {"stride": 2, "padding": 1, "dilation": 2, "bias": False}, (2, 3, 9)),
    ("Conv1d", (3, 4, (3,)), {"padding": "same"}, (2, 3, 9)),
    ("Conv1d", (3, 4, 3), {"padding": "valid"}, (3, 9)),
    ("MaxPool1d", (3,), {}, (2, 3, 9)),
    ("MaxPool1d", (3, 2, 1, 2), {}, (2, 3, 9)),
    ("MaxPool1d", (2,), {}, (3, 8)),
    ("AvgPool1d", (3,), {}, (2, 3, 9)),
    ("AvgPool1d", (3, 2, 1), {"count_include_pad": False}, (2, 3, 9)),
    ("AvgPool1d", (2,), {}, (3, 8)),
    ("GroupNorm", (3, 6), {}, (2, 6, 3, 4)),
    ("GroupNorm", (2, 4), {"eps": 1e-3, "affine": False}, (3, 4, 5)),
    ("GroupNorm", (2, 4), {"bias": False}, (3, 4, 3)),
    ("Unflatten", (1, (2, 3)), {}, (4, 6, 5)),
    ("Unflatten", (-1, [3, 2]), {}, (4, 6)),
    ("ZeroPad2d", (2,), {}, (2, 3, 4, 5)),
    ("ZeroPad2d", ((1, 2, 0, 1),), {}, (3, 4, 5)),
    ("ConstantPad1d", (2, 3.5), {}, (2, 3, 4)),
    ("ConstantPad1d", ((1, 2), 3), {}, (3, 4)),
    ("ConstantPad2d", (1, -1.0), {}, (2, 3, 4)),
    ("ConstantPad2d", ((1, 2, 3, 0), 0.5), {}, (2, 3, 4)),
    ("PReLU", (), {}, (2, 3, 4)),
    ("PReLU", (3, 0.1), {}, (2, 3, 4)),
    ("CELU", (), {}, (2, 3, 4)),
    ("CELU", (2.0,), {}, (2, 3, 4)),
    ("Softmin", (1,), {}, (2, 3, 4)),
    ("GLU", (), {}, (2, 3, 4)),
    ("GLU", (1,), {}, (2, 4, 3)),
    ("Hardshrink", (), {}, (2, 3, 4)),
    ("Hardshrink", (0.3,), {}, (2, 3, 4)),
    ("Softshrink", (), {}, (2, 3, 4)),
    ("Softshrink", (0.2,), {}, (2, 3, 4)),
    ("Tanhshrink", (), {}, (2, 3, 4)),
]


@pytest.mark.parametrize("name,args,kwargs,shape", MODULES)
def test_module_matches_torch(name, args, kwargs, shape):
    def prog(tg):
        tg.manual_seed(0)
        layer = getattr(tg.nn, name)(*args, **kwargs)
        params = dict(layer.named_parameters())
        x = _input(tg, shape, away_from=0.0)
        y = layer(x)
        result = _report(tg, y, (x, *params.values()), second=False, saved=False)
        result.update(repr=repr(layer), params=D.snap(params, version=False),
                      state=list(layer.state_dict()))
        return result
    run(prog)


def test_modules_print_inside_a_sequential():
    def prog(tg):
        nn = tg.nn
        model = nn.Sequential(nn.Conv1d(2, 4, 3, padding=1), nn.GroupNorm(2, 4), nn.PReLU(4),
                              nn.MaxPool1d(2), nn.AvgPool1d(2, 1), nn.AdaptiveAvgPool1d(3),
                              nn.Dropout1d(0.2), nn.Unflatten(1, (2, 2)), nn.ZeroPad2d(1),
                              nn.Dropout2d(0.3, True), nn.AdaptiveMaxPool2d((2, 3)),
                              nn.ConstantPad2d(1, 2.0), nn.AdaptiveAvgPool2d(1), nn.CELU(2.0, True),
                              nn.Softmin(1), nn.GLU(1), nn.Hardshrink(0.3), nn.Softshrink(),
                              nn.Tanhshrink(), nn.ConstantPad1d((1, 2), 3))
        return repr(model), [name for name, _ in model.named_parameters()]
    run(prog)


# ---- conv1d -----------------------------------------------------------------------------
CONV1D = [
    dict(),
    dict(stride=2, padding=1, dilation=2),
    dict(stride=(3,), padding=(2,)),
    dict(padding="same", dilation=2),
]


@pytest.mark.parametrize("kwargs", CONV1D)
@pytest.mark.parametrize("bias", [True, False])
def test_conv1d_node_saved_fields_gradients_and_second_derivative(kwargs, bias):
    def prog(tg):
        x = _input(tg, (2, 3, 9))
        w = _input(tg, (4, 3, 3), seed=2)
        b = _input(tg, (4,), seed=3) if bias else None
        y = tg.nn.functional.conv1d(x, w, b, **kwargs)
        return _report(tg, y, (x, w) if b is None else (x, w, b))
    run(prog, rtol=1e-4, atol=1e-5)


def test_conv1d_of_an_unbatched_input_and_the_top_level_function():
    def prog(tg):
        x, w = _input(tg, (3, 9)), _input(tg, (4, 3, 2), seed=2)
        return _report(tg, tg.conv1d(x, w, stride=2), (x, w), saved=False)
    run(prog, rtol=1e-4, atol=1e-5)


def test_conv2d_checks_and_results_are_unchanged_by_the_shared_code():
    def prog(tg):
        x, w = _input(tg, (2, 3, 6, 5)), _input(tg, (4, 3, 3, 2), seed=2)
        b = _input(tg, (4,), seed=3)
        return _report(tg, tg.nn.functional.conv2d(x, w, b, stride=(2, 1), padding=1), (x, w, b))
    run(prog, rtol=1e-4, atol=1e-5)


CONV_ERRORS = [
    lambda F, tg: F.conv1d(tg.ones(2, 3, 6, 7), tg.ones(4, 3, 2)),
    lambda F, tg: F.conv1d(tg.ones(5), tg.ones(4, 3, 2)),
    lambda F, tg: F.conv1d(tg.ones(2, 5, 9), tg.ones(4, 3, 2)),
    lambda F, tg: F.conv1d(tg.ones(5, 9), tg.ones(4, 3, 2)),
    lambda F, tg: F.conv1d(tg.ones(2, 3, 9), tg.ones(4, 3, 2), tg.ones(3)),
    lambda F, tg: F.conv1d(tg.ones(2, 3, 1), tg.ones(4, 3, 2)),
    lambda F, tg: F.conv1d(tg.ones(2, 3, 9, dtype=tg.float64), tg.ones(4, 3, 2)),
    lambda F, tg: F.conv1d(tg.ones(2, 3, 9), tg.ones(4, 3, 2, dtype=tg.float64)),
    lambda F, tg: F.conv1d(tg.ones(2, 3, 9), tg.ones(4, 3, 2), tg.ones(4, dtype=tg.float64)),
    lambda F, tg: F.conv1d(tg.ones(2, 3, 9), tg.ones(4, 3, 2), stride=0),
    lambda F, tg: F.conv1d(tg.ones(2, 3, 9), tg.ones(4, 3, 2), padding=-1),
    lambda F, tg: F.conv1d(tg.ones(2, 3, 9), tg.ones(4, 3, 2), dilation=0),
    lambda F, tg: F.conv1d(tg.ones(2, 3, 9), tg.ones(4, 3, 3), padding="same", stride=2),
    lambda F, tg: F.conv1d(tg.ones(2, 3, 9), tg.ones(4, 3, 2), padding="full"),
    lambda F, tg: F.conv1d(tg.ones(2, 3, 9), tg.ones(4, 3, 2), stride=(1, 2)),
    lambda F, tg: F.conv1d(tg.ones(2, 3, 9), tg.ones(4, 3)),
    lambda F, tg: F.conv1d(tg.ones(2, 3, 9), tg.ones(4, 3, 2, 2)),
    lambda F, tg: F.conv2d(tg.ones(2, 3, 5, 5), tg.ones(4, 3, 2)),
    lambda F, tg: F.conv2d(tg.ones(2, 3, 5, 5), tg.ones(4, 3, 2, 2), dilation=0),
    lambda F, tg: F.conv2d(tg.ones(2, 3, 5, 5, dtype=tg.float64), tg.ones(4, 3, 2, 2)),
    lambda F, tg: tg.nn.Conv1d(3, 4, 3, padding="same", stride=2),
]


@pytest.mark.parametrize("call", CONV_ERRORS)
def test_convolution_errors(call):
    run(lambda tg: call(tg.nn.functional, tg), raises="Exception", msg=D.UPTO_COLON)


def test_conv1d_module_refuses_an_unknown_padding_string():
    # (the rest of the message prints a set, whose order changes from run to run)
    run(lambda tg: tg.nn.Conv1d(3, 4, 3, padding="full"), raises="ValueError",
        msg="Invalid padding string 'full', should be one of")


# ---- 1-d max and average pooling ------------------------------------------------------------
POOL1D = [
    ("max_pool1d", (2, 3, 9), dict(kernel_size=3)),
    ("max_pool1d", (2, 3, 9), dict(kernel_size=3, stride=2, padding=1, dilation=2)),
    ("max_pool1d", (3, 9), dict(kernel_size=2, stride=1)),
    ("avg_pool1d", (2, 3, 9), dict(kernel_size=3)),
    ("avg_pool1d", (2, 3, 9), dict(kernel_size=3, stride=2, padding=1)),
    ("avg_pool1d", (2, 3, 9), dict(kernel_size=3, stride=2, padding=1, count_include_pad=False)),
    ("avg_pool1d", (3, 8), dict(kernel_size=(2,), stride=(1,))),
]


@pytest.mark.parametrize("name,shape,kwargs", POOL1D)
def test_pool1d_goes_through_the_2d_node_as_in_torch(name, shape, kwargs):
    def prog(tg):
        x = _input(tg, shape)
        y = getattr(tg.nn.functional, name)(x, **kwargs)
        saved = _saved(y.grad_fn.next_functions[0][0])
        return _report(tg, y, (x,), saved=False), saved
    run(prog)


def test_max_pool1d_with_indices_and_the_top_level_functions():
    def prog(tg):
        x = _input(tg, (2, 3, 8))
        values, indices = tg.nn.functional.max_pool1d(x, 3, 2, 1, return_indices=True)
        pair = tg.max_pool1d_with_indices(x, 2)
        return (values, indices, pair, tg.max_pool1d(x, 2), tg.avg_pool1d(x, 2),
                tg.adaptive_avg_pool1d(x, 3), tg.adaptive_max_pool1d(x, 3))
    run(prog)


POOL1D_ERRORS = [
    lambda F, tg: F.max_pool1d(tg.ones(2, 3, 6, 7), 2),
    lambda F, tg: F.max_pool1d(tg.ones(5), 2),
    lambda F, tg: F.max_pool1d(tg.ones(2, 0, 5), 2),
    lambda F, tg: F.max_pool1d(tg.ones(2, 3, 9), 2, padding=2),
    lambda F, tg: F.max_pool1d(tg.ones(2, 3, 2), 3),
    lambda F, tg: F.max_pool1d(tg.ones(2, 3, 9), 2, 0),
    lambda F, tg: F.max_pool1d(tg.ones(2, 3, 9), 0),
    lambda F, tg: F.avg_pool1d(tg.ones(2, 3, 6, 7), 2),
    lambda F, tg: F.avg_pool1d(tg.ones(5), 2),
    lambda F, tg: F.avg_pool1d(tg.ones(2, 3, 9), 2, padding=2),
    lambda F, tg: F.avg_pool1d(tg.ones(2, 3, 2), 3),
    lambda F, tg: F.avg_pool1d(tg.ones(2, 3, 9), 2, 0),
]


@pytest.mark.parametrize("call", POOL1D_ERRORS)
def test_pool1d_errors(call):
    run(lambda tg: call(tg.nn.functional, tg), raises="RuntimeError")


# ---- group norm -----------------------------------------------------------------------------
GROUP_NORM_SAVED = ["_saved_C", "_saved_HxW", "_saved_N", "_saved_eps", "_saved_group",
                    "_saved_input", "_saved_weight"]


@pytest.mark.parametrize("shape,groups", [((2, 6, 3, 4), 3), ((3, 4, 5), 2), ((3, 8), 2),
                                          ((2, 6, 2, 2, 2), 1)])
@pytest.mark.parametrize("affine", [True, False])
def test_group_norm_node_saved_fields_and_gradients(shape, groups, affine):
    def prog(tg):
        x = _input(tg, shape)
        channels = shape[1]
        weight = tg.linspace(0.5, 1.5, channels, requires_grad=True) if affine else None
        bias = tg.linspace(-0.2, 0.3, channels, requires_grad=True) if affine else None
        y = tg.nn.functional.group_norm(x, groups, weight, bias, eps=1e-3)
        node = y.grad_fn
        # (torch's mean and 1 / std are outputs of its node, so they show requires_grad:
        # teachgrad's are kept arrays, compared by value)
        saved = {name: getattr(node, name) for name in GROUP_NORM_SAVED}
        saved["stats"] = D.loose([node._saved_result1.detach(), node._saved_result2.detach()])
        inputs = (x, weight, bias) if affine else (x,)
        return _report(tg, y, inputs, saved=False), saved
    run(prog, rtol=1e-4, atol=1e-5)


def test_group_norm_second_derivative_in_double_precision():
    def prog(tg):
        x = _input(tg, (2, 4, 3)).double().detach().requires_grad_()
        w = tg.linspace(0.5, 2.0, 4, dtype=tg.float64, requires_grad=True)
        b = tg.linspace(-1.0, 1.0, 4, dtype=tg.float64, requires_grad=True)
        y = tg.group_norm(x, 2, w, b)
        weights = tg.linspace(-1, 2, 24, dtype=tg.float64).view(2, 4, 3)
        grads = tg.autograd.grad((y * weights).pow(2).sum(), (x, w, b), create_graph=True)
        second = tg.autograd.grad(sum(g.pow(2).sum() for g in grads), (x, w, b))
        return D.loose([y, *grads, *second])
    run(prog, rtol=1e-9, atol=1e-10)


GROUP_NORM_ERRORS = [
    lambda F, tg: F.group_norm(tg.ones(2, 6, 3), 4),
    lambda F, tg: F.group_norm(tg.ones(2, 6, 3), 3, tg.ones(5)),
    lambda F, tg: F.group_norm(tg.ones(6), 3),
    lambda F, tg: F.group_norm(tg.ones(1, 2), 2),
    lambda F, tg: F.group_norm(tg.ones(2, 6, 3, dtype=tg.int64), 3),
    lambda F, tg: F.group_norm(tg.ones(2, 6, 3), 0),
    lambda F, tg: tg.nn.GroupNorm(4, 6),
]


@pytest.mark.parametrize("call", GROUP_NORM_ERRORS)
def test_group_norm_errors(call):
    run(lambda tg: call(tg.nn.functional, tg), raises="Exception")


# ---- Unflatten, channel dropout, padding ----------------------------------------------------
@pytest.mark.parametrize("call", [
    lambda tg: tg.nn.Unflatten(1, 6),
    lambda tg: tg.nn.Unflatten(1, (2.0, 3)),
])
def test_unflatten_refuses_sizes_that_are_not_ints(call):
    run(call, raises="TypeError")


@pytest.mark.parametrize("name,shape", [("dropout1d", (3, 4, 5)), ("dropout1d", (4, 5)),
                                        ("dropout2d", (2, 3, 4, 5)), ("dropout2d", (3, 4, 5))])
@pytest.mark.parametrize("p", [0.3, 0.0, 1.0])
def test_channel_dropout_draws_the_same_channels_as_torch(name, shape, p):
    def prog(tg):
        tg.manual_seed(3)
        x = _input(tg, shape)
        y = getattr(tg.nn.functional, name)(x, p)
        after = tg.rand(2)                  # the generator moved on as much as torch's
        result = _report(tg, y, (x,), second=False, saved=False) if y is not x else x
        return result, after
    run(prog, warn=("UserWarning", "dropout2d: Received a 3D") if shape == (3, 4, 5)
        and name == "dropout2d" else None)


def test_channel_dropout_modules_in_place_and_in_eval_mode():
    def prog(tg):
        tg.manual_seed(1)
        x = tg.tensor(D.data((3, 4, 2)))
        inplace = tg.nn.Dropout2d(0.5, inplace=True)
        y = inplace(x)
        layer = tg.nn.Dropout1d(0.4)
        z = layer(tg.ones(4, 6))
        layer.eval()
        return y is x, x, z, layer(x) is x
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run(prog)


@pytest.mark.parametrize("call", [
    lambda tg: tg.nn.functional.dropout2d(tg.ones(2, 3), 0.5),
    lambda tg: tg.nn.functional.dropout2d(tg.ones(2, 3, 2, 2, 2), 0.5),
])
def test_dropout2d_warns_of_other_shapes(call):
    def prog(tg):
        tg.manual_seed(0)           # (the same channels dropped whatever ran before)
        return call(tg)
    run(prog, warn=("UserWarning", "dropout2d: Received a"))


@pytest.mark.parametrize("call", [
    lambda tg: tg.nn.functional.dropout1d(tg.ones(2, 3, 4, 5)),
    lambda tg: tg.nn.functional.dropout1d(tg.ones(4)),
    lambda tg: tg.nn.functional.dropout1d(tg.ones(2, 3, 4), 1.5),
    lambda tg: tg.nn.functional.dropout2d(tg.ones(2, 3, 4, 4), -0.1),
    lambda tg: tg.nn.Dropout1d(1.5),
    lambda tg: tg.nn.ZeroPad2d(1)(tg.ones(4)),
    lambda tg: tg.nn.ConstantPad2d(1, 2.0)(tg.ones(4)),
])
def test_dropout_and_padding_errors(call):
    run(call, raises="Exception")


# ---- activations ----------------------------------------------------------------------------
SPECIAL = [-2.0, -1.0, -0.5, -0.0, 0.0, 0.5, 1.0, 2.0, 0.3, -0.3, 0.2,
           float("inf"), float("-inf"), float("nan")]

ACTIVATIONS = {
    "prelu": lambda tg, x: tg.nn.functional.prelu(x, tg.tensor([0.25])),
    "celu": lambda tg, x: tg.nn.functional.celu(x),
    "celu_alpha": lambda tg, x: tg.celu(x, 2.0),
    "softmin": lambda tg, x: tg.nn.functional.softmin(x, 0),
    "hardshrink": lambda tg, x: tg.nn.functional.hardshrink(x),
    "hardshrink_lambd": lambda tg, x: tg.hardshrink(x, 0.3),
    "softshrink": lambda tg, x: tg.nn.functional.softshrink(x),
    "softshrink_lambd": lambda tg, x: tg.nn.functional.softshrink(x, 0.2),
    "tanhshrink": lambda tg, x: tg.nn.functional.tanhshrink(x),
    "glu": lambda tg, x: tg.nn.functional.glu(x, 0),
}


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activation_values_nodes_gradients_and_second_derivative(name):
    def prog(tg):
        x = _input(tg, (4, 6), seed=4)
        return _report(tg, ACTIVATIONS[name](tg, x), (x,))
    run(prog, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", sorted(set(ACTIVATIONS) - {"softmin", "glu"}))
def test_activation_at_special_values(name):
    def prog(tg):
        x = tg.tensor(SPECIAL, requires_grad=True)
        y = ACTIVATIONS[name](tg, x)
        y.sum().backward()
        return y, x.grad
    run(prog)


def test_prelu_with_one_weight_per_channel_and_on_scalars():
    def prog(tg):
        x = _input(tg, (2, 3, 4), away_from=0.0)
        w = tg.tensor([0.25, -0.5, 0.1], requires_grad=True)
        scalar = tg.prelu(tg.tensor(-2.0, requires_grad=True), tg.tensor([0.5]))
        vector = tg.prelu(tg.tensor([-1.0, 2.0, -3.0]), tg.tensor(0.5))
        return _report(tg, tg.nn.functional.prelu(x, w), (x, w)), scalar, vector
    run(prog)


@pytest.mark.parametrize("name,call", [
    ("relu_", lambda tg, x: tg.nn.functional.relu_(x)),
    ("leaky_relu_", lambda tg, x: tg.nn.functional.leaky_relu_(x, 0.2)),
    ("celu_", lambda tg, x: tg.nn.functional.celu_(x, 2.0)),
    ("celu_top", lambda tg, x: tg.celu_(x)),
    ("celu_inplace", lambda tg, x: tg.nn.functional.celu(x, 1.5, inplace=True)),
    ("CELU_inplace", lambda tg, x: tg.nn.CELU(0.5, inplace=True)(x)),
])
def test_inplace_activations_rebase_the_input(name, call):
    def prog(tg):
        leaf = _input(tg, (3, 4), away_from=0.0)
        x = leaf.clone()
        y = call(tg, x)
        return y is x, x._version, _report(tg, y, (leaf,))
    run(prog)


ACTIVATION_ERRORS = [
    lambda F, tg: F.prelu(tg.ones(2, 3, 4), tg.ones(2)),
    lambda F, tg: F.prelu(tg.ones(2, 3, 4), tg.ones(3, 1)),
    lambda F, tg: F.prelu(tg.ones(2, 3, 4), tg.ones(3, dtype=tg.float64)),
    lambda F, tg: F.prelu(tg.tensor(1.0), tg.ones(2)),
    lambda F, tg: F.prelu(tg.tensor([-1.0, 2.0, -3.0]), tg.ones(3)),
    lambda F, tg: F.prelu(tg.ones(2, 3), 0.25),
    lambda F, tg: F.celu(tg.ones(3), 0.0),
    lambda F, tg: F.celu(tg.ones(3, dtype=tg.int64)),
    lambda F, tg: F.glu(tg.ones(2, 3)),
    lambda F, tg: F.glu(tg.tensor(1.0)),
    lambda F, tg: F.glu(tg.ones(2, 4), 2),
    lambda F, tg: F.glu(tg.ones(2, 4, dtype=tg.int64)),
    lambda F, tg: F.softshrink(tg.ones(3), -0.5),
    lambda F, tg: F.softshrink(tg.ones(3, dtype=tg.int64)),
    lambda F, tg: F.hardshrink(tg.ones(3, dtype=tg.int64)),
    lambda F, tg: F.relu_(tg.ones(3, requires_grad=True)),
]


@pytest.mark.parametrize("call", ACTIVATION_ERRORS)
def test_activation_errors(call):
    run(lambda tg: call(tg.nn.functional, tg), raises="Exception")


def test_softmin_without_dim_warns_and_takes_a_dtype():
    def prog(tg):
        x = _input(tg, (2, 3))
        return tg.nn.functional.softmin(x), tg.nn.Softmin()(x), \
            tg.nn.functional.softmin(x, 1, dtype=tg.float64)
    run(prog, warn=("UserWarning", "Implicit dimension choice for softmin"))
