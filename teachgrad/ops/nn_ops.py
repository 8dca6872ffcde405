"""The primitives of neural networks: convolution, pooling, batch norm, losses, embedding.

Each class is one node type, named as PyTorch names it; ``forward`` computes on
numpy arrays, ``backward`` is written with teachgrad operations (so it can be
differentiated again). ``teachgrad.nn.functional`` checks the arguments and
calls these; read that module first.

Convolution and pooling look at *windows*: ``windows`` returns every
kernel-sized window of an image as a numpy view, without copying or looping
over pixels. A convolution is then one matrix product of the flattened weight
with the unfolded windows (im2col), and its gradient is made of the same two
pieces: ``fold`` (col2im), the adjoint of ``unfold``, adds columns back into
an image.
"""
import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from teachgrad import dtypes
from teachgrad.autograd.operation import Operation
from teachgrad.ieee import quiet_numpy
from teachgrad.ops import distances, pointwise, reduction
from teachgrad.ops.indexing import EmbedBackward
from teachgrad.ops.pointwise import ThresholdBackwardBackward0, times_number, where
from teachgrad.ops.shape import GivenDim, cat
from teachgrad.tensor import Tensor


# ---- windows: the geometry shared by convolution and pooling ------------------------
def output_shape(image_size, kernel_size, stride, padding, dilation):
    """How many windows fit along each of the two image dimensions."""
    return tuple((size + 2 * p - d * (k - 1) - 1) // s + 1 for size, k, s, p, d in
                 zip(image_size, kernel_size, stride, padding, dilation))


def pad_image(x, padding, value=0.0):
    """Pad the last two dimensions of ``x`` by ``padding = (rows, columns)`` on both sides."""
    rows, columns = padding
    if rows == columns == 0:
        return x
    height, width = x.shape[-2:]
    padded = np.full(x.shape[:-2] + (height + 2 * rows, width + 2 * columns), value,
                     dtype=x.dtype)
    padded[..., rows:rows + height, columns:columns + width] = x
    return padded


def windows(x, kernel_size, stride, dilation):
    """Every window of the last two dimensions: a view shaped (..., KH, KW, OH, OW), no copy."""
    span = [d * (k - 1) + 1 for k, d in zip(kernel_size, dilation)]
    view = sliding_window_view(x, span, axis=(-2, -1))   # (..., H', W', span_h, span_w)
    view = view[..., ::stride[0], ::stride[1], ::dilation[0], ::dilation[1]]
    return np.moveaxis(view, (-2, -1), (-4, -3))


def kernel_views(image, kernel_size, stride, dilation, out_shape):
    """For each position (i, j) of the kernel, in order, the strided view (..., OH, OW) of
    ``image`` that this position sees across all windows (no copy)."""
    (out_h, out_w), (stride_h, stride_w) = out_shape, stride
    for i in range(kernel_size[0]):
        for j in range(kernel_size[1]):
            top, left = i * dilation[0], j * dilation[1]
            yield image[..., top:top + stride_h * (out_h - 1) + 1:stride_h,
                        left:left + stride_w * (out_w - 1) + 1:stride_w]


