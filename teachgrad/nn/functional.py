"""``teachgrad.nn.functional``: layers and losses as plain functions, as ``torch.nn.functional``.

Each function checks its arguments first, raising PyTorch's errors before
anything is computed, then calls one primitive of ``teachgrad/ops/nn_ops.py``
or composes existing operations (``l1_loss`` is ``(input - target).abs().mean()``,
``cross_entropy`` is ``nll_loss(log_softmax(input))``).
"""
import warnings

import numpy as np

from teachgrad import dtypes, random
from teachgrad.autograd import grad_mode
from teachgrad.ops import linalg, nn_ops, pointwise, reduction, shape
from teachgrad.ops.nn_ops import (BinaryCrossEntropyBackward0,
                                  BinaryCrossEntropyWithLogitsBackward0, ConvolutionBackward0,
                                  MaxPool2DWithIndicesBackward0, NllLoss2DBackward0,
                                  NllLossBackward0)
from teachgrad.tensor import Tensor


def _pair(value):
    return (value, value) if isinstance(value, int) else tuple(value)


def _type_name(tensor):
    """PyTorch's short name of a dtype in messages: "Float", "Double", "Long"."""
    return tensor.dtype.short_name


def _constant(array):
    """A tensor that needs no gradient, standing in for an argument left out (a bias of None)."""
    return Tensor._make(array)


# ---- linear layers ---------------------------------------------------------------------
def linear(input, weight, bias=None):
    """input @ weight.T + bias. With a bias, the rows of input go through one addmm
    (AddmmBackward0, as in PyTorch); without, it is a matmul."""
    if input.ndim == 0 or weight.ndim == 0:
        raise RuntimeError(f"both arguments to linear need to be at least 1D, but they are "
                           f"{input.ndim}D and {weight.ndim}D")
    if bias is None:
        return linalg.matmul(input, weight.t())
    if input.ndim == 2:
        return linalg.addmm(bias, input, weight.t())
    rows = input.reshape(-1, input.shape[-1])
    return linalg.addmm(bias, rows, weight.t()).view(*input.shape[:-1], weight.shape[0])


def _check_window_args(stride, padding, dilation, output_padding=()):
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(p < 0 for p in output_padding):
        raise RuntimeError("negative output_padding is not supported")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError("non-positive dilation is not supported")


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """A 1-d convolution of (N, C, L) or (C, L) input with (O, C, K) weight."""
    return _convolution(input, weight, bias, stride, padding, dilation, groups, 1)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """A 2-d convolution of (N, C, H, W) or (C, H, W) input with (O, C, KH, KW) weight."""
    return _convolution(input, weight, bias, stride, padding, dilation, groups, 2)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """The transpose of conv1d, of (N, C, L) or (C, L) input with (C, O, K) weight: the
    gradient of a convolution with respect to its input (it makes sequences longer)."""
    return _convolution(input, weight, bias, stride, padding, dilation, groups, 1,
                        output_padding)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """The transpose of conv2d, of (N, C, H, W) or (C, H, W) input with (C, O, KH, KW)
    weight: each input pixel spreads the kernel over the output (it makes images larger).
    ``output_padding`` adds rows and columns at the bottom and right, to pick one of the
    output sizes that a stride-``stride`` convolution would bring back to the input's."""
    return _convolution(input, weight, bias, stride, padding, dilation, groups, 2,
                        output_padding)


def _convolution(input, weight, bias, stride, padding, dilation, groups, dims,
                 output_padding=None):
    """conv1d (``dims`` = 1) or conv2d, or with an ``output_padding`` their transposes:
    PyTorch's checks, in its order, then one ConvolutionBackward0 node (an unbatched input
    is unsqueezed, and squeezed after)."""
    transposed = output_padding is not None
    name = f"conv_transpose{dims}d" if transposed else f"conv{dims}d"
    if groups != 1:
        raise NotImplementedError(f"teachgrad's {name} supports groups=1 only")
    if input.ndim not in (dims + 1, dims + 2):
        raise RuntimeError(f"Expected {dims + 1}D (unbatched) or {dims + 2}D (batched) input to "
                           f"{name}, but got input of size: {list(input.shape)}")
    if input.ndim == dims + 1:
        return _convolution(input.unsqueeze(0), weight, bias, stride, padding, dilation, groups,
                            dims, output_padding).squeeze(0)
    if weight.ndim < 3:
        raise RuntimeError("weight should have at least three dimensions")
    stride, dilation = _tuple(stride, dims), _tuple(dilation, dims)
    if transposed and isinstance(padding, str):
        raise TypeError(f"{name}(): argument 'padding' must be tuple of ints, not str")
    padding = _padding_of(padding, weight.shape[2:], stride, dilation)
    kernel_dims = weight.ndim - 2
    stride, padding, dilation = (_expanded(value, label, kernel_dims) for value, label in
                                 ((stride, "stride"), (padding, "padding"),
                                  (dilation, "dilation")))
    if transposed:
        output_padding = _expanded(_tuple(output_padding, dims), "output_padding", kernel_dims)
    if weight.ndim != input.ndim:
        raise RuntimeError(f"Expected {weight.ndim}-dimensional input for {weight.ndim}-"
                           f"dimensional weight {list(weight.shape)}, but got {input.ndim}-"
                           f"dimensional input of size {list(input.shape)} instead")
    if transposed:      # (its dilation is checked with its shapes)
        _check_window_args(stride, padding, (), output_padding)
        out_channels = _check_transposed_convolution(input, weight, bias, stride, padding,
                                                     dilation, output_padding)
    else:
        _check_window_args(stride, padding, dilation)
        out_channels = _check_convolution(input, weight, bias, padding, dilation)
    bias_sizes = (0,) if bias is None else (out_channels,)     # (PyTorch's _saved_ record)
    if bias is None:
        bias = _constant(np.zeros(out_channels, dtype=weight._data.dtype))
    return ConvolutionBackward0.apply(input, weight, bias, stride=stride, padding=padding,
                                      dilation=dilation, bias_sizes=bias_sizes,
                                      transposed=transposed,
                                      output_padding=output_padding or (0,) * dims)


def _check_convolution(input, weight, bias, padding, dilation):
    """The checks of a convolution's tensors; return its number of output channels."""
    _check_convolution_types(input, weight, bias)
    out_channels, in_channels = weight.shape[:2]
    if input.shape[1] != in_channels:
        raise RuntimeError(f"Given groups=1, weight of size {list(weight.shape)}, expected "
                           f"input{list(input.shape)} to have {in_channels} channels, but got "
                           f"{input.shape[1]} channels instead")
    if bias is not None and bias.shape != (out_channels,):
        raise RuntimeError(f"Given weight of size {list(weight.shape)}, expected bias to be "
                           f"1-dimensional with {out_channels} elements, but got bias of size "
                           f"{list(bias.shape)} instead")
    padded = [size + 2 * p for size, p in zip(input.shape[2:], padding)]
    kernel = [d * (k - 1) + 1 for k, d in zip(weight.shape[2:], dilation)]
    if any(k > size for k, size in zip(kernel, padded)):
        raise RuntimeError(f"Calculated padded input size per channel: "
                           f"({' x '.join(map(str, padded))}). Kernel size: "
                           f"({' x '.join(map(str, kernel))}). Kernel size can't be greater "
                           "than actual input size")
    return out_channels


