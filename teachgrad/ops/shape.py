"""Shape operations and views: view/reshape, squeeze, transpose, expand, cat, stack.

The view operations (``view``, ``t``, ``transpose``, ``permute``, ``expand``,
``squeeze``, ``unsqueeze``, and basic indexing in ``indexing.py``) return a
tensor that shares memory and the version counter with its input
(``views.make_view``). ``reshape`` is a view when the memory allows it.
"""
import warnings

import numpy as np

from teachgrad import dtypes
from teachgrad.autograd import grad_mode, views
from teachgrad.autograd.operation import Operation
from teachgrad.ops.pointwise import CloneBackward0
from teachgrad.tensor import Tensor


def as_shape(size):
    """``f(2, 3)``, ``f((2, 3))`` and ``f([2, 3])`` all mean the shape (2, 3)."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = size[0]
    return tuple(int(s) for s in size)


def infer_shape(shape, numel):
    """Resolve one -1 in a shape, with PyTorch's error when the shape does not fit."""
    known = 1
    for s in shape:
        if s != -1:
            known *= s
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    if -1 in shape:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        return tuple(numel // known if s == -1 else s for s in shape)
    if known != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return shape


class GivenDim:
    """A node's ``_saved_dim``, as PyTorch shows it: the dim (or the dims, for ``many``) as
    the call gave them, kept in ``_given_dim``, with a negative d read as 2**64 + d (C++
    saves an int64_t, which the Python getter reads as unsigned). It is worked out only
    when read, so a reduction pays nothing for it; the formulas use the node's own
    normalised ``_dims`` or ``_dim``."""

    def __init__(self, many):
        self.many = many

    def __get__(self, node, owner=None):
        if node is None:
            return self
        return shown_dims(node._given_dim, self.many)


def shown_dims(dim, many):
    """``dim`` as PyTorch shows it (see GivenDim); None stays None."""
    if dim is None:
        return None
    if not many:
        return dim % 2 ** 64
    return tuple(d % 2 ** 64 for d in (dim if isinstance(dim, (tuple, list)) else (dim,)))


class ViewOperation(Operation):
    """An operation whose result is a view of its input."""
    promote = "none"

    @classmethod
    def apply_view(cls, input, replay, **params):
        return views.make_view(cls.apply(input, **params), input, replay)


class ViewBackward0(ViewOperation):
    def forward(self, a, shape):
        self._saved_self_sym_sizes = a.shape
        view = a.view()
        try:
            view.shape = shape
        except AttributeError:
            raise RuntimeError("view size is not compatible with input tensor's size and stride "
                               "(at least one dimension spans across two contiguous subspaces). "
                               "Use .reshape(...) instead.") from None
        return view

    def backward(self, grad):
        return grad.reshape(self._saved_self_sym_sizes)


class ReshapeAliasBackward0(ViewBackward0):
    """``reshape`` of a non-contiguous tensor whose memory still allows a view."""


class UnsafeViewBackward0(Operation):
    """Reshape of a fresh copy (not a view of anything)."""
    promote = "none"

    def forward(self, a, shape):
        self._saved_self_sym_sizes = a.shape
        return a.reshape(shape)

    def backward(self, grad):
        return grad.reshape(self._saved_self_sym_sizes)


class AliasBackward0(ViewOperation):
    def forward(self, a):
        return a.view()

    def backward(self, grad):
        return grad


class SqueezeBackward0(ViewOperation):
    """Squeeze every dimension of size 1."""

    def forward(self, a):
        self._saved_self_sym_sizes = a.shape
        return a.squeeze()

    def backward(self, grad):
        return grad.reshape(self._saved_self_sym_sizes)


class SqueezeBackward1(ViewOperation):
    """Squeeze one dimension (if it has size 1)."""

    def forward(self, a, dim):
        self._saved_self_sym_sizes, self._saved_dim = a.shape, dim
        return a.squeeze(dim) if a.ndim and a.shape[dim] == 1 else a.view()

    def backward(self, grad):
        return grad.reshape(self._saved_self_sym_sizes)


class SqueezeBackward4(SqueezeBackward1):
    """Squeeze of the dimensions matmul added (PyTorch's name for squeeze over dims)."""


class UnsqueezeBackward0(ViewOperation):
    """A new dimension of size 1 at ``dim`` (counted from the end when negative)."""
    _saved_dim = GivenDim(many=False)

    def forward(self, a, dim):
        self._given_dim, self._dim = dim, dim % (a.ndim + 1)
        return np.expand_dims(a, self._dim)

    def backward(self, grad):
        return grad.squeeze(self._dim)


class TransposeBackward0(ViewOperation):
    def forward(self, a, dim0, dim1):
        self._saved_dim0, self._saved_dim1 = dim0, dim1
        return np.swapaxes(a, dim0, dim1)

    def backward(self, grad):
        return grad.transpose(self._saved_dim0, self._saved_dim1)


class UnsqueezeBackward1(UnsqueezeBackward0):
    """``x.unsqueeze_(0)``, in place (PyTorch's name for it; quantile uses it too)."""


class TransposeBackward1(TransposeBackward0):
    """``x.transpose_(0, 1)`` (and ``swapaxes_`` / ``swapdims_``), in place: PyTorch's name
    for it (quantile uses it too)."""


class TBackward0(ViewOperation):
    def forward(self, a):
        if a.ndim > 2:
            raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {a.ndim}D")
        return a.T

    def backward(self, grad):
        return grad.t()


class PermuteBackward0(ViewOperation):
    def forward(self, a, dims):
        self._saved_dims = dims
        return np.transpose(a, dims)

    def backward(self, grad):
        return grad.permute(tuple(np.argsort(self._saved_dims)))


class ExpandBackward0(ViewOperation):
    def forward(self, a, shape):
        self._saved_self_sym_sizes = a.shape
        out = np.broadcast_to(a, shape)
        if 1 in a.shape:
            # numpy gives every size-1 dimension stride 0; PyTorch only the expanded ones
            lead = len(shape) - a.ndim
            strides = out.strides[:lead] + tuple(
                old if size == new else 0
                for old, size, new in zip(a.strides, a.shape, shape[lead:]))
            out = np.lib.stride_tricks.as_strided(a, shape, strides, writeable=False)
        return out

    def backward(self, grad):
        return grad.sum_to_size(self._saved_self_sym_sizes)


class CatBackward0(Operation):
    def forward(self, *arrays, dim):
        self._saved_dim = dim
        self._sizes = [a.shape[dim] for a in arrays]
        return np.concatenate(arrays, axis=dim)

    def backward(self, grad):
        grads, start = [], 0
        for size in self._sizes:
            grads.append(grad.narrow(self._saved_dim, start, size))
            start += size
        return tuple(grads)


class StackBackward0(Operation):
    def forward(self, *arrays, dim):
        self._saved_dim = dim
        return np.stack(arrays, axis=dim)

    def backward(self, grad):
        return tuple(grad.unbind(self._saved_dim))


class MultiViewOperation(Operation):
    """An operation whose outputs are several views of its input (split, chunk, unbind):
    one node, whose outputs are numbered 0, 1, 2, ... (each piece's ``output_nr``).

    As in PyTorch, such a piece may not be changed in place while autograd records: the
    one node that made all the pieces could not rebuild the history of one of them.
    """
    promote = "none"

    @classmethod
    def apply_views(cls, input, **params):
        pieces = cls.apply(input, **params)
        for number, piece in enumerate(pieces):
            views.make_view(piece, input,
                            lambda t, number=number: cls.apply_views(t, **params)[number])
            # (under no_grad the no_grad view rules apply; an inference tensor has no views)
            if grad_mode.is_grad_enabled() and piece._base is not None:
                piece._multi_output_view = True
        return pieces

    def keep_pieces(self, a, pieces):
        self._piece_shapes, self._dtype = [p.shape for p in pieces], dtypes.BY_NUMPY[a.dtype]
        return tuple(pieces)

    def backward(self, *grads):
        """Each piece's gradient back in its place; zeros for a piece that got none."""
        from teachgrad import creation
        grads = [creation.zeros(shape, dtype=self._dtype) if grad is None else grad
                 for grad, shape in zip(grads, self._piece_shapes)]
        return self.join(grads)


class SplitBackward0(MultiViewOperation):
    """``split(size)`` and ``chunk``: pieces of ``split_size`` along ``dim`` (the last may
    be shorter)."""

    def forward(self, a, split_size, dim):
        self._saved_dim, self._saved_split_size = dim, split_size
        self._saved_self_sym_sizes = a.shape
        total = a.shape[dim]
        sizes = [min(split_size, total - start) for start in range(0, total, split_size)]
        return self.keep_pieces(a, _cut(a, dim, sizes))

    def join(self, grads):
        return cat(grads, self._saved_dim)


class SplitWithSizesBackward0(SplitBackward0):
    """``split([sizes])``: pieces of the given sizes along ``dim``."""

    def forward(self, a, split_sizes, dim):
        self._saved_dim, self._saved_split_sizes = dim, split_sizes
        self._saved_self_sym_sizes = a.shape
        return self.keep_pieces(a, _cut(a, dim, split_sizes))


class UnbindBackward0(MultiViewOperation):
    """``unbind``: every slice along ``dim``, each without that dimension."""

    def forward(self, a, dim):
        self._saved_dim = dim
        lead = (slice(None),) * dim
        return self.keep_pieces(a, [a[lead + (i, Ellipsis)] for i in range(a.shape[dim])])

    def join(self, grads):
        return stack(grads, self._saved_dim)


def _cut(a, dim, sizes):
    """Views of ``a`` of the given sizes along ``dim``, one after the other."""
    pieces, start, lead = [], 0, (slice(None),) * dim
    for size in sizes:
        pieces.append(a[lead + (slice(start, start + size),)])
        start += size
    return pieces


# ---- the functions and methods ----------------------------------------------------
def _check_dim(dim, ndim):
    rank = max(ndim, 1)
    if not -rank <= dim < rank:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-rank}, "
                         f"{rank - 1}], but got {dim})")
    return dim % rank


