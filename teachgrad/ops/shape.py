"""Shape operations and views: view/reshape, squeeze, transpose, expand, cat, stack.

The view operations (``view``, ``t``, ``transpose``, ``permute``, ``expand``,
``squeeze``, ``unsqueeze``, and basic indexing in ``indexing.py``) return a
tensor that shares memory and the version counter with its input
(``views.make_view``). ``reshape`` is a view when the memory allows it; ``as_strided``
is a view of the input's memory with any sizes and strides.
"""
import warnings

import numpy as np

from teachgrad import dtypes
from teachgrad.autograd import grad_mode, views
from teachgrad.autograd.operation import Operation
from teachgrad.ops.pointwise import CloneBackward0
from teachgrad.tensor import Tensor, memory_of


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
        if known == 0 and numel == 0:
            raise RuntimeError(f"cannot reshape tensor of 0 elements into shape {list(shape)} "
                               "because the unspecified dimension size -1 can be any value and "
                               "is ambiguous")
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
        sizes = self._saved_self_sym_sizes
        return unsqueeze_to(grad, sizes, range(len(sizes)))


class SqueezeBackward1(ViewOperation):
    """Squeeze one dimension (if it has size 1); ``_saved_dim`` shows it as given."""
    _saved_dim = GivenDim(many=False)

    def forward(self, a, dim):
        self._saved_self_sym_sizes, self._given_dim = a.shape, dim
        self._dims = (dim % a.ndim,) if a.ndim else ()
        return a.squeeze(tuple(d for d in self._dims if a.shape[d] == 1))

    def backward(self, grad):
        return unsqueeze_to(grad, self._saved_self_sym_sizes, self._dims)


class SqueezeBackward2(SqueezeBackward1):
    """Squeeze the dimensions of a tuple or list that have size 1."""
    _saved_dim = GivenDim(many=True)

    def forward(self, a, dim):
        self._saved_self_sym_sizes, self._given_dim = a.shape, dim
        self._dims = tuple(d % a.ndim for d in dim) if a.ndim else ()
        return a.squeeze(tuple(d for d in self._dims if a.shape[d] == 1))


def unsqueeze_to(grad, sizes, dims):
    """PyTorch's unsqueeze_to, the gradient of a squeeze: each of ``dims`` that had size 1
    put back, one ``unsqueeze`` each, from the first."""
    for d in sorted(dims):
        if sizes[d] == 1:
            grad = grad.unsqueeze(d)
    return grad


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


class UnsafeSplitBackward0(SplitBackward0):
    """``unsafe_split`` and ``unsafe_chunk``: the pieces of ``split``, in the input's memory
    but not views of it. Each piece has its own version counter, so changing one in place
    is not checked against the input (PyTorch's RNN cells cut their gates this way)."""


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
    """Dimension ``dim`` split into ``sizes`` (one of them may be -1): always a view."""
    if input.ndim == 0:
        raise RuntimeError(f"unflatten got an unexpected error:\nDimension specified as {dim} "
                           f"but tensor has no dimensions")
    dim = _check_dim(dim, input.ndim)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    try:
        sizes = infer_shape(tuple(sizes), input.shape[dim])
    except RuntimeError as error:
        if "inferred" in str(error) or "ambiguous" in str(error):
            raise RuntimeError(f"unflatten got an unexpected error:\n{error}") from None
        raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the "
                           f"size of dim {dim} ({input.shape[dim]}) in the input tensor") from None
    return view(input, input.shape[:dim] + sizes + input.shape[dim + 1:])


def squeeze(input, dim=None):
    if dim is None:
        return SqueezeBackward0.apply_view(input, lambda t: t.squeeze())
    if isinstance(dim, (tuple, list)):
        dims = tuple(dim)
        _check_distinct_dims(dims, input.ndim)
        return SqueezeBackward2.apply_view(input, lambda t: t.squeeze(dims), dim=dims)
    _check_dim(dim, input.ndim)
    return SqueezeBackward1.apply_view(input, lambda t: t.squeeze(dim), dim=dim)