def _check_transposed_convolution(input, weight, bias, stride, padding, dilation,
                                  output_padding):
    """The checks of a transposed convolution, in PyTorch's order (the shapes before the
    types, unlike a convolution's); return its number of output channels."""
    in_channels, out_channels = weight.shape[:2]
    if input.shape[1] != in_channels:
        raise RuntimeError(f"Given transposed=1, weight of size {list(weight.shape)}, expected "
                           f"input{list(input.shape)} to have {in_channels} channels, but got "
                           f"{input.shape[1]} channels instead")
    if bias is not None and bias.shape != (out_channels,):
        raise RuntimeError(f"Given transposed=1, weight of size {list(weight.shape)}, expected "
                           f"bias to be 1-dimensional with {out_channels} elements, but got "
                           f"bias of size {list(bias.shape)} instead")
    if 0 in input.shape[2:]:
        raise RuntimeError(f"Only zero batch or zero channel inputs are supported, but got "
                           f"input shape: {list(input.shape)}")
    if any(d <= 0 for d in dilation):
        dilation_h, dilation_w = _as_image(dilation)
        raise RuntimeError(f"dilation should be greater than zero, but got dilation_height: "
                           f"{dilation_h}, dilation_width: {dilation_w}")
    if any(extra >= s and extra >= d for extra, s, d in zip(output_padding, stride, dilation)):
        (extra_h, extra_w), (stride_h, stride_w), (dilation_h, dilation_w) = (
            _as_image(output_padding, 0), _as_image(stride), _as_image(dilation))
        raise RuntimeError(f"output padding must be smaller than either stride or dilation, but "
                           f"got output_padding_height: {extra_h} output_padding_width: "
                           f"{extra_w} stride_height: {stride_h} stride_width: {stride_w} "
                           f"dilation_height: {dilation_h} dilation_width: {dilation_w}")
    _check_convolution_types(input, weight, None)
    if bias is not None and bias.dtype is not input.dtype:
        raise RuntimeError(f"Input type ({input.type()}) and bias type ({bias.type()}) should be "
                           "the same or input should be a MKLDNN tensor and bias is a dense "
                           "tensor")
    out = nn_ops.transposed_output_shape(input.shape[2:], output_padding, weight.shape[2:],
                                         dilation, padding, stride)
    if min(out) < 0:
        (height, width), (out_h, out_w) = _as_image(input.shape[2:]), _as_image(out)
        raise RuntimeError(f"Given input size per channel: ({height} x {width}). Calculated "
                           f"output size per channel: ({out_h} x {out_w}). Output size is too "
                           "small")
    return out_channels


def _as_image(values, height=1):
    """A pair (height, width): 1-d sizes are those of images one row high, as in PyTorch's
    messages."""
    return (height, *values) if len(values) == 1 else tuple(values)


def _tuple(value, dims):
    return (value,) * dims if isinstance(value, int) else tuple(value)


def _expanded(value, name, dims):
    """One value stands for all ``dims`` dimensions; otherwise there must be one each."""
    if len(value) == 1:
        return value * dims
    if len(value) != dims:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of {dims} "
                           f"values to match the convolution dimensions, but got "
                           f"{name}={list(value)}")
    return value


def _check_convolution_types(input, weight, bias):
    if weight.dtype is not input.dtype:
        if input.dtype is dtypes.float32 and weight.dtype is dtypes.float64:
            raise RuntimeError("Input type (teachgrad.FloatTensor) and weight type "
                               "(teachgrad.DoubleTensor) should be the same or input should be "
                               "a MKLDNN tensor and weight is a dense tensor")
        raise RuntimeError(f"expected scalar type {_type_name(input)} but found "
                           f"{_type_name(weight)}")
    if bias is not None and bias.dtype is not input.dtype:
        raise RuntimeError(f"Input type ({_type_name(input).lower()}) and bias type "
                           f"({_type_name(bias).lower()}) should be the same")


def _padding_of(padding, kernel_size, stride, dilation):
    """Padding as a tuple; "valid" is none, "same" keeps the image size (stride 1)."""
    if not isinstance(padding, str):
        return _tuple(padding, len(stride))
    if padding not in ("same", "valid"):
        raise RuntimeError(f"Invalid padding string: '{padding}'")
    if padding == "valid":
        return (0,) * len(stride)
    if any(s != 1 for s in stride):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    totals = [d * (k - 1) for k, d in zip(kernel_size, dilation)]
    if any(total % 2 for total in totals):
        raise NotImplementedError("teachgrad supports padding='same' only when it is the same "
                                  "on both sides (odd kernel sizes)")
    return tuple(total // 2 for total in totals)


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """Every window of a (N, C, H, W) image as a column: (N, C * KH * KW, number of windows)."""
    return nn_ops.unfold(input, _pair(kernel_size), _pair(dilation), _pair(padding), _pair(stride))


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """The adjoint of unfold: columns added back into (N, C, H, W) images."""
    return nn_ops.fold(input, _pair(output_size), _pair(kernel_size), _pair(dilation),
                       _pair(padding), _pair(stride))


# ---- pooling ------------------------------------------------------------------------
def _pool_geometry(input, kernel_size, stride, padding, dilation, ceil_mode):
    """Check a pooling call as PyTorch does; return the geometry as pairs."""
    if ceil_mode:
        raise NotImplementedError("teachgrad's pooling supports ceil_mode=False only")
    if input.ndim not in (3, 4) or input.numel() == 0:
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    kernel_size = _pair(kernel_size)
    stride = kernel_size if stride is None or stride == [] else _pair(stride)
    padding, dilation = _pair(padding), _pair(dilation)
    for k, p, d in zip(kernel_size, padding, dilation):
        if p > (d * (k - 1) + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                               f"pad={p}, kernel_size={k} and dilation={d}")
    out = nn_ops.output_shape(input.shape[-2:], kernel_size, stride, padding, dilation)
    if min(out) < 1:
        channels, height, width = input.shape[-3:]
        raise RuntimeError(f"Given input size: ({channels}x{height}x{width}). Calculated output "
                           f"size: ({channels}x{out[0]}x{out[1]}). Output size is too small")
    return dict(kernel_size=kernel_size, stride=stride, padding=padding, dilation=dilation)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """The largest value of each window. With ``return_indices``, also where each one was,
    as an index into the flattened H * W plane of the input."""
    geometry = _pool_geometry(input, kernel_size, stride, padding, dilation, ceil_mode)
    return MaxPool2DWithIndicesBackward0.apply(input, return_indices=return_indices, **geometry)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """The mean of each window (with ``count_include_pad``, the padding counts as zeros)."""
    geometry = _pool_geometry(input, kernel_size, stride, padding, 1, ceil_mode)
    del geometry["dilation"]
    return nn_ops.AvgPool2DBackward0.apply(input, count_include_pad=count_include_pad,
                                           divisor_override=divisor_override, **geometry)


def _single(value):
    return value[0] if isinstance(value, (tuple, list)) else value


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """Max pooling along the last dimension. As in PyTorch, it is max_pool2d of images one
    row high: unsqueeze(-2), MaxPool2DWithIndicesBackward0, squeeze(-2)."""
    if input.ndim not in (2, 3) or 0 in input.shape[1:]:
        raise RuntimeError(f"max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 "
                           f"dim batch size for input, but got:{list(input.shape)}")
    kernel_size, padding, dilation = _single(kernel_size), _single(padding), _single(dilation)
    stride = kernel_size if stride is None or stride == [] else _single(stride)
    for name, value, ok in (("kernel_size", kernel_size, kernel_size > 0),
                            ("stride", stride, stride > 0)):
        if not ok:
            raise RuntimeError(f"max_pool1d() {name} must be greater than zero, but got {value}")
    if padding < 0:
        raise RuntimeError(f"max_pool1d() padding must be non-negative, but got {padding}")
    if padding > kernel_size // 2:
        raise RuntimeError(f"max_pool1d() padding should be at most half of kernel size, but "
                           f"got padding={padding} and kernel_size={kernel_size}")
    if dilation <= 0:
        raise RuntimeError(f"max_pool1d() dilation must be greater than zero, but got {dilation}")
    (length,) = nn_ops.output_shape(input.shape[-1:], (kernel_size,), (stride,), (padding,),
                                    (dilation,))
    if length <= 0:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {length}")
    pooled = max_pool2d(input.unsqueeze(-2), (1, kernel_size), (1, stride), (0, padding),
                        (1, dilation), ceil_mode, return_indices)
    if return_indices:
        return pooled[0].squeeze(-2), pooled[1].squeeze(-2)
    return pooled.squeeze(-2)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    """Average pooling along the last dimension: avg_pool2d of images one row high."""
    if input.ndim not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor "
                           f"for argument #1 'self' (while checking arguments for avg_pool1d)")
    kernel_size, padding = _single(kernel_size), _single(padding)
    stride = kernel_size if stride is None or stride == [] else _single(stride)
    if stride == 0:
        raise RuntimeError("stride should not be zero")
    pooled = avg_pool2d(input.unsqueeze(-2), (1, kernel_size), (1, stride), (0, padding),
                        ceil_mode, count_include_pad)
    return pooled.squeeze(-2)


def _adaptive_output_size(input, output_size, error):
    """The output size as a pair, a None standing for the input's own size."""
    size = _pair(output_size)
    if len(size) != 2:
        raise RuntimeError(error)
    return tuple(input.shape[-2 + i] if s is None else s for i, s in enumerate(size))


