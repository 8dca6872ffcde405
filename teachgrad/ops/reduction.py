"""Reductions: sum, mean, max/min, softmax and friends, norms.

A reduction's backward spreads the gradient back over the reduced dimensions
(``expand``), so its shape matches the input again.
"""
import builtins

import numpy as np

from teachgrad.autograd import grad_mode
from teachgrad.autograd.engine import is_expandable_to
from teachgrad.autograd.operation import Operation
from teachgrad.tensor import Tensor


def normalize_dims(dim, ndim):
    """``dim`` (an int, a tuple of ints, or None for all) as a sorted tuple of positive dims."""
    if dim is None:
        return tuple(range(ndim))
    dims = dim if isinstance(dim, (tuple, list)) else (dim,)
    rank = builtins.max(ndim, 1)
    result = []
    for d in dims:
        if not -rank <= d < rank:
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-rank}, {rank - 1}], but got {d})")
        result.append(d % rank)
    return tuple(sorted(set(result))) if ndim else ()


def restore_reduced_dims(grad, dims, keepdim):
    """Put back the dimensions a reduction removed, as size 1, so the gradient broadcasts."""
    if keepdim:
        return grad
    for d in dims:
        grad = grad.unsqueeze(d)
    return grad


class SumBackward0(Operation):
    """Sum of all elements."""

    def forward(self, a, dtype=None):
        self._self_sizes = a.shape
        return np.asarray(a.sum(dtype=_sum_dtype(a, dtype)))

    def backward(self, grad):
        return grad.expand(self._self_sizes)


class SumBackward1(Operation):
    """Sum over some dimensions."""

    def forward(self, a, dims, keepdim, dtype=None):
        self._self_sizes, self._saved_dim, self._saved_keepdim = a.shape, dims, keepdim
        return np.asarray(a.sum(axis=dims, keepdims=keepdim, dtype=_sum_dtype(a, dtype)))

    def backward(self, grad):
        return restore_reduced_dims(grad, self._saved_dim, self._saved_keepdim).expand(self._self_sizes)


def _sum_dtype(a, dtype):
    if dtype is not None:
        return dtype.numpy
    return np.int64 if a.dtype.kind in "biu" else a.dtype


class MeanBackward0(Operation):
    promote = "float"

    def forward(self, a):
        self._self_sizes = a.shape
        return np.asarray(a.mean(dtype=a.dtype), dtype=a.dtype)

    def backward(self, grad):
        return grad.expand(self._self_sizes) / builtins.max(int(np.prod(self._self_sizes)), 1)


class MeanBackward1(Operation):
    promote = "float"

    def forward(self, a, dims, keepdim):
        self._self_sizes, self._saved_dim, self._saved_keepdim = a.shape, dims, keepdim
        self._count = int(np.prod([a.shape[d] for d in dims])) if dims else 1
        return np.asarray(a.mean(axis=dims, keepdims=keepdim, dtype=a.dtype), dtype=a.dtype)

    def backward(self, grad):
        grad = restore_reduced_dims(grad, self._saved_dim, self._saved_keepdim)
        return grad.expand(self._self_sizes) / self._count


class VarBackward0(Operation):
    """The variance over ``dims``, dividing by N - correction (Bessel's N - 1 by default)."""

    def forward(self, a, dims, correction, keepdim):
        self.save("self")
        self._saved_dim, self._saved_correction, self._saved_keepdim = dims, correction, keepdim
        return np.asarray(a.var(axis=dims, ddof=correction, keepdims=keepdim), dtype=a.dtype)

    def backward(self, grad):
        return _variance_gradient(self, grad)


class StdBackward0(Operation):
    """The standard deviation: the square root of the variance."""

    def forward(self, a, dims, correction, keepdim):
        self.save("self")
        self.save("result")
        self._saved_dim, self._saved_correction, self._saved_keepdim = dims, correction, keepdim
        return np.asarray(a.std(axis=dims, ddof=correction, keepdims=keepdim), dtype=a.dtype)

    def backward(self, grad):
        # d sqrt(v) = dv / (2 sqrt(v)): the variance's gradient, of grad / (2 std)
        return _variance_gradient(self, grad / (self._saved_result * 2))