def add_windows(columns, image_shape, stride, dilation, batch_last=False):
    """The adjoint of ``windows``: add each window's values back where they were taken from.

    ``columns`` is shaped (..., KH, KW, OH, OW). The loop runs over the kernel's
    KH * KW positions; each step is one strided add over all windows at once. With
    ``batch_last``, the image (N, ...) is laid out with its first dimension last in memory:
    for columns laid out so too, each add then runs over whole rows of N values at a time.
    """
    if batch_last:
        image = np.moveaxis(np.zeros(image_shape[1:] + image_shape[:1], columns.dtype), -1, 0)
    else:
        image = np.zeros(image_shape, dtype=columns.dtype)
    kernel_h, kernel_w, out_h, out_w = columns.shape[-4:]
    views = kernel_views(image, (kernel_h, kernel_w), stride, dilation, (out_h, out_w))
    for k, view in enumerate(views):
        view += columns[..., k // kernel_w, k % kernel_w, :, :]
    return image


def im2col(x, kernel_size, dilation, padding, stride):
    """(..., C, H, W) -> (..., C * KH * KW, OH * OW): one column per window position.
    (Stacked from one strided view per kernel position: copying KH * KW four-dimensional
    views is faster than copying one six-dimensional view of every window.)"""
    out_shape = output_shape(x.shape[-2:], kernel_size, stride, padding, dilation)
    views = kernel_views(pad_image(x, padding), kernel_size, stride, dilation, out_shape)
    columns = np.stack(list(views), axis=-3)        # (..., C, KH * KW, OH, OW)
    *lead, channels, positions, out_h, out_w = columns.shape
    return columns.reshape(*lead, channels * positions, out_h * out_w)


class WindowOperation(Operation):
    """An operation on windows: keeps the window geometry under PyTorch's attribute names."""
    saves_kernel_size = True      # (a convolution's window is its weight's shape: not saved)
    saves_dilation = True         # (average pooling has none)

    def keep_geometry(self, kernel_size, stride, padding, dilation):
        self._geometry = dict(kernel_size=kernel_size, dilation=dilation, padding=padding,
                              stride=stride)
        if self.saves_kernel_size:
            self._saved_kernel_size = kernel_size
        if self.saves_dilation:
            self._saved_dilation = dilation
        self._saved_stride, self._saved_padding = stride, padding

    def geometry(self):
        return self._geometry


class Im2ColBackward0(WindowOperation):
    """``F.unfold``: every window of an image as a column (im2col)."""

    def forward(self, x, kernel_size, dilation, padding, stride):
        self.keep_geometry(kernel_size, stride, padding, dilation)
        self._image_size = x.shape[-2:]
        return im2col(x, kernel_size, dilation, padding, stride)

    def backward(self, grad):
        return fold(grad, self._image_size, **self.geometry())


class Col2ImBackward0(WindowOperation):
    """``F.fold``: add columns back into an image (col2im), the adjoint of unfold."""

    def forward(self, columns, output_size, kernel_size, dilation, padding, stride):
        self.keep_geometry(kernel_size, stride, padding, dilation)
        (height, width), (kernel_h, kernel_w) = output_size, kernel_size
        out_h, out_w = output_shape(output_size, kernel_size, stride, padding, dilation)
        *lead, rows, length = columns.shape
        channels = rows // (kernel_h * kernel_w)
        columns = columns.reshape(*lead, channels, kernel_h, kernel_w, out_h, out_w)
        padded_shape = (*lead, channels, height + 2 * padding[0], width + 2 * padding[1])
        image = add_windows(columns, padded_shape, stride, dilation)
        return np.ascontiguousarray(image[..., padding[0]:padding[0] + height,
                                          padding[1]:padding[1] + width])

    def backward(self, grad):
        return unfold(grad, **self.geometry())


def unfold(input, kernel_size, dilation, padding, stride):
    return Im2ColBackward0.apply(input, kernel_size=kernel_size, dilation=dilation,
                                 padding=padding, stride=stride)


def fold(input, output_size, kernel_size, dilation, padding, stride):
    return Col2ImBackward0.apply(input, output_size=tuple(output_size), kernel_size=kernel_size,
                                 dilation=dilation, padding=padding, stride=stride)


class Col2ImBatchLastBackward0(WindowOperation):
    """col2im for a convolution's input gradient, on columns laid out kernel position
    first and batch last: (KH * KW * C, OH * OW * N), as the weight times the gradient
    gives them in one matrix product. Folded into an image laid out batch last, every add
    runs over rows of N values instead of rows of OW (where ``fold`` spends most of a small
    network's backward); the result is the (N, C, H, W) image. Its backward is unfold,
    laid out the same way."""

    def forward(self, columns, batch, output_size, kernel_size, dilation, padding, stride):
        self.keep_geometry(kernel_size, stride, padding, dilation)
        (height, width), (kernel_h, kernel_w) = output_size, kernel_size
        out_h, out_w = output_shape(output_size, kernel_size, stride, padding, dilation)
        channels = columns.shape[0] // (kernel_h * kernel_w)
        columns = columns.reshape(kernel_h, kernel_w, channels, out_h, out_w, batch)
        columns = columns.transpose(5, 2, 0, 1, 3, 4)         # (N, C, KH, KW, OH, OW): a view
        padded_shape = (batch, channels, height + 2 * padding[0], width + 2 * padding[1])
        image = add_windows(columns, padded_shape, stride, dilation, batch_last=True)
        return np.ascontiguousarray(image[..., padding[0]:padding[0] + height,
                                          padding[1]:padding[1] + width])

    def backward(self, grad):
        columns = unfold(grad, **self.geometry())                   # (N, C * KH * KW, L)
        batch, rows, length = columns.shape
        positions = int(np.prod(self._geometry["kernel_size"]))
        columns = columns.reshape(batch, rows // positions, positions, length)
        return columns.permute(2, 1, 3, 0).reshape(rows, length * batch)   # (K*C, L*N)


def fold_batch_last(columns, batch, output_size, kernel_size, dilation, padding, stride):
    return Col2ImBatchLastBackward0.apply(columns, batch=batch, output_size=tuple(output_size),
                                          kernel_size=kernel_size, dilation=dilation,
                                          padding=padding, stride=stride)


# ---- convolution ----------------------------------------------------------------------
class ConvolutionBackward0(WindowOperation):
    """``F.conv2d``: the flattened weight times the unfolded input, plus the bias.

    The gradients reuse the same pieces: for the weight, the gradient times the
    unfolded input; for the input, the weight times the gradient, folded back.
    ``F.conv1d`` is the same node: a 1-d convolution is a 2-d one of images one row high
    (its saved fields keep the 1-d geometry, as PyTorch shows them).

    ``F.conv_transpose2d`` (``transposed``) is the same node too, run the other way: the
    transposed weight times the input gives columns, folded into the (larger) image, so
    it is the gradient of a convolution with respect to its input. Its gradients are
    then unfold and matrix products, as a convolution's forward.
    """
    input_names = ("input", "weight", "bias")
    saves_kernel_size = False
    _saved_groups = 1

    def forward(self, x, weight, bias, stride, padding, dilation, bias_sizes, transposed,
                output_padding):
        self._saved_bias_sym_sizes_opt, self._weight_shape = bias_sizes, weight.shape
        self._saved_transposed, self._saved_output_padding = transposed, output_padding
        self.save("weight")         # both, whichever gradients are needed, as in PyTorch:
        self.save("input")          # so changing the weight before backward is caught
        one_row = x.ndim == 3       # conv1d
        if one_row:
            x, weight = x[:, :, None], weight[:, :, None]
            stride, padding, dilation = (1, *stride), (0, *padding), (1, *dilation)
            output_padding = (0, *output_padding)
        kernel_size = weight.shape[2:]
        self.keep_geometry(kernel_size, stride, padding, dilation)
        if one_row:
            self._saved_stride, self._saved_padding = stride[1:], padding[1:]
            self._saved_dilation = dilation[1:]
        self._input_size = x.shape[-2:]
        if transposed:
            out = self._transposed(x, weight, bias, output_padding)
        else:
            columns = im2col(x, kernel_size, dilation, padding, stride)   # (N, C*KH*KW, L)
            out = np.matmul(weight.reshape(weight.shape[0], -1), columns)  # (N, O, L)
            out += bias[:, None]
            out_h, out_w = output_shape(x.shape[-2:], kernel_size, stride, padding, dilation)
            out = out.reshape(x.shape[0], weight.shape[0], out_h, out_w)
        return out[:, :, 0] if one_row else out

    def _transposed(self, x, weight, bias, output_padding):
        """Each input pixel spreads its weighted kernel over the output: columns
        (N, O*KH*KW, H*W) added back into the padded image, whose border is then cut off."""
        batch, in_channels, height, width = x.shape
        geometry = self.geometry()
        out_h, out_w = transposed_output_shape((height, width), output_padding, **geometry)
        pad_h, pad_w = geometry["padding"]
        columns = np.matmul(weight.reshape(in_channels, -1).T,
                            x.reshape(batch, in_channels, height * width))
        columns = columns.reshape(batch, *weight.shape[1:], height, width)
        padded_shape = (batch, weight.shape[1], out_h + 2 * pad_h, out_w + 2 * pad_w)
        image = add_windows(columns, padded_shape, geometry["stride"], geometry["dilation"])
        out = image[..., pad_h:pad_h + out_h, pad_w:pad_w + out_w]
        return out + bias[:, None, None]

    def backward(self, grad):
        one_row = grad.ndim == 3    # conv1d: its images and gradients one row high
        if one_row:
            grad = grad.unsqueeze(2)
        image = self._saved_input.unsqueeze(2) if one_row else self._saved_input
        if self._saved_transposed:
            grad_input, grad_weight = self._transposed_gradients(grad, image)
        else:
            grad_input, grad_weight = self._gradients(grad, image)
        if grad_input is not None and one_row:
            grad_input = grad_input.squeeze(2)
        grad_bias = grad.sum((0, 2, 3)) if self.needs_input_grad[2] else None
        return grad_input, grad_weight, grad_bias

    def _gradients(self, grad, image):
        batch, out_channels, out_h, out_w = grad.shape
        grad_input = grad_weight = None
        grad_rows = grad.reshape(batch, out_channels, out_h * out_w)        # (N, O, L)
        if self.needs_input_grad[0]:      # the weight times the gradient, then col2im
            weight = self._saved_weight
            if weight.ndim == 3:                                   # conv1d: one row high
                weight = weight.unsqueeze(2)
            kernel_first = weight.permute(2, 3, 1, 0).reshape(-1, out_channels)
            batch_last = grad_rows.permute(1, 2, 0).reshape(out_channels, -1)   # (O, L*N)
            columns = kernel_first.mm(batch_last)                  # (KH*KW*C, L*N)
            grad_input = fold_batch_last(columns, batch, self._input_size, **self.geometry())
        if self.needs_input_grad[1]:
            columns = unfold(image, **self.geometry())
            grad_weight = grad_rows.matmul(columns.transpose(1, 2)).sum(0).reshape(
                self._weight_shape)
        return grad_input, grad_weight

    def _transposed_gradients(self, grad, image):
        """A transposed convolution's gradients are a convolution's forward: the unfolded
        gradient, (N, O*KH*KW, H*W), times the weight for the input, times the input for
        the weight."""
        batch, in_channels, height, width = image.shape
        geometry = self.geometry()
        columns = unfold(grad, **geometry)
        windows_h, windows_w = output_shape(grad.shape[-2:], **geometry)
        if (windows_h, windows_w) != (height, width):   # output_padding past the stride
            columns = columns.reshape(batch, -1, windows_h, windows_w)[..., :height, :width]
            columns = columns.reshape(batch, -1, height * width)
        grad_input = grad_weight = None
        if self.needs_input_grad[0]:
            weight = self._saved_weight.reshape(in_channels, -1)
            grad_input = weight.matmul(columns).reshape(image.shape)
        if self.needs_input_grad[1]:
            rows = image.reshape(batch, in_channels, height * width)
            grad_weight = rows.matmul(columns.transpose(1, 2)).sum(0).reshape(self._weight_shape)
        return grad_input, grad_weight


def transposed_output_shape(image_size, output_padding, kernel_size, dilation, padding, stride):
    """The size of a transposed convolution's output: the image whose convolution (with
    the same geometry) has ``image_size``, plus ``output_padding``."""
    return tuple((size - 1) * s - 2 * p + d * (k - 1) + extra + 1 for size, extra, k, d, p, s in
                 zip(image_size, output_padding, kernel_size, dilation, padding, stride))


# ---- pooling ----------------------------------------------------------------------------
class MaxPool2DWithIndicesBackward0(WindowOperation):
    """The largest value of each window (the first one, on ties; a NaN beats everything, and
    of several NaNs the last one wins, as in PyTorch), and where it was: an index into the
    flattened H * W plane of the input."""
    kept_names = ("result1",)

    def forward(self, x, kernel_size, stride, padding, dilation, return_indices):
        self.save("self")           # (backward needs only the indices; PyTorch keeps both)
        self.keep_geometry(kernel_size, stride, padding, dilation)
        self._saved_ceil_mode = False
        self._input_shape = x.shape
        out_shape = output_shape(x.shape[-2:], kernel_size, stride, padding, dilation)
        padded = pad_image(x, padding, -np.inf)
        views = list(kernel_views(padded, kernel_size, stride, dilation, out_shape))
        nan_inside = has_nan(x)
        best, position = window_maxima(views, nan_inside)  # and which kernel position won
        if nan_inside or has_negative_zero(x):   # equal values, different bits: take the winners'
            best = gather(padded, self._plane_indices(position, padded.shape[-1], (0, 0)))
        if any(padding) and np.isneginf(best).any():   # windows of -inf only: padding must not win
            position = np.where(np.isneginf(best), self._first_real_positions(out_shape), position)
        indices = self._plane_indices(position, self._input_shape[-1], padding)
        self.keep("result1", indices)           # PyTorch's name for the saved indices
        return (best, indices) if return_indices else best

    def _first_real_positions(self, out_shape):
        """Each window's first kernel position inside the input rather than the padding:
        where PyTorch starts its search, so it is the index of a window with no value above
        -inf."""
        firsts = []
        for size, out_size, kernel, stride, pad, dilation in zip(
                self._input_shape[-2:], out_shape, self._saved_kernel_size, self._saved_stride,
                self._saved_padding, self._saved_dilation):
            starts = np.arange(out_size) * stride - pad      # each window's first row (or column)
            first = np.zeros(out_size, dtype=np.int64)
            for k in range(kernel - 1, -1, -1):              # the smallest k inside wins
                inside = (starts + k * dilation >= 0) & (starts + k * dilation < size)
                first[inside] = k
            firsts.append(first)
        first_row, first_column = firsts
        return first_row[:, None] * self._saved_kernel_size[1] + first_column

    def _plane_indices(self, position, width, padding):
        """Turn each maximum's kernel position into its index in an H * W plane ``width``
        wide whose border ``padding`` is not counted: the index of its window's top-left
        corner plus the position's offset from that corner."""
        (kernel_h, kernel_w), (stride_h, stride_w) = self._saved_kernel_size, self._saved_stride
        (pad_h, pad_w), (dilation_h, dilation_w) = padding, self._saved_dilation
        out_h, out_w = position.shape[-2:]
        corner = ((np.arange(out_h)[:, None] * stride_h - pad_h) * width
                  + np.arange(out_w) * stride_w - pad_w)
        offset = (np.arange(kernel_h)[:, None] * dilation_h * width
                  + np.arange(kernel_w) * dilation_w).reshape(-1)    # one per kernel position
        return corner + np.take(offset, position)

    def backward(self, grad, grad_indices=None):
        return MaxPool2DWithIndicesBackwardBackward0.apply(
            grad, indices=self._saved_result1._data, input_shape=self._input_shape)


def has_nan(x):
    """Does ``x`` hold a NaN? (Its maximum is NaN then: one pass, no mask.)"""
    return x.size > 0 and x.dtype.kind in "fc" and bool(np.isnan(x.max()))


def has_negative_zero(x):
    """Does float ``x`` hold a -0.0? (Read as integers, -0.0 is the smallest of all.)"""
    if x.size == 0 or x.dtype.kind != "f":
        return False
    words = x.view(f"i{x.itemsize}")
    return bool(words.min() == np.iinfo(words.dtype).min)


def window_maxima(columns, nan_inside):
    """For each window, its maximum and the kernel position of it, chosen as PyTorch chooses.

    ``columns[k]`` holds every window's value at kernel position k (a strided view of the
    image: nothing is copied). Scanning k in order, a value replaces the running maximum if
    it is larger (so the first of equal maxima stays) or, if the image has a NaN
    (``nan_inside``), if it is NaN (so the last NaN wins). Whole arrays are compared at each
    step, without branching on each value: that is what makes it fast. The positions are
    kept in the smallest unsigned type that holds them. The maxima are exact unless the
    image holds a NaN or a -0.0: then numpy's ``maximum`` may keep the bits of another
    value that compares equal (0.0 for -0.0), and the caller takes the winners' own.
    """
    best = columns[0].copy()                         # the running maximum
    position = np.zeros(best.shape, dtype=np.min_scalar_type(len(columns) - 1))
    for k in range(1, len(columns)):
        replaces = columns[k] > best
        if nan_inside:
            replaces |= np.isnan(columns[k])
        np.maximum(columns[k], best, out=best)       # NaN propagates, as it does above
        # k where it replaces, else unchanged (k is larger than every earlier position)
        np.maximum(position, np.multiply(replaces, k, dtype=position.dtype), out=position)
    return best, position


def pick(columns, position):
    """``columns[position[i], i]`` for every place i: like ``np.take_along_axis`` on the
    first axis, but with one flat index, which numpy takes much faster."""
    places = position.size
    flat = position.reshape(-1) * places + np.arange(places)
    return columns.reshape(-1)[flat].reshape(position.shape)


def gather(image, indices):
    """``image``'s value at each index into its H * W planes (the same leading dimensions)."""
    return image.reshape(-1)[flat_indices(indices, image.shape)].reshape(indices.shape)


class MaxPool2DWithIndicesBackwardBackward0(Operation):
    """Max pooling's backward: each output's gradient added at the input place its
    maximum came from (``indices``). Its own backward gathers from those places."""
    promote = "none"

    def forward(self, grad, indices, input_shape):
        self._indices, self._input_shape = indices, input_shape
        image = np.zeros(input_shape, dtype=grad.dtype)
        # added, not assigned: overlapping windows can have their maximum at the same place
        np.add.at(image.reshape(-1), self._image_indices(), grad.reshape(-1))
        return image

    def _image_indices(self):
        return flat_indices(self._indices, self._input_shape)

    def backward(self, grad):
        return gather(grad, self._indices)


def flat_indices(indices, image_shape):
    """Each index into an H * W plane turned into an index into the whole flattened image
    (numpy's ``add.at`` is many times faster with one flat index than with two)."""
    height, width = image_shape[-2:]
    planes = int(np.prod(image_shape[:-2]))
    plane_starts = np.arange(planes)[:, None] * (height * width)
    return (indices.reshape(planes, -1) + plane_starts).reshape(-1)


class AvgPool2DBackward0(WindowOperation):
    """The mean of each window; the gradient is shared out evenly over the window."""
    saves_dilation = False

    def forward(self, x, kernel_size, stride, padding, count_include_pad, divisor_override):
        self.save("self")           # (backward needs only its size; PyTorch keeps it)
        self.keep_geometry(kernel_size, stride, padding, (1, 1))
        self._saved_ceil_mode = False
        self._saved_count_include_pad = count_include_pad
        self._saved_divisor_override = divisor_override
        self._input_size = x.shape[-2:]
        self._divisor = self._window_sizes(x.shape[-2:], x.dtype)
        columns = windows(pad_image(x, padding), kernel_size, stride, (1, 1))
        return columns.sum(axis=(-4, -3)) / self._divisor

    def _window_sizes(self, image_size, dtype):
        """What each window's sum is divided by: its area, or only its part inside the image."""
        if self._saved_divisor_override:
            return dtype.type(self._saved_divisor_override)
        kernel_h, kernel_w = self._saved_kernel_size
        if self._saved_count_include_pad:
            return dtype.type(kernel_h * kernel_w)
        inside = windows(pad_image(np.ones(image_size, dtype=dtype), self._saved_padding),
                         self._saved_kernel_size, self._saved_stride, (1, 1))
        return inside.sum(axis=(-4, -3))

    def backward(self, grad):
        kernel_h, kernel_w = self._saved_kernel_size
        share = (grad / Tensor._make(np.asarray(self._divisor))).unsqueeze(-3)
        columns = share.expand(*grad.shape[:-2], kernel_h * kernel_w, *grad.shape[-2:])
        return _fold_pool_columns(columns, grad.shape, self._input_size, self.geometry())


def _fold_pool_columns(columns, grad_shape, input_size, geometry):
    """Pooling's gradient: (..., C, KK, OH, OW) window values folded back into (..., C, H, W)."""
    *lead, channels, out_h, out_w = grad_shape
    kernel_h, kernel_w = geometry["kernel_size"]
    columns = columns.reshape(*lead, channels * kernel_h * kernel_w, out_h * out_w)
    return fold(columns, input_size, **geometry)


# ---- adaptive pooling: windows chosen to give the output size asked for -----------------
def adaptive_windows(size, out_size):
    """PyTorch's windows along one dimension: window i covers [floor(i * size / out_size),
    ceil((i + 1) * size / out_size)). They may overlap and differ in length by one."""
    steps = np.arange(out_size)
    return steps * size // out_size, -(-(steps + 1) * size // out_size)


def window_membership(size, out_size, dtype):
    """The (out_size, size) matrix of 0 and 1 whose row i marks the places of window i."""
    starts, ends = adaptive_windows(size, out_size)
    places = np.arange(size)
    return ((places >= starts[:, None]) & (places < ends[:, None])).astype(dtype)


class AdaptiveAvgPool2DBackward0(Operation):
    """The mean of each adaptive window. Windows of rows and of columns combine, so the
    sums are two matrix products with 0/1 membership matrices: rows @ x @ columns.T."""

    def forward(self, x, output_size):
        self.save("self")
        self._input_size, self._output_size = x.shape[-2:], output_size
        rows, columns, areas = _adaptive_means(x.shape[-2:], output_size, x.dtype)
        return rows @ x @ columns.T / areas

    def backward(self, grad):
        return AdaptiveAvgPool2DBackwardBackward0.apply(grad, self._saved_self)


def _adaptive_means(image_size, output_size, dtype):
    """The row and column membership matrices, and the area of each window."""
    rows, columns = (window_membership(size, out, dtype)
                     for size, out in zip(image_size, output_size))
    return rows, columns, rows.sum(1)[:, None] * columns.sum(1)


class AdaptiveAvgPool2DBackwardBackward0(Operation):
    """Adaptive average pooling's backward: each output's gradient shared out evenly over
    its window (the transposed products). Linear in ``grad``; the input only gives the
    shape, so its gradient is zero."""
    input_names = ("grad_output", "self")

    def forward(self, grad, x):
        out_h, out_w = grad.shape[-2:]
        self._saved_grad_output_sym_argsize_minus_2 = out_h
        self._saved_grad_output_sym_argsize_minus_1 = out_w
        rows, columns, areas = _adaptive_means(x.shape[-2:], (out_h, out_w), grad.dtype)
        return rows.T @ (grad / areas) @ columns

    def backward(self, grad):
        output_size = (self._saved_grad_output_sym_argsize_minus_2,
                       self._saved_grad_output_sym_argsize_minus_1)
        return AdaptiveAvgPool2DBackward0.apply(grad, output_size=output_size), _zeros_like(grad)


class AdaptiveMaxPool2DBackward0(Operation):
    """The largest value of each adaptive window (the first of equal ones; a NaN wins, the
    last of several), and its index into the flattened H * W plane (``_saved_result1``)."""
    kept_names = ("result1",)

    def forward(self, x, output_size, return_indices):
        self.save("self")
        (height, width), (out_h, out_w) = x.shape[-2:], output_size
        best = np.empty(x.shape[:-2] + (out_h, out_w), dtype=x.dtype)
        indices = np.empty(best.shape, dtype=np.int64)
        nan_inside = has_nan(x)
        for i, (top, bottom) in enumerate(zip(*adaptive_windows(height, out_h))):
            for j, (left, right) in enumerate(zip(*adaptive_windows(width, out_w))):
                span = right - left
                window = x[..., top:bottom, left:right].reshape(
                    x.shape[:-2] + ((bottom - top) * span,))
                columns = np.moveaxis(window, -1, 0)          # one row per window place
                position = window_maxima(columns, nan_inside)[1].astype(np.int64)
                best[..., i, j] = pick(columns, position)
                indices[..., i, j] = (top + position // span) * width + left + position % span
        self.keep("result1", indices)
        return (best, indices) if return_indices else best

    def backward(self, grad, grad_indices=None):
        return AdaptiveMaxPool2DBackwardBackward0.apply(grad, self._saved_self,
                                                        indices=self._saved_result1._data)


class AdaptiveMaxPool2DBackwardBackward0(Operation):
    """Adaptive max pooling's backward: each gradient added where its maximum was, as max
    pooling's; its own gradient gathers from those places (zero for the input)."""
    input_names = ("grad_output", "self")
    kept_names = ("indices",)

    def forward(self, grad, x, indices):
        self.keep("indices", indices)
        image = np.zeros(x.shape, dtype=grad.dtype)
        np.add.at(image.reshape(-1), flat_indices(indices, x.shape), grad.reshape(-1))
        return image

    def backward(self, grad):
        indices = self._saved_indices._data
        return gather(grad, indices), _zeros_like(grad)


# ---- batch norm -----------------------------------------------------------------------
class NativeBatchNormBackward0(Operation):
    """Normalise each channel by its mean and variance, then scale by weight and add bias.

    In training the statistics are the batch's own (and the running ones are
    updated in place); in evaluation the running statistics are used. Backward
    recomputes the batch statistics from the saved input with teachgrad
    operations, so that a gradient of the gradient is right too.

    As in PyTorch, the node keeps the running statistics (tensors: changing one in place
    before backward raises the in-place error) and, in training, the batch's mean and
    1 / std (``_saved_result1``, ``_saved_result2``; empty in evaluation). Like PyTorch's
    kernel, the update of the running statistics does not count as a new version.
    """
    input_names = ("input", "weight", "bias")
    kept_names = ("running_mean", "running_var", "result1", "result2")

    def forward(self, x, weight, bias, running_mean, running_var, training, momentum, eps,
                affine):
        self.save("input")
        if affine:              # without, weight is all ones and PyTorch saves None
            self.save("weight")
        self._saved_training, self._saved_eps = training, eps
        self._dims = (0,) + tuple(range(2, x.ndim))
        self._channel_shape = (1, -1) + (1,) * (x.ndim - 2)
        if running_mean is not None:
            self.keep("running_mean", running_mean)
            self.keep("running_var", running_var)
        if training:
            mean, var = x.mean(axis=self._dims), x.var(axis=self._dims)
            if running_mean is not None:
                count = x.size // x.shape[1]                  # values per channel
                unbiased_var = var * count / (count - 1)
                running_mean._data[...] = (1 - momentum) * running_mean._data + momentum * mean
                running_var._data[...] = (1 - momentum) * running_var._data + momentum * unbiased_var
        else:
            mean, var = running_mean._data, running_var._data
        scale = weight / np.sqrt(var + eps)
        shift = bias - mean * scale
        self.keep("result1", mean if training else x[:0, 0].reshape(0))
        self.keep("result2", 1 / np.sqrt(var + eps) if training else x[:0, 0].reshape(0))
        return x * scale.reshape(self._channel_shape) + shift.reshape(self._channel_shape)

    def backward(self, grad):
        x, weight, dims = self._saved_input, self._saved_weight, self._dims
        if self._saved_training:
            mean = x.mean(dims, keepdim=True)
            centered = x - mean
            invstd = ((centered * centered).mean(dims, keepdim=True) + self._saved_eps) ** -0.5
        else:
            centered = x - self._saved_running_mean.reshape(self._channel_shape)
            invstd = (self._saved_running_var.reshape(self._channel_shape) + self._saved_eps) ** -0.5
        normalized = centered * invstd
        grad_sum = grad.sum(dims, keepdim=True)
        grad_dot = (grad * normalized).sum(dims, keepdim=True)
        grad_input = None
        if self.needs_input_grad[0]:
            scale = invstd if weight is None else weight.reshape(self._channel_shape) * invstd
            if self._saved_training:
                count = x.numel() // x.shape[1]
                grad_input = scale * (grad - grad_sum / count - normalized * grad_dot / count)
            else:
                grad_input = grad * scale
        return grad_input, grad_dot.reshape(-1), grad_sum.reshape(-1)


# ---- upsampling: each output row (and column) taken from, or mixed from, input ones -------
def _inverse_scale(scale, size, out_size, dtype):
    """How far apart, in input places, neighbouring output places are: 1 / scale_factor
    when one was given, else size / out_size (PyTorch's compute_scales_value)."""
    return dtype(1.0 / scale) if scale is not None and scale > 0 else dtype(size) / dtype(out_size)


def nearest_sources(size, out_size, scale, exact):
    """For each output place, the input place it copies: floor(o * step), or with ``exact``
    floor((o + 0.5) * step), the centre's; computed in float32, as in PyTorch."""
    step = _inverse_scale(scale, size, out_size, np.float32)
    places = np.arange(out_size, dtype=np.float32) + (np.float32(0.5) if exact else 0)
    return np.minimum(np.floor(places * step).astype(np.int64), size - 1)


def linear_weights(size, out_size, scale, align_corners, dtype):
    """The (out_size, size) matrix whose row o mixes the two input places nearest to output
    place o, weighted by closeness. ``align_corners`` puts the first and last output places
    on the first and last input ones; otherwise the places are pixel centres."""
    dtype = dtype.type
    if align_corners:
        step = dtype((size - 1) / (out_size - 1)) if out_size > 1 else dtype(0)
        sources = np.arange(out_size, dtype=dtype) * step
    else:
        step = _inverse_scale(scale, size, out_size, dtype)
        sources = np.maximum((np.arange(out_size, dtype=dtype) + dtype(0.5)) * step - dtype(0.5), 0)
    first = np.minimum(np.floor(sources).astype(np.int64), size - 1)
    second = first + (first < size - 1)
    share = np.clip(sources - first, 0, 1).astype(dtype)        # the second place's weight
    weights = np.zeros((out_size, size), dtype=dtype)
    np.add.at(weights, (np.arange(out_size), first), 1 - share)
    np.add.at(weights, (np.arange(out_size), second), share)
    return weights


def resampling_matrices(mode, image_size, output_size, scales, align_corners, dtype):
    """The (out, in) matrices of rows and of columns of an upsampling:
    output = rows @ input @ columns.T (for nearest, a single 1 in each row)."""
    matrices = []
    for size, out_size, scale in zip(image_size, output_size, scales):
        if mode == "bilinear":
            matrices.append(linear_weights(size, out_size, scale, align_corners, dtype))
        else:
            sources = nearest_sources(size, out_size, scale, mode == "nearest-exact")
            matrices.append((sources[:, None] == np.arange(size)).astype(dtype))
    return matrices


class UpsampleNearest2DBackward0(Operation):
    """``F.interpolate(mode="nearest")``: each output pixel copies the input pixel its place
    falls in. ``_saved_scales_h`` / ``_saved_scales_w`` are the scale factors given (None
    with a size): they set the places, as in PyTorch. The backward is one node too
    (``backward_node``), whose backward is this upsampling again."""
    mode = "nearest"

    def forward(self, x, output_size, scales, align_corners):
        self._saved_self_sym_sizes = x.shape
        keep_resampling(self, output_size, scales, align_corners)
        if self.mode == "bilinear":
            rows, columns = resampling_matrices(self.mode, x.shape[-2:], **resampling_of(self),
                                                dtype=x.dtype)
            return rows @ x @ columns.T
        rows, columns = (nearest_sources(size, out_size, scale, self.mode == "nearest-exact")
                         for size, out_size, scale in
                         zip(x.shape[-2:], output_size, scales))
        return x[..., rows[:, None], columns]     # picked: exact, even for inf and nan

    def backward(self, grad):
        return self.backward_node.apply(grad, input_size=self._saved_self_sym_sizes,
                                        **resampling_of(self))


def keep_resampling(node, output_size, scales, align_corners):
    """An upsampling's settings, under PyTorch's names (nearest has no align_corners)."""
    node._saved_output_size = tuple(output_size)
    node._saved_scales_h, node._saved_scales_w = scales
    if align_corners is not None:
        node._saved_align_corners = align_corners


def resampling_of(node):
    return dict(output_size=node._saved_output_size,
                scales=(node._saved_scales_h, node._saved_scales_w),
                align_corners=getattr(node, "_saved_align_corners", None))


class UpsampleNearestExact2DBackward0(UpsampleNearest2DBackward0):
    """``mode="nearest-exact"``: the pixel that each output pixel's centre falls in."""
    mode = "nearest-exact"


class UpsampleBilinear2DBackward0(UpsampleNearest2DBackward0):
    """``mode="bilinear"``: each output pixel mixes the four input pixels around its place,
    as two matrix products (rows, then columns)."""
    mode = "bilinear"


class UpsampleNearest2DBackwardBackward0(Operation):
    """Upsampling's backward: each output pixel's gradient goes back to the input pixels it
    came from (the transposed matrices). Linear in ``grad``: its own backward is the
    upsampling (``forward_node``) of the gradient."""
    input_names = ("grad_output",)

    def forward(self, grad, input_size, output_size, scales, align_corners):
        keep_resampling(self, output_size, scales, align_corners)
        rows, columns = resampling_matrices(self.forward_node.mode, input_size[-2:],
                                            **resampling_of(self), dtype=grad.dtype)
        return rows.T @ grad @ columns

    def backward(self, grad):
        return self.forward_node.apply(grad, **resampling_of(self))


class UpsampleNearestExact2DBackwardBackward0(UpsampleNearest2DBackwardBackward0):
    pass


class UpsampleBilinear2DBackwardBackward0(UpsampleNearest2DBackwardBackward0):
    pass


for _forward, _backward in ((UpsampleNearest2DBackward0, UpsampleNearest2DBackwardBackward0),
                            (UpsampleNearestExact2DBackward0,
                             UpsampleNearestExact2DBackwardBackward0),
                            (UpsampleBilinear2DBackward0, UpsampleBilinear2DBackwardBackward0)):
    _forward.backward_node, _backward.forward_node = _backward, _forward
del _forward, _backward


# ---- activations, padding, embedding, dropout's helpers -------------------------------
class LeakyReluBackward0(Operation):
    """x where x > 0, else negative_slope * x."""

    def forward(self, a, negative_slope):
        self.save("self")
        return self.leaky_relu(a, negative_slope)

    def leaky_relu(self, a, negative_slope):
        self._saved_negative_slope = negative_slope
        return np.where(a > 0, a, a * negative_slope)

    def positive(self):
        return self._saved_self > 0

    def backward(self, grad):
        return where(self.positive(), grad, grad * self._saved_negative_slope)


class LeakyReluBackward1(LeakyReluBackward0):
    """In place: the input is overwritten, so backward reads the sign of the result."""

    def forward(self, a, negative_slope):
        self.save("result")
        return self.leaky_relu(a, negative_slope)

    def positive(self):
        return self._saved_result > 0


class SoftplusBackward0(Operation):
    """log(1 + exp(beta x)) / beta, and x itself where beta x > threshold (no overflow)."""

    def forward(self, a, beta, threshold):
        self.save("self")
        self._saved_beta, self._saved_threshold = beta, threshold
        scaled = a * a.dtype.type(beta)
        with np.errstate(over="ignore"):
            smooth = np.log1p(np.exp(scaled)) / a.dtype.type(beta)
        return np.where(scaled > threshold, a, smooth)

    def backward(self, grad):
        return SoftplusBackwardBackward0.apply(grad, self._saved_self, beta=self._saved_beta,
                                               threshold=self._saved_threshold)


class SoftplusBackwardBackward0(Operation):
    """softplus's gradient, ``grad * sigmoid(beta x)`` (just ``grad`` past the threshold),
    as one node: PyTorch's softplus_backward."""
    input_names = ("grad_output", "self")

    def forward(self, grad, a, beta, threshold):
        self.save("grad_output")
        self.save("self")
        self._saved_beta, self._saved_threshold = beta, threshold
        scaled = a * a.dtype.type(beta)
        with np.errstate(over="ignore", invalid="ignore"):
            z = np.exp(scaled)
            return np.where(scaled > threshold, grad, grad * z / (z + 1))

    def backward(self, grad):
        from teachgrad.ops.pointwise import SigmoidBackwardBackward0, times_number
        x, beta, threshold = self._saved_self, self._saved_beta, self._saved_threshold
        grad_grad_output = SoftplusBackwardBackward0.apply(grad, x, beta=beta,
                                                           threshold=threshold)
        scaled = times_number(x, beta)
        curvature = SigmoidBackwardBackward0.apply(grad * self._saved_grad_output,
                                                   scaled.sigmoid())
        grad_self = times_number(curvature * (scaled < threshold).to(grad.dtype), beta)
        return grad_grad_output, grad_self


class SiluBackward0(Operation):
    """x * sigmoid(x)."""

    def forward(self, a):
        self.save("self")
        return quiet_numpy.run(_silu, a)        # silu(-inf) is -inf / inf: nan, as in PyTorch

    def backward(self, grad):
        x = self._saved_self
        s = x.sigmoid()
        return grad * s * (1 + x * (1 - s))      # PyTorch's infinitely differentiable form


def _silu(a):
    return a / (1 + np.exp(-a))


_SQRT_HALF = 0.7071067811865476                  # 1 / sqrt(2)
_NORMAL_PDF = 0.3989422804014327                 # 1 / sqrt(2 pi)
_TANH_SCALE = 0.7978845608028654                 # sqrt(2 / pi)
_TANH_KAPPA = 0.044715


class GeluBackward0(Operation):
    """x * Phi(x), Phi the standard normal's distribution function (``approximate="tanh"``:
    0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))))."""

    def forward(self, a, approximate):
        self.save("self")
        self._saved_approximate = approximate
        return quiet_numpy.run(_gelu, a, approximate)   # inf * 0 at -inf: nan, as in PyTorch

    def backward(self, grad):
        return GeluBackwardBackward0.apply(grad, self._saved_self,
                                           approximate=self._saved_approximate)


class GeluBackwardBackward0(Operation):
    """gelu's gradient as one node (PyTorch's gelu_backward)."""
    input_names = ("grad_output", "self")

    def forward(self, grad, a, approximate):
        self.save("grad_output")
        self.save("self")
        self._saved_approximate = approximate
        return quiet_numpy.run(_gelu_gradient, grad, a, approximate)

    def backward(self, grad):
        """PyTorch's gelu_double_backward: d(gelu') / dx, written with teachgrad ops."""
        from teachgrad.ops.pointwise import times_number
        x, grad_output = self._saved_self, self._saved_grad_output
        grad_grad_output = GeluBackwardBackward0.apply(grad, x,
                                                       approximate=self._saved_approximate)
        if self._saved_approximate == "tanh":
            inner = times_number(x + times_number(x.pow(3), _TANH_KAPPA), _TANH_SCALE)
            tanh_inner = inner.tanh()
            g = 1 - tanh_inner * tanh_inner                    # sech^2 of inner
            h = times_number(1 + times_number(x * x, 3 * _TANH_KAPPA), _TANH_SCALE)
            half_x = times_number(x, 0.5)
            f_prime_gh = times_number(g * h, 0.5)
            g_prime_fh = half_x * h * (-2 * g * tanh_inner * h)
            h_prime_fg = half_x * g * times_number(x, 6 * _TANH_KAPPA * _TANH_SCALE)
            curvature = f_prime_gh + f_prime_gh + g_prime_fh + h_prime_fg
        else:
            squared = x * x
            pdf = times_number(times_number(squared, -0.5).exp(), _NORMAL_PDF)
            curvature = 2 * pdf - squared * pdf
        return grad_grad_output, grad * grad_output * curvature


def _gelu(a, approximate):
    dtype = a.dtype.type
    if approximate == "tanh":
        inner = dtype(_TANH_SCALE) * (a + dtype(_TANH_KAPPA) * a * a * a)
        return dtype(0.5) * a * (1 + np.tanh(inner))
    from teachgrad.ops.pointwise import ErfBackward0
    return a * dtype(0.5) * (1 + ErfBackward0._erf(a * dtype(_SQRT_HALF)).astype(a.dtype))


def _gelu_gradient(grad, a, approximate):
    """``grad`` times the derivative of gelu at ``a`` (the numpy of GeluBackwardBackward0)."""
    dtype = a.dtype.type
    if approximate == "tanh":
        inner = dtype(_TANH_SCALE) * (a + dtype(_TANH_KAPPA) * a * a * a)
        tanh_inner = np.tanh(inner)
        slope = dtype(0.5) * a * (1 - tanh_inner * tanh_inner) * dtype(_TANH_SCALE) * (
            1 + dtype(3 * _TANH_KAPPA) * a * a)
        return grad * (dtype(0.5) * (1 + tanh_inner) + slope)
    from teachgrad.ops.pointwise import ErfBackward0
    cdf = dtype(0.5) * (1 + ErfBackward0._erf(a * dtype(_SQRT_HALF)).astype(a.dtype))
    pdf = np.exp(dtype(-0.5) * a * a) * dtype(_NORMAL_PDF)
    return grad * (cdf + a * pdf)


class ConstantPadNdBackward0(Operation):
    """``F.pad``: ``pad = (left, right, top, bottom, ...)`` from the last dimension backwards.

    A negative amount crops. The gradient is the same padding with every amount
    negated: what was added is cut off again.
    """

    def forward(self, a, pad, value):
        self._saved_pad = pad
        widths = [(0, 0)] * a.ndim
        for i in range(len(pad) // 2):
            widths[-1 - i] = (pad[2 * i], pad[2 * i + 1])
        crop = tuple(slice(max(-before, 0), size - max(-after, 0))
                     for size, (before, after) in zip(a.shape, widths))
        grow = [(max(before, 0), max(after, 0)) for before, after in widths]
        return np.pad(a[crop], grow, constant_values=value)

    def backward(self, grad):
        return ConstantPadNdBackward0.apply(grad, pad=tuple(-p for p in self._saved_pad), value=0)


class EmbeddingDenseBackward0(EmbedBackward):
    """Embedding's backward: the gradient's rows added into a zero weight at their indices."""


class EmbeddingBackward0(Operation):
    """Rows of the weight picked by integer indices."""
    input_names = ("weight",)

    def forward(self, weight, indices, padding_idx):
        self._saved_indices, self._saved_padding_idx = indices, padding_idx
        self._weight_shape = weight.shape
        return weight[indices]

    def backward(self, grad):
        if self._saved_padding_idx is not None:
            grad = grad * Tensor._make((self._saved_indices != self._saved_padding_idx)[..., None])
        return EmbeddingDenseBackward0.apply(grad, shape=self._weight_shape,
                                             key=self._saved_indices, accumulate=True)


# ---- losses -----------------------------------------------------------------------------
def reduce(losses, reduction):
    """Apply a loss's ``reduction``: keep every loss, or their mean or sum."""
    if reduction == "none":
        return losses
    total = losses.sum(dtype=losses.dtype)
    return np.asarray(total / losses.size if reduction == "mean" else total, dtype=losses.dtype)


class LossOperation(Operation):
    """A loss of (input, target), element by element, then reduced."""
    input_names = ("self", "target")

    def keep(self, reduction, weight=None):
        self.save("self")
        self.save("target")
        self._saved_reduction, self._weight = reduction, weight
        if weight is not None:          # (only a loss given a weight shows one, as in PyTorch)
            self._saved_weight = weight

    def reduce(self, losses):
        if self._weight is not None:
            losses = losses * self._weight
        self._numel = losses.size
        return reduce(losses, self._saved_reduction)

    def chain(self, grad, derivative):
        """The incoming gradient times each element's derivative (weighted, and scaled for
        the mean); None when that input needs no gradient."""
        if derivative is None:
            return None
        if self._weight is not None:
            derivative = derivative * Tensor._make(self._weight)
        if self._saved_reduction == "mean":
            derivative = derivative / self._numel
        return grad * derivative


class MseLossBackward0(LossOperation):
    def forward(self, a, target, reduction):
        self.keep(reduction)
        return quiet_numpy.run(self._mean_squared_error, a, target)  # overflow: inf, silently

    def _mean_squared_error(self, a, target):
        difference = a - target
        return self.reduce(difference * difference)

    def backward(self, grad):
        """PyTorch's mse_loss_backward: (2 / n for the mean, else 2) * (x - t) * grad, in
        that order: (x - t) * (2 / n) stays finite where 2 * (x - t) would overflow."""
        norm = 2 / self._numel if self._saved_reduction == "mean" else 2
        grad_self = times_number(self._saved_self - self._saved_target, norm) * grad
        return grad_self, -grad_self if self.needs_input_grad[1] else None


class BinaryCrossEntropyBackward0(LossOperation):
    """-(t log p + (1 - t) log(1 - p)), each log clamped at -100 as in PyTorch."""

    def forward(self, p, target, weight, reduction):
        if not ((p >= 0) & (p <= 1)).all():
            raise RuntimeError("all elements of input should be between 0 and 1")
        if not ((target >= 0) & (target <= 1)).all():
            raise RuntimeError("all elements of target should be between 0 and 1")
        self.keep(reduction, weight)
        with np.errstate(divide="ignore"):
            log_p, log_not_p = np.maximum(np.log(p), -100), np.maximum(np.log1p(-p), -100)
        return self.reduce(-(target * log_p + (1 - target) * log_not_p))

    def backward(self, grad):
        p, target = self._saved_self, self._saved_target
        grad_self = (p - target) / ((1 - p) * p).clamp(min=1e-12)
        grad_target = None
        if self.needs_input_grad[1]:
            grad_target = (1 - p).log().clamp(min=-100) - p.log().clamp(min=-100)
        return self.chain(grad, grad_self), self.chain(grad, grad_target)


class BinaryCrossEntropyWithLogitsBackward0(LossOperation):
    """Binary cross-entropy of sigmoid(x), computed stably from x:
    (1 - t) x - w log(sigmoid(x)), with w = (pos_weight - 1) t + 1 (1 without pos_weight)."""

    def forward(self, x, target, weight, pos_weight, reduction):
        self.keep(reduction, weight)
        self._saved_pos_weight = pos_weight
        log_sigmoid = np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))
        if pos_weight is not None:
            log_sigmoid = log_sigmoid * ((pos_weight - 1) * target + 1)
        return self.reduce((1 - target) * x - log_sigmoid)

    def backward(self, grad):
        x, target = self._saved_self, self._saved_target
        if self._saved_pos_weight is None:
            grad_self, grad_target = x.sigmoid() - target, -x
        else:
            pos_weight = Tensor._make(self._saved_pos_weight)
            grad_self = (pos_weight * target + 1 - target) * x.sigmoid() - pos_weight * target
            grad_target = _log_sigmoid(-x) - _log_sigmoid(x) * pos_weight
        if not self.needs_input_grad[1]:
            grad_target = None
        return self.chain(grad, grad_self), self.chain(grad, grad_target)


def _log_sigmoid(x):
    return x.clamp(max=0) - ((-x.abs()).exp() + 1).log()


class NllLossBackward0(Operation):
    """Minus the input at each sample's target class, times that class's weight.

    Input (N, C, ...) with target (N, ...), or one sample: input (C,), target ().
    ``reduction="mean"`` divides by the summed weights of the samples counted
    (those whose target is not ``ignore_index``).
    """
    kept_names = ("total_weight",)

    def forward(self, x, target, weight, reduction, ignore_index):
        self.save("self")                    # for the gradient's own node (see backward)
        self._saved_target, self._saved_ignore_index = target, ignore_index
        self._saved_weight, self._saved_reduction, self._input_shape = weight, reduction, x.shape
        x = x if x.ndim > 1 else x.reshape(1, -1)
        self._samples_shape = x.shape
        self._samples = counted, safe_target, sample_weight = self.samples(x)
        losses = -_at_classes(x, safe_target) * sample_weight
        total_weight = sample_weight.sum(dtype=x.dtype)
        self.keep("total_weight", np.asarray(total_weight))    # as PyTorch does
        if reduction == "none":
            return losses.reshape(target.shape)
        total = losses.sum(dtype=x.dtype)
        if reduction == "sum":
            return np.asarray(total)
        return np.asarray(quiet_numpy.run(np.true_divide, total, total_weight))  # all ignored: nan

    def samples(self, x):
        """For each sample: is it counted (not ignored), its target class (0 for an ignored
        one) and its weight (0 if ignored). Kept for backward, which needs them again."""
        target = self._saved_target if self._saved_target.ndim else self._saved_target.reshape(1)
        counted = target != self._saved_ignore_index
        safe_target = target if counted.all() else np.where(counted, target, 0)
        if safe_target.size and (safe_target.min() < 0 or safe_target.max() >= x.shape[1]):
            bad = target[counted & ((target < 0) | (target >= x.shape[1]))][0]
            raise IndexError(f"Target {bad} is out of bounds.")
        if self._saved_weight is None:
            return counted, safe_target, counted.astype(x.dtype)
        return counted, safe_target, self._saved_weight[safe_target] * counted

    def release_saved(self):
        super().release_saved()
        self._samples = None        # freed with the saved tensors (see samples)

    def backward(self, grad):
        """Each sample's gradient: -weight (÷ the total weight) at its target class, 0 elsewhere,
        times the incoming gradient; one op of that gradient and the input, as in PyTorch."""
        counted, safe_target, sample_weight = self._samples
        scale = -sample_weight
        if self._saved_reduction == "mean":
            divided = quiet_numpy.run(np.true_divide, scale, self._saved_total_weight._data)
            scale = divided if counted.all() else np.where(counted, divided, scale)  # ignored: 0
        coefficients = np.zeros(self._samples_shape, dtype=scale.dtype)
        _at_classes(coefficients, safe_target, put=scale)
        per_sample = self._saved_reduction == "none" and len(self._input_shape) > 1
        return self.gradient_op.apply(grad, self._saved_self,
                                      coefficients=coefficients.reshape(self._input_shape),
                                      per_sample=per_sample)


def _at_classes(x, classes, put=None):
    """``x[n, classes[n]]`` for every sample n (for images, at every pixel too), or, with
    ``put``, those places set to it. A plain index for (N, C) rows, the common case: numpy's
    take/put_along_axis, which serve the image case, cost far more on small batches."""
    if x.ndim == 2:
        places = (np.arange(len(x)), classes)
        if put is None:
            return x[places]
        x[places] = put
    elif put is None:
        return np.take_along_axis(x, classes[:, None], axis=1)[:, 0]
    else:
        np.put_along_axis(x, classes[:, None], put[:, None], axis=1)


class NllLossBackwardBackward0(Operation):
    """nll_loss's gradient: ``grad`` (one per sample with reduction="none") times fixed
    coefficients. It is linear in ``grad`` and does not depend on the input's values, so
    its gradient with respect to the input is 0 -- but, as in PyTorch, the input is one of
    its inputs, so the gradient's graph reaches it."""
    input_names = ("grad_output", "self")
    kept_names = ("coefficients",)

    def forward(self, grad, x, coefficients, per_sample):
        self.keep("coefficients", coefficients)
        self._per_sample = per_sample
        return (np.expand_dims(grad, 1) if per_sample else grad) * coefficients

    def backward(self, grad):
        weighted = grad * self._saved_coefficients
        grad_grad_output = weighted.sum(1) if self._per_sample else weighted.sum()
        return grad_grad_output, Tensor._make(np.zeros(grad.shape, grad._data.dtype))


class NllLoss2DBackwardBackward0(NllLossBackwardBackward0):
    """nll_loss's gradient on images."""


NllLossBackward0.gradient_op = NllLossBackwardBackward0


class NllLoss2DBackward0(NllLossBackward0):
    """nll_loss on images: input (N, C, H, W), target (N, H, W)."""
    gradient_op = NllLoss2DBackwardBackward0


# ---- more losses: smooth L1 and Huber; the small ops of the composed losses -------------
class SmoothL1LossBackward0(LossOperation):
    """With d = |x - t|: 0.5 d^2 / beta where d < beta, else d - 0.5 beta -- quadratic near
    the target, linear far from it (beta = 0, the L1 loss, is composed in functional)."""

    def forward(self, a, target, reduction, beta):
        self.keep(reduction)
        self._saved_beta = beta
        d, beta = np.abs(a - target), a.dtype.type(beta)
        return self.reduce(np.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta))

    def backward(self, grad):
        return _swapped_gradients(self, SmoothL1LossBackwardBackward0, grad, self._saved_beta)


class HuberLossBackward0(LossOperation):
    """With d = |x - t|: 0.5 d^2 where d < delta, else delta (d - 0.5 delta): smooth L1
    scaled by delta (beta = delta)."""

    def forward(self, a, target, reduction, delta):
        self.keep(reduction)
        self._saved_delta = delta
        d, delta = np.abs(a - target), a.dtype.type(delta)
        return self.reduce(np.where(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta)))

    def backward(self, grad):
        return _swapped_gradients(self, HuberLossBackwardBackward0, grad, self._saved_delta)