def _check_adaptive_input(input, name, first_checked_dim):
    """PyTorch's checks of an adaptive pooling input: 3-d or 4-d, floating point, no empty
    dimension from ``first_checked_dim`` on."""
    if input.ndim not in (3, 4):
        separator = ": " if "max" in name else " "
        raise RuntimeError(f"{name} Expected 3D or 4D tensor, but got{separator}"
                           f"{list(input.shape)}")
    for dim in range(first_checked_dim(input.ndim), input.ndim):
        if input.shape[dim] == 0:
            raise RuntimeError(f"{name} Expected input to have non-zero size for non-batch "
                               f"dimensions, but input has sizes {list(input.shape)} with "
                               f"dimension {dim} being empty")


def adaptive_avg_pool2d(input, output_size):
    """The mean of each of output_size windows, chosen to cover the image as evenly as
    possible. An output of 1 x 1 is the mean over the image (MeanBackward1, as in PyTorch)."""
    output_size = _adaptive_output_size(input, output_size,
                                        "adaptive_avg_pool2d: output_size must be 2")
    if min(output_size) < 0:
        raise RuntimeError(f"adaptive_avg_pool2d: elements of output_size must be greater than "
                           f"or equal to 0 but received {{{output_size[0]}, {output_size[1]}}}")
    if output_size == (1, 1):
        return input.mean((-1, -2), keepdim=True)
    _check_adaptive_input(input, "adaptive_avg_pool2d():", lambda ndim: ndim - 2)
    _check_floating(input, "adaptive_avg_pool2d")
    return nn_ops.AdaptiveAvgPool2DBackward0.apply(input, output_size=output_size)


def _check_floating(input, kernel_name):
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"{kernel_name}\" not implemented for '{_type_name(input)}'")


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """The largest value of each adaptive window (see adaptive_avg_pool2d); with
    ``return_indices``, also where each one was in the flattened H * W plane."""
    _check_adaptive_input(input, "adaptive_max_pool2d():", lambda ndim: 1)
    output_size = _adaptive_output_size(
        input, output_size, "adaptive_max_pool2d(): internal error: output_size.size() must be 2")
    if min(output_size) < 0:
        shape = list(input.shape[:-2]) + list(output_size)
        raise RuntimeError(f"Trying to create tensor with negative dimension "
                           f"{min(output_size)}: {shape}")
    _check_floating(input, "adaptive_max_pool2d")
    return nn_ops.AdaptiveMaxPool2DBackward0.apply(input, output_size=output_size,
                                                   return_indices=return_indices)


def _one_row(input, output_size, name):
    """The checks of a 1-d adaptive pooling: (N, C, L) or (C, L) input, one output size.
    PyTorch then pools images one row high: unsqueeze(-2), the 2-d op, squeeze(-2)."""
    if input.ndim not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional "
                           f"tensor for argument #1 'self' (while checking arguments for {name})")
    if isinstance(output_size, float):
        raise TypeError(f"{name}(): argument 'output_size' (position 2) must be tuple of ints, "
                        f"not float")
    size = (output_size,) if isinstance(output_size, int) else tuple(output_size)
    if len(size) != 1:
        raise RuntimeError(f"{name}() argument 'output_size' should contain one int "
                           f"(got {len(size)})")
    return input.unsqueeze(-2), (1, size[0])


def adaptive_avg_pool1d(input, output_size):
    """The mean of each of output_size windows along the last dimension."""
    rows, output_size = _one_row(input, output_size, "adaptive_avg_pool1d")
    return adaptive_avg_pool2d(rows, output_size).squeeze(-2)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """The largest value of each of output_size windows along the last dimension."""
    rows, output_size = _one_row(input, output_size, "adaptive_max_pool1d")
    for dim in range(1, input.ndim):
        if input.shape[dim] == 0:
            raise RuntimeError(f"adaptive_max_pool1d(): Expected input to have non-zero size "
                               f"for non-batch dimensions, but input has sizes "
                               f"{list(input.shape)} with dimension {dim} being empty")
    pooled = adaptive_max_pool2d(rows, output_size, return_indices)
    if return_indices:
        return pooled[0].squeeze(-2), pooled[1].squeeze(-2)
    return pooled.squeeze(-2)


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    """adaptive_max_pool1d's values and indices, always both (``torch.adaptive_max_pool1d``)."""
    return adaptive_max_pool1d(input, output_size, return_indices=True)


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """max_pool1d's values and indices, always both."""
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode,
                      return_indices=True)


# ---- upsampling --------------------------------------------------------------------------
_UPSAMPLING_NODES = {"nearest": nn_ops.UpsampleNearest2DBackward0,
                     "nearest-exact": nn_ops.UpsampleNearestExact2DBackward0,
                     "bilinear": nn_ops.UpsampleBilinear2DBackward0}


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resize (N, C, H, W) images to ``size``, or by ``scale_factor``: "nearest" copies the
    pixel each output place falls in, "bilinear" mixes the four around it. PyTorch's checks
    in its order, then one node."""
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating "
                             "modes: linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    output_size, scales = _interpolation_sizes(input, size, scale_factor)
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if recompute_scale_factor:      # the scales are then the sizes' ratios
        output_size = [int(length * scale) for length, scale in zip(input.shape[2:], scales)]
        scales = None
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.ndim == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos "
                         "modes and requires a 4-D tensor as input")
    _check_interpolation_mode(input, mode, antialias)
    if output_size is None:
        output_size = [int(length * scale) for length, scale in zip(input.shape[2:], scales)]
    (height, width), (out_h, out_w) = input.shape[2:], output_size
    if min(height, width, out_h, out_w) <= 0:
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input "
                           f"(H: {height}, W: {width}) output (H: {out_h}, W: {out_w})")
    if input.numel() == 0:
        raise RuntimeError(f"Non-empty 4D data tensor expected but got a tensor with sizes "
                           f"{list(input.shape)}")
    node = _UPSAMPLING_NODES[mode]
    kernel = "upsample_bilinear2d" if mode == "bilinear" else "upsample_nearest2d"
    _check_floating(input, f"{kernel}_channels_last")
    return node.apply(input, output_size=tuple(output_size),
                      scales=(None, None) if scales is None else tuple(map(float, scales)),
                      align_corners=align_corners if mode == "bilinear" else None)


def _interpolation_sizes(input, size, scale_factor):
    """Exactly one of ``size`` and ``scale_factor``, as one value per spatial dimension:
    (output_size, None) or (None, scales)."""
    dims = input.ndim - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        if not isinstance(size, (list, tuple)):
            return [size] * dims, None
        if len(size) != dims:
            raise ValueError(f"Input and output must have the same number of spatial "
                             f"dimensions, but got input with spatial dimensions of "
                             f"{list(input.shape[2:])} and output size of {size}. Please "
                             f"provide input tensor in (N, C, d1, d2, ...,dK) format and output "
                             f"size in (o1, o2, ...,oK) format.")
        if not all(isinstance(length, int) for length in size):
            raise TypeError(f"expected size to be one of int or Tuple[int] or Tuple[int, int] "
                            f"or Tuple[int, int, int], but got size with types "
                            f"{[type(length) for length in size]}")
        return list(size), None
    if scale_factor is None:
        raise ValueError("either size or scale_factor should be defined")
    if not isinstance(scale_factor, (list, tuple)):
        return None, [scale_factor] * dims
    if len(scale_factor) != dims:
        raise ValueError(f"Input and scale_factor must have the same number of spatial "
                         f"dimensions, but got input with spatial dimensions of "
                         f"{list(input.shape[2:])} and scale_factor of shape {scale_factor}. "
                         f"Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                         f"scale_factor in (s1, s2, ...,sK) format.")
    return None, list(scale_factor)


def _check_interpolation_mode(input, mode, antialias):
    """PyTorch's errors for a mode that does not fit the input's dimensions; teachgrad's
    for what PyTorch has and teachgrad has not."""
    dims_of = {"linear": (3,), "bilinear": (4,), "bicubic": (4,), "lanczos": (4,),
               "trilinear": (5,), "nearest": (3, 4, 5), "nearest-exact": (3, 4, 5),
               "area": (3, 4, 5)}
    if input.ndim not in dims_of.get(mode, ()):
        if mode in ("linear", "bilinear", "trilinear") and input.ndim in (3, 4, 5):
            raise NotImplementedError(f"Got {input.ndim}D input, but {mode} mode needs "
                                      f"{dims_of[mode][0]}D input")
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported "
                                  f"(got {input.ndim}D) for the modes: nearest | linear | "
                                  f"bilinear | bicubic | trilinear | lanczos | area | "
                                  f"nearest-exact (got {mode})")
    if mode not in _UPSAMPLING_NODES or input.ndim != 4 or antialias:
        raise NotImplementedError(f"teachgrad's interpolate supports 4-d inputs in modes "
                                  f"nearest, nearest-exact and bilinear (without antialias) "
                                  f"only (got {input.ndim}D input, mode {mode})")


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` "
                  "instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# ---- activations ---------------------------------------------------------------------
def relu(input, inplace=False):
    return input.relu_() if inplace else pointwise.relu(input)


def relu_(input):
    return input.relu_()


def leaky_relu(input, negative_slope=0.01, inplace=False):
    if inplace:
        return nn_ops.LeakyReluBackward1.apply_inplace(input, negative_slope=negative_slope)
    return nn_ops.LeakyReluBackward0.apply(input, negative_slope=negative_slope)


def leaky_relu_(input, negative_slope=0.01):
    return leaky_relu(input, negative_slope, inplace=True)


def softplus(input, beta=1.0, threshold=20.0):
    return nn_ops.SoftplusBackward0.apply(input, beta=beta, threshold=threshold)


def silu(input, inplace=False):
    if inplace:
        return nn_ops.SiluBackward0.apply_inplace(input)
    return nn_ops.SiluBackward0.apply(input)


def gelu(input, approximate="none"):
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    return nn_ops.GeluBackward0.apply(input, approximate=approximate)


def sigmoid(input):
    return pointwise.sigmoid(input)


def tanh(input):
    return pointwise.tanh(input)


def _softmax_dim(name, ndim, dim):
    """PyTorch's old rule when no dim is given (with its warning)."""
    if dim is not None:
        return dim
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call "
                  "to include dim=X as an argument.", UserWarning, stacklevel=3)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, dtype=None):
    return reduction.softmax(input, _softmax_dim("softmax", input.ndim, dim), dtype=dtype)


