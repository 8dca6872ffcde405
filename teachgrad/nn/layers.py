"""The layers: each one keeps its settings and parameters, and ``forward`` calls
the matching function of ``teachgrad.nn.functional``.

Weights start as PyTorch's do (``reset_parameters``), so ``manual_seed(0)``
followed by ``Linear(3, 2)`` gives the same numbers as in PyTorch.
"""
import math
import warnings

from teachgrad import creation, devices, dtypes
from teachgrad.nn import functional as F
from teachgrad.nn import init
from teachgrad.nn.module import Module
from teachgrad.nn.parameter import Parameter, UninitializedParameter
from teachgrad.tensor import Size


def _single(value):
    return (value,) if isinstance(value, int) else tuple(value)


def _init_weight_and_bias(weight, bias):
    """PyTorch's default for Linear and Conv2d: kaiming-uniform weight with a = sqrt(5),
    which draws from U(-1/sqrt(fan_in), 1/sqrt(fan_in)); the bias from the same range."""
    init.kaiming_uniform_(weight, a=math.sqrt(5))
    if bias is not None:
        fan_in, _ = init._calculate_fan_in_and_fan_out(weight)
        bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
        init.uniform_(bias, -bound, bound)


class Linear(Module):
    """y = x W^T + b, with W shaped (out_features, in_features)."""

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        factory_kwargs = {"device": device, "dtype": dtype}
        self.in_features, self.out_features = in_features, out_features
        self.weight = Parameter(creation.empty(out_features, in_features, **factory_kwargs))
        self.bias = Parameter(creation.empty(out_features, **factory_kwargs)) if bias else None
        self.reset_parameters()

    def reset_parameters(self):
        _init_weight_and_bias(self.weight, self.bias)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class LazyLinear(Linear):
    """A Linear layer that reads ``in_features`` from its first input. Until then its
    weight and bias are UninitializedParameter; the first call gives them their shape and
    initial values (drawn then, as in PyTorch) and turns the module into a Linear."""

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        Module.__init__(self)
        self.in_features, self.out_features, self._dtype = 0, out_features, dtype
        devices.check(device)
        self.weight = UninitializedParameter()
        self.bias = UninitializedParameter() if bias else None

    def forward(self, input):
        self.in_features = input.shape[-1]
        self.weight.materialize((self.out_features, self.in_features), self._dtype)
        if self.bias is not None:
            self.bias.materialize((self.out_features,), self._dtype)
        self.reset_parameters()
        del self._dtype
        self.__class__ = Linear
        return self.forward(input)


class _ConvNd(Module):
    """A convolution (cross-correlation, as in PyTorch) with a bias per output channel;
    ``dims`` is the number of its spatial dimensions. A transposed convolution's weight
    is shaped (in_channels, out_channels, ...), the transpose of a convolution's."""
    dims, transposed = 2, False

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__()
        factory_kwargs = {"device": device, "dtype": dtype}
        if groups != 1 or padding_mode != "zeros":
            raise NotImplementedError(f"teachgrad's {type(self).__name__} supports groups=1 and "
                                      "padding_mode='zeros' only")
        if isinstance(padding, str) and padding not in ("same", "valid"):
            raise ValueError(f"Invalid padding string '{padding}', should be one of "
                             "{'same', 'valid'}")
        if padding == "same" and self._tuple(stride) != (1,) * self.dims:
            raise ValueError("padding='same' is not supported for strided convolutions")
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size, self.stride = self._tuple(kernel_size), self._tuple(stride)
        self.padding = padding if isinstance(padding, str) else self._tuple(padding)
        self.dilation = self._tuple(dilation)
        self.output_padding = (0,) * self.dims
        self.groups, self.padding_mode = groups, padding_mode
        channels = (in_channels, out_channels) if self.transposed else (out_channels,
                                                                         in_channels)
        self.weight = Parameter(creation.empty(*channels, *self.kernel_size, **factory_kwargs))
        self.bias = Parameter(creation.empty(out_channels, **factory_kwargs)) if bias else None
        self.reset_parameters()

    def _tuple(self, value):
        return (value,) * self.dims if isinstance(value, int) else tuple(value)

    def reset_parameters(self):
        _init_weight_and_bias(self.weight, self.bias)

    def extra_repr(self):
        text = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}")
        if self.padding != (0,) * self.dims:
            text += f", padding={self.padding}"
        if self.dilation != (1,) * self.dims:
            text += f", dilation={self.dilation}"
        if self.output_padding != (0,) * self.dims:
            text += f", output_padding={self.output_padding}"
        if self.bias is None:
            text += ", bias=False"
        return text