def _swapped_gradients(node, gradient_op, grad, width):
    """A loss of x - t has the target's gradient of the input's with the two swapped:
    PyTorch computes both with the gradient's node, each as a node of its own."""
    x, t, reduction = node._saved_self, node._saved_target, node._saved_reduction
    return (gradient_op.apply(grad, x, t, reduction=reduction, width=width)
            if node.needs_input_grad[0] else None,
            gradient_op.apply(grad, t, x, reduction=reduction, width=width)
            if node.needs_input_grad[1] else None)


class PiecewiseLossGradient(Operation):
    """The gradient of smooth L1 or Huber, as one node: ``grad`` (÷ n for the mean) times
    the slope, which is that of the quadratic part where |x - t| < ``width``, a constant
    outside. (Each subclass shows the width under PyTorch's name: beta, delta.)"""
    input_names = ("grad_output", "self", "target")

    def forward(self, grad, a, target, reduction, width):
        self.save("grad_output")
        self.save("self")
        self.save("target")
        self._saved_reduction, self._width = reduction, width
        norm = a.dtype.type(1 / a.size if reduction == "mean" else 1)
        return self.slopes(a - target, grad, norm, a.dtype.type(width))

    def backward(self, grad):
        """PyTorch's double backward: for grad_output the same node again (summed over the
        elements when the loss is reduced); for self and target, ``grad * grad_output``
        times the curvature, a constant inside the quadratic part and 0 outside."""
        from teachgrad import creation
        x, t, grad_output = self._saved_self, self._saved_target, self._saved_grad_output
        params = dict(reduction=self._saved_reduction, width=self._width)
        if self._saved_reduction == "none":
            grad_grad_output = type(self).apply(grad, x, t, **params)
        else:
            slopes = type(self).apply(creation.ones_like(grad_output), x, t, **params)
            grad_grad_output = (slopes * grad).sum()
        needs = self.needs_input_grad
        return (grad_grad_output, self.curvature(grad * grad_output) if needs[1] else None,
                -self.curvature(grad * grad_output) if needs[2] else None)

    def inside(self):
        return (self._saved_self - self._saved_target).abs() < self._width

    def for_the_mean(self, grad):
        """``grad`` divided by the number of elements for the mean."""
        if self._saved_reduction == "mean":
            return pointwise.DivBackward1.apply(grad, other=self._saved_self.numel())
        return grad


