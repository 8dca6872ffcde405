"""Indexing: ``x[0]``, ``x[1:3]``, ``x[None]``, ``x[...]``, ``x[mask]``, ``x[idx]``
and assignment ``x[i] = v``.

Basic indexing (ints, slices, None, ...) is a chain of views, one per index, as
in PyTorch: ``x[0, 1:]`` is a ``SelectBackward0`` then a ``SliceBackward0``.
Indexing with a bool mask or an integer tensor copies (``IndexBackward0``).
"""
import numbers
import operator
import sys

import numpy as np

from teachgrad import dtypes
from teachgrad.autograd.graph import SavedTensor
from teachgrad.autograd.operation import Operation
from teachgrad.ops.shape import (AliasBackward0, ViewOperation, _check_dim, _diagonal_dims,
                                 _diagonal_of, shown_dims, unsqueeze)
from teachgrad.tensor import Tensor


class EmbedBackward(Operation):
    """Backward of an indexing op: a zero tensor with the gradient placed at the index."""
    promote = "none"

    def forward(self, grad, shape, key, accumulate=False):
        self._key = key
        result = np.zeros(shape, dtype=grad.dtype)
        if accumulate:
            np.add.at(result, key, grad)
        else:
            result[key] = grad
        return result

    def backward(self, grad):
        return index(grad, self._key)


class SelectBackwardBackward0(EmbedBackward):
    pass


class SliceBackwardBackward0(EmbedBackward):
    pass


class IndexBackwardBackward0(EmbedBackward):
    pass


class SelectBackward0(ViewOperation):
    def forward(self, a, dim, index):
        size = a.shape[dim]
        if not -size <= index < size:
            raise IndexError(f"index {index} is out of bounds for dimension {dim} with size {size}")
        self._saved_self_sym_sizes, self._key = a.shape, (slice(None),) * dim + (index,)
        self._saved_dim, self._saved_index = dim, index
        return a[self._key + (Ellipsis,)]     # the Ellipsis keeps a 0-d result a view

    def backward(self, grad):
        return SelectBackwardBackward0.apply(grad, shape=self._saved_self_sym_sizes, key=self._key)


class SliceBackward0(ViewOperation):
    def forward(self, a, dim, slice_):
        if slice_.step is not None and slice_.step <= 0:
            raise ValueError("step must be greater than zero")
        self._saved_self_sym_sizes, self._key = a.shape, (slice(None),) * dim + (slice_,)
        self._saved_dim, self._saved_step = dim, 1 if slice_.step is None else slice_.step
        # (no end is PyTorch's INT64_MAX; a negative bound shows as an unsigned int64)
        self._saved_start = 0 if slice_.start is None else slice_.start % 2 ** 64
        self._saved_end = sys.maxsize if slice_.stop is None else slice_.stop % 2 ** 64
        return a[self._key]

    def backward(self, grad):
        return SliceBackwardBackward0.apply(grad, shape=self._saved_self_sym_sizes, key=self._key)


class IndexBackward0(Operation):
    """``x[index]`` with tensors (or lists) in the index. The index tensors are saved like
    inputs, one per indexed dimension (``_saved_indices``, None for a ``:``): changing one in
    place before backward raises PyTorch's error, and a second backward finds them freed."""
    promote = "none"

    def forward(self, a, key, indices):
        self._saved_self_sym_sizes, self._key = a.shape, key
        self._index_count = len(indices)
        if self._recording:
            for position, tensor in enumerate(indices):
                if tensor is not None:
                    self._saved[f"indices{position}"] = SavedTensor(tensor)
        try:
            return a[key]
        except IndexError as error:
            raise IndexError(_torch_index_message(error, a, key)) from None

    @property
    def _saved_indices(self):
        return self._collect(lambda saved: saved.unpack(self))

    @property
    def _raw_saved_indices(self):
        return self._collect(lambda saved: saved)

    def _collect(self, read):
        indices = [read(self._saved[f"indices{i}"]) if f"indices{i}" in self._saved else None
                   for i in range(self._index_count)]
        while indices and indices[-1] is None:       # PyTorch lists up to the last index
            indices.pop()
        return tuple(indices)

    def __dir__(self):
        names = [n for n in super().__dir__() if not n.startswith(("_saved_indices",
                                                                   "_raw_saved_indices"))]
        return sorted(names + ["_raw_saved_indices", "_saved_indices"])

    def backward(self, grad):
        key = tuple(part if f"indices{i}" not in self._saved
                    else self._saved[f"indices{i}"].unpack(self)._data      # version-checked
                    for i, part in enumerate(self._key))
        return IndexBackwardBackward0.apply(grad, shape=self._saved_self_sym_sizes, key=key,
                                            accumulate=True)