def view(input, *shape):
    shape = infer_shape(as_shape(shape), input.numel())
    return ViewBackward0.apply_view(input, lambda t: t.view(shape), shape=shape)


def reshape(input, *shape):
    shape = infer_shape(as_shape(shape), input.numel())
    probe = input._data.view()
    try:
        probe.shape = shape
    except AttributeError:   # the memory does not allow a view: copy, then reshape
        return UnsafeViewBackward0.apply(input.clone(), shape=shape)
    if input._data.flags.c_contiguous:
        return view(input, shape)
    return ReshapeAliasBackward0.apply_view(input, lambda t: t.reshape(shape), shape=shape)


def flatten(input, start_dim=0, end_dim=-1):
    if input.ndim == 0:
        return reshape(input, 1)
    start, end = _check_dim(start_dim, input.ndim), _check_dim(end_dim, input.ndim)
    if start == end:
        return input
    shape = input.shape
    return reshape(input, shape[:start] + (-1,) + shape[end + 1:])


def unflatten(input, dim, sizes):
    dim = _check_dim(dim, input.ndim)
    return reshape(input, input.shape[:dim] + tuple(sizes) + input.shape[dim + 1:])


def squeeze(input, dim=None):
    if dim is None:
        return SqueezeBackward0.apply_view(input, lambda t: t.squeeze())
    dim = _check_dim(dim, input.ndim)
    return SqueezeBackward1.apply_view(input, lambda t: t.squeeze(dim), dim=dim)