def _check_distinct_dims(dims, ndim):
    """Each of ``dims`` in range, and none twice (counting a negative one from the end)."""
    seen = set()
    for d in dims:
        d = _check_dim(d, ndim)
        if d in seen:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        seen.add(d)


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
    if len(source) != len(destination):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({list(source)} "
                           f"dims) should contain the same number of dims as destination "
                           f"({list(destination)} dims)")
    given = {"source": list(source), "destination": list(destination)}
    source = [_check_dim(d, input.ndim) for d in source]
    destination = [_check_dim(d, input.ndim) for d in destination]
    for name, dims in (("source", source), ("destination", destination)):
        if len(set(dims)) != len(dims):
            raise RuntimeError(f"movedim: repeated dim in `{name}` ({given[name]})")
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
    for number, t in enumerate(tensors[1:], start=1):
        if t.ndim != tensors[0].ndim:
            raise RuntimeError("Tensors must have same number of dimensions: got "
                               f"{tensors[0].ndim} and {t.ndim}")
        for d in range(t.ndim):
            if d != dim and t.shape[d] != tensors[0].shape[d]:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {dim}. "
                                   f"Expected size {tensors[0].shape[d]} but got size "
                                   f"{t.shape[d]} for tensor number {number} in the list.")
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
    if length < 0 and input.ndim:
        raise RuntimeError("narrow(): length must be non-negative.")
    dim = _check_dim(dim, input.ndim)
    start = _narrow_start(input, dim, start, length)
    return input[(slice(None),) * dim + (slice(start, start + length),)]


def _narrow_start(input, dim, start, length):
    """``start`` counted from 0 (a negative one from the end), or PyTorch's error when
    ``length`` elements from there do not fit in dimension ``dim``."""
    if input.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    size = input.shape[dim]
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], "
                         f"but got {start})")
    start = start + size if start < 0 else start
    if length < 0 or start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size "
                           f"({size}).")
    return start


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
    return split(input, _chunk_size(input, chunks, dim), dim)


def _chunk_size(input, chunks, dim):
    """The size of each of ``chunks`` pieces (the last may be smaller), as split takes it."""
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    return -(-input.shape[_check_dim(dim, input.ndim)] // chunks)


def unsafe_split(input, split_size, dim=0):
    """``split`` into pieces that are not views (see UnsafeSplitBackward0)."""
    if not isinstance(split_size, int):
        raise TypeError(f"unsafe_split(): argument 'split_size' (position 1) must be int, "
                        f"not {type(split_size).__name__}")
    dim = _check_dim(dim, input.ndim)
    if split_size == 0 and input.shape[dim] != 0:
        raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got "
                           f"dimension size of {input.shape[dim]}")
    return UnsafeSplitBackward0.apply(input, split_size=split_size, dim=dim)


def unsafe_chunk(input, chunks, dim=0):
    return unsafe_split(input, _chunk_size(input, chunks, dim), dim)




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
    """Zeros of shape ``sizes`` with the input's last dimension on a diagonal. ``given``
    holds the offset and the dims as the call gave them, which the ``_saved_`` fields
    show (see GivenDim)."""

    def forward(self, a, sizes, offset, dim1, dim2, given):
        keep_diagonal_arguments(self, given)
        out = np.zeros(sizes, dtype=a.dtype)
        _diagonal_of(out, offset, dim1, dim2)[...] = a
        return out

    def backward(self, grad):
        return grad.diagonal(*self._given)


def keep_diagonal_arguments(node, given):
    """``(offset, dim1, dim2)`` as given, for the node's formula and its ``_saved_`` fields."""
    node._given = given
    node._saved_offset, node._saved_dim1, node._saved_dim2 = (
        shown_dims(g, many=False) for g in given)


class DiagEmbedBackward0(OnDiagonal):
    """``diag_embed``, and ``diag`` of a vector."""


class DiagonalBackwardBackward0(OnDiagonal):
    """The gradient of a diagonal, as PyTorch records it under create_graph."""


class DiagonalBackward0(ViewOperation):
    def forward(self, a, offset, dim1, dim2, given):
        self._saved_self_sym_sizes = a.shape
        self._offset, self._dim1, self._dim2 = offset, dim1, dim2
        keep_diagonal_arguments(self, given)
        return _diagonal_of(a, offset, dim1, dim2)

    def backward(self, grad):
        return DiagonalBackwardBackward0.apply(grad, sizes=self._saved_self_sym_sizes,
                                               offset=self._offset, dim1=self._dim1,
                                               dim2=self._dim2, given=self._given)