def _torch_index_message(error, array, key):
    text = str(error)
    if "boolean index did not match" in text:
        return text.replace("boolean index did not match indexed array along axis",
                            "The shape of the mask").replace("; size of axis is", " does not match")
    parts = key if isinstance(key, tuple) else (key,)
    if text.startswith("shape mismatch"):
        shapes = ", ".join(str(list(p.shape)) for p in parts if isinstance(p, np.ndarray))
        return ("shape mismatch: indexing tensors could not be broadcast together with "
                f"shapes {shapes}")
    for part in parts:
        if isinstance(part, np.ndarray) and part.dtype.kind in "iu" and part.size:
            bad = part.max() if part.max() >= array.shape[0] else part.min()
            return f"index {bad} is out of bounds for dimension 0 with size {array.shape[0]}"
    return text


def _along(dim, index):
    """numpy indices that pick, at every position of ``index``, entry ``index[...]`` along
    ``dim`` and the same position along every other dimension (gather's rule)."""
    if index.ndim == 0:              # a 0-d tensor has one entry (its index, checked, is 0)
        return (Ellipsis,)
    places = list(np.indices(index.shape, sparse=True))
    places[dim] = index
    return tuple(places)


class GatherBackward0(Operation):
    """``out[i][j] = x[index[i][j]][j]`` (for dim 0): entries picked along one dimension."""
    promote = "none"
    kept_names = ("index",)
    _saved_sparse_grad = False

    def forward(self, a, dim, index):
        self.save("self")           # (for its shape only; PyTorch keeps the tensor too)
        self._saved_dim = dim
        self.keep("index", index)
        return a[_along(dim, index._data)]

    def backward(self, grad):
        return into_zeros(scatter_add, self._saved_self.shape, self._saved_dim,
                          self._saved_index, grad)


class ScatterBackward0(Operation):
    """``x`` with ``src[i][j]`` written at ``[index[i][j]][j]`` (for dim 0)."""
    input_names = ("self", "src")
    kept_names = ("index",)

    def forward(self, a, src, dim, index):
        self._saved_dim = dim
        self.keep("index", index)
        out = a.copy()
        self.write(out, _along(dim, index._data),
                   src[tuple(slice(0, size) for size in index.shape)])
        return out

    @staticmethod
    def write(out, places, values):
        out[places] = values

    def backward(self, grad):
        index = self._saved_index
        # the written places lost their old values: no gradient flows back to those
        grad_self = grad.scatter(self._saved_dim, index, 0.0) if self.needs_input_grad[0] else None
        grad_src = gather(grad, self._saved_dim, index) if self.needs_input_grad[1] else None
        return grad_self, grad_src


class ScatterAddBackward0(ScatterBackward0):
    """``x`` with ``src[i][j]`` added at ``[index[i][j]][j]`` (for dim 0): gather's mirror."""

    @staticmethod
    def write(out, places, values):
        np.add.at(out, places, values)       # repeated places add up

    def backward(self, grad):
        grad_src = gather(grad, self._saved_dim, self._saved_index) \
            if self.needs_input_grad[1] else None
        return grad, grad_src


def _check_index_argument(name, input, dim, index):
    if index.dtype.name not in ("int32", "int64"):
        raise RuntimeError(f"{name}(): Expected dtype int32/int64 for index")
    if index.ndim != input.ndim:
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    dim = _check_dim(dim, input.ndim)
    _check_in_bounds(index._data, input.shape[dim] if input.ndim else 1, dim)
    return dim


def _check_in_bounds(index, size, dim, error=RuntimeError, prefix="", lowest=0):
    """PyTorch's error for the first index outside [lowest, size) (numpy would wrap a
    negative one); ``error`` and ``prefix`` as the op raises it."""
    outside = (index < lowest) | (index >= size)
    if outside.any():
        raise error(f"{prefix}index {index.reshape(-1)[np.argmax(outside.reshape(-1))]} is out "
                    f"of bounds for dimension {dim} with size {size}")


class ScatterBackward1(Operation):
    """``x`` with one number written at the places ``index`` points to."""
    kept_names = ("index",)

    def forward(self, a, dim, index, value):
        self._saved_dim = dim
        self.keep("index", index)
        out = a.copy()
        out[_along(dim, index._data)] = value
        return out

    def backward(self, grad):
        return grad.scatter(self._saved_dim, self._saved_index, 0.0)


def scatter(input, dim, index, src):
    dim = _check_index_argument("scatter", input, dim, index)
    if isinstance(src, Tensor):
        return ScatterBackward0.apply(input, src, dim=dim, index=index)
    return ScatterBackward1.apply(input, dim=dim, index=index, value=src)