class Conv1d(_ConvNd):
    """A 1-d convolution of (N, C, L) sequences."""
    dims = 1

    def forward(self, input):
        return F.conv1d(input, self.weight, self.bias, self.stride, self.padding, self.dilation)


class Conv2d(_ConvNd):
    """A 2-d convolution of (N, C, H, W) images."""

    def forward(self, input):
        return F.conv2d(input, self.weight, self.bias, self.stride, self.padding, self.dilation)


class _ConvTransposeNd(_ConvNd):
    """A transposed convolution: it maps an image to one that a convolution with the same
    settings would map back to its size (``output_padding`` or ``output_size`` picks one
    of the sizes that fit, when the stride leaves a choice)."""
    transposed = True

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros",
                 device=None, dtype=None):
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, device, dtype)
        self.output_padding = self._tuple(output_padding)

    def _output_padding(self, input, output_size):
        """The output_padding that gives ``output_size`` (PyTorch's checks and errors)."""
        if output_size is None:
            return self.output_padding
        batch_dims = 2 if input.ndim == self.dims + 2 else 1
        output_size = list(output_size)
        if len(output_size) == batch_dims + self.dims:
            output_size = output_size[batch_dims:]
        if len(output_size) != self.dims:
            raise ValueError(f"ConvTranspose{self.dims}D: for {input.ndim}D input, output_size "
                             f"must have {self.dims} or {batch_dims + self.dims} elements (got "
                             f"{len(output_size)})")
        smallest = [(input.shape[d + batch_dims] - 1) * self.stride[d] - 2 * self.padding[d]
                    + self.dilation[d] * (self.kernel_size[d] - 1) + 1 for d in range(self.dims)]
        largest = [size + stride - 1 for size, stride in zip(smallest, self.stride)]
        for size, low, high in zip(output_size, smallest, largest):
            if not low <= size <= high:
                raise ValueError(f"requested an output size of {output_size}, but valid sizes "
                                 f"range from {smallest} to {largest} (for an input of "
                                 f"{Size(input.shape[2:])})")
        return tuple(size - low for size, low in zip(output_size, smallest))


class ConvTranspose1d(_ConvTransposeNd):
    """A 1-d transposed convolution of (N, C, L) sequences."""
    dims = 1

    def forward(self, input, output_size=None):
        return F.conv_transpose1d(input, self.weight, self.bias, self.stride, self.padding,
                                  self._output_padding(input, output_size), self.groups,
                                  self.dilation)


class ConvTranspose2d(_ConvTransposeNd):
    """A 2-d transposed convolution of (N, C, H, W) images ("deconvolution"): upsampling
    with a learnt kernel."""

    def forward(self, input, output_size=None):
        return F.conv_transpose2d(input, self.weight, self.bias, self.stride, self.padding,
                                  self._output_padding(input, output_size), self.groups,
                                  self.dilation)


class _MaxPoolNd(Module):
    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__()
        self.kernel_size, self.stride = kernel_size, stride if stride is not None else kernel_size
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class MaxPool1d(_MaxPoolNd):
    def forward(self, input):
        return F.max_pool1d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class MaxPool2d(_MaxPoolNd):
    def forward(self, input):
        return F.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class AvgPool1d(Module):
    """(Keeps its sizes as 1-tuples, as PyTorch does.)"""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True):
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding, self.ceil_mode = _single(padding), ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input):
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool2d(Module):
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        super().__init__()
        self.kernel_size, self.stride = kernel_size, stride if stride is not None else kernel_size
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def forward(self, input):
        return F.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class _AdaptivePool(Module):
    """Pools to a fixed output size, whatever the input's (see F.adaptive_avg_pool2d)."""

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptivePool):
    def forward(self, input):
        return F.adaptive_avg_pool1d(input, self.output_size)


class AdaptiveAvgPool2d(_AdaptivePool):
    def forward(self, input):
        return F.adaptive_avg_pool2d(input, self.output_size)


class _AdaptiveMaxPool(_AdaptivePool):
    def __init__(self, output_size, return_indices=False):
        super().__init__(output_size)
        self.return_indices = return_indices


class AdaptiveMaxPool1d(_AdaptiveMaxPool):
    def forward(self, input):
        return F.adaptive_max_pool1d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool2d(_AdaptiveMaxPool):
    def forward(self, input):
        return F.adaptive_max_pool2d(input, self.output_size, self.return_indices)


