"""Transposed convolutions, upsampling and instance norm against torch: values, node names
down to the leaves, saved fields, gradients, second derivatives, module printing, parameters
after manual_seed, errors and warnings."""
import pytest

try:
    from . import differential as D
    from .test_layers_more import _input, _report, _saved
except ImportError:
    import differential as D
    from test_layers_more import _input, _report, _saved

torch = pytest.importorskip("torch")
run = D.run_both


# ---- transposed convolutions ------------------------------------------------------------
CONV_TRANSPOSE = [
    ("conv_transpose2d", (2, 3, 5, 4), (3, 4, 3, 2), dict()),
    ("conv_transpose2d", (2, 3, 5, 4), (3, 4, 3, 2), dict(stride=2, padding=1, output_padding=1)),
    ("conv_transpose2d", (2, 3, 4, 4), (3, 2, 3, 3),
     dict(stride=(2, 3), padding=(1, 2), output_padding=(1, 2), dilation=(2, 1))),
    # output_padding past the stride (allowed below the dilation): an extra row and column
    ("conv_transpose2d", (2, 3, 4, 3), (3, 2, 2, 2), dict(dilation=3, output_padding=2)),
    ("conv_transpose2d", (3, 4, 4), (3, 2, 2, 3), dict(stride=2)),              # unbatched
    ("conv_transpose1d", (2, 3, 6), (3, 4, 3), dict()),
    ("conv_transpose1d", (2, 3, 6), (3, 4, 3), dict(stride=3, padding=1, output_padding=2)),
    ("conv_transpose1d", (2, 3, 6), (3, 4, 2), dict(dilation=3, output_padding=1)),
    ("conv_transpose1d", (3, 6), (3, 2, 3), dict(stride=(2,), padding=(1,))),    # unbatched
]


@pytest.mark.parametrize("name,shape,weight_shape,kwargs", CONV_TRANSPOSE)
@pytest.mark.parametrize("bias", [True, False])
def test_conv_transpose_node_saved_fields_gradients_and_second_derivative(
        name, shape, weight_shape, kwargs, bias):
    def prog(tg):
        x, w = _input(tg, shape), _input(tg, weight_shape, seed=2)
        b = _input(tg, (weight_shape[1],), seed=3) if bias else None
        y = getattr(tg.nn.functional, name)(x, w, b, **kwargs)
        node = y.grad_fn if len(shape) == len(weight_shape) else y.grad_fn.next_functions[0][0]
        saved = _saved(node)
        return _report(tg, y, (x, w) if b is None else (x, w, b), saved=False), saved
    run(prog, rtol=1e-4, atol=1e-5)


def test_conv_transpose_top_level_functions_and_positional_order():
    def prog(tg):
        x, w, b = _input(tg, (2, 3, 4, 4)), _input(tg, (3, 2, 3, 3), seed=2), _input(tg, (2,))
        y2 = tg.conv_transpose2d(x, w, b, 2, 1, 1, 1, 2)     # stride, padding, out_pad, groups, dil
        x1, w1 = _input(tg, (2, 3, 5)), _input(tg, (3, 2, 3), seed=2)
        y1 = tg.conv_transpose1d(x1, w1, None, 2, 0, 1)
        return y2, D.graph(y2), y1, D.graph(y1)
    run(prog, rtol=1e-4, atol=1e-5)


def test_changing_the_weight_of_a_conv_transpose_before_backward_is_caught():
    def prog(tg):
        x, w = _input(tg, (1, 2, 3, 3)), _input(tg, (2, 2, 2, 2), seed=2)
        w2 = w * 1
        y = tg.nn.functional.conv_transpose2d(x, w2)
        w2.mul_(2)
        y.sum().backward()
    run(prog, raises="RuntimeError", msg=D.UPTO_COLON)


def _ones(tg, *shape, dtype=None):
    return tg.ones(*shape, dtype=dtype or tg.float32)