def gather(input, dim, index):
    dim = _check_index_argument("gather", input, dim, index)
    return GatherBackward0.apply(input, dim=dim, index=index)


def scatter_add(input, dim, index, src):
    dim = _check_index_argument("scatter", input, dim, index)     # (PyTorch's name for it)
    return ScatterAddBackward0.apply(input, src, dim=dim, index=index)


class IndexSelectBackward0(Operation):
    """The entries at positions ``index`` (a 1-D tensor) along ``dim``."""
    promote = "none"
    kept_names = ("index",)

    def forward(self, a, dim, index):
        self._saved_self_sym_sizes, self._saved_dim = a.shape, dim
        self.keep("index", index)
        return np.take(a, index._data, axis=dim) if a.ndim else a[index._data].reshape(())

    def backward(self, grad):
        return into_zeros(index_add, self._saved_self_sym_sizes, self._saved_dim,
                          self._saved_index, grad)


def into_zeros(put, sizes, dim, index, grad):
    """A selection's gradient: ``grad`` put into zeros shaped like the input, at the places
    the selection took (``put`` is scatter_add, index_add or scatter)."""
    from teachgrad import creation
    zeros = creation.zeros(sizes, dtype=grad.dtype)
    return put(zeros, dim, index, grad)


class IndexAddBackward0(Operation):
    """``x`` with the slices of ``source`` added at positions ``index`` along ``dim``."""
    input_names = ("self", "source")
    kept_names = ("index",)

    def forward(self, a, source, dim, index):
        self._saved_dim = dim
        self.keep("index", index)
        out = a.copy()
        places = [slice(None)] * a.ndim
        places[dim] = index._data
        np.add.at(out, tuple(places), source)        # a repeated index adds up
        return out

    def backward(self, grad):
        grad_source = grad.index_select(self._saved_dim, self._saved_index) \
            if self.needs_input_grad[1] else None
        return grad, grad_source


def _check_select_index(name, input, dim, index):
    if index.dtype.name not in ("int32", "int64"):
        raise RuntimeError(f"{name}(): Expected dtype int32/int64 for index")
    if index.ndim > 1:
        raise IndexError(f"{name}(): Index is supposed to be a vector")
    return _check_dim(dim, input.ndim)


def index_select(input, dim, index):
    dim = _check_select_index("index_select", input, dim, index)
    return IndexSelectBackward0.apply(input, dim=dim, index=index)


def index_add(input, dim, index, source):
    dim = _check_select_index("index_add", input, dim, index)
    return IndexAddBackward0.apply(input, source, dim=dim, index=index)


# ---- copying and filling at positions along one dimension -----------------------------
def _at_positions(out, dim, index):
    """The part of ``out`` at positions ``index`` along ``dim``, to be written (a number
    counts as a vector of one element)."""
    return np.atleast_1d(out), (slice(None),) * dim + (index.reshape(-1),)


class IndexCopyBackward0(Operation):
    """``x`` with the slices of ``source`` copied to positions ``index`` along ``dim`` (of a
    repeated position, the last copy stays)."""
    input_names = ("self", "source")
    refused_overlaps = ("full", "partial")      # the source may not be the target
    kept_names = ("index",)
    promote = "none"

    def forward(self, a, source, dim, index, given_dim):
        self._dim, self._saved_dim = dim, shown_dims(given_dim, many=False)
        self._saved_source_dim, self._source_shape = source.ndim, source.shape
        self.keep("index", index)
        if self.needs_input_grad[1]:
            self.save("source")
        out = a.copy()
        target, places = _at_positions(out, dim, index._data)
        target[places] = source
        return out

    def backward(self, grad):
        index = self._saved_index
        grad_self = grad.index_fill(self._dim, index, 0) if self.needs_input_grad[0] else None
        grad_source = None
        if self.needs_input_grad[1]:
            grad_source = grad.index_select(self._dim, index)
            if grad_source.shape != self._source_shape:       # a number as the source
                grad_source = grad_source.reshape(self._source_shape)
        return grad_self, grad_source