class DiagonalBackward0_copy(DiagonalBackward0):
    """``diag`` of a matrix: the diagonal as a new tensor, not a view."""

    def forward(self, a, offset, dim1, dim2, given):
        return super().forward(a, offset, dim1, dim2, given).copy()


def diagonal(input, offset=0, dim1=0, dim2=1):
    given = (offset, dim1, dim2)
    dim1, dim2 = _diagonal_dims(input.ndim, dim1, dim2)
    return DiagonalBackward0.apply_view(input, lambda t: t.diagonal(*given),
                                        offset=offset, dim1=dim1, dim2=dim2, given=given)


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    given = (offset, dim1, dim2)
    dim1, dim2 = _diagonal_dims(input.ndim + 1, dim1, dim2)
    size = (input.shape[-1] if input.ndim else 1) + abs(offset)
    sizes = list(input.shape[:-1])
    for dim in sorted((dim1, dim2)):
        sizes.insert(dim, size)
    return DiagEmbedBackward0.apply(input, sizes=tuple(sizes), offset=offset, dim1=dim1,
                                    dim2=dim2, given=given)


def diag(input, diagonal=0):
    """A vector becomes a diagonal matrix; a matrix gives its diagonal."""
    if input.ndim == 1:
        return diag_embed(input, diagonal)
    if input.ndim == 2:
        return DiagonalBackward0_copy.apply(input, offset=diagonal, dim1=0, dim2=1,
                                            given=(diagonal, 0, 1))
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
    """Each tensor expanded to the shape they broadcast to together (one that has that shape
    already comes back as it is, as in PyTorch)."""
    shape = np.broadcast_shapes(*(t.shape for t in tensors))
    return tuple(t if t.shape == shape else expand(t, *shape) for t in tensors)


def hstack(tensors):
    """Side by side: along dimension 1, or 0 for vectors (numbers count as vectors)."""
    tensors = atleast_1d(_non_empty("hstack", tensors))
    return cat(tensors, 0 if tensors[0].ndim == 1 else 1)


def vstack(tensors):
    """One on top of the other, vectors as rows (numbers as 1 x 1 matrices)."""
    return cat(atleast_2d(_non_empty("vstack", tensors)), 0)


def column_stack(tensors):
    """Side by side, vectors (and numbers) as columns."""
    return hstack([reshape(t, t.numel(), 1) if t.ndim <= 1 else t
                   for t in _non_empty("column_stack", tensors)])


def dstack(tensors):
    """One behind the other, along dimension 2 (see ``atleast_3d``)."""
    return cat(atleast_3d(_non_empty("dstack", tensors)), 2)


def _non_empty(name, tensors):
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError(f"{name} expects a non-empty TensorList")
    return tensors


def diff(input, n=1, dim=-1):
    """Differences of neighbours along ``dim``, ``n`` times."""
    dim = _check_dim(dim, input.ndim)
    for _ in range(n):
        size = input.shape[dim]
        input = narrow(input, dim, 1, size - 1) - narrow(input, dim, 0, size - 1)
    return input


# ---- at least n dimensions, ravel ----------------------------------------------------
def _each(function, tensors):
    """``f(x)`` gives one tensor; ``f(x, y)`` and ``f([x, y])`` a tuple."""
    if len(tensors) == 1 and isinstance(tensors[0], Tensor):
        return function(tensors[0])
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tensors[0]
    return tuple(function(t) for t in tensors)


def atleast_1d(*tensors):
    """A number becomes a vector of one element; other tensors are returned as they are."""
    return _each(lambda t: reshape(t, 1) if t.ndim == 0 else t, tensors)


def atleast_2d(*tensors):
    """A number becomes a 1 x 1 matrix, a vector a row."""
    return _each(lambda t: reshape(t, 1, 1) if t.ndim == 0 else
                 unsqueeze(t, 0) if t.ndim == 1 else t, tensors)