class Upsample(Module):
    """Resizes images to ``size``, or by ``scale_factor`` (see F.interpolate)."""

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None,
                 recompute_scale_factor=None):
        super().__init__()
        self.name, self.size = type(self).__name__, size
        if isinstance(scale_factor, tuple):
            self.scale_factor = tuple(float(factor) for factor in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.mode, self.align_corners = mode, align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input):
        return F.interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                             recompute_scale_factor=self.recompute_scale_factor)

    def extra_repr(self):
        if self.scale_factor is not None:
            return f"scale_factor={self.scale_factor!r}, mode={self.mode!r}"
        return f"size={self.size!r}, mode={self.mode!r}"


class UpsamplingNearest2d(Upsample):
    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """Bilinear upsampling with ``align_corners=True``."""

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)


class ReLU(Module):
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.relu(input, inplace=self.inplace)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class LeakyReLU(Module):
    def __init__(self, negative_slope=0.01, inplace=False):
        super().__init__()
        self.negative_slope, self.inplace = negative_slope, inplace

    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self):
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace else "")


class Softplus(Module):
    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self):
        return f"beta={self.beta}, threshold={self.threshold}"


class SiLU(Module):
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.silu(input, inplace=self.inplace)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class GELU(Module):
    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self):
        return f"approximate={self.approximate!r}"


class Sigmoid(Module):
    def forward(self, input):
        return F.sigmoid(input)


class Tanh(Module):
    def forward(self, input):
        return F.tanh(input)


class Softmax(Module):
    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.softmax(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class LogSoftmax(Softmax):
    def forward(self, input):
        return F.log_softmax(input, self.dim)


class Flatten(Module):
    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, input):
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Splits dimension ``dim`` into ``unflattened_size``: the inverse of Flatten."""

    def __init__(self, dim, unflattened_size):
        super().__init__()
        if not isinstance(unflattened_size, (tuple, list)):
            raise TypeError(f"unflattened_size must be a tuple of ints, but found type "
                            f"{type(unflattened_size).__name__}")
        for position, size in enumerate(unflattened_size):
            if not isinstance(size, int):
                raise TypeError(f"unflattened_size must be tuple of ints, but found element of "
                                f"type {type(size).__name__} at pos {position}")
        self.dim, self.unflattened_size = dim, unflattened_size

    def forward(self, input):
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self):
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"


class Identity(Module):
    """Returns its input unchanged (the very same tensor)."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class _DropoutNd(Module):
    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if not 0 <= p <= 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    """In training, zeroes each element with probability p and scales the rest by 1/(1-p);
    in evaluation (``model.eval()``) it returns its input."""

    def forward(self, input):
        return F.dropout(input, self.p, self.training, self.inplace)


class Dropout1d(_DropoutNd):
    """Zeroes whole channels of (N, C, L) or (C, L) inputs in training."""

    def forward(self, input):
        return F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    """Zeroes whole channels of (N, C, H, W) inputs in training."""

    def forward(self, input):
        return F.dropout2d(input, self.p, self.training, self.inplace)


class _BatchNorm(Module):
    """Normalises each channel over the batch (and the spatial positions).

    In training, it uses the batch's statistics and updates the running ones
    (``running_mean``, ``running_var``: buffers, saved in the state_dict); in
    evaluation it uses the running ones. ``momentum=None`` makes the running
    statistics a plain average over all batches seen.
    """
    expected_dims = ()
    _version = 2        # num_batches_tracked came with version 2

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, bias=True, device=None, dtype=None):
        super().__init__()
        factory_kwargs = {"device": device, "dtype": dtype}
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats, self.use_bias = affine, track_running_stats, bias
        self.weight = Parameter(creation.empty(num_features, **factory_kwargs)) if affine else None
        self.bias = Parameter(creation.empty(num_features, **factory_kwargs)) if affine and bias \
            else None
        statistics = {"running_mean": None, "running_var": None, "num_batches_tracked": None}
        if track_running_stats:
            statistics = {"running_mean": creation.empty(num_features, **factory_kwargs),
                          "running_var": creation.empty(num_features, **factory_kwargs),
                          "num_batches_tracked": creation.tensor(0, dtype=dtypes.int64)}
        for name, value in statistics.items():
            self.register_buffer(name, value)
        self.reset_parameters()

    def reset_running_stats(self):
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self):
        self.reset_running_stats()
        if self.weight is not None:
            init.ones_(self.weight)
        if self.bias is not None:
            init.zeros_(self.bias)

    def forward(self, input):
        if input.ndim not in self.expected_dims:
            raise ValueError(f"expected {self.expected_dims_text} input (got {input.ndim}D input)")
        running = self.track_running_stats and self.running_mean is not None
        use_batch_stats = self.training or not running
        momentum = 0.0 if self.momentum is None else self.momentum
        if self.training and running:
            self.num_batches_tracked.add_(1)      # counted before the checks, as in PyTorch
            if self.momentum is None:
                momentum = 1.0 / float(self.num_batches_tracked)
        F.check_batch_norm_input(input, self.running_mean if running else None, use_batch_stats)
        return F.batch_norm(input, self.running_mean if running else None,
                            self.running_var if running else None, self.weight, self.bias,
                            use_batch_stats, momentum, self.eps)

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, bias={self.use_bias and self.affine}, "
                f"track_running_stats={self.track_running_stats}")