def _variance_gradient(node, grad):
    """d var / d x = 2 (x - mean) / (N - correction), for each x (in PyTorch's order of
    operations, so that rounding and graph nodes agree)."""
    x, dims = node._saved_self, node._saved_dim
    count = int(np.prod([x.shape[d] for d in dims]))
    grad = restore_reduced_dims(grad, dims, node._saved_keepdim)
    return grad * (2 / (count - node._saved_correction)) * (x - x.mean(dims, keepdim=True))


class ProdBackward0(Operation):
    """The product of all elements."""

    def forward(self, a):
        self.save("self")
        self.save("result")
        return np.asarray(a.prod(dtype=_sum_dtype(a, None)))

    def backward(self, grad):
        return _product_gradient(grad, self._saved_self, self._saved_result, None)


class ProdBackward1(Operation):
    """The product along one dimension."""

    def forward(self, a, dim, keepdim):
        self.save("self")
        self.save("result")
        self._saved_dim, self._saved_keepdim = dim, keepdim
        return np.asarray(a.prod(axis=dim, keepdims=keepdim, dtype=_sum_dtype(a, None)))

    def backward(self, grad):
        dims, keepdim = (self._saved_dim,), self._saved_keepdim
        return _product_gradient(restore_reduced_dims(grad, dims, keepdim), self._saved_self,
                                 restore_reduced_dims(self._saved_result, dims, keepdim),
                                 self._saved_dim)


def _product_gradient(grad, x, result, dim):
    """d prod / d x_i is the product of the other factors. With no factor 0 that is
    result / x_i (PyTorch's formula then). A group with one 0 sends grad * (the product of
    its other factors) to that 0 and nothing elsewhere; a group with two 0s, nothing."""
    if not (x._data == 0).any():
        return grad * (result / x)
    if grad_mode.is_grad_enabled():
        # the formula below is right, but its graph is not: the zeros it writes would not
        # depend on the 0 factor, so second derivatives through it would be wrong
        raise NotImplementedError("teachgrad: the gradient of prod through a factor equal to "
                                  "0 cannot be differentiated again (create_graph=True)")
    from teachgrad.ops.pointwise import where
    zero = x == 0
    nonzero = x.masked_fill(zero, 1.0)
    zeros_in_group = zero.sum() if dim is None else zero.sum(dim, keepdim=True)
    others = nonzero.prod() if dim is None else nonzero.prod(dim, keepdim=True)
    lone_zero = zero & (zeros_in_group == 1)
    return where(zeros_in_group == 0, grad * (result / nonzero),
                 where(lone_zero, grad * others, 0.0))


class TraceBackward0(Operation):
    """The sum of a matrix's diagonal."""

    def forward(self, a):
        if a.ndim != 2:
            raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {a.ndim}")
        self._self_sizes = a.shape
        return np.asarray(np.trace(a, dtype=_sum_dtype(a, None)))

    def backward(self, grad):
        from teachgrad import creation
        rows, columns = self._self_sizes
        diagonal = creation.eye(rows, columns, dtype=grad.dtype).reshape(-1)
        return (diagonal * grad).view(rows, columns)


class CumsumBackward0(Operation):
    """Running sums along ``dim``: each input reaches every later output, so its gradient
    is the running sum of the gradients taken from the end."""

    def forward(self, a, dim, dtype=None):
        self._saved_dim = dim
        return np.cumsum(a.reshape(a.shape or (1,)), axis=dim,
                         dtype=_sum_dtype(a, dtype)).reshape(a.shape)

    def backward(self, grad):
        dim = self._saved_dim
        return grad.flip(dim).cumsum(dim).flip(dim)