def _check_index_copy(input, dim, index, source):
    """PyTorch's checks of index_copy, in its order; ``dim`` counted from 0."""
    dim = _check_dim(dim, input.ndim)
    if index.ndim > 1:
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {index.ndim})")
    count = index.numel()
    if source.ndim == 0 and count != 1:
        raise IndexError(f"index_copy_(): When source is scalar, index should have one element "
                         f"(got {count})")
    if source.ndim != input.ndim and source.ndim and input.ndim:
        raise IndexError(f"index_copy_(): When source and destination are not scalars, their "
                         f"dimensionality must match. Source dimensionality ({source.ndim}), "
                         f"destination dimensionality ({input.ndim})")
    if index.dtype.name != "int64":
        raise RuntimeError(f"index_copy_(): Expected a long tensor for index, but got "
                           f"{index.dtype.short_name}")
    if source.dtype is not input.dtype:
        raise RuntimeError(f"index_copy_(): self and source expected to have the same dtype, but "
                           f"got (self) {input.dtype.short_name} and (source) "
                           f"{source.dtype.short_name}")
    slice_shapes = [" ".join(str(n) for d, n in enumerate(t.shape) if d != dim)
                    for t in (input, source)]
    if slice_shapes[0] != slice_shapes[1]:
        raise RuntimeError(f"index_copy_(): Source/destination tensor must have same slice "
                           f"shapes. Destination slice shape: {slice_shapes[0]} at dimension "
                           f"{dim} and source slice shape: {slice_shapes[1]} at dimension 0.")
    if source.ndim and count != source.shape[dim]:
        raise IndexError(f"index_copy_(): Number of indices ({count}) should be equal to "
                         f"source.size(dim) ({source.shape[dim]})")
    _check_in_bounds(index._data, input.shape[dim] if input.ndim else 1, dim, IndexError,
                     "index_copy_(): ")
    return dim


def index_copy(input, dim, index, source):
    wrapped = _check_index_copy(input, dim, index, source)
    return IndexCopyBackward0.apply(input, source, dim=wrapped, index=index, given_dim=dim)


def index_copy_(input, dim, index, source):
    wrapped = _check_index_copy(input, dim, index, source)
    return IndexCopyBackward0.apply_inplace(input, source, dim=wrapped, index=index,
                                            given_dim=dim)


class IndexFillBackward0(Operation):
    """``x`` with a number written at positions ``index`` along ``dim`` (negative ones
    count from the end)."""
    kept_names = ("index",)
    promote = "none"

    def forward(self, a, dim, index, value, given_dim):
        self._dim, self._saved_dim = dim, shown_dims(given_dim, many=False)
        self.keep("index", index)
        out = a.copy()
        target, places = _at_positions(out, dim, index._data)
        target[places] = np.asarray(value).astype(a.dtype)     # (uint8: -1 is 255, as in C)
        return out

    def backward(self, grad):
        return grad.index_fill(self._dim, self._saved_index, 0)


class IndexFillBackward1(IndexFillBackward0):
    """The same with a 0-d tensor as the value: its gradient is the sum of the gradient at
    the filled positions, each position counted once."""
    input_names = ("self", "value")

    def forward(self, a, value, dim, index, given_dim):
        return super().forward(a, dim, index, value, given_dim)

    def backward(self, grad):
        grad_self = super().backward(grad) if self.needs_input_grad[0] else None
        grad_value = None
        if self.needs_input_grad[1]:
            positions = Tensor._make(np.unique(self._saved_index._data))
            grad_value = grad.index_select(self._dim, positions).sum()
        return grad_self, grad_value


def _index_fill(input, dim, index, value, inplace):
    """index_fill (or, ``inplace``, index_fill_), after PyTorch's checks in its order."""
    if isinstance(value, Tensor) and value.ndim:
        raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got "
                           f"tensor with {value.ndim} dimension(s).")
    if index.dtype.name != "int64":
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    wrapped = _check_dim(dim, input.ndim)
    if index.ndim > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    dtypes.check_fits(value.item() if isinstance(value, Tensor) else value, input.dtype)
    size = input.shape[wrapped] if input.ndim else 1
    _check_in_bounds(index._data, size, wrapped, IndexError, lowest=-size)
    params = {"dim": wrapped, "index": index, "given_dim": dim}
    op = IndexFillBackward1 if isinstance(value, Tensor) else IndexFillBackward0
    apply = op.apply_inplace if inplace else op.apply
    if isinstance(value, Tensor):
        return apply(input, value, **params)
    return apply(input, value=value, **params)


def index_fill(input, dim, index, value):
    return _index_fill(input, dim, index, value, inplace=False)


def index_fill_(input, dim, index, value):
    return _index_fill(input, dim, index, value, inplace=True)


class IndexPutBackward0(Operation):
    """``x[mask] = v`` or ``x[idx] = v``: an in-place write at advanced indices."""
    input_names = ("self", "values")
    refused_overlaps = ("full", "partial")      # the source may not be the target

    def forward(self, a, values, key):
        self._key = key
        result = a.copy()
        result[key] = values
        return result

    def backward(self, grad):
        grad_self = grad.clone() if self.needs_input_grad[0] else None
        if grad_self is not None:
            grad_self._data[self._key] = 0
        grad_values = index(grad, self._key) if self.needs_input_grad[1] else None
        return grad_self, grad_values