class SmoothL1LossBackwardBackward0(PiecewiseLossGradient):
    _saved_beta = property(lambda self: self._width)

    def slopes(self, x, grad, norm, beta):
        return np.where(x <= -beta, -norm * grad,
                        np.where(x >= beta, norm * grad, norm * x * grad / beta))

    def curvature(self, grad):
        """1 / beta inside the quadratic part."""
        inside = self.inside().to(grad.dtype)
        return self.for_the_mean(pointwise.DivBackward1.apply(grad * inside, other=self._width))


class HuberLossBackwardBackward0(PiecewiseLossGradient):
    _saved_delta = property(lambda self: self._width)

    def slopes(self, x, grad, norm, delta):
        return np.where(x <= -delta, -norm * grad * delta,
                        np.where(x >= delta, norm * grad * delta, norm * x * grad))

    def curvature(self, grad):
        """1 inside the quadratic part."""
        return self.for_the_mean(grad * self.inside())


# ---- soft margin: the logistic loss of the margin t * x ----------------------------------
def _soft_margin_slopes(a, target, grad, reduction):
    """PyTorch's soft_margin_loss_backward: -t z / (1 + z) * grad with z = exp(-t x)
    (÷ n for the mean), in the input's dtype."""
    norm = 1 / a.size if reduction == "mean" else 1.0
    with np.errstate(over="ignore", invalid="ignore"):
        z = np.exp(-target * a)
        return np.asarray(target * z * -norm / (1 + z) * grad, dtype=a.dtype)