class CumprodBackward0(Operation):
    """Running products along ``dim``. Without zeros, PyTorch's gradient is the reversed
    running sum of ``result * grad``, divided by the input; with zeros (where that would
    divide by 0) each place's gradient is summed from the products that leave it out."""

    def forward(self, a, dim, dtype=None):
        self.save("self")
        self.save("result")
        self._saved_dim = dim
        return np.cumprod(a.reshape(a.shape or (1,)), axis=dim,
                          dtype=_sum_dtype(a, dtype)).reshape(a.shape)

    def backward(self, grad):
        x, dim = self._saved_self, self._saved_dim
        if x.ndim == 0 or x.shape[dim] <= 1:
            return grad
        if not (x._data == 0).any():
            return (self._saved_result * grad).flip(dim).cumsum(dim).flip(dim) / x
        if grad_mode.is_grad_enabled():
            raise NotImplementedError("teachgrad: the gradient of cumprod through a factor "
                                      "equal to 0 cannot be differentiated again "
                                      "(create_graph=True)")
        return Tensor._make(_cumprod_gradient_with_zeros(x._data, grad._data, dim))


def _cumprod_gradient_with_zeros(x, grad, dim):
    """d/dx_k of sum_j grad_j * prod_{i<=j} x_i is sum_{j>=k} grad_j * prod_{i<=j, i!=k} x_i:
    the running products of x with x_k replaced by 1."""
    x, grad = np.moveaxis(x, dim, -1), np.moveaxis(grad, dim, -1)
    result = np.empty_like(x)
    for k in range(x.shape[-1]):
        without_k = x.copy()
        without_k[..., k] = 1
        result[..., k] = (grad * np.cumprod(without_k, axis=-1))[..., k:].sum(-1)
    return np.moveaxis(result, -1, dim)


class MaxBackward1(Operation):
    """Max of all elements; ties share the gradient evenly, as in PyTorch."""
    pick = staticmethod(np.max)

    def forward(self, a):
        if a.size == 0:
            raise RuntimeError("max(): Expected reduction dim to be specified for input.numel() "
                               "== 0. Specify the reduction dim with the 'dim' argument.")
        self.save("self")
        self.save("result")
        return np.asarray(self.pick(a))

    def backward(self, grad):
        winners = self._saved_self == self._saved_result
        return grad * winners / winners.sum()


class MinBackward1(MaxBackward1):
    pick = staticmethod(np.min)


class AmaxBackward0(Operation):
    """amax over dims: ties share the gradient evenly."""
    pick = staticmethod(np.max)

    def forward(self, a, dims, keepdim):
        self.save("self")
        self.save("result")
        self._saved_dim, self._saved_keepdim = dims, keepdim
        return np.asarray(self.pick(a, axis=dims, keepdims=keepdim))

    def backward(self, grad):
        dims, keepdim = self._saved_dim, self._saved_keepdim
        result = restore_reduced_dims(self._saved_result, dims, keepdim)
        winners = self._saved_self == result
        return restore_reduced_dims(grad, dims, keepdim) * winners / winners.sum(dims, keepdim=True)


class AminBackward0(AmaxBackward0):
    pick = staticmethod(np.min)


class MaxBackward0(Operation):
    """max over one dim: returns (values, indices); the gradient goes to the index taken."""
    pick_index = staticmethod(np.argmax)

    def forward(self, a, dim, keepdim):
        if a.ndim == 0:
            return a.copy(), np.asarray(0)
        self._self_sizes, self._saved_dim, self._saved_keepdim = a.shape, dim, keepdim
        indices = self.pick_index(a, axis=dim, keepdims=True)
        values = np.take_along_axis(a, indices, axis=dim)
        self._indices = indices
        if not keepdim:
            values, indices = values.squeeze(dim), indices.squeeze(dim)
        return values, indices.astype(np.int64)

    def backward(self, grad, grad_indices=None):
        from teachgrad import creation
        positions = creation.arange(self._self_sizes[self._saved_dim]).reshape(
            [-1 if d == self._saved_dim else 1 for d in range(len(self._self_sizes))])
        taken = positions == Tensor._make(self._indices)
        grad = restore_reduced_dims(grad, (self._saved_dim,), self._saved_keepdim)
        return grad * taken


class MinBackward0(MaxBackward0):
    pick_index = staticmethod(np.argmin)


class SoftmaxBackward0(Operation):
    promote = "float"

    def forward(self, a, dim):
        self.save("result")
        self._saved_dim = dim
        shifted = np.exp(a - a.max(axis=dim, keepdims=True))
        return shifted / shifted.sum(axis=dim, keepdims=True)

    def backward(self, grad):
        return SoftmaxBackwardDataBackward0.apply(grad, self._saved_result, dim=self._saved_dim)