# ---- turning a Python index into operations ---------------------------------------
def _is_advanced(part):
    return isinstance(part, (Tensor, np.ndarray, list, range)) or (
        isinstance(part, (bool, np.bool_)))


def _as_basic(part):
    """A 0-d integer tensor indexes like the int it holds (``x[torch.tensor(1)]``), in a
    slice's bounds too (``data[i:i + 8]`` with ``i`` from ``randint``)."""
    if isinstance(part, Tensor) and part.ndim == 0 and part.dtype.category == 1:
        return int(part.item())
    if isinstance(part, slice) and any(isinstance(bound, Tensor)
                                       for bound in (part.start, part.stop, part.step)):
        return slice(*(None if bound is None else operator.index(bound)
                       for bound in (part.start, part.stop, part.step)))
    return part


def _numpy_key(key):
    """The key with tensors, lists and ranges replaced by numpy arrays."""
    parts = key if isinstance(key, tuple) else (key,)
    converted = tuple(p._data if isinstance(p, Tensor) else
                      _index_array(p) if isinstance(p, (list, range)) else p for p in parts)
    return converted if isinstance(key, tuple) else converted[0]


def _index_array(part):
    """A list or range as an index array (an empty one holds int64, as in PyTorch)."""
    array = np.asarray(part)
    return array if array.size else array.astype(np.int64)


def _refuse_on_zero_dim(input, key):
    """PyTorch's words for ``x[0]`` or ``x[0:1]`` (one int or slice, not in a tuple) on a
    0-dim tensor: old tutorials' ``loss.data[0]`` meets the first."""
    if input.ndim != 0:
        return
    if isinstance(key, slice):
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    if isinstance(key, numbers.Integral) and not isinstance(key, bool):
        if key != 0:
            raise IndexError(f"index {key} is out of bounds for dimension 0 with size 0")
        raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                         "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")


def index(input, key):
    """``input[key]``: views for basic indices, a copy for advanced ones.

    With both kinds, the basic ones are applied first (as views), then the
    advanced ones on what is left, as PyTorch does.
    """
    _refuse_on_zero_dim(input, key)
    parts = tuple(_as_basic(p) for p in (key if isinstance(key, tuple) else (key,)))
    if any(_is_advanced(p) for p in parts):
        if all(_is_advanced(p) or p == slice(None) for p in parts):
            return _advanced_index(input, parts)
        return _mixed_index(input, parts)
    if all(p is Ellipsis for p in parts):
        return AliasBackward0.apply_view(input, lambda t: t[...])
    if _is_whole(parts):        # x[:] is a slice of everything; x[:, :], like x[...], an alias
        if isinstance(key, tuple):
            return AliasBackward0.apply_view(input, lambda t: t[...])
        return _slice(input, 0, slice(None))
    return _basic_index(input, parts)


def _is_whole(parts):
    """Does the index select the whole tensor (``x[:]``, ``x[...]``, ``x[:, :]``)?"""
    return all(p is Ellipsis or isinstance(p, slice) and p == slice(None) for p in parts)


def _mixed_index(input, parts):
    """Basic parts first (advanced ones held by ``:``), then the advanced parts."""
    return _advanced_index(*_view_for_advanced(input, parts))


def _view_for_advanced(input, parts):
    """The view the basic parts make (advanced ones held by ``:``), and the parts left for it."""
    held = tuple(slice(None) if _is_advanced(p) else p for p in parts)
    viewed = _basic_index(input, held)
    remaining = tuple(p if _is_advanced(p) or p is Ellipsis else slice(None)
                      for p in parts if not isinstance(p, int))   # an int removed its dim
    return viewed, remaining


def _advanced_index(input, parts):
    """IndexBackward0, given the index tensors to save (a list or range becomes a tensor)."""
    indices = tuple(p if isinstance(p, Tensor) else
                    Tensor._make(_index_array(p)) if isinstance(p, (list, range, np.ndarray))
                    else None
                    for p in parts)
    return IndexBackward0.apply(input, key=_numpy_key(parts), indices=indices)


def _basic_index(input, parts):
    """Apply ints, slices, None and ... one after another, each a view."""
    consumed = sum(1 for p in parts if p is not None and p is not Ellipsis)
    if consumed > input.ndim:
        raise IndexError(f"too many indices for tensor of dimension {input.ndim}")
    result, dim = input, 0
    for part in parts:
        if part is Ellipsis:
            dim += input.ndim - consumed
        elif part is None:
            result = unsqueeze(result, dim)
            dim += 1
        elif isinstance(part, slice):
            if part != slice(None):
                result = _slice(result, dim, part)
            dim += 1
        else:
            result = _select(result, dim, int(part))
    return result