class SoftMarginLossBackward0(Operation):
    """log(1 + exp(-t x)) for labels t = ±1, then reduced. The target is kept, not an
    input: PyTorch gives it no gradient (and refuses one that requires grad)."""
    kept_names = ("target",)

    def forward(self, a, target, reduction):
        target_array = np.broadcast_to(target._data, a.shape).astype(a.dtype, copy=False)
        self.save("self")
        self.keep("target", target)
        self._saved_reduction = reduction
        with np.errstate(over="ignore"):                 # exp overflows to inf, as in PyTorch
            losses = np.asarray(np.log1p(np.exp(-a * target_array)), dtype=a.dtype)
        return reduce(losses, reduction)

    def backward(self, grad):
        return SoftMarginLossBackwardBackward0.apply(grad, self._saved_self,
                                                     target=self._saved_target,
                                                     reduction=self._saved_reduction)


class SoftMarginLossBackwardBackward0(Operation):
    """The gradient of the soft margin loss as one node (PyTorch's
    soft_margin_loss_backward); its own gradient is composed of ordinary ops."""
    input_names = ("grad_output", "self")
    kept_names = ("target",)

    def forward(self, grad, a, target, reduction):
        self.save("grad_output")
        self.save("self")
        self.keep("target", target)
        self._saved_reduction = reduction
        target_array = np.broadcast_to(target._data, a.shape).astype(a.dtype, copy=False)
        return _soft_margin_slopes(a, target_array, grad, reduction)

    def backward(self, grad):
        """PyTorch's soft_margin_loss_double_backward (for self) and its _grad_output
        (the same node again, summed against ``grad`` when the loss is reduced)."""
        from teachgrad import creation
        x, t, grad_output = self._saved_self, self._saved_target, self._saved_grad_output
        reduction = self._saved_reduction
        grad_grad_output = grad_self = None
        if self.needs_input_grad[0]:
            if reduction == "none":
                grad_grad_output = type(self).apply(grad, x, target=t, reduction=reduction)
            else:
                slopes = type(self).apply(creation.ones_like(grad_output), x, target=t,
                                          reduction=reduction)
                grad_grad_output = (slopes * grad).sum()
        if self.needs_input_grad[1]:
            z = (x * -t).exp()
            z_plus_1 = pointwise.plus_number(z, 1)
            grad_self = grad * grad_output * (t * t) * z / (z_plus_1 * z_plus_1)
            if reduction == "mean":
                grad_self = pointwise.DivBackward1.apply(grad_self, other=x.numel())
        return grad_grad_output, grad_self