def unsqueeze(input, dim):
    _check_dim(dim, input.ndim + 1)
    return UnsqueezeBackward0.apply_view(input, lambda t: t.unsqueeze(dim), dim=dim)


def transpose(input, dim0, dim1):
    dim0, dim1 = _check_dim(dim0, input.ndim), _check_dim(dim1, input.ndim)
    return TransposeBackward0.apply_view(input, lambda t: t.transpose(dim0, dim1),
                                         dim0=dim0, dim1=dim1)


def t(input):
    return TBackward0.apply_view(input, lambda x: x.t())


def permute(input, *dims):
    dims = tuple(_check_dim(d, input.ndim) for d in as_shape(dims))
    if sorted(dims) != list(range(input.ndim)):
        raise RuntimeError("permute(sparse_coo): number of dimensions in the tensor input does "
                           "not match the length of the desired ordering of dimensions i.e. "
                           f"input.dim() = {input.ndim} is not equal to len(dims) = {len(dims)}")
    return PermuteBackward0.apply_view(input, lambda t: t.permute(dims), dims=dims)


def T(input):
    """``tensor.T``: all dimensions reversed."""
    return permute(input, tuple(reversed(range(input.ndim))))


def expand(input, *shape):
    shape = expanded_shape(input, as_shape(shape))
    return ExpandBackward0.apply_view(input, lambda t: t.expand(shape), shape=shape)