def log_softmax(input, dim=None, dtype=None):
    return reduction.log_softmax(input, _softmax_dim("log_softmax", input.ndim, dim), dtype=dtype)


def softmin(input, dim=None, dtype=None):
    """softmax(-input): the smallest values get the largest weights."""
    return reduction.softmax(-input, _softmax_dim("softmin", input.ndim, dim), dtype=dtype)


def dropout(input, p=0.5, training=True, inplace=False):
    """Zero each element with probability p and scale the rest by 1 / (1 - p).

    The mask is drawn as PyTorch draws it (a Bernoulli(1 - p) sample), so it is
    the same after the same ``manual_seed``. With p = 0 or outside training the
    input itself is returned.
    """
    _check_dropout_probability(p)
    return _drop(input, p, training, inplace, input.shape)


def _check_dropout_probability(p):
    if not 0 <= p <= 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _drop(input, p, training, inplace, mask_shape):
    """Multiply ``input`` by a mask of 0 and 1 / (1 - p) shaped ``mask_shape`` (broadcast)."""
    if p == 0 or not training or input.numel() == 0:
        return input
    dtype = input._data.dtype
    if p == 1:
        mask = np.zeros((), dtype=dtype)
    else:
        mask = _bernoulli_like(input._data, mask_shape, 1 - p) / dtype.type(1 - p)
    mask = _constant(mask)
    return input.mul_(mask) if inplace else input * mask


def _bernoulli_like(array, shape, p):
    """PyTorch's ``empty_like(input).bernoulli_(p)``: the draws fill memory in order, and
    a transposed input's mask has the input's layout (a batch-first attention output, say),
    so the draws are laid out along its axes as they sit in memory."""
    axes = _memory_order(array) if tuple(shape) == array.shape else None
    if axes is None:
        return random.bernoulli(shape, p, dtype=array.dtype)
    drawn = random.bernoulli(tuple(array.shape[axis] for axis in axes), p, dtype=array.dtype)
    return drawn.transpose(np.argsort(axes))


def _memory_order(array):
    """The axes of ``array`` from outermost to innermost in memory when it is a dense block
    laid out in another order than its own (a transpose), else None."""
    if array.flags.c_contiguous or array.ndim < 2:
        return None
    axes = sorted(range(array.ndim), key=lambda axis: -array.strides[axis])
    step = array.itemsize
    for axis in reversed(axes):
        if array.shape[axis] > 1 and array.strides[axis] != step:
            return None
        step *= array.shape[axis]
    return axes


def _feature_dropout(input, p, training, inplace):
    """Zero whole channels: one draw per (sample, channel), PyTorch's feature_dropout."""
    return _drop(input, p, training, inplace, input.shape[:2] + (1,) * (input.ndim - 2))


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zero each channel of (N, C, L) or (C, L) input with probability p (and scale the
    rest by 1 / (1 - p))."""
    _check_dropout_probability(p)
    if input.ndim not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {input.ndim}D "
                           "input. Note that dropout1d exists to provide channel-wise dropout "
                           "on inputs with 1 spatial dimension, a channel dimension, and an "
                           "optional batch dimension (i.e. 2D or 3D inputs).")
    if input.ndim == 3:
        return _feature_dropout(input, p, training, inplace)
    batched = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    result = _feature_dropout(batched, p, training, inplace)
    return result.squeeze_(0) if inplace else result.squeeze(0)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zero each channel of (N, C, H, W) input with probability p, with PyTorch's warnings
    for other shapes (a 3-d input is taken as (N, C, L))."""
    _check_dropout_probability(p)
    if input.ndim not in (3, 4):
        warnings.warn(f"dropout2d: Received a {input.ndim}-D input to dropout2d, which is "
                      "deprecated and will result in an error in a future release. To retain "
                      "the behavior and silence this warning, please use dropout instead. Note "
                      "that dropout2d exists to provide channel-wise dropout on inputs with 2 "
                      "spatial dimensions, a channel dimension, and an optional batch dimension "
                      "(i.e. 3D or 4D inputs).", UserWarning, stacklevel=2)
    if input.ndim == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that "
                      "channel-wise 1D dropout behavior is desired - input is interpreted as "
                      "shape (N, C, L), where C is the channel dim. This behavior will change "
                      "in a future release to interpret the input as one without a batch "
                      "dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise dropout "
                      "behavior, please switch to using dropout1d instead.", UserWarning,
                      stacklevel=2)
    return _feature_dropout(input, p, training, inplace)


# ---- normalisation, embedding, padding ----------------------------------------------
def check_batch_norm_input(input, running_mean, training, running_var=None, weight=None,
                           bias=None):
    """PyTorch's checks of a batch norm call (made after the module counted the batch)."""
    channels = input.shape[1] if input.ndim > 1 else 1
    if training and input.numel() // channels == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input "
                         f"size {input.shape}")
    if running_mean is None and not training:
        raise RuntimeError("running_mean must be defined in evaluation mode")
    for name, tensor in (("running_mean", running_mean), ("running_var", running_var),
                         ("weight", weight), ("bias", bias)):
        if tensor is not None and tensor.numel() != channels:
            raise RuntimeError(f"{name} should contain {channels} elements not "
                               f"{tensor.numel()}")


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """Normalise each channel (dim 1) with the batch's statistics (training) or the running
    ones; in training the running statistics are updated in place."""
    check_batch_norm_input(input, running_mean, training, running_var, weight, bias)
    _check_floating(input, "batch_norm")
    channels, dtype = input.shape[1], input._data.dtype
    affine = weight is not None
    weight = _constant(np.ones(channels, dtype=dtype)) if weight is None else weight
    bias = _constant(np.zeros(channels, dtype=dtype)) if bias is None else bias
    return nn_ops.NativeBatchNormBackward0.apply(
        input, weight, bias, training=training, momentum=momentum, eps=eps,
        running_mean=running_mean, running_var=running_var, affine=affine)


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-5):
    """Normalise each channel of each sample on its own, over its spatial positions.

    As in PyTorch, it is batch norm of a batch of one whose channels are all the
    (sample, channel) pairs: the input viewed as (1, N * C, ...), the per-channel tensors
    repeated N times. The running statistics, if any, become the mean over the samples.
    """
    if use_input_stats and int(np.prod(input.shape[2:])) == 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size "
                         f"{input.shape}")
    return aten_instance_norm(input, weight, bias, running_mean, running_var, use_input_stats,
                              momentum, eps)