class SoftmaxGradient(Operation):
    """The gradient of softmax or log_softmax as one op of the incoming gradient and the
    output, as in PyTorch: under create_graph it is one node, differentiable in turn."""
    input_names = ("grad_output", "output")

    def forward(self, grad, output, dim):
        self.save("grad_output")
        self.save("output")
        self._saved_dim = dim
        return self.gradient(grad, output, dim)

    def saved(self):
        return self._saved_grad_output, self._saved_output, self._saved_dim


class SoftmaxBackwardDataBackward0(SoftmaxGradient):
    """softmax's gradient: ``output * (grad - sum(grad * output))`` along ``dim``."""

    @staticmethod
    def gradient(grad, output, dim):
        return output * (grad - (grad * output).sum(axis=dim, keepdims=True))

    def backward(self, grad):
        grad_output, output, dim = self.saved()
        weighted = (grad * output).sum(dim, keepdim=True)
        grad_grad_output = output * (grad - weighted)
        grad_output_sum = (grad_output * output).sum(dim, keepdim=True)
        grad_out = grad * (grad_output - grad_output_sum) - grad_output * weighted
        return grad_grad_output, grad_out


class LogSoftmaxBackward0(Operation):
    promote = "float"

    def forward(self, a, dim):
        self.save("result")
        self._saved_dim = dim
        shifted = a - a.max(axis=dim, keepdims=True)
        return shifted - np.log(np.exp(shifted).sum(axis=dim, keepdims=True))

    def backward(self, grad):
        return LogSoftmaxBackwardDataBackward0.apply(grad, self._saved_result, dim=self._saved_dim)


class LogSoftmaxBackwardDataBackward0(SoftmaxGradient):
    """log_softmax's gradient: ``grad - exp(output) * sum(grad)`` along ``dim``."""

    @staticmethod
    def gradient(grad, output, dim):
        return grad - np.exp(output) * grad.sum(axis=dim, keepdims=True)

    def backward(self, grad):
        grad_output, output, dim = self.saved()
        softmax = output.exp()
        grad_grad_output = grad - (grad * softmax).sum(dim, keepdim=True)
        grad_out = -grad * softmax * grad_output.sum(dim, keepdim=True)
        return grad_grad_output, grad_out


class LogsumexpBackward0(Operation):
    promote = "float"

    def forward(self, a, dims, keepdim):
        self.save("self")
        self.save("result")
        self._saved_dim, self._saved_keepdim = dims, keepdim
        top = a.max(axis=dims, keepdims=True)
        top = np.where(np.isfinite(top), top, 0)
        result = np.log(np.exp(a - top).sum(axis=dims, keepdims=True)) + top
        return result if keepdim else result.squeeze(dims)

    def backward(self, grad):
        dims, keepdim = self._saved_dim, self._saved_keepdim
        result = restore_reduced_dims(self._saved_result, dims, keepdim)
        return restore_reduced_dims(grad, dims, keepdim) * (self._saved_self - result).exp()


class LinalgVectorNormBackward0(Operation):
    """The 2-norm of all elements (what ``tensor.norm()`` computes by default)."""
    promote = "float"

    def forward(self, a):
        self.save("self")
        self.save("result")
        return np.asarray(np.sqrt((a * a).sum()), dtype=a.dtype)

    def backward(self, grad):
        result = self._saved_result
        return grad * self._saved_self / where_nonzero(result)


def where_nonzero(t):
    """Replace zeros by ones (so a norm of zero divides safely)."""
    from teachgrad.ops.pointwise import where
    return where(t == 0, 1.0, t)


# ---- the functions and methods ---------------------------------------------------
def sum(input, dim=None, keepdim=False, *, dtype=None):
    if dim is None or dim == () or dim == []:      # PyTorch: an empty dim list sums everything
        return SumBackward0.apply(input, dtype=dtype)
    return SumBackward1.apply(input, dims=normalize_dims(dim, input.ndim), keepdim=keepdim,
                              dtype=dtype)