def expanded_shape(input, shape):
    """``shape`` with its -1s filled in from ``input``, or PyTorch's error if ``input``
    cannot be expanded (broadcast) to it."""
    lead = len(shape) - input.ndim
    if lead < 0:
        raise RuntimeError(f"expand(teachgrad.{input.dtype.legacy_name}{{{list(input.shape)}}}, "
                           f"size={list(shape)}): the number of sizes provided ({len(shape)}) must "
                           f"be greater or equal to the number of dimensions in the tensor "
                           f"({input.ndim})")
    shape = tuple(input.shape[i - lead] if s == -1 else s for i, s in enumerate(shape))
    for i, size in enumerate(input.shape):
        if size != 1 and size != shape[lead + i]:
            raise RuntimeError(f"The expanded size of the tensor ({shape[lead + i]}) must match "
                               f"the existing size ({size}) at non-singleton dimension {lead + i}."
                               f"  Target sizes: {list(shape)}.  Tensor sizes: {list(input.shape)}")
    return shape


def expand_as(input, other):
    return expand(input, other.shape)


class FlipBackward0(Operation):
    """The order reversed along ``dims``: a copy, as in PyTorch (numpy's flip is a view)."""
    promote = "none"

    def forward(self, a, dims):
        self._saved_dims = dims
        return np.flip(a, dims).copy() if a.ndim else a.copy()

    def backward(self, grad):
        return grad.flip(self._saved_dims)


def flip(input, *dims):
    if not dims:
        raise TypeError('flip() missing 1 required positional arguments: "dims"')
    dims = tuple(_check_dim(d, input.ndim) for d in as_shape(dims))
    for d in dims:
        if dims.count(d) > 1:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    return FlipBackward0.apply(input, dims=dims)


class TriangleOperation(Operation):
    """One triangle of the last two dimensions, the rest set to 0: its gradient is the same
    triangle of the incoming gradient."""
    promote = "none"
    numpy_function = None

    def forward(self, a, diagonal):
        self._saved_diagonal = diagonal
        return type(self).numpy_function(a, diagonal)

    def backward(self, grad):
        return type(self).apply(grad, diagonal=self._saved_diagonal)


class TrilBackward0(TriangleOperation):
    """On and below ``diagonal``."""
    numpy_function = np.tril


class TriuBackward0(TriangleOperation):
    """On and above ``diagonal``."""
    numpy_function = np.triu


def _check_matrix_like(name, input):
    if input.ndim < 2:
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")


def tril(input, diagonal=0):
    _check_matrix_like("tril", input)
    return TrilBackward0.apply(input, diagonal=diagonal)


def triu(input, diagonal=0):
    _check_matrix_like("triu", input)
    return TriuBackward0.apply(input, diagonal=diagonal)


class RollBackward0(Operation):
    """Entries shifted along ``dims`` by ``shifts``, wrapping around the end."""
    promote = "none"

    def forward(self, a, shifts, dims):
        self._saved_shifts, self._saved_dims = shifts, dims
        return np.roll(a, shifts, dims if dims else None)

    def backward(self, grad):
        return grad.roll(tuple(-s for s in self._saved_shifts), self._saved_dims)


def roll(input, shifts, dims=None):
    shifts = tuple(shifts) if isinstance(shifts, (tuple, list)) else (shifts,)
    dims = () if dims is None else tuple(dims) if isinstance(dims, (tuple, list)) else (dims,)
    dims = tuple(_check_dim(d, input.ndim) for d in dims)
    if dims and len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:"
                           f"{len(dims)}")
    return RollBackward0.apply(input, shifts=shifts, dims=dims)


