"""Matrix products: mm, mv, dot, bmm, addmm, and matmul, which picks one of them; tensordot
and kron, built from them as PyTorch builds them; the cross product.

einsum is in ``einsum.py``, determinants, inverses and solves in ``lu.py``, cdist and dist in
``distances.py``; they are imported here too, so that ``teachgrad.det`` and ``x.det()``
come from one place.
"""
import warnings

import numpy as np

from teachgrad import dtypes
from teachgrad.autograd.graph import shared
from teachgrad.autograd.operation import Operation
from teachgrad.ieee import quiet_numpy
from teachgrad.ops.distances import cdist, dist  # noqa: F401  (re-exported, see above)
from teachgrad.ops.einsum import einsum  # noqa: F401
from teachgrad.ops.lu import det, inverse, linalg_slogdet, logdet, slogdet, solve  # noqa: F401
from teachgrad.ops.pointwise import times_number
from teachgrad.ops.shape import SqueezeBackward4, UnsafeViewBackward0, _check_dim, expanded_shape
from teachgrad.tensor import Tensor


def mat2_gradient(mat1, grad, mat2_sizes, mat2_strides):
    """``mat1.T @ grad``, laid out like mat2 was (as PyTorch's mm_mat2_backward does).

    ``nn.Linear`` multiplies by ``weight.t()``, a transposed view; computing its gradient
    as ``(grad.T @ mat1).T`` makes the weight's gradient contiguous, like the weight.
    """
    if mat2_strides[0] == 1 and mat2_strides[1] == mat2_sizes[0]:      # column by column
        return grad.t().mm(mat1).t()
    return mat1.t().mm(grad)