def atleast_3d(*tensors):
    """A number becomes a 1 x 1 x 1 block, a vector of n one of 1 x n x 1, and a matrix
    gets a last dimension of size 1."""
    def lift(t):
        if t.ndim == 0:
            return reshape(t, 1, 1, 1)
        if t.ndim == 1:
            return unsqueeze(unsqueeze(t, 0), -1)
        return unsqueeze(t, -1) if t.ndim == 2 else t
    return _each(lift, tensors)


def ravel(input):
    """The elements in a row: a view of a contiguous tensor, else of a contiguous copy."""
    return view(contiguous(input), -1)


# ---- splitting into slices --------------------------------------------------------------
def tensor_split(input, indices_or_sections, dim=0):
    """Pieces along ``dim``, each a slice of its own (``SliceBackward0``, not one node for
    all as in ``split``): ``sections`` pieces as equal as can be (the first ones one longer),
    or the pieces between the given ``indices``."""
    if input.ndim == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a "
                           "tensor with 0 dims")
    dim = _check_dim(dim, input.ndim)
    if isinstance(indices_or_sections, Tensor):
        indices_or_sections = _split_points(indices_or_sections)
    size = input.shape[dim]
    if isinstance(indices_or_sections, int):
        bounds = _section_bounds(size, indices_or_sections)
    else:
        bounds = [0, *indices_or_sections, size]
    lead = (slice(None),) * dim
    return tuple(input[lead + (slice(start, end),)] for start, end in zip(bounds, bounds[1:]))


def _split_points(tensor):
    """A tensor of tensor_split: a number of sections (0-d), or indices (1-d)."""
    if tensor.dtype.name != "int64":
        raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to have dtype of "
                           f"long, but got {tensor.dtype.short_name}")
    if tensor.ndim > 1:
        raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to be a "
                           f"zero-dimensional or one-dimensional tensor, but got a tensor with "
                           f"{tensor.ndim} dims")
    return int(tensor.item()) if tensor.ndim == 0 else tensor.tolist()


def _section_bounds(size, sections):
    """Where ``sections`` pieces of a dimension of ``size`` start and end."""
    if sections <= 0:
        raise RuntimeError(f"number of sections must be larger than 0, got {sections}")
    small, longer = divmod(size, sections)
    bounds = [0]
    for piece in range(sections):
        bounds.append(bounds[-1] + small + (piece < longer))
    return bounds


def hsplit(input, indices_or_sections):
    """tensor_split along dimension 1 (0 for a vector), into pieces of equal size."""
    dim = 0 if input.ndim == 1 else 1
    return _split_equally("hsplit", input, indices_or_sections, dim, least=1)


def vsplit(input, indices_or_sections):
    return _split_equally("vsplit", input, indices_or_sections, 0, least=2)


def dsplit(input, indices_or_sections):
    return _split_equally("dsplit", input, indices_or_sections, 2, least=3)


def _split_equally(name, input, indices_or_sections, dim, least):
    if input.ndim < least:
        raise RuntimeError(f"torch.{name} requires a tensor with at least {least} dimension, "
                           f"but got a tensor with {input.ndim} dimensions!")
    if isinstance(indices_or_sections, int):
        size = input.shape[dim]
        if indices_or_sections == 0 or size % indices_or_sections:
            raise RuntimeError(f"torch.{name} attempted to split along dimension {dim}, but the "
                               f"size of the dimension {size} is not divisible by the "
                               f"split_size {indices_or_sections}!")
    return tensor_split(input, indices_or_sections, dim)


# ---- rotations, flips, blocks ---------------------------------------------------------
class Rot90Backward0(Operation):
    """A quarter turn, ``k`` times, from the first of ``dims`` towards the second: a copy,
    made as PyTorch makes it (a flip, then a transposed view of the flipped copy)."""
    promote = "none"
    _saved_dims = GivenDim(many=True)

    def forward(self, a, k, dims, given):
        self._given_dim, self._dims = given, dims
        self._k, self._saved_k = k, shown_dims(k, many=False)
        dim0, dim1 = dims
        flipped = np.flip(a, {0: (), 1: dim1, 2: dims, 3: dim0}[k % 4]).copy()
        return np.swapaxes(flipped, dim0, dim1) if k % 2 else flipped

    def backward(self, grad):
        return rot90(grad, -self._k, self._dims)