def aten_instance_norm(input, weight, bias, running_mean, running_var, use_input_stats,
                       momentum, eps, cudnn_enabled=False):
    """``torch.instance_norm``: its arguments in another order, without the check of the
    spatial size (``cudnn_enabled`` is PyTorch's, and has no effect here)."""
    if not use_input_stats and (running_mean is None or running_var is None):
        raise RuntimeError("Expected running_mean and running_var to be defined when "
                           "use_input_stats is false")
    batch, channels = input.shape[:2]
    weight_, bias_, mean_, var_ = (None if tensor is None else tensor.repeat(batch)
                                   for tensor in (weight, bias, running_mean, running_var))
    samples = input.contiguous().view(1, batch * channels, *input.shape[2:])
    out = batch_norm(samples, mean_, var_, weight_, bias_, use_input_stats, momentum, eps)
    for running, repeated in ((running_mean, mean_), (running_var, var_)):
        if running is not None and use_input_stats:     # (in evaluation: left untouched)
            running.copy_(repeated.view(batch, channels).mean(0))
    return out.view(input.shape)


def embedding(input, weight, padding_idx=None):
    """Rows of ``weight`` picked by the integer tensor ``input``."""
    if input.dtype not in (dtypes.int64, dtypes.int32):
        raise RuntimeError(f"Expected tensor for argument #1 'indices' to have one of the "
                           f"following scalar types: Long, Int; but got {input.type()} instead "
                           f"(while checking arguments for embedding)")
    indices = input._data
    if indices.size and (indices.min() < 0 or indices.max() >= weight.shape[0]):
        raise IndexError("index out of range in self")
    if padding_idx is not None and padding_idx < 0:
        padding_idx += weight.shape[0]
    return nn_ops.EmbeddingBackward0.apply(weight, indices=indices, padding_idx=padding_idx)


def one_hot(tensor, num_classes=-1):
    """(..., ) class indices -> (..., num_classes) rows of 0 and 1 (int64, no gradient)."""
    if tensor.dtype is not dtypes.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    labels = tensor._data
    if labels.size and labels.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if num_classes == -1:
        num_classes = int(labels.max()) + 1 if labels.size else 0
    elif labels.size and labels.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    return Tensor._make((labels[..., None] == np.arange(num_classes)).astype(np.int64))


def pad(input, pad, mode="constant", value=None):
    """Pad the last dimensions: ``pad = (left, right, top, bottom, ...)``; negative crops."""
    if mode != "constant":
        raise NotImplementedError("teachgrad's pad supports mode='constant' only")
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.ndim:
        raise RuntimeError(f"Padding length should be less than or equal to two times the "
                           f"input dimension but got padding length {len(pad)} and input of "
                           f"dimension {input.ndim}")
    return nn_ops.ConstantPadNdBackward0.apply(input, pad=tuple(pad),
                                               value=0 if value is None else value)


# ---- losses -------------------------------------------------------------------------
def _check_reduction(reduction):
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")


def _warn_if_broadcast(input, target):
    if target.shape != input.shape:
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input "
                      f"size ({input.shape}). This will likely lead to incorrect results due "
                      "to broadcasting. Please ensure they have the same size.",
                      UserWarning, stacklevel=4)
        _check_broadcastable(input.shape, target.shape)


def _check_broadcastable(a, b):
    for i, (x, y) in enumerate(zip(reversed(a), reversed(b))):
        if x != y and 1 not in (x, y):
            dim = max(len(a), len(b)) - 1 - i
            raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b "
                               f"({y}) at non-singleton dimension {dim}")


def _broadcast(input, target):
    """Both expanded to one shape (with PyTorch's warning when the target's differs)."""
    _warn_if_broadcast(input, target)
    return shape.broadcast_tensors(input, target)


def mse_loss(input, target, *, reduction="mean"):
    """The mean (or sum) of the squared differences."""
    input, target = _broadcast(input, target)
    _check_reduction(reduction)
    return nn_ops.MseLossBackward0.apply(input, target, reduction=reduction)


def l1_loss(input, target, *, reduction="mean"):
    """The mean (or sum) of the absolute differences, built from sub, abs and mean."""
    input, target = _broadcast(input, target)
    _check_reduction(reduction)
    return _apply_reduction((input - target).abs(), reduction)


def _apply_reduction(losses, reduction):
    """Keep every loss, or take their mean or sum (PyTorch's apply_loss_reduction)."""
    if reduction == "mean":
        return losses.mean()
    return losses.sum() if reduction == "sum" else losses


def _float_target(target, input):
    if not target.dtype.is_floating_point:
        raise RuntimeError(f"Found dtype {_type_name(target)} but expected {_type_name(input)}")


def _weight_array(weight, shape):
    return None if weight is None else np.broadcast_to(weight._data, shape)


def binary_cross_entropy(input, target, weight=None, *, reduction="mean"):
    """-(t log p + (1 - t) log(1 - p)); p must lie in [0, 1]."""
    _check_reduction(reduction)
    if target.shape != input.shape:
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input "
                         f"size ({input.shape}) is deprecated. Please ensure they have the same "
                         "size.")
    _float_target(target, input)
    return BinaryCrossEntropyBackward0.apply(input, target, reduction=reduction,
                                             weight=_weight_array(weight, input.shape))


def binary_cross_entropy_with_logits(input, target, weight=None, *, reduction="mean",
                                     pos_weight=None):
    """Binary cross-entropy of sigmoid(input), computed without overflow. ``pos_weight``
    (one per class) multiplies the loss of the positive targets."""
    _check_reduction(reduction)
    if target.shape != input.shape:
        raise ValueError(f"Target size ({target.shape}) must be the same as input size "
                         f"({input.shape})")
    if not target.dtype.is_floating_point:
        raise RuntimeError(f"result type Float can't be cast to the desired output type "
                           f"{_type_name(target)}")
    return BinaryCrossEntropyWithLogitsBackward0.apply(
        input, target, reduction=reduction, weight=_weight_array(weight, input.shape),
        pos_weight=_weight_array(pos_weight, input.shape))


def _check_class_target(input, target):
    if target.dtype not in (dtypes.int64, dtypes.uint8):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got "
                           f"{_type_name(target)}")
    if input.ndim > 1 and target.ndim > 0 and input.shape[0] != target.shape[0]:
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target "
                         f"batch_size ({target.shape[0]}).")
    if input.ndim <= 2 and target.ndim > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")


def nll_loss(input, target, weight=None, *, ignore_index=-100, reduction="mean"):
    """Minus the input at each sample's target class (input holds log-probabilities)."""
    _check_reduction(reduction)
    _check_class_target(input, target)
    arguments = dict(weight=None if weight is None else weight._data, reduction=reduction,
                     ignore_index=ignore_index)
    if input.ndim <= 2:
        return NllLossBackward0.apply(input, target=target._data, **arguments)
    if input.ndim == 4:
        return NllLoss2DBackward0.apply(input, target=target._data, **arguments)
    batch, classes = input.shape[:2]        # other shapes go through the 4-d case, as in PyTorch
    flat_input = input.contiguous().view(batch, classes, 1, -1)
    flat_target = target._data.reshape(batch, 1, -1)
    losses = NllLoss2DBackward0.apply(flat_input, target=flat_target, **arguments)
    return losses.view(batch, *input.shape[2:]) if reduction == "none" else losses


def cross_entropy(input, target, weight=None, *, ignore_index=-100, reduction="mean",
                  label_smoothing=0.0):
    """nll_loss of log_softmax(input) for class indices; for class probabilities (a float
    target shaped like input), minus the sum of target * log_softmax(input)."""
    _check_reduction(reduction)
    class_dim = 0 if input.ndim == 1 else 1
    log_probs = log_softmax(input, class_dim)
    if target.dtype.is_floating_point and target.shape == input.shape:
        return _cross_entropy_with_probabilities(log_probs, target, weight, class_dim,
                                                 reduction, label_smoothing)
    loss = nll_loss(log_probs, target, weight, ignore_index=ignore_index, reduction=reduction)
    if label_smoothing == 0:
        return loss
    return _smooth(loss, log_probs, target, weight, class_dim, ignore_index, reduction,
                   label_smoothing)