def element_strides(matrix):
    """A numpy array's strides counted in elements, as PyTorch counts them (numpy counts bytes);
    one stored tuple for all nodes (``graph.shared``), like the sizes beside it."""
    rows, columns = matrix.strides
    return shared((rows // matrix.itemsize, columns // matrix.itemsize))


class MmBackward0(Operation):
    """mat1 @ mat2. As PyTorch, the node shows both factors' sizes, and the strides of
    those that need a gradient (``()`` for the others)."""
    input_names = ("self", "mat2")
    _saved_self_sym_strides = _saved_mat2_sym_strides = ()

    def forward(self, a, b):
        if a.shape[1] != b.shape[0]:
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied "
                               f"({a.shape[0]}x{a.shape[1]} and {b.shape[0]}x{b.shape[1]})")
        self._saved_self_sym_sizes, self._saved_mat2_sym_sizes = shared(a.shape), shared(b.shape)
        if self.needs_input_grad[0]:
            self.save("mat2")
            self._saved_self_sym_strides = element_strides(a)
        if self.needs_input_grad[1]:
            self.save("self")
            self._saved_mat2_sym_strides = element_strides(b)
        return quiet_numpy.run(np.matmul, a, b)     # inf * 0 in a sum: nan, without a warning

    def backward(self, grad):
        grad_self = grad.mm(self._saved_mat2.t()) if self.needs_input_grad[0] else None
        grad_mat2 = mat2_gradient(self._saved_self, grad, self._saved_mat2_sym_sizes,
                                  self._saved_mat2_sym_strides) \
            if self.needs_input_grad[1] else None
        return grad_self, grad_mat2


class AddmmBackward0(Operation):
    """beta * bias + alpha * (mat1 @ mat2) in one node: what ``nn.Linear`` records for a
    batch of rows (with alpha = beta = 1). beta = 0 ignores the bias, even its nans.
    (``addmm`` and ``addmm_`` check the shapes first: ``check_factors``.)"""
    input_names = ("self", "mat1", "mat2")
    refused_overlaps = ()        # as PyTorch's: x.addmm_(x, x.t()) reads x before writing
    _saved_mat1_sym_strides = _saved_mat2_sym_strides = ()
    _saved_alpha = _saved_beta = 1      # (a node stores them only when they are not)

    def forward(self, bias, a, b, alpha=1, beta=1):
        self._bias_is_row = bias.ndim == 1      # then its gradient is the batch sum
        if not (alpha.__class__ is int and beta.__class__ is int and alpha == beta == 1):
            self._saved_alpha, self._saved_beta = alpha, beta
        self._saved_mat1_sym_sizes, self._saved_mat2_sym_sizes = shared(a.shape), shared(b.shape)
        if self.needs_input_grad[2]:         # saved in PyTorch's order: mat1, then mat2
            self.save("mat1")
            self._saved_mat2_sym_strides = element_strides(b)
        if self.needs_input_grad[1]:
            self.save("mat2")
            self._saved_mat1_sym_strides = element_strides(a)
        out = quiet_numpy.run(np.matmul, a, b)
        if alpha == 1 and beta == 1:
            quiet_numpy.run(np.add, out, bias, out=out)     # into the fresh product: no new array
            return out
        return _scaled_sum(out, alpha, bias, beta)

    def backward(self, grad):
        alpha, beta, needs = self._saved_alpha, self._saved_beta, self.needs_input_grad
        grad_mat1 = grad_mat2 = grad_bias = None
        if needs[1]:
            grad_mat1 = _times(grad.mm(self._saved_mat2.t()), alpha)
        if needs[2]:
            grad_mat2 = _times(mat2_gradient(self._saved_mat1, grad, self._saved_mat2_sym_sizes,
                                             self._saved_mat2_sym_strides), alpha)
        if needs[0]:
            grad_bias = _times(grad.sum(0) if self._bias_is_row else grad, beta)
        return grad_bias, grad_mat1, grad_mat2


def _scaled_sum(product, alpha, bias, beta):
    """``beta * bias + alpha * product``, alpha and beta cast to the product's dtype first
    (as PyTorch: an integer addmm takes alpha = 2.5 as 2)."""
    dtype = product.dtype.type
    product = quiet_numpy.run(np.multiply, product, dtype(alpha))
    if beta == 0:       # the bias must fit, but its values (even nan) are ignored
        np.broadcast_to(bias, product.shape)
        return product
    return quiet_numpy.run(np.add, product, quiet_numpy.run(np.multiply, bias, dtype(beta)))


def _times(gradient, number):
    """PyTorch's maybe_multiply: ``gradient * number``, or ``gradient`` itself if number is 1."""
    return gradient if number == 1 else times_number(gradient, number)


class MvBackward0(Operation):
    input_names = ("self", "vec")

    def forward(self, a, v):
        if a.shape[1] != v.shape[0]:
            raise RuntimeError(f"size mismatch, got input ({a.shape[0]}), mat "
                               f"({a.shape[0]}x{a.shape[1]}), vec ({v.shape[0]})")
        self.save("self")
        self.save("vec")
        return quiet_numpy.run(np.matmul, a, v)

    def backward(self, grad):
        grad_self = grad.unsqueeze(1) * self._saved_vec if self.needs_input_grad[0] else None
        grad_vec = self._saved_self.t().mv(grad) if self.needs_input_grad[1] else None
        return grad_self, grad_vec


class DotBackward0(Operation):
    input_names = ("self", "tensor")

    def forward(self, a, b):
        if a.shape != b.shape:
            raise RuntimeError(f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src "
                               f"[{b.shape[0]}] to have the same number of elements, but got "
                               f"{a.shape[0]} and {b.shape[0]} elements respectively")
        self.save("self")
        self.save("tensor")
        return np.asarray(quiet_numpy.run(np.matmul, a, b))

    def backward(self, grad):
        return grad * self._saved_tensor, grad * self._saved_self


class BmmBackward0(Operation):
    input_names = ("self", "mat2")

    def forward(self, a, b):
        if a.shape[0] != b.shape[0] or a.shape[2] != b.shape[1]:
            raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                               f"[{a.shape[0]}, {a.shape[2]}] but got: [{b.shape[0]}, {b.shape[1]}].")
        self.save("self")
        self.save("mat2")
        return quiet_numpy.run(np.matmul, a, b)

    def backward(self, grad):
        grad_self = grad.bmm(self._saved_mat2.transpose(1, 2)) if self.needs_input_grad[0] else None
        grad_mat2 = self._saved_self.transpose(1, 2).bmm(grad) if self.needs_input_grad[1] else None
        return grad_self, grad_mat2