# ---- multi margin: the target class's score should beat every other one by a margin -------
def _multi_margins(a, target, margin):
    """The scores as (samples, classes) and margin - x[y] + x[i] for each class i, with
    y the sample's target class; False at y in ``counted``, and where the margin is met."""
    scores = a.reshape(-1, a.shape[-1] if a.ndim else 1)
    samples = np.arange(scores.shape[0])
    y = target.reshape(-1)
    z = scores.dtype.type(margin) - scores[samples, y][:, None] + scores
    counted = z > 0
    counted[samples, y] = False
    return z, counted, samples, y


def _class_weights(weight, y, dtype):
    return np.ones(len(y), dtype) if weight is None else weight._data[y]


class MultiMarginLossBackward0(Operation):
    """For each sample, the sum over the other classes of max(0, margin - x[y] + x[i])^p
    (times the target class's weight), over the number of classes; then reduced. The
    target and the weight are kept, not inputs: they get no gradient."""
    kept_names = ("target", "weight")

    def forward(self, a, target, weight, p, margin, reduction):
        self.save("self")
        self.keep("target", target)
        if weight is not None:
            self.keep("weight", weight)
        self._saved_p, self._saved_margin, self._saved_reduction = p, margin, reduction
        z, counted, _, y = _multi_margins(a, target._data, margin)
        hinges = np.where(counted, z if p == 1 else z * z, 0)
        losses = hinges.sum(1) * _class_weights(weight, y, a.dtype) / z.shape[1]
        if reduction == "none":
            return np.asarray(losses.reshape(target.shape), dtype=a.dtype)
        return np.asarray(losses.sum() / (len(y) if reduction == "mean" else 1), dtype=a.dtype)

    def backward(self, grad):
        x = self._saved_self
        arguments = dict(grad_output=grad._data, a=x._data, target=self._saved_target,
                         weight=self._saved_weight, p=self._saved_p,
                         margin=self._saved_margin, reduction=self._saved_reduction)
        return MultiMarginLossGradient.apply(*(t for t in (grad, x) if t.requires_grad),
                                             **arguments)