def mean(input, dim=None, keepdim=False, *, dtype=None):
    if dtype is not None:
        input = input.to(dtype)
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"mean(): could not infer output dtype. Input dtype must be either a "
                           f"floating point or complex dtype. Got: {input.dtype.legacy_name[:-6]}")
    if dim is None or dim == () or dim == []:
        return MeanBackward0.apply(input)
    return MeanBackward1.apply(input, dims=normalize_dims(dim, input.ndim), keepdim=keepdim)


def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return _spread(VarBackward0, input, dim, unbiased, keepdim, correction)


def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return _spread(StdBackward0, input, dim, unbiased, keepdim, correction)


def _spread(operation, input, dim, unbiased, keepdim, correction):
    """var and std take ``(dim, unbiased, keepdim)``, ``(unbiased)`` or ``correction=``."""
    if isinstance(dim, bool):
        dim, unbiased = None, dim
    if not input.dtype.is_floating_point:
        raise RuntimeError("std and var only support floating point and complex dtypes")
    if correction is None:
        correction = 0 if unbiased is False else 1
    return operation.apply(input, dims=normalize_dims(dim, input.ndim), correction=correction,
                           keepdim=keepdim)


def prod(input, dim=None, keepdim=False, *, dtype=None):
    if dtype is not None:
        input = input.to(dtype)
    if dim is None:
        return ProdBackward0.apply(input)
    return ProdBackward1.apply(input, dim=normalize_dims(dim, input.ndim)[0] if input.ndim else 0,
                               keepdim=keepdim)


def cumprod(input, dim, *, dtype=None):
    return CumprodBackward0.apply(input, dim=normalize_dims(dim, builtins.max(input.ndim, 1))[0],
                                  dtype=dtype)


def cumsum(input, dim, *, dtype=None):
    return CumsumBackward0.apply(input, dim=normalize_dims(dim, builtins.max(input.ndim, 1))[0],
                                 dtype=dtype)


def _reduce_extreme(input, dim, keepdim, other, whole, by_dim, pairwise, name):
    from teachgrad.ops import pointwise
    if isinstance(dim, Tensor):
        other, dim = dim, None
    if other is not None:
        return pairwise(input, other)
    if dim is None:
        return whole.apply(input)
    dim = normalize_dims(dim, input.ndim)[0] if input.ndim else 0
    values, indices = by_dim.apply(input, dim=dim, keepdim=keepdim)
    return MinMaxResult(values, indices, name)


def max(input, dim=None, keepdim=False, *, other=None):
    from teachgrad.ops import pointwise
    return _reduce_extreme(input, dim, keepdim, other, MaxBackward1, MaxBackward0,
                           pointwise.maximum, "max")


def min(input, dim=None, keepdim=False, *, other=None):
    from teachgrad.ops import pointwise
    return _reduce_extreme(input, dim, keepdim, other, MinBackward1, MinBackward0,
                           pointwise.minimum, "min")


class MinMaxResult(tuple):
    """``(values, indices)``, also readable as ``.values`` and ``.indices``."""

    def __new__(cls, values, indices, name):
        result = super().__new__(cls, (values, indices))
        result.name = name
        return result

    @property
    def values(self):
        return self[0]

    @property
    def indices(self):
        return self[1]

    def __repr__(self):
        return f"teachgrad.return_types.{self.name}(\nvalues={self[0]!r},\nindices={self[1]!r})"


class SelectedValues(Operation):
    """Values chosen along ``dim`` by sort or topk, and where they came from: each value's
    gradient goes back to its place (PyTorch's value_selecting_reduction_backward)."""
    kept_names = ("indices",)

    def finish(self, a, dim, indices):
        self._self_sizes, self._saved_dim = a.shape, dim
        self.keep("indices", indices)
        return np.take_along_axis(a, indices, axis=dim), indices

    def backward(self, grad, grad_indices=None):
        from teachgrad.ops.indexing import into_zeros, scatter
        return into_zeros(scatter, self._self_sizes, self._saved_dim, self._saved_indices, grad)


class SortBackward0(SelectedValues):
    def forward(self, a, dim, descending):
        if a.ndim == 0:
            return self.finish(a.reshape(1), 0, np.zeros(1, dtype=np.int64))[0].reshape(()), \
                np.asarray(0)
        order = np.argsort(-a if descending else a, axis=dim, kind="stable")
        return self.finish(a, dim, order.astype(np.int64))