CONV_TRANSPOSE_ERRORS = [
    lambda F, tg: F.conv_transpose2d(_ones(tg, 2, 3, 5, 5), _ones(tg, 3, 4, 2, 2), stride=2,
                                     output_padding=2),
    lambda F, tg: F.conv_transpose2d(_ones(tg, 2, 3, 5, 5), _ones(tg, 3, 4, 2, 2),
                                     output_padding=1),
    lambda F, tg: F.conv_transpose1d(_ones(tg, 2, 3, 5), _ones(tg, 3, 4, 2), stride=2,
                                     output_padding=2),
    lambda F, tg: F.conv_transpose2d(_ones(tg, 2, 5, 5, 5), _ones(tg, 3, 4, 2, 2)),
    lambda F, tg: F.conv_transpose2d(_ones(tg, 5, 5), _ones(tg, 3, 4, 2, 2)),
    lambda F, tg: F.conv_transpose1d(_ones(tg, 2, 3, 5, 5), _ones(tg, 3, 4, 2)),
    lambda F, tg: F.conv_transpose1d(_ones(tg, 2, 3, 5), _ones(tg, 3, 4, 2, 2)),
    lambda F, tg: F.conv_transpose2d(_ones(tg, 2, 3, 5, 5), _ones(tg, 3, 4, 2)),
    lambda F, tg: F.conv_transpose2d(_ones(tg, 2, 3, 5, 5), _ones(tg, 3, 4, 2, 2),
                                     _ones(tg, 3)),
    lambda F, tg: F.conv_transpose2d(_ones(tg, 2, 3, 5, 5), _ones(tg, 3, 4, 2, 2), padding=-1),
    lambda F, tg: F.conv_transpose2d(_ones(tg, 2, 3, 5, 5), _ones(tg, 3, 4, 2, 2),
                                     output_padding=-1, stride=0),
    lambda F, tg: F.conv_transpose2d(_ones(tg, 2, 3, 5, 5), _ones(tg, 3, 4, 2, 2), stride=0),
    lambda F, tg: F.conv_transpose2d(_ones(tg, 2, 3, 5, 5), _ones(tg, 3, 4, 2, 2),
                                     stride=(1, 2, 3)),
    lambda F, tg: F.conv_transpose2d(_ones(tg, 2, 3, 5, 5), _ones(tg, 3, 4, 2, 2),
                                     output_padding=(1, 2, 3)),
    lambda F, tg: F.conv_transpose2d(_ones(tg, 2, 3, 5, 5), _ones(tg, 3, 4, 2, 2),
                                     padding="same"),
    lambda F, tg: F.conv_transpose2d(_ones(tg, 2, 3, 5, 5, dtype=tg.float64),
                                     _ones(tg, 3, 4, 2, 2)),
    lambda F, tg: F.conv_transpose2d(_ones(tg, 2, 3, 5, 5),
                                     _ones(tg, 3, 4, 2, 2, dtype=tg.float64)),
    lambda F, tg: F.conv_transpose2d(_ones(tg, 2, 3, 5, 5), _ones(tg, 3, 4, 2, 2),
                                     _ones(tg, 4, dtype=tg.float64)),
    lambda F, tg: F.conv_transpose2d(_ones(tg, 2, 3, 0, 5), _ones(tg, 3, 4, 2, 2)),
    # (float64: float32 goes through oneDNN in torch, whose messages are its own)
    lambda F, tg: F.conv_transpose2d(_ones(tg, 2, 3, 5, 5, dtype=tg.float64),
                                     _ones(tg, 3, 4, 2, 2, dtype=tg.float64), padding=5),
    lambda F, tg: F.conv_transpose2d(_ones(tg, 2, 3, 5, 5, dtype=tg.float64),
                                     _ones(tg, 3, 4, 2, 2, dtype=tg.float64), dilation=0),
    lambda F, tg: F.conv_transpose1d(_ones(tg, 2, 3, 5, dtype=tg.float64),
                                     _ones(tg, 3, 4, 2, dtype=tg.float64), padding=5),
    # the shapes are checked before the types, unlike a convolution's
    lambda F, tg: F.conv_transpose2d(_ones(tg, 2, 5, 5, 5), _ones(tg, 3, 4, 2, 2,
                                                                 dtype=tg.float64)),
    lambda F, tg: F.conv_transpose2d(_ones(tg, 2, 3, 5, 5), _ones(tg, 3, 4, 2, 2,
                                                                 dtype=tg.float64),
                                     output_padding=3),
    lambda F, tg: tg.nn.ConvTranspose2d(3, 4, 2, padding_mode="reflect"),
    lambda F, tg: tg.nn.ConvTranspose1d(3, 4, 2)(_ones(tg, 2, 5)),
]


