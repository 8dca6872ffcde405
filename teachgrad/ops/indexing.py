"""Indexing: ``x[0]``, ``x[1:3]``, ``x[None]``, ``x[...]``, ``x[mask]``, ``x[idx]``
and assignment ``x[i] = v``.

Basic indexing (ints, slices, None, ...) is a chain of views, one per index, as
in PyTorch: ``x[0, 1:]`` is a ``SelectBackward0`` then a ``SliceBackward0``.
Indexing with a bool mask or an integer tensor copies (``IndexBackward0``).
"""
import sys

import numpy as np

from teachgrad.autograd.graph import SavedTensor
from teachgrad.autograd.operation import Operation
from teachgrad.ops.shape import AliasBackward0, ViewOperation, _check_dim, unsqueeze
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
        self._saved_start = 0 if slice_.start is None else slice_.start
        self._saved_end = sys.maxsize if slice_.stop is None else slice_.stop   # (PyTorch's INT64_MAX)
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
    for part in key if isinstance(key, tuple) else (key,):
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


def _check_in_bounds(index, size, dim):
    """PyTorch's error for the first index outside [0, size) (numpy would wrap a negative one)."""
    outside = (index < 0) | (index >= size)
    if outside.any():
        raise RuntimeError(f"index {index.reshape(-1)[np.argmax(outside.reshape(-1))]} is out "
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


class IndexPutBackward0(Operation):
    """``x[mask] = v`` or ``x[idx] = v``: an in-place write at advanced indices."""
    input_names = ("self", "values")

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
    return isinstance(part, (Tensor, np.ndarray, list)) or (
        isinstance(part, (bool, np.bool_)))


def _as_basic(part):
    """A 0-d integer tensor indexes like the int it holds (``x[torch.tensor(1)]``)."""
    if isinstance(part, Tensor) and part.ndim == 0 and part.dtype.category == 1:
        return int(part.item())
    return part


def _numpy_key(key):
    """The key with tensors and lists replaced by numpy arrays."""
    parts = key if isinstance(key, tuple) else (key,)
    converted = tuple(p._data if isinstance(p, Tensor) else np.asarray(p) if isinstance(p, list)
                      else p for p in parts)
    return converted if isinstance(key, tuple) else converted[0]


def index(input, key):
    """``input[key]``: views for basic indices, a copy for advanced ones.

    With both kinds, the basic ones are applied first (as views), then the
    advanced ones on what is left, as PyTorch does.
    """
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
    held = tuple(slice(None) if _is_advanced(p) else p for p in parts)
    viewed = _basic_index(input, held)
    remaining = tuple(p if _is_advanced(p) or p is Ellipsis else slice(None)
                      for p in parts if not isinstance(p, int))   # an int removed its dim
    return _advanced_index(viewed, remaining)


def _advanced_index(input, parts):
    """IndexBackward0, given the index tensors to save (a list becomes a tensor first)."""
    indices = tuple(p if isinstance(p, Tensor) else
                    Tensor._make(np.asarray(p)) if isinstance(p, (list, np.ndarray)) else None
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
    value = as_tensor_like(value, target)
    parts = key if isinstance(key, tuple) else (key,)
    if any(_is_advanced(p) for p in parts):
        IndexPutBackward0.apply_inplace(target, value, key=_numpy_key(key))
    elif _is_whole(parts):                    # as PyTorch: no view, the target itself
        if value.ndim == 0:
            inplace.fill_(target, value)
        else:
            inplace.copy_(target, value)
    else:
        inplace.copy_(index(target, key), value)


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