def _class_weight(weight, ndim, class_dim):
    """The per-class weight shaped to broadcast along the class dimension."""
    return weight.view([-1 if d == class_dim else 1 for d in range(ndim)])


def _smooth(loss, log_probs, target, weight, class_dim, ignore_index, reduction, smoothing):
    """Label smoothing: mix the loss with the mean of -log p over all classes, as PyTorch's
    ``cross_entropy_loss_label_smoothing`` does, node for node."""
    classes = log_probs.shape[class_dim]
    ignored = target._data == ignore_index
    if weight is not None:
        log_probs = log_probs * _class_weight(weight, log_probs.ndim, class_dim)
    smooth_loss = pointwise.MaskedFillBackward0.apply(-log_probs.sum(class_dim),
                                                   mask=Tensor._make(ignored), value=0.0)
    if reduction == "mean":
        counted = (~ignored).sum() if weight is None else \
            weight._data[target._data[~ignored]].sum()
        smooth_loss = smooth_loss.sum() / _constant(np.asarray(counted))
    elif reduction == "sum":
        smooth_loss = smooth_loss.sum()
    return pointwise.times_number(loss, 1 - smoothing) + \
        pointwise.times_number(smooth_loss, smoothing / classes)


def _cross_entropy_with_probabilities(log_probs, target, weight, class_dim, reduction,
                                      smoothing):
    classes = log_probs.shape[class_dim]
    if smoothing > 0:
        target = target * (1 - smoothing) + smoothing / classes
    products = log_probs * target
    if weight is not None:
        products = products * _class_weight(weight, log_probs.ndim, class_dim)
    if reduction == "none":
        return -products.sum(class_dim)
    if reduction == "sum":
        return -products.sum()
    batch = log_probs.numel() // classes if log_probs.ndim > 1 else 1
    return pointwise.DivBackward1.apply(-products.sum(), other=batch)


# ---- more losses and similarities: smooth L1, Huber, KL divergence, cosine, distances ----
def _check_float(name, input, target):
    common = dtypes.result_type((input, target))
    if not common.is_floating_point:
        raise NotImplementedError(f"\"{name}\" not implemented for '{common.short_name}'")


def smooth_l1_loss(input, target, *, reduction="mean", beta=1.0):
    """Half the squared error (÷ beta) where |input - target| < beta, the absolute error
    (less beta / 2) beyond: less swayed by outliers than mse_loss. beta = 0 is l1_loss."""
    input, target = _broadcast(input, target)
    _check_reduction(reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    if beta == 0:
        return l1_loss(input, target, reduction=reduction)
    _check_float("smooth_l1_cpu", input, target)
    return nn_ops.SmoothL1LossBackward0.apply(input, target, reduction=reduction, beta=beta)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """Half the squared error where |input - target| < delta, delta times the absolute
    error (less delta / 2) beyond: smooth_l1_loss with beta = delta, times delta.
    ``weight`` (shaped like input) multiplies each element's loss before the reduction."""
    expanded_input, target = _broadcast(input, target)
    if weight is None:
        _check_reduction(reduction)
        return _huber(expanded_input, target, reduction, delta)
    if weight.shape != input.shape:
        raise ValueError("Weights and input must have the same size.")
    losses = _huber(expanded_input, target, "none", delta) * weight
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', "
                         "'mean', 'sum'.")
    return _apply_reduction(losses, reduction)


def _huber(input, target, reduction, delta):
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    _check_float("huber_cpu", input, target)
    return nn_ops.HuberLossBackward0.apply(input, target, reduction=reduction, delta=delta)


def kl_div(input, target, *, reduction="mean", log_target=False):
    """The Kullback-Leibler divergence sum t (log t - input) of the distribution ``target``
    from ``input``, given as log-probabilities (``target`` too, with ``log_target``).
    "batchmean" divides the sum by the batch size: the mathematical KL divergence of each
    sample, averaged; "mean" divides by the number of elements (with PyTorch's warning)."""
    if reduction == "mean":
        warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the "
                      "support size.'batchmean' divides only by the batch size, and aligns with "
                      "the KL div math definition.'mean' will be changed to behave the same as "
                      "'batchmean' in the next major release.", UserWarning, stacklevel=2)
    summed = "sum" if reduction == "batchmean" else reduction
    _check_reduction(summed)
    if not (input.dtype.is_floating_point and target.dtype.is_floating_point):
        raise RuntimeError("kl_div: Integral inputs not supported.")
    if log_target:
        losses = target.exp() * (target - input)
    else:
        losses = pointwise.xlogy(target, target) - target * input
    loss = _apply_reduction(losses, summed)
    if reduction == "batchmean" and input.ndim != 0:
        return loss / input.shape[0]
    return loss


def normalize(input, p=2.0, dim=1, eps=1e-12):
    """``input`` divided by its p-norm along ``dim`` (at least ``eps``): unit vectors."""
    denominator = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    return input / denominator


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """The cosine of the angle between x1 and x2 along ``dim``: each divided by its norm
    (at least ``eps``) first, then their dot product, as PyTorch computes it (so it stays
    within [-1, 1] and nothing overflows). The norms are raised to ``eps`` in place,
    without recording it, on clones, so the gradient still reaches x1 and x2."""
    common = dtypes.result_type((x1, x2))
    if not common.is_floating_point:
        raise RuntimeError(f"expected common dtype to be floating point, yet common dtype is "
                           f"{common.short_name}")
    x1, x2 = (x if x.dtype.is_floating_point else x.to(common) for x in (x1, x2))
    if x1.shape != x2.shape:           # both expanded, as PyTorch's expand_outplace does
        _check_broadcastable(x1.shape, x2.shape)
        shape = tuple(np.broadcast_shapes(x1.shape, x2.shape))
        x1, x2 = x1.expand(shape), x2.expand(shape)
    norms = [reduction.vector_norm(x, 2, dim, keepdim=True).clone() for x in (x1, x2)]
    with grad_mode.no_grad():
        for norm in norms:
            norm.clamp_min_(eps)
    return ((x1 / norms[0]) * (x2 / norms[1])).sum(dim)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """The p-norm of x1 - x2 + eps along the last dimension (eps keeps the gradient
    finite where x1 = x2)."""
    dim = max(x1.ndim, x2.ndim) - 1
    shifted = pointwise.plus_number(x1 - x2, eps)
    return nn_ops.NormBackward1.apply(shifted, p=p, dim=dim, keepdim=keepdim)


# ---- margin and embedding losses, Poisson and Gaussian NLL, multilabel, multi margin ------
# Each is composed of ordinary ops in the order of ATen's Loss.cpp (or of torch's Python),
# so the graph shows PyTorch's nodes. The top-level ``torch.margin_ranking_loss`` & co. are
# the ATen functions themselves: see ``native_losses`` below.
def margin_ranking_loss(input1, input2, target, margin=0, *, reduction="mean"):
    """max(0, -t (x1 - x2) + margin): input1 should rank higher than input2 where the
    target is 1, lower where it is -1, by at least ``margin``."""
    _check_reduction(reduction)
    if not input1.ndim == input2.ndim == target.ndim:
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same "
                           f"dimension but got sizes: input1: {input1.shape}, input2: "
                           f"{input2.shape}, target: {target.shape} ")
    return _margin_ranking(input1, input2, target, margin, reduction)


def _margin_ranking(input1, input2, target, margin, reduction):
    losses = pointwise.plus_number(-target * (input1 - input2), float(margin))
    return _apply_reduction(losses.clamp_min_(0), reduction)


def hinge_embedding_loss(input, target, margin=1.0, *, reduction="mean"):
    """The input (a distance) where the target is 1, max(0, margin - input) where it is -1."""
    _check_reduction(reduction)
    return _hinge_embedding(input, target, margin, reduction)


def _hinge_embedding(input, target, margin, reduction):
    zeros = _constant(np.zeros_like(input._data))
    margin_clamp = (_filled_like(input, margin) - input).clamp_min_(0)
    output_margin = pointwise.where(target != 1, margin_clamp, zeros)
    output_self = pointwise.where(target != -1, input, zeros)
    return _apply_reduction(output_margin + output_self, reduction)