def _select(input, dim, i):
    return SelectBackward0.apply_view(input, lambda t: _select(t, dim, i), dim=dim, index=i)


def _slice(input, dim, part):
    return SliceBackward0.apply_view(input, lambda t: _slice(t, dim, part), dim=dim, slice_=part)


def setitem(target, key, value):
    """``target[key] = value``: an in-place copy into a view, or an index_put."""
    from teachgrad.ops import inplace
    from teachgrad.ops.pointwise import as_tensor_like
    if isinstance(value, numbers.Number):
        value = _number_for(target, value)
    value = as_tensor_like(value, target)
    _refuse_on_zero_dim(target, key)
    parts = tuple(_as_basic(p) for p in (key if isinstance(key, tuple) else (key,)))
    if any(_is_advanced(p) for p in parts):
        if not all(_is_advanced(p) or p == slice(None) for p in parts):
            target, parts = _view_for_advanced(target, parts)   # x[0, idx] = v: CopySlices
        IndexPutBackward0.apply_inplace(target, value, key=_numpy_key(parts))
    elif _is_whole(parts):                    # as PyTorch: no view, the target itself
        if value.ndim == 0:
            inplace.fill_(target, value)
        else:
            inplace.copy_(target, value)
    else:
        inplace.copy_(index(target, key), value)


def _number_for(target, number):
    """``target[key] = number``: the number as a 0-d tensor of the target's dtype, as PyTorch
    makes it (its one-element fill: a float16 target takes any float, as inf)."""
    if isinstance(number, int) and not -2**63 <= number < 2**63:
        raise ValueError("Overflow when unpacking long long")
    dtypes.check_fits(number, target.dtype, numel=1)
    return Tensor._make(np.asarray(number).astype(target._data.dtype))


# ---- selection by a boolean mask ----------------------------------------------------
class MaskedSelectBackward0(Operation):
    """The elements where ``mask`` (broadcast with the input) is True, as a vector."""
    kept_names = ("mask",)

    def forward(self, a, mask):
        self.save("self")
        self.keep("mask", mask)
        shape = np.broadcast_shapes(a.shape, mask.shape)
        return np.broadcast_to(a, shape)[np.broadcast_to(mask._data, shape)]

    def backward(self, grad):
        # PyTorch's masked_select_backward: zeros of the broadcast shape, filled in place
        mask = self._saved_mask
        zeros = grad.new_zeros(np.broadcast_shapes(self._saved_self.shape, mask.shape))
        return zeros.masked_scatter_(mask, grad)


class MaskedScatterBackward0(Operation):
    """The input with the places where ``mask`` is True filled, in order, from ``source``."""
    input_names = ("self", "source")
    kept_names = ("mask",)

    def forward(self, a, source, mask):
        self._source_sizes = source.shape
        self.keep("mask", mask)
        places = np.broadcast_to(mask._data, a.shape)
        count = int(places.sum())
        if source.size < count:
            raise RuntimeError("Number of elements of source < number of ones in mask")
        out = a.copy()
        out[places] = source.reshape(-1)[:count]
        return out

    def backward(self, grad):
        mask = self._saved_mask
        grad_self = grad.masked_fill(mask, 0) if self.needs_input_grad[0] else None
        grad_source = None
        if self.needs_input_grad[1]:
            selected = grad.masked_select(mask)
            missing = int(np.prod(self._source_sizes)) - selected.numel()
            if missing > 0:        # source elements the mask never reached get 0
                from teachgrad.ops.shape import cat
                selected = cat([selected, grad.new_zeros(missing)])
            grad_source = selected.view(self._source_sizes)
        return grad_self, grad_source


def _check_boolean_mask(name, mask):
    if mask.dtype.name != "bool":
        raise RuntimeError(f"{name}: expected BoolTensor for mask")


def masked_select(input, mask):
    _check_boolean_mask("masked_select", mask)
    return MaskedSelectBackward0.apply(input, mask=mask)


def _check_scatter_mask(input, mask, source):
    if mask.dtype.name != "bool":
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with "
                           f"dtype {mask.dtype.short_name}")
    if source.dtype is not input.dtype:
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but "
                           f"got{input.dtype.short_name} and {source.dtype.short_name}")


def masked_scatter(input, mask, source):
    _check_scatter_mask(input, mask, source)
    return MaskedScatterBackward0.apply(input, source, mask=mask)