# ---- PyTorch's errors for factors of different dtypes (no silent promotion) ------------
def _check_same_dtype(kind, *tensors):
    """Raise PyTorch's error for ``kind`` of product if the factors' dtypes differ."""
    first = tensors[0]._data.dtype
    for t in tensors:
        if t._data.dtype != first:
            raise RuntimeError(_dtype_mismatch_message(kind, tensors))


def _dtype_mismatch_message(kind, tensors):
    names = [t.dtype.short_name for t in tensors]
    if kind == "mm":
        a, b = tensors
        message = (f"expected m1 and m2 to have the same dtype, but got: "
                   f"{dtypes.C_NAMES[a.dtype.name]} != {dtypes.C_NAMES[b.dtype.name]}")
    elif kind == "addmm":
        bias, mat1, mat2 = names
        first, second = ("self", bias) if bias != mat2 else ("mat1", mat1)
        message = f"{first} and mat2 must have the same dtype, but got {second} and {mat2}"
    elif kind == "mv":
        mat, vec = names
        message = (f"addmv input tensors must have the same dtype, but got {vec}, {mat}, "
                   f"and {vec}")
    elif kind == "dot":
        message = (f"dot : expected both vectors to have same dtype, but found "
                   f"{names[0]} and {names[1]}")
    else:     # "scalar type": bmm, cross, einsum... PyTorch's generic words
        message = f"expected scalar type {names[0]} but found {names[1]}"
    return message


def _check_matrix(name, t, ndim):
    if t.ndim != ndim:
        raise RuntimeError(f"{name}: Expected {ndim}-D tensor, but got {t.ndim}-D tensor")


def check_factors(mat1, mat2):
    """PyTorch's errors for factors of addmm that are not two matrices that can be multiplied."""
    for name, matrix in (("mat1", mat1), ("mat2", mat2)):
        if matrix.ndim != 2:
            raise RuntimeError(f"{name} must be a matrix, got {matrix.ndim}-D tensor")
    if mat1.shape[1] != mat2.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({mat1.shape[0]}x"
                           f"{mat1.shape[1]} and {mat2.shape[0]}x{mat2.shape[1]})")


def mm(input, mat2):
    if input.ndim != 2 or mat2.ndim != 2:
        raise RuntimeError("self must be a matrix" if input.ndim != 2 else "mat2 must be a matrix")
    _check_same_dtype("mm", input, mat2)
    return MmBackward0.apply(input, mat2)


def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    """``beta * input + alpha * (mat1 @ mat2)``."""
    _check_same_dtype("addmm", input, mat1, mat2)
    check_factors(mat1, mat2)
    product = (mat1.shape[0], mat2.shape[1])
    if input.shape != product and input.shape != product[1:]:    # (nn.Linear's bias: a row)
        expanded_shape(input, product)
    if alpha.__class__ is int and beta.__class__ is int and alpha == beta == 1:
        return AddmmBackward0.apply(input, mat1, mat2)      # (nn.Linear's case, kept quick)
    return AddmmBackward0.apply(input, mat1, mat2, alpha=alpha, beta=beta)


def mv(input, vec):
    _check_same_dtype("mv", input, vec)
    return MvBackward0.apply(input, vec)


def dot(input, tensor):
    if input.ndim != 1 or tensor.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.ndim}D and {tensor.ndim}D tensors")
    _check_same_dtype("dot", input, tensor)
    return DotBackward0.apply(input, tensor)


def bmm(input, mat2):
    _check_matrix("batch1", input, 3)
    _check_matrix("batch2", mat2, 3)
    _check_same_dtype("scalar type", input, mat2)
    return BmmBackward0.apply(input, mat2)