class MultiMarginLossGradient(Operation):
    """PyTorch's multi_margin_loss_backward, which has no derivative: its node is
    NotImplemented, linked to those of grad_output and self that need a gradient, and
    backward through it raises PyTorch's error."""
    promote = None

    def forward(self, *inputs_that_require_grad, grad_output, a, target, weight, p, margin,
                reduction):
        z, counted, samples, y = _multi_margins(a, target._data, margin)
        classes = z.shape[1]
        g = a.dtype.type(1 / (len(y) * classes) if reduction == "mean" else 1 / classes)
        slopes = np.where(counted, g if p == 1 else 2 * g * z, 0)
        slopes = slopes * _class_weights(weight, y, a.dtype)[:, None]
        slopes[samples, y] = -slopes.sum(1)
        per_sample = grad_output.reshape(-1, 1) if reduction == "none" else grad_output
        return np.asarray((slopes * per_sample).reshape(a.shape), dtype=a.dtype)

    def backward(self, grad):
        raise RuntimeError("derivative for aten::multi_margin_loss_backward is not implemented")


MultiMarginLossGradient.__name__ = "NotImplemented"          # PyTorch's name for the node


class NormBackward1(Operation):
    """``at::norm(x, p, dim, keepdim)``, the p-norm over one dimension as PyTorch's C++ code
    calls it (in pairwise_distance): Python's ``x.norm`` records LinalgVectorNormBackward0,
    the same formula under another name, which shows ``ord`` where this one shows ``p``."""

    def forward(self, a, p, dim, keepdim):
        self.save("self")
        self.save("result")
        self._saved_p, self._saved_keepdim = float(p), keepdim
        self._saved_dim = (dim % 2 ** 64,)            # (-1 shown as 2**64 - 1, as PyTorch does)
        self._dims = (dim % a.ndim,) if a.ndim else ()
        with np.errstate(divide="ignore", over="ignore"):     # 0 ** -1 is inf, as in PyTorch
            result = distances.p_norm(a, p, self._dims)
        return np.asarray(np.expand_dims(result, self._dims) if keepdim else result, a.dtype)

    def backward(self, grad):
        """PyTorch's norm_backward, over the one dimension (as LinalgVectorNormBackward0's)."""
        x, p, dims = self._saved_self, self._saved_p, self._dims
        norm = reduction.restore_reduced_dims(self._saved_result, dims, self._saved_keepdim)
        grad = reduction.restore_reduced_dims(grad, dims, self._saved_keepdim)
        if p == 0:
            return None
        if p in (np.inf, -np.inf):
            magnitudes = x.abs()
            at_the_norm = (magnitudes == norm) | magnitudes.isnan()
            return x.sign() * ((grad / at_the_norm.sum(dims, keepdim=True)) * at_the_norm)
        return distances.norm_gradient(grad, x, p, norm)


# ---- layer norm -----------------------------------------------------------------------
class NativeLayerNormBackward0(Operation):
    """Normalise each sample over its last dimensions (``normalized_shape``), then scale by
    weight and add bias, element by element.

    As in PyTorch, the node keeps the input, the weight and bias (None when absent) and
    each sample's mean and 1 / std (``_saved_result1``, ``_saved_result2``, shaped like
    the input with the normalised dimensions kept as 1). Backward recomputes the
    statistics from the saved input with teachgrad operations, so that a gradient of the
    gradient is right too (PyTorch's gradient is one NativeLayerNormBackwardBackward0 node).
    """
    input_names = ("input", "weight", "bias")
    kept_names = ("result1", "result2")

    def forward(self, x, weight, bias, normalized_shape, eps, has_weight, has_bias):
        self.save("input")
        if has_weight:          # without, weight is all ones and PyTorch saves None
            self.save("weight")
        if has_bias:
            self.save("bias")
        self._saved_normalized_shape, self._eps = normalized_shape, eps
        self._dims = tuple(range(x.ndim - len(normalized_shape), x.ndim))
        mean = x.mean(axis=self._dims, keepdims=True)
        rstd = 1 / np.sqrt(x.var(axis=self._dims, keepdims=True) + x.dtype.type(eps))
        self.keep("result1", mean)
        self.keep("result2", rstd)
        return (x - mean) * rstd * weight + bias

    def backward(self, grad):
        x, weight, dims = self._saved_input, self._saved_weight, self._dims
        centered = x - x.mean(dims, keepdim=True)
        rstd = ((centered * centered).mean(dims, keepdim=True) + self._eps) ** -0.5
        normalized = centered * rstd
        grad_input = None
        if self.needs_input_grad[0]:
            g = grad if weight is None else grad * weight
            grad_input = rstd * (g - g.mean(dims, keepdim=True)
                                 - normalized * (g * normalized).mean(dims, keepdim=True))
        batch = x.ndim - len(dims)          # the leading dimensions, summed for weight and bias
        return grad_input, _sum_leading(grad * normalized, batch), _sum_leading(grad, batch)


def _sum_leading(t, count):
    """``t`` summed over its first ``count`` dimensions (none: ``t`` itself)."""
    return t.sum(tuple(range(count))) if count else t


# ---- group norm -----------------------------------------------------------------------
class NativeGroupNormBackward0(Operation):
    """Normalise each sample's channels in ``group`` groups (over the group's channels and
    positions), then scale by weight and add bias, one value per channel.

    As in PyTorch, the node keeps the input, the weight (None when absent), the sizes N, C,
    HxW and each group's mean and 1 / std (``_saved_result1``, ``_saved_result2``, shaped
    (N, group)). Backward recomputes the statistics with teachgrad operations, as layer
    norm's does, so that a gradient of the gradient is right too.
    """
    input_names = ("input", "weight", "bias")
    kept_names = ("result1", "result2")

    def forward(self, x, weight, bias, group, eps, has_weight):
        self.save("input")
        if has_weight:
            self.save("weight")
        batch, channels = x.shape[:2]
        self._saved_N, self._saved_C, self._saved_HxW = batch, channels, int(np.prod(x.shape[2:]))
        self._saved_group, self._saved_eps = group, eps
        groups = x.reshape(batch, group, -1)
        mean = groups.mean(axis=2)
        rstd = 1 / np.sqrt(groups.var(axis=2) + x.dtype.type(eps))
        self.keep("result1", mean)
        self.keep("result2", rstd)
        normalized = ((groups - mean[..., None]) * rstd[..., None]).reshape(x.shape)
        channel_shape = _channel_shape(x.ndim)
        return normalized * weight.reshape(channel_shape) + bias.reshape(channel_shape)

    def backward(self, grad):
        x, weight = self._saved_input, self._saved_weight
        grouped = (self._saved_N, self._saved_group, -1)
        groups = x.reshape(grouped)
        centered = groups - groups.mean(2, keepdim=True)
        rstd = ((centered * centered).mean(2, keepdim=True) + self._saved_eps) ** -0.5
        normalized = centered * rstd
        grad_input = None
        if self.needs_input_grad[0]:
            g = grad if weight is None else grad * weight.reshape(_channel_shape(x.ndim))
            g = g.reshape(grouped)
            grad_input = (rstd * (g - g.mean(2, keepdim=True) - normalized * (
                g * normalized).mean(2, keepdim=True))).reshape(x.shape)
        others = (0,) + tuple(range(2, x.ndim))       # every dimension but the channels'
        return grad_input, (grad * normalized.reshape(x.shape)).sum(others), grad.sum(others)


def _channel_shape(ndim):
    """The shape that lines a per-channel vector up with dimension 1 of an input."""
    return (1, -1) + (1,) * (ndim - 2)


# ---- more activations: hardtanh, threshold, elu, logsigmoid, hard ones, mish -----------
def _zeros_like(grad):
    return Tensor._make(np.zeros(grad.shape, grad._data.dtype))


class HardtanhBackward0(Operation):
    """x clipped to [min_val, max_val] (relu6 is hardtanh with 0 and 6)."""

    def forward(self, a, min_val, max_val):
        self.save("self")
        self._saved_min_val, self._saved_max_val = min_val, max_val
        return np.clip(a, a.dtype.type(min_val), a.dtype.type(max_val))  # ints stay ints

    def backward(self, grad):
        return HardtanhBackwardBackward0.apply(grad, self._saved_self,
                                               min_val=self._saved_min_val,
                                               max_val=self._saved_max_val)


class HardtanhBackwardBackward0(Operation):
    """hardtanh's gradient: ``grad`` strictly inside (min_val, max_val), 0 at and past the
    bounds (and ``grad`` at NaN, which fails both comparisons), as one node."""
    input_names = ("grad_output", "self")

    def forward(self, grad, a, min_val, max_val):
        self.save("self")
        self._saved_min_val, self._saved_max_val = min_val, max_val
        return np.where((a <= min_val) | (a >= max_val), grad.dtype.type(0), grad)

    def backward(self, grad):
        grad_grad_output = HardtanhBackwardBackward0.apply(
            grad, self._saved_self, min_val=self._saved_min_val, max_val=self._saved_max_val)
        return grad_grad_output, _zeros_like(grad)


class ThresholdBackward0(Operation):
    """``value`` where x <= threshold, else x."""

    def forward(self, a, threshold, value):
        self.save("self")
        self._saved_threshold = threshold
        return np.where(a <= threshold, a.dtype.type(value), a)

    def backward(self, grad):
        return ThresholdBackwardBackward0.apply(grad, self._saved_self,
                                                threshold=self._saved_threshold)


class ThresholdBackward1(ThresholdBackward0):
    """In place (the node keeps a copy of the input, as PyTorch does)."""