def masked_scatter_(input, mask, source):
    _check_scatter_mask(input, mask, source)
    return MaskedScatterBackward0.apply_inplace(input, source, mask=mask)


def nonzero(input, *, as_tuple=False):
    """The indices of the non-zero elements: one row each, or one vector per dimension."""
    places = np.argwhere(input._data)
    if as_tuple:
        if input.ndim == 0:
            return (Tensor._make(np.zeros(int(places.shape[0]), dtype=np.int64)),)
        return tuple(Tensor._make(np.ascontiguousarray(places[:, d])) for d in range(input.ndim))
    return Tensor._make(places.astype(np.int64))


# ---- positions counted through the tensor as if it were flat --------------------------
class TakeBackward0(Operation):
    """The elements at flat positions ``index`` (negative ones count from the end), in the
    shape of ``index``."""
    kept_names = ("index",)

    def forward(self, a, index):
        self.save("self")
        self.keep("index", index)
        return np.asarray(a.reshape(-1)[index._data], dtype=a.dtype)

    def backward(self, grad):
        from teachgrad import creation
        zeros = creation.zeros_like(self._saved_self, dtype=grad.dtype)
        return put(zeros, self._saved_index, grad, accumulate=True)


class PutBackward0(Operation):
    """The tensor with ``source``'s elements written at flat positions ``index`` (added
    there with ``accumulate``, so that a repeated position adds up)."""
    input_names = ("self", "source")
    refused_overlaps = ("full", "partial")      # the source may not be the target
    kept_names = ("index",)

    def forward(self, a, source, index, accumulate):
        self.save("source")
        self.keep("index", index)
        self._saved_accumulate = accumulate
        out = a.copy()
        if accumulate:
            np.add.at(out.reshape(-1), index._data.reshape(-1), source.reshape(-1))
        else:
            out.reshape(-1)[index._data.reshape(-1)] = source.reshape(-1)
        return out

    def backward(self, grad):
        from teachgrad import creation
        index, source = self._saved_index, self._saved_source
        grad_self = grad_source = None
        if self.needs_input_grad[0]:
            # the overwritten places lost their old values: no gradient flows back to those
            grad_self = grad if self._saved_accumulate else \
                put(grad, index, creation.zeros_like(source, dtype=grad.dtype))
        if self.needs_input_grad[1]:
            grad_source = take(grad, index).reshape(source.shape)
        return grad_self, grad_source


def _check_long_index(name, index):
    if index.dtype.name != "int64":
        raise RuntimeError(f"{name}(): Expected a long tensor for index, but got "
                           f"{index.dtype.short_name}")


def _check_flat_positions(input, index):
    """PyTorch's error for the first flat position outside the tensor."""
    size = input.numel()
    outside = (index._data < -size) | (index._data >= size)
    if outside.any():
        bad = index._data.reshape(-1)[np.argmax(outside.reshape(-1))]
        raise IndexError(f"out of range: tried to access index {bad} on a tensor of {size} "
                         f"elements.")


def take(input, index):
    _check_long_index("take", index)
    if input.numel() == 0 and index.numel():
        raise IndexError("take(): tried to take from an empty tensor")
    _check_flat_positions(input, index)
    return TakeBackward0.apply(input, index=index)


def _check_put(input, index, source):
    _check_long_index("put_", index)
    if source.numel() != index.numel():
        raise IndexError(f"put_(): Expected source and index to have the same number of "
                         f"elements, but got source.numel() = {source.numel()}, "
                         f"index.numel() = {index.numel()}")
    if source.dtype is not input.dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got "
                           f"self.dtype = {input.dtype.short_name} and source.dtype = "
                           f"{source.dtype.short_name}")
    if input.numel() == 0 and index.numel():
        raise IndexError("put_(): Tried to put elements into an empty tensor")
    _check_flat_positions(input, index)


def put(input, index, source, accumulate=False):
    _check_put(input, index, source)
    return PutBackward0.apply(input, source, index=index, accumulate=accumulate)


def put_(input, index, source, accumulate=False):
    _check_put(input, index, source)
    return PutBackward0.apply_inplace(input, source, index=index, accumulate=accumulate)


def take_along_dim(input, indices, dim=None):
    """``gather`` with the indices and the input broadcast to each other (but for ``dim``);
    without ``dim``, on both flattened (PyTorch's steps: expand, or view, then gather)."""
    if dim is None:
        return gather(input.view(-1), 0, indices.view(-1))
    if input.ndim != indices.ndim:
        raise RuntimeError(f"torch.take_along_dim(): input and indices should have the same "
                           f"number of dimensions, but got {input.ndim} dimensions for input, and "
                           f"{indices.ndim} dimensions for indices")
    if indices.dtype.name != "int64":
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got "
                           f"{indices.dtype.short_name}")
    dim = _check_dim(dim, input.ndim)
    index_shape = _broadcast_but(dim, input.shape, indices.shape)
    input_shape = _broadcast_but(dim, indices.shape, input.shape)
    return gather(input.expand(input_shape), dim, indices.expand(index_shape))