def matmul(input, other):
    """The product ``input @ other``, dispatched on the number of dimensions as PyTorch does."""
    a, b = input.ndim, other.ndim
    if a == 0 or b == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are "
                           f"{a}D and {b}D")
    if b == 1 and a > 2:
        _check_same_dtype("mv", input, other)     # as PyTorch, which folds the batch into mv
    elif b > 2:
        _check_same_dtype("scalar type", input, other)
    if a == 1 and b == 1:
        return dot(input, other)
    if a == 2 and b == 1:
        return mv(input, other)
    if a == 1 and b == 2:
        return _squeeze4(mm(input.unsqueeze(0), other), 0)
    if a == 2 and b == 2:
        return mm(input, other)
    if b <= 2:
        return _fold_batch_into_rows(input, other)
    if a == 2:     # (n, k) @ (..., k, m): computed as ((..., m, k) @ (k, n)) transposed
        return _fold_batch_into_rows(other.transpose(-1, -2), input.t()).transpose(-1, -2).contiguous()
    return _batched(input, other)


def _squeeze4(t, dim):
    return SqueezeBackward4.apply_view(t, lambda x: _squeeze4(x, dim), dim=dim)


def _fold_batch_into_rows(input, other):
    """(..., n, k) @ (k, m) or @ (k,): one big mm over all rows, then the shape back."""
    vector = other.ndim == 1
    matrix = other.unsqueeze(1) if vector else other
    rows = input.reshape(-1, input.shape[-1])
    out_shape = input.shape[:-1] + (() if vector else (matrix.shape[1],))
    return UnsafeViewBackward0.apply(mm(rows, matrix), shape=out_shape)


def _batched(input, other):
    """Broadcast the batch dimensions, then one bmm."""
    vector_left = input.ndim == 1
    if vector_left:
        input = input.unsqueeze(0)
    batch = np.broadcast_shapes(input.shape[:-2], other.shape[:-2])
    n, k, m = input.shape[-2], input.shape[-1], other.shape[-1]
    if other.shape[-2] != k:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{int(np.prod(batch))}, {k}] but got: [{int(np.prod(batch))}, "
                           f"{other.shape[-2]}].")
    left = input.expand(batch + (n, k)).reshape(-1, n, k)
    right = other.expand(batch + (k, m)).reshape(-1, k, m)
    result = UnsafeViewBackward0.apply(bmm(left, right), shape=batch + (n, m))
    return result.squeeze(-2) if vector_left else result


def outer(input, vec2):
    """The outer product: ``input[i] * vec2[j]``, computed as PyTorch does (a column times a row)."""
    for name, vector in (("self", input), ("vec2", vec2)):
        if vector.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {vector.ndim}-D")
    return input.reshape(-1, 1) * vec2


# ---- tensordot and kron ---------------------------------------------------------------------
def tensordot(a, b, dims=2):
    """Sum the products over ``dims`` pairs of dimensions: a's last ``dims`` with b's first
    (an int), or the dimensions of two lists. As PyTorch: a is permuted so that its summed
    dimensions come last, b so that they come first; both are flattened to matrices for one
    mm, whose result is reshaped to a's kept sizes then b's."""
    dims_a, dims_b = _tensordot_dims(a, b, dims)
    if len(dims_a) != len(dims_b):
        raise RuntimeError("both dimension lists should have same length")
    if a.dtype != b.dtype:
        raise RuntimeError("both inputs should have same dtype")
    summed_size, left, right = 1, a, b
    for dim_a, dim_b in zip(dims_a, dims_b):
        size_a, size_b = a.shape[_check_dim(dim_a, a.ndim)], b.shape[_check_dim(dim_b, b.ndim)]
        if size_b == 1:         # a broadcast dimension is summed right away
            left = left.sum(dim_a, True)
        elif size_a == 1:
            right = right.sum(dim_b, True)
        elif size_a != size_b:
            raise RuntimeError(f"contracted dimensions need to match, but first has size {size_a} "
                               f"in dim {dim_a} and second has size {size_b} in dim {dim_b}")
        else:
            summed_size *= size_a
    summed_a = [_check_dim(d, a.ndim) for d in dims_a]
    summed_b = [_check_dim(d, b.ndim) for d in dims_b]
    kept_a = [d for d in range(a.ndim) if d not in summed_a]
    kept_b = [d for d in range(b.ndim) if d not in summed_b]
    sizes_a, sizes_b = [left.shape[d] for d in kept_a], [right.shape[d] for d in kept_b]
    left = left.permute(kept_a + dims_a).reshape(int(np.prod(sizes_a)), summed_size)
    right = right.permute(dims_b + kept_b).reshape(summed_size, int(np.prod(sizes_b)))
    return mm(left, right).reshape(sizes_a + sizes_b)