def _filled_like(tensor, number):
    """C++'s ``number - tensor`` starts from a tensor of the number in the other's dtype
    (``empty_like(tensor).fill_(number)``): an integer tensor stays integer."""
    return _constant(np.full_like(tensor._data, number))


def cosine_embedding_loss(input1, input2, target, margin=0, *, reduction="mean"):
    """1 - cos(x1, x2) where the target is 1, max(0, cos(x1, x2) - margin) where it is -1:
    pairs marked similar should point the same way."""
    _check_reduction(reduction)
    return _cosine_embedding(input1, input2, target, margin, reduction)


def _cosine_embedding(input1, input2, target, margin, reduction):
    if target.ndim not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if target.ndim == 1 and not input1.ndim == input2.ndim == 2:
        raise RuntimeError(f"1D target tensor expects 2D input tensors, but found inputs with "
                           f"sizes {list(input1.shape)} and {list(input2.shape)}.")
    if target.ndim == 0 and not input1.ndim == input2.ndim == 1:
        raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs with "
                           f"sizes {list(input1.shape)} and {list(input2.shape)}.")
    dim, epsilon = target.ndim, 1e-12
    product_sum = (input1 * input2).sum(dim)
    squared_norm1 = pointwise.plus_number((input1 * input1).sum(dim), epsilon)
    squared_norm2 = pointwise.plus_number((input2 * input2).sum(dim), epsilon)
    cos = product_sum / (squared_norm1 * squared_norm2).sqrt()
    zeros = _constant(np.zeros_like(cos._data))
    similar = _filled_like(cos, 1) - cos
    dissimilar = pointwise.minus_number(cos, float(margin)).clamp_min_(0)
    return _apply_reduction(pointwise.where(target == 1, similar, zeros) +
                            pointwise.where(target == -1, dissimilar, zeros), reduction)


def soft_margin_loss(input, target, *, reduction="mean"):
    """log(1 + exp(-t x)) for labels t = ±1: the logistic loss of the margin t x."""
    _check_reduction(reduction)
    if target.requires_grad and grad_mode.is_grad_enabled():
        raise RuntimeError("The function 'soft_margin_loss' is not differentiable with "
                           "respect to argument 'target'. This input cannot have "
                           "requires_grad True.")
    _check_broadcastable(input.shape, target.shape)
    broadcast = tuple(np.broadcast_shapes(input.shape, target.shape))
    if broadcast != input.shape:
        raise RuntimeError(f"output with shape {list(input.shape)} doesn't match the "
                           f"broadcast shape {list(broadcast)}")
    return nn_ops.SoftMarginLossBackward0.apply(input, target=target, reduction=reduction)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, *,
                        reduction="mean"):
    """max(0, d(a, p) - d(a, n) + margin) with d the pairwise distance: the anchor should be
    nearer the positive than the negative by ``margin``. ``swap`` uses d(p, n) instead of
    d(a, n) where it is smaller."""
    _check_reduction(reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    return _triplet_margin(anchor, positive, negative, margin, p, eps, swap, reduction)


def _triplet_margin(anchor, positive, negative, margin, p, eps, swap, reduction):
    if not anchor.ndim == positive.ndim == negative.ndim:
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have "
                           f"the same number of dimensions, but got: anchor {anchor.ndim}D, "
                           f"positive {positive.ndim}D, and negative {negative.ndim}D inputs")
    distance_positive = pairwise_distance(anchor, positive, p, eps)
    distance_negative = pairwise_distance(anchor, negative, p, eps)
    if swap:
        distance_negative = pointwise.minimum(distance_negative,
                                              pairwise_distance(positive, negative, p, eps))
    losses = pointwise.plus_number(distance_positive, float(margin)) - distance_negative
    return _apply_reduction(losses.clamp_min(0), reduction)


def poisson_nll_loss(input, target, log_input=True, full=False, *, eps=1e-8,
                     reduction="mean"):
    """The negative log-likelihood of counts ``target`` under a Poisson distribution of rate
    exp(input) (``log_input``) or input; ``full`` adds Stirling's approximation of
    log(target!) where target > 1."""
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return _poisson_nll(input, target, log_input, full, eps, reduction)


def _poisson_nll(input, target, log_input, full, eps, reduction):
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * pointwise.plus_number(input, eps).log()
    if full:
        log_2_pi_target = pointwise.times_number(target, 2 * np.pi).log()
        stirling_term = target * target.log() - target + \
            pointwise.times_number(log_2_pi_target, 0.5)
        loss.add_(stirling_term.masked_fill(target <= 1, 0))
    return _apply_reduction(loss, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """The negative log-likelihood of ``target`` under normal distributions of mean ``input``
    and variance ``var`` (a float, one per element, or one per sample: a last dimension of
    1 or missing): (log var + (input - target)^2 / var) / 2, with var at least ``eps``."""
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = _constant(np.full_like(input._data, var))
    elif (var < 0).any():
        raise ValueError("var has negative entry/entries")
    if var.shape != input.shape:
        if input.shape[:-1] == var.shape:
            var = var.unsqueeze(-1)
        elif not (input.ndim == var.ndim and
                  sum(v for i, v in zip(input.shape, var.shape) if i != v) == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with grad_mode.no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss += 0.5 * float(np.log(2 * np.pi))
    return _apply_reduction(loss, reduction)


def multilabel_soft_margin_loss(input, target, weight=None, *, reduction="mean"):
    """Binary cross-entropy of sigmoid(input) for each class (target 0 or 1), averaged over
    the classes (the last dimension), ``weight`` giving each class its share."""
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.ndim - 1
    loss = loss.sum(dim=class_dim) / input.shape[class_dim]
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    return _apply_reduction(loss, reduction)


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, *, reduction="mean"):
    """The multi-class hinge loss: for each sample, the mean over the other classes of
    max(0, margin - x[y] + x[i])^p, y its target class (p is 1 or 2); ``weight`` (one per
    class) scales each sample's loss by its target class's weight."""
    _check_reduction(reduction)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.ndim != 1:
        raise ValueError("weight must be one-dimensional")
    if weight is not None and weight.requires_grad and grad_mode.is_grad_enabled():
        raise RuntimeError("The function 'multi_margin_loss' is not differentiable with "
                           "respect to argument 'weight'. This input cannot have "
                           "requires_grad True.")
    _check_multi_margin_arguments(input, target, weight)
    return nn_ops.MultiMarginLossBackward0.apply(input, target=target, weight=weight, p=p,
                                                 margin=margin, reduction=reduction)


def _check_multi_margin_arguments(input, target, weight):
    if input.ndim > 2 or input.ndim and input.shape[-1] == 0:
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch "
                           f"size, but got: {list(input.shape)}")
    samples = input.shape[0] if input.ndim == 2 else 1
    classes = input.shape[-1] if input.ndim else 1
    if target.ndim > 1 or target.numel() != samples:
        raise RuntimeError(f"multi_margin_loss: target tensor should be 1-D with size equal "
                           f"to the number of input samples (batch size). Expected target "
                           f"size [{samples}], but got {list(target.shape)}. Input has shape "
                           f"{list(input.shape)}.")
    if weight is not None and weight.numel() != classes:
        raise RuntimeError(f"inconsistent weight size, expected {classes} but got "
                           f"{list(weight.shape)}")
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"multi_margin_loss_cpu_kernel\" not implemented for "
                                  f"'{_type_name(input)}'")
    for tensor, expected in ((target, dtypes.int64), (weight, input.dtype)):
        if tensor is not None and tensor.dtype is not expected:
            raise RuntimeError(f"expected scalar type {expected.short_name} but found "
                               f"{_type_name(tensor)}")
    if ((target._data < 0) | (target._data >= classes)).any():
        raise RuntimeError("target out of range")