class RepeatBackward0(Operation):
    """The tensor tiled ``repeats`` times along each dimension (leading 1s added as
    needed); every copy sends its gradient back to the one original."""
    promote = "none"

    def forward(self, a, repeats):
        self._saved_repeats, self._saved_self_sym_sizes = repeats, a.shape
        return np.tile(a, repeats)

    def backward(self, grad):
        """Sum the copies: the leading dimensions repeat added first, then each repeated
        dimension, split into (copies, size), over its copies (PyTorch's steps)."""
        repeats, sizes = self._saved_repeats, self._saved_self_sym_sizes
        added = len(repeats) - len(sizes)
        for _ in range(added):
            grad = grad.sum(0)
        split, copies_dims = [], []
        for copies, size in zip(repeats[added:], sizes):
            if copies != 1:
                split.append(copies)
                copies_dims.append(len(split) - 1)
            split.append(size)
        grad = grad.reshape(split)
        return grad.sum(tuple(copies_dims)) if copies_dims else grad


def repeat(input, *repeats):
    repeats = as_shape(repeats)
    if len(repeats) < input.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number "
                           "of dimensions of tensor")
    return RepeatBackward0.apply(input, repeats=repeats)


def tile(input, *dims):
    dims = as_shape(dims)
    return repeat(input, *((1,) * (input.ndim - len(dims)) + dims))


def repeat_interleave(input, repeats=None, dim=None):
    """Each element (or each slice along ``dim``) repeated ``repeats`` times in a row
    (a number, or a count for each); without ``dim``, of the flattened tensor. With one
    argument, ``repeat_interleave(counts)`` repeats each position i counts[i] times."""
    if repeats is None:
        return _repeated_positions(input)
    flat = flatten(input) if dim is None else input
    dim = 0 if dim is None else _check_dim(dim, input.ndim)
    if isinstance(repeats, Tensor):
        return _repeat_by_counts(flat, repeats, dim)
    if repeats < 0:
        raise RuntimeError("Repeats must be non-negative")
    # PyTorch's steps: a new dimension after dim, expanded to the copies, made contiguous
    # (clone), then merged with dim
    copies = unsqueeze(flat, dim + 1)
    shape = list(copies.shape)
    shape[dim + 1] = repeats
    return flatten(expand(copies, shape).clone(), dim, dim + 1)


def _repeat_by_counts(input, repeats, dim):
    """A count for each slice along ``dim`` (or one count for all): index_select picks every
    slice as often as its count says."""
    from teachgrad.ops.indexing import index_select
    if input.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    if repeats.ndim == 0 or repeats.shape == (1,):
        repeats = repeats.reshape(1).expand(input.shape[dim])
    elif repeats.ndim > 1:
        raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
    elif repeats.shape[0] != input.shape[dim]:
        raise RuntimeError(f"repeats must have the same size as input along dim, but got "
                           f"repeats.size(0) = {repeats.shape[0]} and input.size({dim}) = "
                           f"{input.shape[dim]}")
    return index_select(input, dim, _repeated_positions(repeats))


def _repeated_positions(counts):
    """0 repeated counts[0] times, then 1 repeated counts[1] times, and so on."""
    if counts.ndim != 1:
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    if counts.dtype.name not in ("int32", "int64"):
        raise NotImplementedError(f'"repeat_interleave_cpu" not implemented for '
                                  f"'{counts.dtype.short_name}'")
    if (counts._data < 0).any():
        raise RuntimeError("repeats can not be negative")
    positions = np.repeat(np.arange(len(counts._data)), counts._data)
    return Tensor._make(positions.astype(counts._data.dtype))


def movedim(input, source, destination):
    source = source if isinstance(source, (tuple, list)) else (source,)
    destination = destination if isinstance(destination, (tuple, list)) else (destination,)
    source = [_check_dim(d, input.ndim) for d in source]
    destination = [_check_dim(d, input.ndim) for d in destination]
    order = [None] * input.ndim               # order[new position] = old dimension
    for old, new in zip(source, destination):
        order[new] = old
    others = iter(d for d in range(input.ndim) if d not in source)
    return permute(input, *[next(others) if d is None else d for d in order])


def contiguous(input):
    return input if input._data.flags.c_contiguous else CloneBackward0.apply(input, contiguous=True)