@pytest.mark.parametrize("call", CONV_TRANSPOSE_ERRORS)
def test_conv_transpose_errors(call):
    run(lambda tg: call(tg.nn.functional, tg), raises="Exception")


def test_conv_transpose_modules_print_and_start_as_in_torch():
    def prog(tg):
        tg.manual_seed(0)
        modules = [tg.nn.ConvTranspose2d(3, 4, (3, 2), stride=2, padding=1, output_padding=1),
                   tg.nn.ConvTranspose1d(3, 5, 3, dilation=2, bias=False, output_padding=1,
                                         stride=2),
                   tg.nn.ConvTranspose2d(2, 3, 3), tg.nn.Conv2d(2, 3, 3)]
        return [(repr(m), m.output_padding, m.transposed, dict(m.named_parameters()))
                for m in modules]
    run(prog)


def test_conv_transpose_module_output_size():
    def prog(tg):
        tg.manual_seed(0)
        m = tg.nn.ConvTranspose2d(3, 4, 3, stride=2)
        x = _input(tg, (1, 3, 5, 5))
        y = m(x, output_size=[12, 11])
        y4 = m(x, output_size=[1, 4, 11, 12])
        unbatched = m(_input(tg, (3, 5, 5)), output_size=[4, 12, 12])
        one = tg.nn.ConvTranspose1d(3, 4, 3, stride=3)(_input(tg, (3, 5)), output_size=[17])
        return y, D.graph(y), _saved(y.grad_fn), y4, unbatched, one
    run(prog, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("size", [[13, 12], [10, 12], [11, 11, 12], [5]])
def test_conv_transpose_module_output_size_errors(size):
    def prog(tg):
        m = tg.nn.ConvTranspose2d(3, 4, 3, stride=2)
        m(tg.ones(1, 3, 5, 5), output_size=size)
    run(prog, raises="ValueError")


# ---- upsampling -----------------------------------------------------------------------------
INTERPOLATE = [
    dict(scale_factor=2),
    dict(size=(7, 9)),
    dict(size=4),
    dict(size=(3, 2)),                                   # downsampling
    dict(scale_factor=(1.5, 2.5)),
    dict(scale_factor=1.7),                              # the scale, not the sizes, sets places
    dict(scale_factor=1.7, recompute_scale_factor=True),
    dict(scale_factor=0.6),
    dict(size=(1, 1)),
    dict(size=(13, 17)),
]
MODES = [("nearest", None), ("nearest-exact", None), ("bilinear", False), ("bilinear", True)]


@pytest.mark.parametrize("kwargs", INTERPOLATE)
@pytest.mark.parametrize("mode,align_corners", MODES)
def test_interpolate_values_nodes_saved_fields_gradients_and_second_derivative(
        mode, align_corners, kwargs):
    def prog(tg):
        x = _input(tg, (2, 3, 4, 5))
        y = tg.nn.functional.interpolate(x, mode=mode, align_corners=align_corners, **kwargs)
        (grad,) = tg.autograd.grad(y.sum(), x, create_graph=True)
        return _report(tg, y, (x,)), D.graph(grad), _saved(grad.grad_fn)
    run(prog, rtol=1e-4, atol=1e-4)


def test_interpolate_in_double_precision_and_nan_and_inf_copied_by_nearest():
    def prog(tg):
        x = tg.tensor(D.data((1, 2, 3, 3), dtype="float64"), dtype=tg.float64,
                      requires_grad=True)
        y = tg.nn.functional.interpolate(x, scale_factor=1.5, mode="bilinear")
        special = tg.tensor([[[[1.0, float("nan")], [float("inf"), -2.0]]]])
        return _report(tg, y, (x,), second=False), tg.nn.functional.interpolate(special, size=3)
    run(prog, rtol=1e-10, atol=1e-12)


INTERPOLATE_ERRORS = [
    (lambda F, tg: F.interpolate(tg.ones(1, 1, 2, 2), scale_factor=2, align_corners=True),
     "ValueError"),
    (lambda F, tg: F.interpolate(tg.ones(1, 1, 2, 2), size=3, mode="nearest-exact",
                                 align_corners=False), "ValueError"),
    (lambda F, tg: F.interpolate(tg.ones(1, 1, 2, 2), size=3, scale_factor=2), "ValueError"),
    (lambda F, tg: F.interpolate(tg.ones(1, 1, 2, 2)), "ValueError"),
    (lambda F, tg: F.interpolate(tg.ones(1, 1, 2, 2), size=(3, 4, 5)), "ValueError"),
    (lambda F, tg: F.interpolate(tg.ones(1, 1, 2, 2), size=(3.0, 4)), "TypeError"),
    (lambda F, tg: F.interpolate(tg.ones(1, 1, 2, 2), scale_factor=(3.0, 4, 2)), "ValueError"),
    (lambda F, tg: F.interpolate(tg.ones(1, 1, 2, 2), size=3, recompute_scale_factor=True),
     "ValueError"),
    (lambda F, tg: F.interpolate(tg.ones(1, 1, 2, 2), size=3, antialias=True), "ValueError"),
    (lambda F, tg: F.interpolate(tg.ones(1, 1, 2, 2), size=3, mode="foo"),
     "NotImplementedError"),
    (lambda F, tg: F.interpolate(tg.ones(1, 2, 2), size=3, mode="bilinear"),
     "NotImplementedError"),
    (lambda F, tg: F.interpolate(tg.ones(1, 2, 2, 2), size=3, mode="linear"),
     "NotImplementedError"),
    (lambda F, tg: F.interpolate(tg.ones(2, 2), size=3), "NotImplementedError"),
    (lambda F, tg: F.interpolate(tg.ones(1, 1, 2, 2), size=0), "RuntimeError"),
    (lambda F, tg: F.interpolate(tg.ones(1, 1, 2, 2), size=(2, -1), mode="bilinear"),
     "RuntimeError"),
    (lambda F, tg: F.interpolate(tg.ones(1, 1, 2, 2), scale_factor=0.1), "RuntimeError"),
    (lambda F, tg: F.interpolate(tg.ones(1, 1, 0, 2), size=(2, 3)), "RuntimeError"),
    (lambda F, tg: F.interpolate(tg.ones(1, 0, 2, 2), size=(2, 3)), "RuntimeError"),
    (lambda F, tg: F.interpolate(tg.ones(2, 3, 2, 2, dtype=tg.int64), size=(2, 3)),
     "NotImplementedError"),
    (lambda F, tg: F.interpolate(tg.ones(2, 3, 2, 2, dtype=tg.int64), size=(2, 3),
                                 mode="bilinear"), "NotImplementedError"),
]


@pytest.mark.parametrize("call,error", INTERPOLATE_ERRORS)
def test_interpolate_errors(call, error):
    run(lambda tg: call(tg.nn.functional, tg), raises=error)


@pytest.mark.parametrize("name,mode", [("upsample", "nearest"), ("upsample_nearest", None),
                                       ("upsample_bilinear", None)])
def test_the_deprecated_upsample_functions_warn(name, mode):
    def prog(tg):
        x = _input(tg, (1, 2, 3, 3))
        kwargs = {} if mode is None else dict(mode=mode)
        y = getattr(tg.nn.functional, name)(x, scale_factor=2, **kwargs)
        return y, D.graph(y), _saved(y.grad_fn)
    run(prog, warn=("UserWarning", f"`nn.functional.{name}` is deprecated"))


def test_upsampling_modules_print_and_resize_as_in_torch():
    def prog(tg):
        nn = tg.nn
        modules = [nn.Upsample(scale_factor=2), nn.Upsample(size=(5, 7), mode="bilinear"),
                   nn.Upsample(scale_factor=(2, 1.5), mode="bilinear", align_corners=True),
                   nn.Upsample(size=3), nn.Upsample(scale_factor=0),
                   nn.Upsample(scale_factor=1.7, mode="nearest-exact",
                               recompute_scale_factor=True),
                   nn.UpsamplingNearest2d(scale_factor=2), nn.UpsamplingBilinear2d(size=5),
                   nn.UpsamplingBilinear2d(scale_factor=2)]
        x = _input(tg, (1, 2, 3, 4))
        results = []
        for m in modules[:4] + modules[5:]:
            y = m(x)
            results.append((y, D.graph(y), _saved(y.grad_fn)))
        return [repr(m) for m in modules], results, repr(nn.Sequential(*modules[:2]))
    run(prog)


# ---- instance norm --------------------------------------------------------------------------
# (read by name: teachgrad's batch norm node does not list the fields it holds as None)
BATCH_NORM_FIELDS = ["_saved_eps", "_saved_input", "_saved_result1", "_saved_result2",
                     "_saved_running_mean", "_saved_running_var", "_saved_training",
                     "_saved_weight"]


@pytest.mark.parametrize("shape", [(2, 3, 5), (2, 3, 4, 5)])
@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("running", [True, False])
def test_instance_norm_is_batch_norm_of_a_reshaped_input(shape, affine, running):
    def prog(tg):
        x = _input(tg, shape)
        w = _input(tg, (3,), seed=2) if affine else None
        b = _input(tg, (3,), seed=3) if affine else None
        mean = tg.tensor(D.data((3,), seed=4)) if running else None
        var = tg.tensor(D.data((3,), seed=5, lo=0.5, hi=2.0)) if running else None
        y = tg.nn.functional.instance_norm(x, mean, var, w, b, momentum=0.2)
        norm = y.grad_fn.next_functions[0][0]
        saved = (_saved(y.grad_fn), _saved(norm, BATCH_NORM_FIELDS),
                 [_saved(n) for n, _ in norm.next_functions if n])
        inputs = tuple(t for t in (x, w, b) if t is not None)
        return _report(tg, y, inputs, saved=False), saved, mean, var
    run(prog, rtol=1e-4, atol=1e-4)


def test_instance_norm_with_the_running_statistics_and_the_top_level_function():
    def prog(tg):
        x, w = _input(tg, (2, 3, 4)), _input(tg, (3,), seed=2)
        mean, var = tg.tensor(D.data((3,), seed=4)), tg.tensor(D.data((3,), seed=5, lo=0.5))
        y = tg.nn.functional.instance_norm(x, mean, var, w, use_input_stats=False)
        top = tg.instance_norm(x, w, None, None, None, True, 0.1, 1e-5, False)
        saved = _saved(y.grad_fn.next_functions[0][0], BATCH_NORM_FIELDS)
        return _report(tg, y, (x, w), saved=False), saved, D.graph(top), top, mean, var
    run(prog, rtol=1e-4, atol=1e-4)


def test_instance_norm_of_a_non_contiguous_input_goes_through_a_copy():
    def prog(tg):
        x = _input(tg, (3, 2, 5))
        y = tg.nn.functional.instance_norm(x.transpose(0, 1))
        return y, D.graph(y)
    run(prog, rtol=1e-4, atol=1e-5)


INSTANCE_NORM_ERRORS = [
    (lambda F, tg: F.instance_norm(tg.ones(2, 3, 1)), "ValueError"),
    (lambda F, tg: F.instance_norm(tg.ones(2, 3, 1, 1)), "ValueError"),
    (lambda F, tg: F.instance_norm(tg.ones(2, 3)), "ValueError"),
    (lambda F, tg: F.instance_norm(tg.ones(2, 3, 4), use_input_stats=False), "RuntimeError"),
    (lambda F, tg: F.instance_norm(tg.ones(2, 3, 4), tg.ones(4), tg.ones(4)), "RuntimeError"),
    (lambda F, tg: F.instance_norm(tg.ones(2, 3, 4), weight=tg.ones(4)), "RuntimeError"),
    (lambda F, tg: F.instance_norm(tg.ones(2, 3, 4), bias=tg.ones(4)), "RuntimeError"),
    (lambda F, tg: F.instance_norm(tg.ones(2, 3, 4, dtype=tg.int64)), "NotImplementedError"),
    (lambda F, tg: F.batch_norm(tg.ones(2, 3, 4), tg.ones(3), tg.ones(3), weight=tg.ones(4),
                                training=True), "RuntimeError"),
    (lambda F, tg: F.batch_norm(tg.ones(2, 3, 4), tg.ones(3), tg.ones(4), training=True),
     "RuntimeError"),
    (lambda F, tg: tg.nn.InstanceNorm1d(3)(tg.ones(2, 3, 4, 5)), "ValueError"),
    (lambda F, tg: tg.nn.InstanceNorm2d(3)(tg.ones(2, 3)), "ValueError"),
    (lambda F, tg: tg.nn.InstanceNorm2d(3, affine=True)(tg.ones(2, 4, 4, 4)), "ValueError"),
    (lambda F, tg: tg.nn.InstanceNorm1d(3, affine=True)(tg.ones(4, 4)), "ValueError"),
]


@pytest.mark.parametrize("call,error", INSTANCE_NORM_ERRORS)
def test_instance_norm_errors(call, error):
    run(lambda tg: call(tg.nn.functional, tg), raises=error)


@pytest.mark.parametrize("make,shape", [
    (lambda nn: nn.InstanceNorm2d(3), (2, 4, 4, 4)),     # affine=False: only a warning
    (lambda nn: nn.InstanceNorm1d(3), (4, 5)),            # unbatched: dim 0 is the channels'
])
def test_instance_norm_warns_when_the_channels_differ_from_num_features(make, shape):
    def prog(tg):
        y = make(tg.nn)(_input(tg, shape))
        return y, D.graph(y)
    run(prog, rtol=1e-4, atol=1e-5, warn=("UserWarning", "input's size at dim="))


@pytest.mark.parametrize("kwargs", [dict(), dict(affine=True), dict(track_running_stats=True),
                                    dict(affine=True, track_running_stats=True, momentum=None),
                                    dict(affine=True, bias=False, eps=1e-3)])
@pytest.mark.parametrize("name,shape", [("InstanceNorm1d", (2, 3, 5)),
                                        ("InstanceNorm1d", (3, 5)),
                                        ("InstanceNorm2d", (2, 3, 4, 5)),
                                        ("InstanceNorm2d", (3, 4, 5))])
def test_instance_norm_modules_in_training_and_evaluation(name, shape, kwargs):
    def prog(tg):
        m = getattr(tg.nn, name)(3, **kwargs)
        x = _input(tg, shape)
        train = m(x)
        train2 = m(x * 2)
        m.eval()
        evaluated = m(x)
        inputs = (x,) + tuple(p for p in m.parameters())
        return (repr(m), dict(m.named_parameters()), dict(m.named_buffers()),
                _report(tg, train, inputs, saved=False), D.graph(train2), D.graph(evaluated),
                evaluated, list(m.state_dict()))
    run(prog, rtol=1e-4, atol=1e-4)