def _broadcast_but(dim, sizes, other):
    """The shape ``other`` broadcasts to with ``sizes`` along every dimension but ``dim``."""
    from teachgrad.autograd.operation import broadcast_error_message
    sizes = list(sizes)
    sizes[dim] = other[dim]
    try:
        return np.broadcast_shapes(tuple(sizes), other)
    except ValueError:
        raise RuntimeError(broadcast_error_message([tuple(sizes), other])) from None


# ---- writing into one region: a selection, a slice, a diagonal ------------------------
class IntoRegion(Operation):
    """``self`` with ``src`` written into one region of it (``region(x)``, a view of x, numpy
    array or tensor alike): the gradient of ``self`` is the incoming one with that region
    set to 0 (the same op, with zeros), and ``src``'s is the region of the incoming one."""
    input_names = ("self", "src")
    promote = "none"

    def forward(self, a, src, region, shown):
        self._region, self._shown, self._src_shape = region, shown, src.shape
        for name, value in shown.items():         # the saved arguments, as PyTorch shows them
            setattr(self, f"_saved_{name}", value)
        out = a.copy()
        place = region(out)
        if place.shape != src.shape:
            raise RuntimeError(f"expected src to have a size equal to the slice of self. src size "
                               f"= {list(src.shape)}, slice size = {list(place.shape)}")
        place[...] = src
        return out

    def backward(self, grad):
        from teachgrad import creation
        grad_self = grad_src = None
        if self.needs_input_grad[0]:
            zeros = creation.zeros(self._src_shape, dtype=grad.dtype)
            grad_self = type(self).apply(grad, zeros, region=self._region, shown=self._shown)
        if self.needs_input_grad[1]:
            grad_src = self._region(grad)
        return grad_self, grad_src


class SelectScatterBackward0(IntoRegion):
    pass


class SliceScatterBackward0(IntoRegion):
    pass


class DiagonalScatterBackward0(IntoRegion):
    pass


def select_scatter(input, src, dim, index):
    wrapped = _check_dim(dim, input.ndim)
    size = input.shape[wrapped]
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{list(input.shape)} at dimension {wrapped}")
    key = (slice(None),) * wrapped + (index, Ellipsis)     # (the Ellipsis keeps a 0-d view)
    return SelectScatterBackward0.apply(input, src, region=lambda x: x[key], shown={
        "dim": shown_dims(dim, many=False), "index": shown_dims(index, many=False)})


def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    key = (slice(None),) * _check_dim(dim, input.ndim) + (slice(start, end, step),)
    return SliceScatterBackward0.apply(input, src, region=lambda x: x[key], shown={
        "dim": shown_dims(dim, many=False), "start": shown_dims(start, many=False),
        "end": shown_dims(end, many=False), "step": step})


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    first, second = _diagonal_dims(input.ndim, dim1, dim2)

    def region(x):
        if isinstance(x, Tensor):
            return x.diagonal(offset, first, second)
        return _diagonal_of(x, offset, first, second)
    return DiagonalScatterBackward0.apply(input, src, region=region, shown={
        "offset": shown_dims(offset, many=False), "dim1": shown_dims(dim1, many=False),
        "dim2": shown_dims(dim2, many=False)})


# ---- positions of a triangle -------------------------------------------------------
def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """The (row, column) positions on and below diagonal ``offset`` of a row x col matrix,
    as two rows, in reading order."""
    return _triangle_positions("tril_indices", np.tril_indices, row, col, offset, dtype)


def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """The positions on and above diagonal ``offset`` (see tril_indices)."""
    return _triangle_positions("triu_indices", np.triu_indices, row, col, offset, dtype)


def _triangle_positions(name, numpy_function, row, col, offset, dtype):
    from teachgrad import dtypes
    dtype = dtypes.int64 if dtype is None else dtype
    if row < 0:
        raise RuntimeError(f"row must be non-negative, got{row}")
    if col < 0:
        raise RuntimeError(f"col must be non-negative, got{col}")
    if dtype.name not in ("int32", "int64"):
        raise NotImplementedError(f"\"{name}\" not implemented for '{dtype.short_name}'")
    return Tensor._make(np.stack(numpy_function(row, offset, col)).astype(dtype.numpy))