def cat(tensors, dim=0):
    tensors = [t for t in tensors if not (t.ndim == 1 and t.numel() == 0)] or list(tensors)[:1]
    dim = _check_dim(dim, tensors[0].ndim)
    for t in tensors[1:]:
        if t.ndim != tensors[0].ndim:
            raise RuntimeError("Tensors must have same number of dimensions: got "
                               f"{tensors[0].ndim} and {t.ndim}")
        for d in range(t.ndim):
            if d != dim and t.shape[d] != tensors[0].shape[d]:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {dim}. "
                                   f"Expected size {tensors[0].shape[d]} but got size "
                                   f"{t.shape[d]} for tensor number {tensors.index(t)} in the list.")
    return CatBackward0.apply(*tensors, dim=dim)


def stack(tensors, dim=0):
    tensors = list(tensors)
    dim = _check_dim(dim, tensors[0].ndim + 1)
    for i, t in enumerate(tensors[1:], start=1):
        if t.shape != tensors[0].shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                               f"{list(tensors[0].shape)} at entry 0 and {list(t.shape)} at "
                               f"entry {i}")
    return StackBackward0.apply(*tensors, dim=dim)


def narrow(input, dim, start, length):
    dim = _check_dim(dim, input.ndim)
    return input[(slice(None),) * dim + (slice(start, start + length),)]


def select(input, dim, index):
    dim = _check_dim(dim, input.ndim)
    return input[(slice(None),) * dim + (index,)]


def unbind(input, dim=0):
    return UnbindBackward0.apply_views(input, dim=_check_dim(dim, input.ndim))


def split(input, split_size, dim=0):
    dim = _check_dim(dim, input.ndim)
    total = input.shape[dim]
    if not isinstance(split_size, int):
        sizes = tuple(split_size)
        if sum(sizes) != total:
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {total} "
                               f"(input tensor's size at dimension {dim}), but got "
                               f"split_sizes={list(sizes)}")
        return SplitWithSizesBackward0.apply_views(input, split_sizes=sizes, dim=dim)
    if split_size == 0 and total != 0:
        raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got "
                           f"dimension size of {total}")
    return SplitBackward0.apply_views(input, split_size=split_size, dim=dim)


def chunk(input, chunks, dim=0):
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    size = -(-input.shape[_check_dim(dim, input.ndim)] // chunks)
    return split(input, size, dim)




# ---- diagonals and grids ---------------------------------------------------------
def _diagonal_of(a, offset, dim1, dim2):
    """The diagonal of ``a`` over ``dim1`` and ``dim2`` as a writable view, last.

    (numpy's ``diagonal`` gives the same strides, but read-only.)
    """
    start = [slice(None)] * a.ndim
    start[dim1 if offset < 0 else dim2] = slice(abs(offset), None)
    corner = a[tuple(start)]
    length = max(0, min(corner.shape[dim1], corner.shape[dim2]))
    others = [d for d in range(a.ndim) if d not in (dim1, dim2)]
    return np.lib.stride_tricks.as_strided(
        corner, [a.shape[d] for d in others] + [length],
        [a.strides[d] for d in others] + [a.strides[dim1] + a.strides[dim2]],
        writeable=a.flags.writeable)


def _diagonal_dims(ndim, dim1, dim2):
    dim1, dim2 = _check_dim(dim1, ndim), _check_dim(dim2, ndim)
    if dim1 == dim2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return dim1, dim2


class OnDiagonal(Operation):
    """Zeros of shape ``sizes`` with the input's last dimension on a diagonal."""

    def forward(self, a, sizes, offset, dim1, dim2):
        self._saved_offset, self._saved_dim1, self._saved_dim2 = offset, dim1, dim2
        out = np.zeros(sizes, dtype=a.dtype)
        _diagonal_of(out, offset, dim1, dim2)[...] = a
        return out

    def backward(self, grad):
        return grad.diagonal(self._saved_offset, self._saved_dim1, self._saved_dim2)


class DiagEmbedBackward0(OnDiagonal):
    """``diag_embed``, and ``diag`` of a vector."""


class DiagonalBackwardBackward0(OnDiagonal):
    """The gradient of a diagonal, as PyTorch records it under create_graph."""


class DiagonalBackward0(ViewOperation):
    def forward(self, a, offset, dim1, dim2):
        self._saved_self_sym_sizes = a.shape
        self._saved_offset, self._saved_dim1, self._saved_dim2 = offset, dim1, dim2
        return _diagonal_of(a, offset, dim1, dim2)

    def backward(self, grad):
        return DiagonalBackwardBackward0.apply(grad, sizes=self._saved_self_sym_sizes,
                                               offset=self._saved_offset,
                                               dim1=self._saved_dim1, dim2=self._saved_dim2)


class DiagonalBackward0_copy(DiagonalBackward0):
    """``diag`` of a matrix: the diagonal as a new tensor, not a view."""

    def forward(self, a, offset, dim1, dim2):
        return super().forward(a, offset, dim1, dim2).copy()


def diagonal(input, offset=0, dim1=0, dim2=1):
    dim1, dim2 = _diagonal_dims(input.ndim, dim1, dim2)
    return DiagonalBackward0.apply_view(input, lambda t: t.diagonal(offset, dim1, dim2),
                                        offset=offset, dim1=dim1, dim2=dim2)


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    dim1, dim2 = _diagonal_dims(input.ndim + 1, dim1, dim2)
    size = (input.shape[-1] if input.ndim else 1) + abs(offset)
    sizes = list(input.shape[:-1])
    for dim in sorted((dim1, dim2)):
        sizes.insert(dim, size)
    return DiagEmbedBackward0.apply(input, sizes=tuple(sizes), offset=offset, dim1=dim1, dim2=dim2)


def diag(input, diagonal=0):
    """A vector becomes a diagonal matrix; a matrix gives its diagonal."""
    if input.ndim == 1:
        return diag_embed(input, diagonal, 0, 1)
    if input.ndim == 2:
        return DiagonalBackward0_copy.apply(input, offset=diagonal, dim1=0, dim2=1)
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.ndim}D")