def rot90(input, k=1, dims=(0, 1)):
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.ndim}")
    wrapped = tuple(_check_dim(d, input.ndim) for d in dims)
    if wrapped[0] == wrapped[1]:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {dims[0]} "
                           f"and dim1 = {dims[1]}")
    return Rot90Backward0.apply(input, k=k, dims=wrapped, given=tuple(dims))


def fliplr(input):
    if input.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(input, 1)


def flipud(input):
    if input.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(input, 0)


class BlockDiagBackward0(Operation):
    """The inputs as blocks on the diagonal of one matrix, zeros elsewhere (a vector is a
    block of one row, a number one of 1 x 1); each gradient is its block of the gradient."""

    def forward(self, *arrays):
        self._shapes = [a.shape for a in arrays]
        blocks = [a.reshape(1, a.size) if a.ndim < 2 else a for a in arrays]
        self._corners, row, column = [], 0, 0
        for block in blocks:
            self._corners.append((row, column, *block.shape))
            row, column = row + block.shape[0], column + block.shape[1]
        out = np.zeros((row, column), dtype=blocks[0].dtype)
        for block, (top, left, height, width) in zip(blocks, self._corners):
            out[top:top + height, left:left + width] = block
        return out

    def backward(self, grad):
        """Each input's block of the gradient, cut as PyTorch cuts it: squeeze(-1) for a
        vector (which leaves a row of several; the engine sums it to the vector's shape)."""
        grads = []
        for (top, left, height, width), shape in zip(self._corners, self._shapes):
            block = grad[top:top + height, left:left + width]
            for _ in range(2 - len(shape)):
                block = block.squeeze(-1)
            grads.append(block)
        return tuple(grads)


def block_diag(*tensors):
    if not tensors:
        from teachgrad import creation
        return creation.zeros(1, 0)
    for i, t in enumerate(tensors):
        if t.ndim > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer "
                               f"dimensions. Input {i} has {t.ndim} dimensions")
    return BlockDiagBackward0.apply(*tensors)


# ---- shapes that broadcast, views of any strides --------------------------------------
def broadcast_shapes(*shapes):
    """The shape tensors of these shapes broadcast to (a number counts as a 1-D shape)."""
    from teachgrad.tensor import Size
    shapes = [(s,) if isinstance(s, int) else s for s in shapes if s is not None]
    for shape in shapes:
        if not isinstance(shape, (tuple, list)):
            raise RuntimeError(f"Input shapes should be of type ints, a tuple of ints, or a list "
                               f"of ints, got {shape}")
    common = [1] * max((len(s) for s in shapes), default=0)
    for number, shape in enumerate(shapes):
        for i in range(-1, -1 - len(shape), -1):
            if shape[i] == common[i] or shape[i] == 1 and common[i] != 1:
                continue
            if common[i] != 1:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {shape[i]} at "
                                   f"{i}! Mismatching argument at index {number} had {shape}; but "
                                   f"expected shape should be broadcastable to {common}")
            if shape[i] < 0:
                raise ValueError("Attempting to broadcast a dimension with negative length!")
            common[i] = shape[i]
    return Size(common)


def _positions(sizes, strides, offset):
    """Where in memory each element of a tensor of these sizes and strides lies."""
    grid = np.indices(sizes, sparse=True)
    return np.broadcast_to(offset + sum(i * s for i, s in zip(grid, strides)), sizes)