class BatchNorm1d(_BatchNorm):
    """For (N, C) or (N, C, L) inputs."""
    expected_dims, expected_dims_text = (2, 3), "2D or 3D"


class BatchNorm2d(_BatchNorm):
    """For (N, C, H, W) images."""
    expected_dims, expected_dims_text = (4,), "4D"


class _InstanceNorm(_BatchNorm):
    """Normalises each channel of each sample on its own (``F.instance_norm``); without
    ``affine`` and ``track_running_stats`` by default. An input without a batch dimension
    is normalised as a batch of one."""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False,
                 track_running_stats=False, device=None, dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, bias,
                         device, dtype)

    def forward(self, input):
        if input.ndim not in self.expected_dims:
            raise ValueError(f"expected {self.expected_dims_text} input (got {input.ndim}D input)")
        unbatched_dims = self.expected_dims[0]
        feature_dim = input.ndim - unbatched_dims
        if input.shape[feature_dim] != self.num_features:
            if self.affine:
                raise ValueError(f"expected input's size at dim={feature_dim} to match "
                                 f"num_features ({self.num_features}), but got: "
                                 f"{input.shape[feature_dim]}.")
            warnings.warn(f"input's size at dim={feature_dim} does not match num_features. You "
                          "can silence this warning by not passing in num_features, which is "
                          "not used because affine=False", UserWarning, stacklevel=2)
        if input.ndim == unbatched_dims:
            return self._instance_norm(input.unsqueeze(0)).squeeze(0)
        return self._instance_norm(input)

    def _instance_norm(self, input):
        return F.instance_norm(input, self.running_mean, self.running_var, self.weight,
                               self.bias, self.training or not self.track_running_stats,
                               0.0 if self.momentum is None else self.momentum, self.eps)


class InstanceNorm1d(_InstanceNorm):
    """For (N, C, L) or (C, L) inputs."""
    expected_dims, expected_dims_text = (2, 3), "2D or 3D"


class InstanceNorm2d(_InstanceNorm):
    """For (N, C, H, W) or (C, H, W) inputs."""
    expected_dims, expected_dims_text = (3, 4), "3D or 4D"


class GroupNorm(Module):
    """Normalises each sample's channels in ``num_groups`` groups, then scales and shifts
    each channel (``weight`` starts at ones, ``bias`` at zeros)."""

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None,
                 dtype=None, *, bias=True):
        super().__init__()
        factory_kwargs = {"device": device, "dtype": dtype}
        if num_channels % num_groups:
            raise ValueError(f"num_channels ({num_channels}) must be divisible by num_groups "
                             f"({num_groups})")
        self.num_groups, self.num_channels, self.eps, self.affine = (num_groups, num_channels,
                                                                     eps, affine)
        self.weight = Parameter(creation.empty(num_channels, **factory_kwargs)) if affine else None
        self.bias = Parameter(creation.empty(num_channels, **factory_kwargs)) if affine and bias \
            else None
        self.reset_parameters()

    def reset_parameters(self):
        if self.weight is not None:
            init.ones_(self.weight)
        if self.bias is not None:
            init.zeros_(self.bias)

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, "
                f"affine={self.affine}, bias={self.bias is not None}")


class _ConstantPadNd(Module):
    """Pads the last ``dims`` dimensions with ``value`` (``F.pad``); an int pads every side."""
    dims = 1

    def __init__(self, padding, value):
        super().__init__()
        self.padding = (padding,) * (2 * self.dims) if isinstance(padding, int) else \
            tuple(padding)
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    pass


class ConstantPad2d(_ConstantPadNd):
    dims = 2