def meshgrid(*tensors, indexing=None):
    """Coordinate grids: output ``i`` is tensor ``i`` viewed along dimension ``i`` and
    expanded to the grid (``indexing="xy"`` swaps the first two dimensions)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass "
                      "the indexing argument.", UserWarning, stacklevel=2)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but '
                           f'received: {indexing}')
    _check_grid_inputs(tensors)
    axes = list(range(len(tensors)))
    if indexing == "xy" and len(tensors) > 1:
        axes[0], axes[1] = 1, 0
    grid = [0] * len(tensors)
    for tensor, axis in zip(tensors, axes):
        grid[axis] = tensor.numel()
    grids = []
    for tensor, axis in zip(tensors, axes):
        shape = [1] * len(tensors)
        shape[axis] = -1
        grids.append(tensor.view(shape).expand(grid))
    return tuple(grids)


def _check_grid_inputs(tensors):
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for tensor in tensors:
        if tensor.ndim > 1:
            raise RuntimeError("torch.meshgrid: Expected 0D or 1D tensor in the tensor list "
                               f"but got: {tensor.ndim}D tensor of shape {list(tensor.shape)}")
        if tensor.dtype is not tensors[0].dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")


def broadcast_to(input, size):
    return expand(input, *size)


def broadcast_tensors(*tensors):
    """Each tensor expanded to the shape they broadcast to together."""
    shape = np.broadcast_shapes(*(t.shape for t in tensors))
    return tuple(expand(t, *shape) for t in tensors)


def hstack(tensors):
    """Side by side: along dimension 1, or 0 for vectors (numbers count as vectors)."""
    tensors = [t.reshape(1) if t.ndim == 0 else t for t in tensors]
    return cat(tensors, 0 if tensors[0].ndim == 1 else 1)


def vstack(tensors):
    """One on top of the other, vectors as rows (numbers as 1 x 1 matrices)."""
    rows = [t.reshape(1, 1) if t.ndim == 0 else unsqueeze(t, 0) if t.ndim == 1 else t
            for t in tensors]
    return cat(rows, 0)


def diff(input, n=1, dim=-1):
    """Differences of neighbours along ``dim``, ``n`` times."""
    dim = _check_dim(dim, input.ndim)
    for _ in range(n):
        size = input.shape[dim]
        input = narrow(input, dim, 1, size - 1) - narrow(input, dim, 0, size - 1)
    return input