class native_losses:
    """``torch.margin_ranking_loss`` & co., the ATen functions behind these losses: no
    Python checks, and ``reduction`` as at::Reduction's number (0 "none", 1 "mean", 2 "sum"),
    which torch's bindings default to 0: unreduced."""

    @staticmethod
    def _reduction(function, number):
        if not isinstance(number, int) or isinstance(number, bool):
            raise TypeError(f"{function}(): argument 'reduction' must be int, not "
                            f"{type(number).__name__}")
        return ("none", "mean", "sum")[number]

    @staticmethod
    def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=0):
        reduction = native_losses._reduction("margin_ranking_loss", reduction)
        return _margin_ranking(input1, input2, target, margin, reduction)

    @staticmethod
    def hinge_embedding_loss(input, target, margin=1.0, reduction=0):
        reduction = native_losses._reduction("hinge_embedding_loss", reduction)
        return _hinge_embedding(input, target, margin, reduction)

    @staticmethod
    def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=0):
        reduction = native_losses._reduction("cosine_embedding_loss", reduction)
        return _cosine_embedding(input1, input2, target, margin, reduction)

    @staticmethod
    def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6,
                            swap=False, reduction=0):
        reduction = native_losses._reduction("triplet_margin_loss", reduction)
        return _triplet_margin(anchor, positive, negative, margin, p, eps, swap, reduction)

    @staticmethod
    def poisson_nll_loss(input, target, log_input, full, eps, reduction):
        reduction = native_losses._reduction("poisson_nll_loss", reduction)
        return _poisson_nll(input, target, log_input, full, eps, reduction)


# ---- layer norm and more activations -------------------------------------------------
def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Normalise each sample over its last ``len(normalized_shape)`` dimensions."""
    if isinstance(normalized_shape, int):
        raise TypeError("layer_norm(): argument 'normalized_shape' (position 2) must be tuple "
                        "of ints, not int")
    shape = tuple(normalized_shape)
    if len(shape) > input.ndim or tuple(input.shape[input.ndim - len(shape):]) != shape:
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape "
                           f"[*, {', '.join(map(str, shape))}], but got input of size"
                           f"{list(input.shape)}")
    for other, name in ((weight, "weight"), (bias, "bias")):
        if other is not None and tuple(other.shape) != shape:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but "
                               f"got {name} of shape {list(other.shape)} and normalized_shape = "
                               f"{list(shape)}")
        if other is not None and other.dtype is not input.dtype:
            raise RuntimeError(f"mixed dtype (CPU): expect parameter to have scalar type of "
                               f"{_type_name(input)}")
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"LayerNormKernelImpl\" not implemented for "
                                  f"'{_type_name(input)}'")
    dtype = input._data.dtype
    return nn_ops.NativeLayerNormBackward0.apply(
        input, _constant(np.ones(shape, dtype=dtype)) if weight is None else weight,
        _constant(np.zeros(shape, dtype=dtype)) if bias is None else bias,
        normalized_shape=shape, eps=eps, has_weight=weight is not None,
        has_bias=bias is not None)


def _pointwise(node, input, inplace, **params):
    """Apply an activation's node, in place on ``input`` if asked."""
    if inplace:
        return node.apply_inplace(input, **params)
    return node.apply(input, **params)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return _pointwise(nn_ops.HardtanhBackward0, input, inplace, min_val=min_val,
                      max_val=max_val)


def hardtanh_(input, min_val=-1, max_val=1):
    return hardtanh(input, min_val, max_val, inplace=True)


def relu6(input, inplace=False):
    return hardtanh(input, 0, 6, inplace)


def threshold(input, threshold, value, inplace=False):
    node = nn_ops.ThresholdBackward1 if inplace else nn_ops.ThresholdBackward0
    return _pointwise(node, input, inplace, threshold=threshold, value=value)


def threshold_(input, threshold, value):
    return _pointwise(nn_ops.ThresholdBackward1, input, True, threshold=threshold, value=value)


def elu(input, alpha=1.0, inplace=False):
    node = nn_ops.EluBackward1 if inplace else nn_ops.EluBackward0
    return _pointwise(node, input, inplace, alpha=alpha, scale=1, input_scale=1)


def elu_(input, alpha=1):
    return elu(input, alpha, inplace=True)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def selu(input, inplace=False):
    node = nn_ops.EluBackward1 if inplace else nn_ops.EluBackward0
    return _pointwise(node, input, inplace, alpha=_SELU_ALPHA, scale=_SELU_SCALE,
                      input_scale=1)


def selu_(input):
    return selu(input, inplace=True)


def logsigmoid(input):
    return nn_ops.LogSigmoidBackward0.apply(input)


def softsign(input):
    """x / (1 + |x|), composed of existing operations as in PyTorch."""
    return input / (input.abs() + 1)


def hardsigmoid(input, inplace=False):
    return _pointwise(nn_ops.HardsigmoidBackward0, input, inplace)


def hardswish(input, inplace=False):
    return _pointwise(nn_ops.HardswishBackward0, input, inplace)


def mish(input, inplace=False):
    return _pointwise(nn_ops.MishBackward0, input, inplace)


def prelu(input, weight):
    """x where x > 0, else weight * x, with one weight per channel (dimension 1) or a single
    one. As in PyTorch, the weight is first viewed to line up with the channels."""
    if not isinstance(weight, Tensor):
        raise TypeError(f"prelu(): argument 'weight' (position 2) must be Tensor, not "
                        f"{type(weight).__name__}")
    if input.dtype is not weight.dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got {_type_name(input)} and "
                           f"{_type_name(weight)}")
    if weight.numel() != 1:
        if input.ndim == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = input.shape[1] if input.ndim > 1 else 1
        if channels != weight.numel():
            raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found "
                               f"parameter numbers = {weight.numel()} and channel size = "
                               f"{channels}.")
    if weight.ndim > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: "
                           f"ndim = {weight.ndim}")
    if input.ndim != weight.ndim:
        weight = weight.reshape([weight.numel() if d == 1 else 1 for d in range(input.ndim)])
    return nn_ops.PreluKernelBackward0.apply(input, weight)


def celu(input, alpha=1.0, inplace=False):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    _check_floating(input, "elu_cpu")
    node = nn_ops.CeluBackward1 if inplace else nn_ops.CeluBackward0
    return _pointwise(node, input, inplace, alpha=alpha)


def celu_(input, alpha=1.0):
    return celu(input, alpha, inplace=True)


def glu(input, dim=-1):
    """The gated linear unit: a * sigmoid(b), a and b the two halves of ``dim``."""
    if input.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    if not -input.ndim <= dim < input.ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-input.ndim}, {input.ndim - 1}], but got {dim})")
    _check_floating(input, "glu_cpu")
    if input.shape[dim] % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {dim % input.ndim} "
                           f"is size {input.shape[dim]}")
    return nn_ops.GluBackward0.apply(input, dim=dim)


def hardshrink(input, lambd=0.5):
    """x where |x| > lambd, else 0."""
    _check_floating(input, "hardshrink_cpu")
    return nn_ops.HardshrinkBackward0.apply(input, lambd=lambd)


def softshrink(input, lambd=0.5):
    """x moved lambd towards 0, and 0 where |x| <= lambd."""
    _check_floating(input, "softshrink_check")
    if lambd < 0:
        raise RuntimeError(f"lambda must be in range [0, {_largest(input)}] for input dtype "
                           f"{_type_name(input)}, but found {lambd}")
    return nn_ops.SoftshrinkBackward0.apply(input, lambd=lambd)


def _largest(input):
    """The dtype's largest value as C++ prints it (six significant digits)."""
    return f"{float(dtypes.finfo(input.dtype).max):.6g}"


def tanhshrink(input):
    """x - tanh(x), composed of existing operations as in PyTorch."""
    return input - input.tanh()


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Normalise each sample's channels in ``num_groups`` groups, then scale and shift each
    channel."""
    if input.ndim < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received "
                           f"{input.ndim}")
    batch, channels = input.shape[:2]
    per_group = [batch * channels // num_groups, num_groups, *input.shape[2:]]
    if int(np.prod(per_group[:1] + per_group[2:])) == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input "
                         f"size {per_group}")
    if channels % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by "
                           f"num_groups, but got input of shape {list(input.shape)} and "
                           f"num_groups={num_groups}")
    for other, name in ((weight, "weight"), (bias, "bias")):
        if other is not None and (other.ndim != 1 or other.numel() != channels):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of "
                               f"channels in input, but got {name} of shape "
                               f"{list(other.shape)} and input of shape {list(input.shape)}")
    _check_floating(input, "GroupNormKernelImpl")
    dtype = input._data.dtype
    return nn_ops.NativeGroupNormBackward0.apply(
        input, _constant(np.ones(channels, dtype=dtype)) if weight is None else weight,
        _constant(np.zeros(channels, dtype=dtype)) if bias is None else bias,
        group=num_groups, eps=eps, has_weight=weight is not None)


from teachgrad.nn.transformer import (multi_head_attention_forward,  # noqa: E402
                                      scaled_dot_product_attention)