class ZeroPad2d(ConstantPad2d):
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class Embedding(Module):
    """A lookup table: row ``i`` of ``weight`` is the vector of token ``i``."""

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, device=None,
                 dtype=None):
        super().__init__()
        factory_kwargs = {"device": device, "dtype": dtype}
        if padding_idx is not None and padding_idx < 0:
            padding_idx += num_embeddings
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.padding_idx = padding_idx
        self.weight = Parameter(creation.empty(num_embeddings, embedding_dim, **factory_kwargs))
        self.reset_parameters()

    def reset_parameters(self):
        init.normal_(self.weight)
        if self.padding_idx is not None:
            init.zeros_(self.weight[self.padding_idx])

    def forward(self, input):
        return F.embedding(input, self.weight, self.padding_idx)

    def extra_repr(self):
        text = f"{self.num_embeddings}, {self.embedding_dim}"
        return text + (f", padding_idx={self.padding_idx}" if self.padding_idx is not None else "")


class LayerNorm(Module):
    """Normalises each sample over its last dimensions (``normalized_shape``), then scales
    and shifts them element by element (``weight`` starts at ones, ``bias`` at zeros)."""

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True,
                 device=None, dtype=None):
        super().__init__()
        factory_kwargs = {"device": device, "dtype": dtype}
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        self.weight = Parameter(creation.empty(*self.normalized_shape, **factory_kwargs)) \
            if elementwise_affine else None
        self.bias = Parameter(creation.empty(*self.normalized_shape, **factory_kwargs)) \
            if elementwise_affine and bias else None
        self.reset_parameters()

    def reset_parameters(self):
        if self.weight is not None:
            init.ones_(self.weight)
        if self.bias is not None:
            init.zeros_(self.bias)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}")


def _inplace_text(inplace, separator=", "):
    return f"{separator}inplace=True" if inplace else ""


class Hardtanh(Module):
    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False):
        super().__init__()
        if not max_val > min_val:
            raise AssertionError(f"max_val ({max_val}) must be greater than min_val ({min_val})")
        self.min_val, self.max_val, self.inplace = min_val, max_val, inplace

    def forward(self, input):
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self):
        return f"min_val={self.min_val}, max_val={self.max_val}" + _inplace_text(self.inplace)


class ReLU6(Hardtanh):
    def __init__(self, inplace=False):
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self):
        return _inplace_text(self.inplace, "")


class Threshold(Module):
    def __init__(self, threshold, value, inplace=False):
        super().__init__()
        self.threshold, self.value, self.inplace = threshold, value, inplace

    def forward(self, input):
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self):
        return f"threshold={self.threshold}, value={self.value}" + _inplace_text(self.inplace)


class ELU(Module):
    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def forward(self, input):
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self):
        return f"alpha={self.alpha}" + _inplace_text(self.inplace)


class SELU(Module):
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.selu(input, self.inplace)

    def extra_repr(self):
        return _inplace_text(self.inplace, "")


class Mish(SELU):
    def forward(self, input):
        return F.mish(input, self.inplace)


class Hardsigmoid(Module):
    """(Prints as ``Hardsigmoid()`` even in place, as in PyTorch.)"""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.hardsigmoid(input, self.inplace)


class Hardswish(Hardsigmoid):
    def forward(self, input):
        return F.hardswish(input, self.inplace)


class LogSigmoid(Module):
    def forward(self, input):
        return F.logsigmoid(input)


class Softsign(Module):
    def forward(self, input):
        return F.softsign(input)


class PReLU(Module):
    """x where x > 0, else a * x, with ``a`` learnt: one for all channels, or one each."""

    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        super().__init__()
        factory_kwargs = {"device": device, "dtype": dtype}
        self.num_parameters, self.init = num_parameters, init
        self.weight = Parameter(creation.empty(num_parameters, **factory_kwargs))
        self.reset_parameters()

    def reset_parameters(self):
        init.constant_(self.weight, self.init)

    def forward(self, input):
        return F.prelu(input, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"


class CELU(Module):
    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def forward(self, input):
        return F.celu(input, self.alpha, self.inplace)

    def extra_repr(self):
        return f"alpha={self.alpha}" + _inplace_text(self.inplace)


class Softmin(Softmax):
    def forward(self, input):
        return F.softmin(input, self.dim)


class GLU(Module):
    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.glu(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class Hardshrink(Module):
    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        return F.hardshrink(input, self.lambd)

    def extra_repr(self):
        return f"{self.lambd}"


class Softshrink(Hardshrink):
    def forward(self, input):
        return F.softshrink(input, self.lambd)


class Tanhshrink(Module):
    def forward(self, input):
        return F.tanhshrink(input)