class AsStridedBackward0(ViewOperation):
    """A view of the input's memory with the given sizes and strides, from
    ``storage_offset`` (counted in elements from the start of that memory; by default
    where the input starts). Strides may make elements repeat: their gradients add up.
    (Its namesake in ``autograd/views.py`` is the node PyTorch gives a view whose base was
    changed in place.)"""

    def forward(self, a, size, stride, storage_offset):
        self._saved_size, self._saved_stride = size, stride
        self._saved_storage_offset = storage_offset       # (None when not given)
        memory, start = memory_of(a)
        offset = start if storage_offset is None else storage_offset
        needed = 0 if 0 in size else offset + 1 + sum((n - 1) * s for n, s in zip(size, stride))
        if needed > len(memory):
            raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(stride)}, storage "
                               f"offset {offset}, and itemsize {a.itemsize} requiring a storage "
                               f"size of {needed * a.itemsize} are out of bounds for storage of "
                               f"size {memory.nbytes}")
        self._input_places = (a.shape, [s // a.itemsize for s in a.strides], start)
        self._offset = offset
        repeats = any(n > 1 and s == 0 for n, s in zip(size, stride))
        return np.lib.stride_tricks.as_strided(
            memory[offset:], size, [s * a.itemsize for s in stride],
            writeable=memory.flags.writeable and not repeats)

    def backward(self, grad):
        """PyTorch's as_strided_backward: the gradient summed into a copy of the memory, at
        each element's place; read back at the input's places (shared out when several
        input elements lie at one place)."""
        from teachgrad import creation
        inputs = _positions(*self._input_places)
        outputs = _positions(self._saved_size, self._saved_stride, self._offset)
        length = int(max(inputs.max(initial=-1), outputs.max(initial=-1))) + 1
        memory = creation.zeros(length, dtype=grad.dtype).index_add(
            0, Tensor._make(outputs.reshape(-1).astype(np.int64)), grad.reshape(-1))
        counts = np.bincount(inputs.reshape(-1), minlength=length)
        if (counts > 1).any():
            memory = memory / Tensor._make(np.maximum(counts, 1).astype(memory._data.dtype))
        return memory[Tensor._make(inputs.astype(np.int64))]


def as_strided(input, size, stride, storage_offset=None):
    size, stride = tuple(int(n) for n in size), tuple(int(s) for s in stride)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, got "
                           f"strides: {list(stride)}")
    if storage_offset is not None and storage_offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {storage_offset}")
    offset = memory_of(input._data)[1] if storage_offset is None else storage_offset
    return AsStridedBackward0.apply_view(input, lambda t: as_strided(t, size, stride, offset),
                                         size=size, stride=stride, storage_offset=storage_offset)


class NarrowCopyBackward0(Operation):
    """``narrow`` as a copy, not a view: its gradient is a slice's."""
    promote = "none"

    def forward(self, a, dim, start, length, given):
        self._saved_self_sym_sizes, self._saved_length = a.shape, length
        self._saved_dim, self._saved_start = (shown_dims(g, many=False) for g in given)
        self._key = (slice(None),) * dim + (slice(start, start + length),)
        return a[self._key].copy()

    def backward(self, grad):
        from teachgrad.ops.indexing import SliceBackwardBackward0
        return SliceBackwardBackward0.apply(grad, shape=self._saved_self_sym_sizes, key=self._key)


def narrow_copy(input, dim, start, length):
    wrapped = _check_dim(dim, input.ndim)
    return NarrowCopyBackward0.apply(input, dim=wrapped, length=length, given=(dim, start),
                                     start=_narrow_start(input, wrapped, start, length))


# ---- products of vectors, flat diagonals ------------------------------------------------
def cartesian_prod(*tensors):
    """Every combination of one element from each vector, one per row (PyTorch's steps:
    the meshgrid, each grid flattened, the grids stacked as columns)."""
    for t in tensors:
        if t.ndim != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    return stack([flatten(grid) for grid in meshgrid(*tensors, indexing="ij")], 1)


def combinations(input, r=2, with_replacement=False):
    """The ``r``-element combinations of a vector's elements, in order, one per row: the
    meshgrid of ``r`` copies, with each grid's entries picked where the positions increase."""
    if input.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return Tensor._make(np.empty(0, dtype=input._data.dtype))
    positions = np.meshgrid(*[np.arange(input.shape[0])] * r, indexing="ij")
    in_order = np.ones(positions[0].shape, dtype=bool)
    for before, after in zip(positions, positions[1:]):
        in_order &= before <= after if with_replacement else before < after
    mask = Tensor._make(in_order)
    return stack([grid.masked_select(mask) for grid in meshgrid(*[input] * r, indexing="ij")], 1)


def diagflat(input, offset=0):
    """The flattened input on a diagonal of a square matrix."""
    return diag_embed(ravel(input), offset)