class TopkBackward0(SelectedValues):
    def forward(self, a, k, dim, largest):
        order = np.argsort(-a if largest else a, axis=dim, kind="stable")
        return self.finish(a, dim, np.take(order, np.arange(k), axis=dim).astype(np.int64))


def sort(input, dim=-1, descending=False, stable=False):
    dim = normalize_dims(dim, input.ndim)[0] if input.ndim else 0
    values, indices = SortBackward0.apply(input, dim=dim, descending=descending)
    return MinMaxResult(values, indices, "sort")


def argsort(input, dim=-1, descending=False, stable=False):
    return sort(input, dim, descending, stable).indices


def topk(input, k, dim=-1, largest=True, sorted=True):
    dim = normalize_dims(dim, input.ndim)[0]
    if not 0 <= k <= builtins.max(input.shape[dim] if input.ndim else 1, 0):
        raise RuntimeError("selected index k out of range")
    values, indices = TopkBackward0.apply(input, k=k, dim=dim, largest=largest)
    return MinMaxResult(values, indices, "topk")


def amax(input, dim=(), keepdim=False):
    return AmaxBackward0.apply(input, dims=normalize_dims(dim if dim != () else None, input.ndim),
                               keepdim=keepdim)


def amin(input, dim=(), keepdim=False):
    return AminBackward0.apply(input, dims=normalize_dims(dim if dim != () else None, input.ndim),
                               keepdim=keepdim)


def argmax(input, dim=None, keepdim=False):
    if dim is None:
        return Tensor._make(np.asarray(np.argmax(input._data), dtype=np.int64))
    dim = normalize_dims(dim, input.ndim)[0]
    return Tensor._make(np.argmax(input._data, axis=dim, keepdims=keepdim).astype(np.int64))


def argmin(input, dim=None, keepdim=False):
    if dim is None:
        return Tensor._make(np.asarray(np.argmin(input._data), dtype=np.int64))
    dim = normalize_dims(dim, input.ndim)[0]
    return Tensor._make(np.argmin(input._data, axis=dim, keepdims=keepdim).astype(np.int64))


def softmax(input, dim, dtype=None):
    if dtype is not None:
        input = input.to(dtype)
    return SoftmaxBackward0.apply(input, dim=normalize_dims(dim, input.ndim)[0] if input.ndim else None)


def log_softmax(input, dim, dtype=None):
    if dtype is not None:
        input = input.to(dtype)
    return LogSoftmaxBackward0.apply(input, dim=normalize_dims(dim, input.ndim)[0] if input.ndim else None)


def logsumexp(input, dim, keepdim=False):
    return LogsumexpBackward0.apply(input, dims=normalize_dims(dim, input.ndim), keepdim=keepdim)


def norm(input, p="fro", dim=None, keepdim=False):
    if p in ("fro", 2) and dim is None:
        return LinalgVectorNormBackward0.apply(input)
    from teachgrad.ops import pointwise
    if p in ("fro", 2):
        return pointwise.sqrt(sum(input * input, dim, keepdim))
    return sum(pointwise.abs(input) ** p, dim, keepdim) ** (1.0 / p)


def sum_to_size(input, *size):
    """Sum a broadcast gradient back down to ``size`` (leading dims and dims of size 1)."""
    shape = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else size
    if not is_expandable_to(shape, input.shape):
        raise RuntimeError(f"size {{{list(shape)}}} is not expandable to size "
                           f"{{{list(input.shape)}}}.")
    extra = input.ndim - len(shape)
    dims = tuple(range(extra)) + tuple(
        extra + i for i, s in enumerate(shape) if s == 1 and input.shape[extra + i] != 1)
    if not dims:
        return input
    result = sum(input, dims, keepdim=True)
    return result.reshape(shape) if extra else result


def all(input, dim=None):
    if dim is None:
        return Tensor._make(np.asarray(np.all(input._data)))
    return Tensor._make(np.all(input._data, axis=dim))


def any(input, dim=None):
    if dim is None:
        return Tensor._make(np.asarray(np.any(input._data)))
    return Tensor._make(np.any(input._data, axis=dim))


def trace(input):
    return TraceBackward0.apply(input)