class EluBackward0(Operation):
    """scale * x where x > 0, else scale * alpha * (exp(input_scale * x) - 1).

    elu has scale = input_scale = 1; selu is elu with PyTorch's fixed alpha and scale.
    """

    def forward(self, a, alpha, scale, input_scale):
        self.save("self")
        return self.elu(a, alpha, scale, input_scale)

    def elu(self, a, alpha, scale, input_scale):
        self._saved_alpha, self._saved_scale, self._saved_input_scale = alpha, scale, input_scale
        return quiet_numpy.run(_elu, a, alpha, scale, input_scale)   # exp overflows unused

    def backward(self, grad):
        return EluBackwardBackward0.apply(grad, self._saved_self, **self.parameters(False))

    def parameters(self, is_result):
        return dict(alpha=self._saved_alpha, scale=self._saved_scale,
                    input_scale=self._saved_input_scale, is_result=is_result)


class EluBackward1(EluBackward0):
    """In place: the input is overwritten, so backward computes from the result."""

    def forward(self, a, alpha, scale, input_scale):
        self.save("result")
        return self.elu(a, alpha, scale, input_scale)

    def backward(self, grad):
        return EluBackwardBackward0.apply(grad, self._saved_result, **self.parameters(True))


def _elu(a, alpha, scale, input_scale):
    dtype = a.dtype.type
    negative = dtype(alpha * scale) * np.expm1(a * dtype(input_scale))
    return np.where(a > 0, a * dtype(scale), negative)


class EluBackwardBackward0(Operation):
    """elu's gradient as one node (PyTorch's elu_backward), from the input or, in place,
    from the result (``is_result``): where x <= 0 the slope is input_scale times
    (result + alpha * scale), the same as alpha * scale * input_scale * exp(input_scale x)."""
    input_names = ("grad_output", "self_or_result")

    def forward(self, grad, s, alpha, scale, input_scale, is_result):
        self.save("grad_output")
        self.save("self_or_result")
        self._saved_alpha, self._saved_scale = alpha, scale
        self._saved_input_scale, self._saved_is_result = input_scale, is_result
        return quiet_numpy.run(_elu_gradient, grad, s, alpha, scale, input_scale, is_result)

    def backward(self, grad):
        """PyTorch's elu_double_backward, written with teachgrad ops."""
        s, grad_output = self._saved_self_or_result, self._saved_grad_output
        parameters = dict(alpha=self._saved_alpha, scale=self._saved_scale,
                          input_scale=self._saved_input_scale, is_result=self._saved_is_result)
        grad_grad_output = EluBackwardBackward0.apply(grad, s, **parameters)
        scaled = times_number(grad * grad_output, self._saved_input_scale)
        if not self._saved_is_result:
            scaled = EluBackwardBackward0.apply(scaled, s, **parameters)
        return grad_grad_output, scaled * (s < 0).to(grad.dtype)


def _elu_gradient(grad, s, alpha, scale, input_scale, is_result):
    dtype = s.dtype.type
    if is_result:
        negative = grad * dtype(input_scale) * (s + dtype(alpha * scale))
    else:
        negative = grad * dtype(input_scale) * dtype(alpha * scale) * np.exp(s * dtype(input_scale))
    return np.where(s <= 0, negative, grad * dtype(scale))


class LogSigmoidBackward0(Operation):
    """log(sigmoid(x)) = min(x, 0) - log(1 + exp(-|x|)); the node keeps exp(-|x|) as
    ``_saved_buffer``, as PyTorch does on the CPU."""
    kept_names = ("buffer",)

    def forward(self, a):
        self.save("self")
        buffer = np.exp(-np.abs(a))
        self.keep("buffer", buffer)
        return np.minimum(a, 0) - np.log1p(buffer)

    def backward(self, grad):
        return LogSigmoidBackwardBackward0.apply(grad, self._saved_self,
                                                 buffer=self._saved_buffer._data)


class LogSigmoidBackwardBackward0(Operation):
    """logsigmoid's gradient, ``grad * sigmoid(-x)`` from the buffer, as one node."""
    input_names = ("grad_output", "self")
    kept_names = ("buffer",)

    def forward(self, grad, a, buffer):
        self.save("grad_output")
        self.save("self")
        self.keep("buffer", buffer)
        share = buffer / (1 + buffer)
        return grad * np.where(a < 0, 1 - share, share)

    def backward(self, grad):
        x = self._saved_self
        grad_grad_output = LogSigmoidBackwardBackward0.apply(grad, x,
                                                             buffer=self._saved_buffer._data)
        z = x.sigmoid()
        return grad_grad_output, grad * self._saved_grad_output * (z - 1) * z


class HardsigmoidBackward0(Operation):
    """min(max(x + 3, 0), 6) / 6. Its gradient, 1/6 strictly between -3 and 3, is built
    from constants: PyTorch cannot differentiate it again (its node is NotImplemented)."""

    def forward(self, a):
        self.save("self")
        return np.minimum(np.maximum(a + 3, 0), 6) / a.dtype.type(6)

    def backward(self, grad):
        x = self._saved_self._data
        slope = np.where((x > -3) & (x < 3), x.dtype.type(1 / 6), x.dtype.type(0))
        return grad * Tensor._make(slope)


class HardswishBackward0(Operation):
    """x * min(max(x + 3, 0), 6) / 6."""

    def forward(self, a):
        self.save("self")
        return quiet_numpy.run(_hardswish, a)      # -inf * 0: nan, as in PyTorch

    def backward(self, grad):
        return HardswishBackwardBackward0.apply(grad, self._saved_self)


def _hardswish(a):
    return a * np.minimum(np.maximum(a + 3, 0), 6) / a.dtype.type(6)


class HardswishBackwardBackward0(Operation):
    """hardswish's gradient: 0 up to -3, grad * (x / 3 + 1/2) below 3, else ``grad``."""
    input_names = ("grad_output", "self")

    def forward(self, grad, a):
        self.save("grad_output")
        self.save("self")
        dtype = a.dtype.type
        middle = grad * (a / dtype(3) + dtype(0.5))
        return np.where(a <= -3, dtype(0), np.where(a < 3, middle, grad))

    def backward(self, grad):
        x = self._saved_self
        grad_grad_output = HardswishBackwardBackward0.apply(grad, x)
        inside = (x > -3) & (x < 3)
        return grad_grad_output, where(inside, grad * self._saved_grad_output / 3, _zeros_like(grad))


class MishBackward0(Operation):
    """x * tanh(softplus(x))."""

    def forward(self, a):
        self.save("self")
        return quiet_numpy.run(_mish, a)

    def backward(self, grad):
        """PyTorch's infinitely differentiable form, with teachgrad ops."""
        x = self._saved_self
        sigmoid = x.sigmoid()
        tanh_softplus = SoftplusBackward0.apply(x, beta=1.0, threshold=20.0).tanh()
        return grad * (tanh_softplus + x * sigmoid * (1 - tanh_softplus * tanh_softplus))


def _mish(a):
    return a * np.tanh(np.log1p(np.exp(a)))


# ---- prelu, celu, glu and the shrinks ------------------------------------------------------
class PreluKernelBackward0(Operation):
    """x where x > 0, else weight * x; the weight (one per channel, or a single one) comes
    reshaped to broadcast along dimension 1, as PyTorch's prelu passes it."""
    input_names = ("self", "weight")

    def forward(self, a, weight):
        self.save("self")
        self.save("weight")
        return np.where(a > 0, a, weight * a)

    def backward(self, grad):
        """Written with teachgrad ops (the engine sums the weight's gradient back to its
        shape), so it can be differentiated again."""
        x, weight = self._saved_self, self._saved_weight
        positive = x > 0
        return where(positive, grad, weight * grad), where(positive, _zeros_like(grad), x * grad)


class CeluBackward0(Operation):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1)): elu with input_scale 1 / alpha, as
    PyTorch computes it (its gradient is elu's node)."""

    def forward(self, a, alpha):
        self.save("self")
        return self.celu(a, alpha)

    def celu(self, a, alpha):
        self._saved_alpha = alpha
        return quiet_numpy.run(_elu, a, alpha, 1, 1 / alpha)

    def backward(self, grad):
        return EluBackwardBackward0.apply(grad, self._saved_self, **self.parameters(False))

    def parameters(self, is_result):
        return dict(alpha=self._saved_alpha, scale=1, input_scale=1 / self._saved_alpha,
                    is_result=is_result)


class CeluBackward1(CeluBackward0):
    """In place: backward computes from the result."""

    def forward(self, a, alpha):
        self.save("result")
        return self.celu(a, alpha)

    def backward(self, grad):
        return EluBackwardBackward0.apply(grad, self._saved_result, **self.parameters(True))


class GluBackward0(Operation):
    """The first half of ``dim`` times the sigmoid of the second half."""
    _saved_dim = GivenDim(many=False)

    def forward(self, a, dim):
        self.save("self")
        self._given_dim, self._dim = dim, dim % a.ndim
        first, second = np.split(a, 2, axis=self._dim)
        return first * quiet_numpy.run(_sigmoid, second)         # exp overflows: 0, silently

    def backward(self, grad):
        first, second = self._saved_self.chunk(2, self._dim)
        gate = second.sigmoid()
        return cat([grad * gate, grad * first * gate * (1 - gate)], self._dim)


def _sigmoid(a):
    return 1 / (1 + np.exp(-a))


class HardshrinkBackward0(Operation):
    """x where |x| > lambd, else 0 (a NaN stays NaN)."""

    def forward(self, a, lambd):
        self.save("self")
        self._saved_lambd = lambd
        return np.where(_inside(a, lambd), a.dtype.type(0), a)

    def backward(self, grad):
        return HardshrinkBackwardBackward0.apply(grad, self._saved_self,
                                                 lambd=self._saved_lambd)


def _inside(a, lambd):
    """Where -lambd <= a <= lambd: where both shrinks give 0 and their slope is 0."""
    return (a >= -lambd) & (a <= lambd)


class HardshrinkBackwardBackward0(Operation):
    """Both shrinks' gradient: ``grad`` outside [-lambd, lambd], 0 inside, as one node."""
    input_names = ("grad_output", "self")

    def forward(self, grad, a, lambd):
        self.save("self")
        self._saved_lambd = lambd
        return np.where(_inside(a, lambd), grad.dtype.type(0), grad)

    def backward(self, grad):
        grad_grad_output = type(self).apply(grad, self._saved_self, lambd=self._saved_lambd)
        return grad_grad_output, _zeros_like(grad)


class SoftshrinkBackward0(Operation):
    """x - lambd above lambd, x + lambd below -lambd, else 0 (a NaN stays NaN)."""

    def forward(self, a, lambd):
        self.save("self")
        self._saved_lambd = lambd
        shift = a.dtype.type(lambd)
        return np.where(a > shift, a - shift, np.where(a < -shift, a + shift, a * 0))

    def backward(self, grad):
        return SoftshrinkBackwardBackward0.apply(grad, self._saved_self,
                                                 lambd=self._saved_lambd)


class SoftshrinkBackwardBackward0(HardshrinkBackwardBackward0):
    """softshrink's gradient (the same as hardshrink's)."""