def _tensordot_dims(a, b, dims):
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(a.ndim, b.ndim):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        return list(range(-dims, 0)), list(range(dims))
    if not isinstance(dims, (tuple, list)) or len(dims) != 2:
        raise RuntimeError(f"tensordot expects dims to be int or tuple[list[int], list[int]] or "
                           f"list[list[int]] containing two lists, but got dims={dims}")
    for position, (name, dim_list) in enumerate(zip(("dims_self", "dims_other"), dims), start=3):
        if not isinstance(dim_list, (tuple, list)):
            raise TypeError(f"tensordot(): argument '{name}' (position {position}) must be "
                            f"tuple of ints, not {type(dim_list).__name__}")
    return list(dims[0]), list(dims[1])


def kron(input, other):
    """The Kronecker product: every element of input times the whole of other, in blocks.
    As PyTorch: input viewed as (n0, 1, n1, 1, ...), other as (1, m0, 1, m1, ...); their
    broadcast product, viewed as (n0*m0, n1*m1, ...)."""
    ndim = max(input.ndim, other.ndim)
    input_sizes = (1,) * (ndim - input.ndim) + input.shape
    other_sizes = (1,) * (ndim - other.ndim) + other.shape
    input_shape, other_shape = [], []
    for n, m in zip(input_sizes, other_sizes):
        input_shape += [n, 1]
        other_shape += [1, m]
    product = UnsafeViewBackward0.apply(input, shape=tuple(input_shape)) * \
        UnsafeViewBackward0.apply(other, shape=tuple(other_shape))
    return UnsafeViewBackward0.apply(
        product, shape=tuple(n * m for n, m in zip(input_sizes, other_sizes)))


# ---- the cross product ----------------------------------------------------------------------
class LinalgCrossBackward0(Operation):
    """The cross product of the 3-vectors along ``dim``. Its gradient is a cross product too:
    d(a x b) = da x b + a x db, and (g . (da x b)) = ((b x g) . da)."""
    input_names = ("self", "other")

    def forward(self, a, b, dim):
        if self.needs_input_grad[0]:
            self.save("other")
        if self.needs_input_grad[1]:
            self.save("self")
        self._saved_dim = dim
        return np.ascontiguousarray(np.cross(a, b, axis=dim))

    def backward(self, grad):
        dim = self._saved_dim
        grad_self = linalg_cross(self._saved_other, grad, dim=dim) \
            if self.needs_input_grad[0] else None
        grad_other = linalg_cross(grad, self._saved_self, dim=dim) \
            if self.needs_input_grad[1] else None
        return grad_self, grad_other


def linalg_cross(input, other, *, dim=-1):
    """``torch.linalg.cross``: the cross product along ``dim`` (the last by default); the
    other dimensions broadcast."""
    if input.ndim != other.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    position = _check_dim(dim, input.ndim)
    if input.shape[position] != 3 or other.shape[position] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got "
                           f"{input.shape[position]} and {other.shape[position]}")
    _check_same_dtype("scalar type", input, other)
    return LinalgCrossBackward0.apply(input, other, dim=position)


def cross(input, other, dim=None):
    """``torch.cross``: ``linalg.cross``, except that without ``dim`` it takes the first
    dimension of size 3 (which PyTorch warns is deprecated, once per process)."""
    if dim is None:
        _warn_once_about_the_default_dim()
        dim = next((d for d, size in enumerate(input.shape) if size == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    return linalg_cross(input, other, dim=dim)


_warned_about_the_default_dim = []


def _warn_once_about_the_default_dim():
    if not _warned_about_the_default_dim:
        _warned_about_the_default_dim.append(True)
        warnings.warn("Using torch.cross without specifying the dim arg is deprecated.\n"
                      "Please either pass the dim explicitly or simply use torch.linalg.cross.\n"
                      "The default value of dim will change to agree with that of linalg.cross "
                      "in a future release.", UserWarning, stacklevel=3)
