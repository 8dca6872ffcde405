"""Reductions: sum, mean, max/min, softmax and friends, norms.

A reduction's backward spreads the gradient back over the reduced dimensions
(``expand``), so its shape matches the input again.
"""
import builtins
import math
import warnings

import numpy as np

from teachgrad import dtypes
from teachgrad.autograd import grad_mode
from teachgrad.autograd.engine import is_expandable_to
from teachgrad.autograd.operation import Operation, SavedAttribute
from teachgrad.ieee import quiet, quiet_numpy
from teachgrad.ops import cpp_orders
from teachgrad.ops.pointwise import DivBackward1, times_number, where
from teachgrad.ops.shape import GivenDim, _check_dim, cat, shown_dims
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
        if d % rank in result:
            raise RuntimeError(f"dim {d % rank} appears multiple times in the list of dims")
        result.append(d % rank)
    return tuple(sorted(result)) if ndim else ()


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
        self._saved_self_sym_sizes = a.shape
        total = quiet_numpy.run(np.sum, a, dtype=_sum_dtype(a, dtype))     # inf + -inf: nan
        return np.asarray(total)

    def backward(self, grad):
        return grad.expand(self._saved_self_sym_sizes)


class SumBackward1(Operation):
    """Sum over some dimensions (all of them for an empty list, as PyTorch reads it)."""
    _saved_dim = GivenDim(many=True)

    def forward(self, a, dim, keepdim, dtype=None):
        self._given_dim, self._dims = dim, normalize_dims(dim, a.ndim)
        self._saved_self_sym_sizes, self._saved_keepdim = a.shape, keepdim
        return np.asarray(quiet_numpy.run(np.sum, a, axis=self._dims or None, keepdims=keepdim,
                                          dtype=_sum_dtype(a, dtype)), order="C")  # as torch's

    def backward(self, grad):
        grad = restore_reduced_dims(grad, self._dims, self._saved_keepdim)
        return grad.expand(self._saved_self_sym_sizes)


def _sum_dtype(a, dtype):
    if dtype is not None:
        return dtype.numpy
    return np.int64 if a.dtype.kind in "biu" else a.dtype


class MeanBackward0(Operation):
    """The mean of all elements (in ``dtype`` when given: the input is not cast first)."""
    promote = "none"           # (an integer input comes with the float dtype to compute in)

    def forward(self, a, dtype=None):
        self._saved_self_sym_sizes, self._saved_self_sym_numel = a.shape, a.size
        return _mean(a, None, False, dtype)

    def backward(self, grad):
        """PyTorch's mean_backward: the gradient spread out, divided by a number (C++)."""
        return DivBackward1.apply(grad.expand(self._saved_self_sym_sizes),
                                  other=self._saved_self_sym_numel)


class MeanBackward1(Operation):
    """The mean over some dimensions (all of them for an empty list, as PyTorch reads it)."""
    promote = "none"
    _saved_dim = GivenDim(many=True)

    def forward(self, a, dim, keepdim, dtype=None):
        self._given_dim, self._dims = dim, normalize_dims(dim, a.ndim)
        self._saved_self_sym_sizes, self._saved_keepdim = a.shape, keepdim
        self._saved_self_sym_numel = a.size
        return _mean(a, self._dims or None, keepdim, dtype)

    def backward(self, grad):
        count = math.prod(self._saved_self_sym_sizes[d] for d in self._dims) if self._dims \
            else self._saved_self_sym_numel
        grad = restore_reduced_dims(grad, self._dims, self._saved_keepdim)
        return DivBackward1.apply(grad.expand(self._saved_self_sym_sizes), other=count)


def _mean(a, axis, keepdim, dtype):
    """numpy's mean in ``dtype`` (or the input's), without its warning for an empty slice
    (PyTorch gives nan silently)."""
    dtype = a.dtype if dtype is None else dtype.numpy
    if a.size:
        mean = quiet_numpy.run(np.mean, a, axis=axis, keepdims=keepdim, dtype=dtype)
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            mean = np.mean(a, axis=axis, keepdims=keepdim, dtype=dtype)
    return np.asarray(mean, dtype=dtype)


class VarBackward0(Operation):
    """The variance over ``dims``, dividing by N - correction (Bessel's N - 1 by default).
    ``_saved_dim`` and ``_saved_correction`` show them as the call gave them (None when
    not given, as PyTorch shows them)."""

    def forward(self, a, dims, correction, keepdim, as_given):
        self.save("self")
        self.keep_spread(dims, correction, keepdim, as_given)
        return self.spread(a, root=False)

    def keep_spread(self, dims, correction, keepdim, as_given):
        self._dims, self._correction, self._saved_keepdim = dims, correction, keepdim
        self._saved_dim, self._saved_correction = as_given

    def spread(self, a, root):
        """The variance (or its square ``root``) in double, as PyTorch's CPU kernels compute
        it, so that the squares of large float32 values do not overflow on the way (nor
        tiny ones underflow). For a single result the mean is taken first in the input's
        dtype, as ``x.mean()`` would (std_var_all_cpu; not for half precision); for
        several, in double too (Welford's updates)."""
        dims = self._dims
        count = int(np.prod([a.shape[d] for d in dims]))
        values = a.astype(np.float64)
        with quiet():                   # inf - inf, overflow, 0 / 0 without degrees of freedom
            if a.size == 0:
                mean = 0.0
            elif a.size == count and a.dtype != np.float16:
                mean = np.float64(np.mean(a, dtype=a.dtype))
            else:
                mean = values.mean(axis=dims, keepdims=True)
            deviations = values - mean
            squares = np.sum(deviations * deviations, axis=dims, keepdims=self._saved_keepdim)
            variance = squares / builtins.max(0, count - self._correction)
            return np.asarray(np.sqrt(variance) if root else variance).astype(a.dtype)

    def backward(self, grad):
        return _variance_gradient(self, grad)


class StdBackward0(VarBackward0):
    """The standard deviation: the square root of the variance (taken in double too)."""

    def forward(self, a, dims, correction, keepdim, as_given):
        self.save("self")
        self.save("result")
        self.keep_spread(dims, correction, keepdim, as_given)
        return self.spread(a, root=True)

    def backward(self, grad):
        """d sqrt(v) = dv / (2 sqrt(v)): the variance's gradient, of grad / (2 std); where
        the std is 0 (a constant slice), of 0, as in PyTorch's std_backward."""
        std = self._saved_result
        return _variance_gradient(self, (grad / times_number(std, 2)).masked_fill(std == 0, 0))


def _variance_gradient(node, grad):
    """d var / d x = 2 (x - mean) / (N - correction), for each x (in PyTorch's order of
    operations, so that rounding and graph nodes agree; 2 / 0 is inf, as in C++)."""
    x, dims = node._saved_self, node._dims
    count = int(np.prod([x.shape[d] for d in dims]))
    scale = 2 / (count - node._correction) if count != node._correction else math.inf
    if node._saved_dim is None:           # all of x, as no dim was given: a 0-d gradient
        return times_number(grad, scale) * (x - x.mean())
    if x.ndim > 1:
        grad = restore_reduced_dims(grad, dims, node._saved_keepdim)
    return times_number(grad, scale) * (x - x.mean(dims, keepdim=True))


class ProdBackward0(Operation):
    """The product of all elements."""

    def forward(self, a):
        self.save("self")
        self.save("result")
        product = quiet_numpy.run(np.prod, a, dtype=_sum_dtype(a, None))       # inf * 0: nan
        return np.asarray(product)

    def backward(self, grad):
        """PyTorch's prod_backward: result / x_i where no factor is 0; with two 0s or more
        (outside create_graph), nothing at all; with one 0, the safe formula, flattened."""
        x = self._saved_self
        if x.ndim == 0:
            return grad
        if not (x._data == 0).any():
            return grad * (self._saved_result / x)
        if not grad_mode.is_grad_enabled() and np.count_nonzero(x._data == 0) > 1:
            return x.new_zeros(x.shape)
        return _product_of_the_others(grad, x.contiguous().view(-1), 0).view_as(x)


class ProdBackward1(Operation):
    """The product along one dimension."""
    _saved_dim = GivenDim(many=False)

    def forward(self, a, dim, keepdim, given):
        self.save("self")
        self.save("result")
        self._dim, self._given_dim, self._saved_keepdim = dim, given, keepdim
        return np.asarray(quiet_numpy.run(np.prod, a, axis=dim, keepdims=keepdim,
                                          dtype=_sum_dtype(a, None)))

    def backward(self, grad):
        """result / x_i where no factor is 0 (in the whole tensor), else the safe formula."""
        x, dims, keepdim = self._saved_self, (self._dim,), self._saved_keepdim
        if x.ndim == 0:
            return grad
        grad = restore_reduced_dims(grad, dims, keepdim)
        if not (x._data == 0).any():
            return grad * (restore_reduced_dims(self._saved_result, dims, keepdim) / x)
        return _product_of_the_others(grad, x, self._dim)


def _product_of_the_others(grad, x, dim):
    """PyTorch's prod_safe_zeros_backward: d prod / d x_i is the product of the other
    factors, found without dividing by x_i (which may be 0) as the product of the factors
    before x_i (a running product, shifted by one) times the product of those after it
    (the same, from the end). Written with teachgrad ops, so it differentiates again."""
    from teachgrad import creation
    size = x.shape[dim]
    ones = creation.ones([1 if d == dim else n for d, n in enumerate(x.shape)], dtype=grad.dtype)
    before = cat([ones, x.narrow(dim, 0, size - 1)], dim).cumprod(dim)
    after = cat([ones, x.narrow(dim, 1, size - 1).flip(dim)], dim).cumprod(dim).flip(dim)
    return grad * (before * after)


class TraceBackward0(Operation):
    """The sum of a matrix's diagonal."""

    def forward(self, a):
        if a.ndim != 2:
            raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {a.ndim}")
        self._saved_self_sym_sizes = a.shape
        return np.asarray(np.trace(a, dtype=_sum_dtype(a, None)))

    def backward(self, grad):
        """``grad`` written on the diagonal of zeros (PyTorch uses index_fill_), so that
        an inf or NaN gradient leaves the other places 0."""
        from teachgrad import creation
        rows, columns = self._saved_self_sym_sizes
        diagonal = Tensor._make(np.eye(rows, columns, dtype=bool).reshape(-1))
        zeros = creation.zeros(rows * columns, dtype=grad.dtype)
        return zeros.masked_fill(diagonal, grad).view(rows, columns)


class CumsumBackward0(Operation):
    """Running sums along ``dim``: each input reaches every later output, so its gradient
    is the running sum of the gradients taken from the end."""
    _saved_dim = GivenDim(many=False)

    def forward(self, a, dim, given, dtype=None):
        self._dim, self._given_dim = dim, given
        return quiet_numpy.run(np.cumsum, a.reshape(a.shape or (1,)), axis=dim,
                               dtype=_sum_dtype(a, dtype)).reshape(a.shape)

    def backward(self, grad):
        dim = self._dim
        return grad.flip(dim).cumsum(dim).flip(dim)


class CumprodBackward0(Operation):
    """Running products along ``dim``. Without zeros, PyTorch's gradient is the reversed
    running sum of ``result * grad``, divided by the input; with zeros (where that would
    divide by 0) it takes each slice up to its first 0, at it, and after it, apart."""
    _saved_dim = GivenDim(many=False)

    def forward(self, a, dim, given, dtype=None):
        self.save("self")
        self.save("result")
        self._dim, self._given_dim = dim, given
        return quiet_numpy.run(np.cumprod, a.reshape(a.shape or (1,)), axis=dim,
                               dtype=_sum_dtype(a, dtype)).reshape(a.shape)

    def backward(self, grad):
        x, dim = self._saved_self, self._dim
        if x.ndim == 0 or x.shape[dim] <= 1:
            return grad
        if not (x._data == 0).any():
            return (self._saved_result * grad).flip(dim).cumsum(dim).flip(dim) / x
        if grad_mode.is_grad_enabled():
            raise NotImplementedError("teachgrad: the gradient of cumprod through a factor "
                                      "equal to 0 cannot be differentiated again "
                                      "(create_graph=True)")
        return Tensor._make(_cumprod_gradient_with_zeros(x._data, grad._data,
                                                         self._saved_result._data, dim))


def _cumprod_gradient_with_zeros(x, grad, output, dim):
    """PyTorch's cumprod_backward for inputs with a 0, in numpy. In a slice whose first 0
    is at z1 and second at z2 (or the end): before z1, the formula without zeros, over
    the outputs before z1; at z1, prod(x[:z1]) * sum_{z1 <= j < z2} grad_j *
    prod(x[z1+1:j+1]); after z1, 0 (every output there has the factor x_z1 = 0)."""
    zeros_so_far = np.cumsum(x == 0, axis=dim)
    before = zeros_so_far == 0
    first_run = zeros_so_far == 1                       # from the first 0 to the second
    z1 = np.argmax(first_run, axis=dim, keepdims=True)
    at_z1 = np.zeros_like(first_run)
    np.put_along_axis(at_z1, z1, True, axis=dim)
    at_z1 &= first_run
    with quiet():                                       # inf / inf, inf * 0: nan, as in PyTorch
        weighted = np.where(before, output * grad, 0)
        early = np.flip(np.cumsum(np.flip(weighted, dim), dim), dim) / x
        running = np.cumprod(np.where(first_run & ~at_z1, x, 1), axis=dim)
        total = np.sum(running * np.where(first_run, grad, 0), axis=dim, keepdims=True)
        prefix = np.take_along_axis(output, np.maximum(z1 - 1, 0), axis=dim)
        at_zero = total * np.where(z1 == 0, 1, prefix)
        return np.where(at_z1, at_zero, np.where(before, early, 0))


class MaxBackward1(Operation):
    """Max of all elements; ties share the gradient evenly, as in PyTorch."""
    pick = staticmethod(np.max)
    op_name = "max"        # (for error messages)

    def forward(self, a):
        if a.size == 0:
            _check_reducible(self.op_name, a, ())
        self.save("self")
        self.save("result")
        return np.asarray(self.pick(a))

    def backward(self, grad):
        return evenly_distributed(grad, self._saved_self, self._saved_result)


class MinBackward1(MaxBackward1):
    pick = staticmethod(np.min)
    op_name = "min"


def evenly_distributed(grad, x, result):
    """PyTorch's evenly_distribute_backward: the elements equal to the result (the NaNs,
    if it is NaN) share the gradient evenly; the others get 0, even for an inf gradient."""
    chosen = x.isnan() if result.isnan().item() else x == result
    return x.new_zeros(x.shape).masked_fill(chosen, grad / chosen.sum())


class AmaxBackward0(Operation):
    """amax over dims (none named: all of them): ties share the gradient evenly."""
    pick = staticmethod(np.max)
    op_name = "amax"
    _saved_dim = GivenDim(many=True)

    def forward(self, a, dim, keepdim):
        self.save("self")
        self.save("result")
        self._dims = normalize_dims(None if dim in ((), []) else dim, a.ndim)
        if a.size == 0:
            _check_reducible(self.op_name, a, dim)
        self._given_dim, self._saved_keepdim = () if dim is None else dim, keepdim
        return np.asarray(self.pick(a, axis=self._dims, keepdims=keepdim))

    def backward(self, grad):
        """PyTorch's scale_grad_by_count: (grad / count) * mask, so an inf gradient gives
        NaN (inf * 0) where the mask is 0, as in PyTorch."""
        dims, keepdim = self._dims, self._saved_keepdim
        result = restore_reduced_dims(self._saved_result, dims, keepdim)
        winners = self._saved_self == result
        grad = restore_reduced_dims(grad, dims, keepdim)
        return (grad / winners.sum(dims, keepdim=True)) * winners


class AminBackward0(AmaxBackward0):
    pick = staticmethod(np.min)
    op_name = "amin"


def _check_reducible(name, a, dim):
    """PyTorch's errors for a max or min over no element: of a whole empty tensor, or
    along an empty dim (the first such one of ``dim``, as the call named it)."""
    if dim is None or dim == () or dim == []:
        raise RuntimeError(f"{name}(): Expected reduction dim to be specified for "
                           f"input.numel() == 0. Specify the reduction dim with the 'dim' "
                           f"argument.")
    for d in dim if isinstance(dim, (tuple, list)) else (dim,):
        if a.shape[d] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")


class SoftmaxBackward0(Operation):
    """exp(x - max) / sum(exp(x - max)) along ``dim``: a row with inf (inf - inf) or
    only -inf (-inf - -inf) gives NaN, as in PyTorch."""
    promote = "float"
    _saved_dim = GivenDim(many=False)

    def forward(self, a, dim, given):
        self.save("result")
        self._dim, self._given_dim = dim, given
        shifted = np.exp(quiet_numpy.run(np.subtract, a, a.max(axis=dim, keepdims=True)))
        return shifted / shifted.sum(axis=dim, keepdims=True)

    def backward(self, grad):
        return SoftmaxBackwardDataBackward0.apply(grad, self._saved_result, dim=self._dim,
                                                  given=self._given_dim)


class SoftmaxGradient(Operation):
    """The gradient of softmax or log_softmax as one op of the incoming gradient and the
    output, as in PyTorch: under create_graph it is one node, differentiable in turn."""
    input_names = ("grad_output", "output")
    _saved_dim = GivenDim(many=False)

    def forward(self, grad, output, dim, given):
        self.save("grad_output")
        self.save("output")
        self._dim, self._given_dim = dim, given
        return quiet_numpy.run(self.gradient, grad, output, dim)     # inf * 0, inf - inf

    def saved(self):
        return self._saved_grad_output, self._saved_output, self._dim


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
    """x - max - log(sum(exp(x - max))) along ``dim`` (NaN for the rows where softmax is
    NaN)."""
    promote = "float"
    _saved_dim = GivenDim(many=False)

    def forward(self, a, dim, given):
        self.save("result")
        self._dim, self._given_dim = dim, given
        shifted = quiet_numpy.run(np.subtract, a, a.max(axis=dim, keepdims=True))
        return shifted - np.log(np.exp(shifted).sum(axis=dim, keepdims=True))

    def backward(self, grad):
        return LogSoftmaxBackwardDataBackward0.apply(grad, self._saved_result, dim=self._dim,
                                                     given=self._given_dim)


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
    _saved_dim = GivenDim(many=True)

    def forward(self, a, dim, keepdim):
        self.save("self")
        self.save("result")
        self._given_dim, self._saved_keepdim = dim, keepdim
        self._dims = dims = normalize_dims(dim, a.ndim)
        top = a.max(axis=dims, keepdims=True)
        top = np.where(np.isfinite(top), top, 0)
        with quiet():
            result = np.log(np.exp(a - top).sum(axis=dims, keepdims=True)) + top
        return result if keepdim else result.squeeze(dims)

    def backward(self, grad):
        dims, keepdim = self._dims, self._saved_keepdim
        result = restore_reduced_dims(self._saved_result, dims, keepdim)
        return restore_reduced_dims(grad, dims, keepdim) * (self._saved_self - result).exp()


class LinalgVectorNormBackward0(Operation):
    """The ``ord``-norm of the entries over ``dims``: (sum |x|^ord)^(1/ord); inf and -inf
    give the largest and the smallest |x|, 0 counts the entries that are not 0. Half
    precision is summed in float, as PyTorch does; ``dtype`` casts the input first.
    ``_saved_dim`` shows ``dim`` as the call gave it (``as_given``), as PyTorch shows it."""
    promote = "float"

    def forward(self, a, ord, dims, keepdim, as_given, dtype):
        from teachgrad.ops.distances import p_norm
        self.save("self")
        self.save("result")
        self._saved_ord, self._saved_dim, self._saved_keepdim = ord, as_given, keepdim
        self._dims = dims
        dtype = a.dtype if dtype is None else dtype
        with np.errstate(divide="ignore", over="ignore"):  # 0 ** -1 is inf, as in PyTorch
            result = p_norm(a.astype(np.promote_types(dtype, np.float32)), ord, dims)
            return np.asarray(np.expand_dims(result, dims) if keepdim else result, dtype=dtype)

    def backward(self, grad):
        """PyTorch's norm_backward: no gradient at all for ord 0 (a count is flat); for
        inf and -inf the entries at the norm share each slice's gradient."""
        from teachgrad.ops.distances import norm_gradient
        x, ord, dims = self._saved_self, self._saved_ord, self._dims
        named = dims if self._saved_dim else ()    # dim=None: a 0-d norm, unsqueezed nowhere
        norm = restore_reduced_dims(self._saved_result, named, self._saved_keepdim)
        grad = restore_reduced_dims(grad, named, self._saved_keepdim)
        if ord == 0:
            return None
        if ord in (np.inf, -np.inf):
            magnitudes = x.abs()
            at_the_norm = (magnitudes == norm) | magnitudes.isnan()
            return x.sgn() * ((grad / at_the_norm.sum(dims, keepdim=True)) * at_the_norm)
        return norm_gradient(grad, x, ord, norm)


# ---- the functions and methods ---------------------------------------------------
def sum(input, dim=None, keepdim=False, *, dtype=None):
    if dim is None:
        return SumBackward0.apply(input, dtype=dtype)
    return SumBackward1.apply(input, dim=dim, keepdim=keepdim, dtype=dtype)


def mean(input, dim=None, keepdim=False, *, dtype=None):
    if dtype is not None and not dtype.is_floating_point:
        raise RuntimeError(f"mean(): could not infer output dtype. Optional dtype must be either "
                           f"a floating point or complex dtype. Got: {dtype.legacy_name[:-6]}")
    if dtype is None and not input.dtype.is_floating_point:
        raise RuntimeError(f"mean(): could not infer output dtype. Input dtype must be either a "
                           f"floating point or complex dtype. Got: {input.dtype.legacy_name[:-6]}")
    if dim is None:
        return MeanBackward0.apply(input, dtype=dtype)
    return MeanBackward1.apply(input, dim=dim, keepdim=keepdim, dtype=dtype)


def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return _spread(VarBackward0, "var", input, dim, unbiased, keepdim, correction)


def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return _spread(StdBackward0, "std", input, dim, unbiased, keepdim, correction)


def _spread(operation, name, input, dim, unbiased, keepdim, correction):
    """var and std take ``(dim, unbiased, keepdim)``, ``(unbiased)`` or ``correction=``."""
    if isinstance(dim, bool):
        dim, unbiased = None, dim
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"{'std and var' if name in ('std', 'var') else name} only support "
                           f"floating point and complex dtypes")
    if correction is None and (unbiased is not None or dim is not None):
        correction = 0 if unbiased is False else 1
    dims = normalize_dims(dim, input.ndim)
    as_given = (shown_dims(dim, many=True), correction)
    correction = 1 if correction is None else correction
    if np.prod([input.shape[d] for d in dims]) - correction <= 0:
        warnings.warn(f"{name}(): degrees of freedom is <= 0. Correction should be strictly "
                      f"less than the reduction factor (input numel divided by output numel).",
                      UserWarning, stacklevel=3)
    return operation.apply(input, dims=dims, correction=correction, keepdim=keepdim,
                           as_given=as_given)


def prod(input, dim=None, keepdim=False, *, dtype=None):
    if dtype is not None:
        input = input.to(dtype)
    if dim is None:
        return ProdBackward0.apply(input)
    return ProdBackward1.apply(input, dim=normalize_dims(dim, input.ndim)[0] if input.ndim else 0,
                               keepdim=keepdim, given=dim)


def cumprod(input, dim, *, dtype=None):
    return CumprodBackward0.apply(input, dim=normalize_dims(dim, builtins.max(input.ndim, 1))[0],
                                  given=dim, dtype=dtype)


def cumsum(input, dim, *, dtype=None):
    return CumsumBackward0.apply(input, dim=normalize_dims(dim, builtins.max(input.ndim, 1))[0],
                                 given=dim, dtype=dtype)


def _reduce_extreme(input, dim, keepdim, other, whole, by_dim, pairwise, name):
    from teachgrad.ops import pointwise
    if isinstance(dim, Tensor):
        other, dim = dim, None
    if other is not None:
        return pairwise(input, other)
    if dim is None:
        return whole.apply(input)
    values, indices = by_dim.apply(input, dim=_dim_to_reduce(name, input, dim), keepdim=keepdim,
                                   given=dim)
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
    _saved_dim = GivenDim(many=False)

    def finish(self, a, dim, indices):
        self._saved_self_sym_sizes, self._dim = a.shape, dim
        self.keep("indices", indices)
        return np.take_along_axis(a, indices, axis=dim), indices

    def finish_number(self, a):
        """A 0-d input: the number itself, found at index 0."""
        self._saved_self_sym_sizes, self._dim = (), 0
        index = np.zeros((), dtype=np.int64)
        self.keep("indices", index)
        return a.copy(), index

    def backward(self, grad, grad_indices=None):
        from teachgrad.ops.indexing import into_zeros, scatter
        if not self._saved_self_sym_sizes:        # a 0-d input: its one number was picked
            return grad
        return into_zeros(scatter, self._saved_self_sym_sizes, self._dim,
                          self._saved_indices, grad)


class SortBackward0(SelectedValues):
    def forward(self, a, dim, given, descending, stable):
        self._given_dim = given
        if a.ndim == 0:
            return self.finish_number(a)
        slices = np.moveaxis(a, dim, -1)
        order = stable_order(slices, descending)
        if not stable:       # equal values: in the order PyTorch's std::sort leaves them
            for place in _slices_with_ties(slices, order):
                order[place] = cpp_orders.sort_positions(slices[place], descending)
        return self.finish(a, dim, np.moveaxis(order, -1, dim))


class TopkBackward0(SelectedValues):
    def forward(self, a, k, dim, given, largest, sorted):
        self._given_dim = given
        if a.ndim == 0:             # (PyTorch gives the number itself, for k 0 or 1)
            return self.finish_number(a)
        slices = np.moveaxis(a, dim, -1)
        order = stable_order(slices, largest)[..., :k]
        redo = np.ndindex(slices.shape[:-1]) if not sorted else _slices_with_ties(slices, None)
        for place in redo:           # PyTorch's own steps decide among equal values
            order[place] = cpp_orders.topk_positions(slices[place], k, largest, sorted)
        return self.finish(a, dim, np.moveaxis(order, -1, dim))


def stable_order(slices, descending):
    """Positions that sort each slice (the last axis), NaN counted as the largest, equal
    values in their order (numpy's lexsort, keyed on NaN first, then the value)."""
    values = slices.astype(np.int64) if slices.dtype.kind in "bu" else slices
    is_nan = np.isnan(values) if values.dtype.kind == "f" else np.zeros(values.shape, bool)
    if is_nan.any():
        values = np.where(is_nan, 0, values)
    if descending:
        values, is_nan = -values, ~is_nan
    return np.lexsort((values, is_nan), axis=-1).astype(np.int64)


def _slices_with_ties(slices, order):
    """Where a slice holds equal values (two NaNs count as equal), the places of those
    slices: only there can two sorting algorithms disagree."""
    ordered = np.sort(slices, axis=-1) if order is None else np.take_along_axis(slices, order, -1)
    equal = ordered[..., 1:] == ordered[..., :-1]
    if ordered.dtype.kind == "f":
        equal |= np.isnan(ordered[..., 1:]) & np.isnan(ordered[..., :-1])
    return [place for place in np.ndindex(slices.shape[:-1]) if equal[place].any()]


class SortBackward1(SortBackward0):
    """``sort`` called with ``stable=`` (either value): PyTorch's other overload."""


def sort(input, dim=-1, descending=False, stable=None):
    given, dim = dim, normalize_dims(dim, input.ndim)[0] if input.ndim else 0
    operation = SortBackward0 if stable is None else SortBackward1
    values, indices = operation.apply(input, dim=dim, given=given, descending=descending,
                                      stable=bool(stable))
    return MinMaxResult(values, indices, "sort")


def argsort(input, dim=-1, descending=False, stable=False):
    return sort(input, dim, descending, stable).indices


def topk(input, k, dim=-1, largest=True, sorted=True):
    given, dim = dim, normalize_dims(dim, input.ndim)[0] if input.ndim else 0
    if not 0 <= k <= builtins.max(input.shape[dim] if input.ndim else 1, 0):
        raise RuntimeError("selected index k out of range")
    values, indices = TopkBackward0.apply(input, k=k, dim=dim, given=given, largest=largest,
                                          sorted=sorted)
    return MinMaxResult(values, indices, "topk")


def amax(input, dim=(), keepdim=False):
    return AmaxBackward0.apply(input, dim=dim, keepdim=keepdim)


def amin(input, dim=(), keepdim=False):
    return AminBackward0.apply(input, dim=dim, keepdim=keepdim)


def argmax(input, dim=None, keepdim=False):
    return _position_of_extreme(np.argmax, "argmax", input, dim, keepdim)


def argmin(input, dim=None, keepdim=False):
    return _position_of_extreme(np.argmin, "argmin", input, dim, keepdim)


def _position_of_extreme(find, name, input, dim, keepdim):
    if dim is None:
        if input.numel() == 0:
            raise IndexError(f"{name}(): Expected reduction dim to be specified for "
                             f"input.numel() == 0.")
        return Tensor._make(np.asarray(find(input._data), dtype=np.int64))
    dim = _dim_to_reduce(name, input, dim)
    return Tensor._make(find(input._data, axis=dim, keepdims=keepdim).astype(np.int64))


def softmax(input, dim, dtype=None):
    if dtype is not None:
        input = input.to(dtype)
    positive = normalize_dims(dim, input.ndim)[0] if input.ndim else None
    return SoftmaxBackward0.apply(input, dim=positive, given=dim)


def log_softmax(input, dim, dtype=None):
    if dtype is not None:
        input = input.to(dtype)
    positive = normalize_dims(dim, input.ndim)[0] if input.ndim else None
    return LogSoftmaxBackward0.apply(input, dim=positive, given=dim)


def logsumexp(input, dim, keepdim=False):
    return LogsumexpBackward0.apply(input, dim=dim, keepdim=keepdim)


def norm(input, p="fro", dim=None, keepdim=False, *, dtype=None):
    """``torch.norm``, routed as PyTorch routes it: a number ``p`` (2.0 for None) and "fro"
    over at most two dims are vector norms; "nuc", or "fro" over more dims, matrix norms."""
    dims = [dim] if isinstance(dim, int) else dim
    if not isinstance(p, str):
        return vector_norm(input, 2.0 if p is None else p, dims, keepdim, dtype=dtype)
    if p == "fro" and (dims is None or len(dims) <= 2):
        return vector_norm(input, 2, dims, keepdim, dtype=dtype)
    from teachgrad import linalg       # (matrix norms are composed there, from these ops)
    return linalg.matrix_norm(input, p, list(range(input.ndim)) if dims is None else dims,
                              keepdim, dtype=dtype)


def vector_norm(input, ord=2, dim=None, keepdim=False, *, dtype=None):
    """``torch.linalg.vector_norm``: the ``ord``-norm over ``dim`` (an int, a sequence, or
    None; None and () mean all the entries), with PyTorch's checks in its order."""
    if isinstance(ord, str) or ord is None:
        raise TypeError(f"linalg_vector_norm(): argument 'ord' (position 2) must be Number, "
                        f"not {type(ord).__name__}")
    if isinstance(ord, complex):
        raise RuntimeError("linalg.vector_norm: Expected a non-complex scalar as the order of "
                           "norm.")
    dims = () if dim is None else (dim,) if isinstance(dim, int) else dim
    if not isinstance(dims, (tuple, list)) or not builtins.all(isinstance(d, int) for d in dims):
        raise TypeError(f"linalg_vector_norm(): argument 'dim' (position 3) must be tuple of "
                        f"ints, not {type(dim).__name__}")
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor "
                           f"as input. Got {input.dtype.short_name}")
    if input.numel() == 0 and (ord < 0 or ord == np.inf):
        _check_empty_dims(input, ord, dims)
    check_norm_dtype(dtype, input.dtype, "linalg.vector_norm")
    reduced = _distinct_dims(dims, input.ndim) or tuple(range(input.ndim))
    return LinalgVectorNormBackward0.apply(
        input, ord=ord, dims=reduced, keepdim=keepdim, dtype=dtype and dtype.numpy,
        as_given=None if dim is None else tuple(d % 2 ** 64 for d in dims))  # -1 as 2**64 - 1


def _check_empty_dims(input, ord, dims):
    """The largest |x|, or a negative order, has no value over no entries."""
    order = ord if isinstance(ord, int) else f"{ord:g}"     # (as C++ prints a number)
    if not dims:
        raise RuntimeError(f"linalg.vector_norm cannot compute the {order} norm on an empty "
                           f"tensor because the operation does not have an identity")
    for d in dims:
        if input.size(d) == 0:
            raise RuntimeError(f"linalg.vector_norm cannot compute the {order} norm on the "
                               f"dimension {d}because this dimension is empty and the "
                               f"operation does not have an identity")


def _distinct_dims(dims, ndim):
    """``dims`` as sorted positive dims; each may be named once."""
    seen = []
    for d in dims:
        (positive,) = normalize_dims(d, builtins.max(ndim, 1))
        if positive in seen:
            raise RuntimeError(f"dim {positive} appears multiple times in the list of dims")
        seen.append(positive)
    return tuple(sorted(seen)) if ndim else ()


def check_norm_dtype(dtype, input_dtype, name):
    """A norm's ``dtype`` must be floating and hold the input's values without narrowing."""
    if dtype is None:
        return
    if not dtype.is_floating_point:
        raise RuntimeError(f"{name}: dtype should be floating point or complex, but got "
                           f"{dtype.short_name}")
    if np.promote_types(input_dtype.numpy, dtype.numpy) != dtype.numpy:
        raise RuntimeError(f"{name}: the dtype of the input ({input_dtype.short_name}) should "
                           f"be convertible without narrowing to the specified dtype "
                           f"({dtype.short_name})")


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


# ---- median, mode, kthvalue: one element picked from each slice ---------------------
def _check_not_bool(input, kernel):
    if input.dtype.category == 0:
        raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')


def _dim_to_reduce(name, input, dim):
    """``dim`` as a positive number, checked; the slice along it may not be empty."""
    dim = _check_dim(dim, input.ndim)
    if input.ndim and input.shape[dim] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {dim} to have non-zero size.")
    return dim


class MedianBackward0(Operation):
    """The median of all elements: the lower of the two middle ones for an even count, NaN
    if there is a NaN (or no element at all). Elements equal to it share the gradient
    evenly (PyTorch's evenly_distribute_backward)."""

    def forward(self, a):
        self.save("self")
        self.save("result")
        values = self.counted(a.reshape(-1))
        if values.size == 0:
            return _nan_of(a.dtype)
        return np.asarray(np.sort(values)[(values.size - 1) // 2])

    @staticmethod
    def counted(values):
        """The values the median is the middle of: all of them, or none if one is NaN."""
        return values[:0] if np.isnan(values).any() else values

    def backward(self, grad):
        return evenly_distributed(grad, self._saved_self, self._saved_result)


class NanmedianBackward0(MedianBackward0):
    """The median of the elements that are not NaN (NaN if every one is)."""

    @staticmethod
    def counted(values):
        return values[~np.isnan(values)]


def _nan_of(numpy_dtype):
    """NaN in ``numpy_dtype``: for an integer dtype, the smallest integer, as in PyTorch."""
    if numpy_dtype.kind == "f":
        return np.asarray(np.nan, dtype=numpy_dtype)
    return np.asarray(np.iinfo(numpy_dtype).min, dtype=numpy_dtype)


class ValueSelectingReduction(Operation):
    """A reduction over ``dim`` that picks one element of each slice (median, mode,
    kthvalue) and says which: returns (values, indices). The gradient goes back to the
    element picked, zeros elsewhere (PyTorch's value_selecting_reduction_backward).

    Subclasses say, in ``pick``, which position of a slice (a 1-D array) PyTorch's CPU
    kernel reports: among equal values that is not always the first one. ``pick`` runs in
    Python, one slice at a time; a subclass may answer the slices that leave no choice all
    at once with numpy, in ``positions``, and leave -1 where ``pick`` must decide.
    """
    kept_names = ("indices",)
    _saved_dim = GivenDim(many=False)

    @staticmethod
    def positions(slices, **options):
        return np.full(slices.shape[:-1], -1, dtype=np.int64)     # pick decides everywhere

    def forward(self, a, dim, keepdim, given, **options):
        self._saved_self_sym_sizes, self._saved_keepdim = a.shape, keepdim
        self._dim, self._given_dim = dim, given
        slices = np.moveaxis(a.reshape(a.shape or (1,)), dim, -1)
        indices = self.positions(slices, **options)
        for place in map(tuple, np.argwhere(indices < 0)):
            indices[place] = self.pick(slices[place], **options)
        values = np.take_along_axis(slices, indices[..., None], axis=-1)[..., 0]
        if keepdim and a.ndim:
            values, indices = np.expand_dims(values, dim), np.expand_dims(indices, dim)
        self.keep("indices", indices)
        return values, indices

    def backward(self, grad, grad_indices=None):
        from teachgrad.ops.indexing import into_zeros, scatter
        sizes, dim, indices = self._saved_self_sym_sizes, self._dim, self._saved_indices
        if sizes and not self._saved_keepdim:
            grad, indices = grad.unsqueeze(dim), indices.unsqueeze(dim)
        return into_zeros(scatter, sizes, dim, indices, grad)


class MaxBackward0(ValueSelectingReduction):
    """max along ``dim``: (values, indices), the first largest value (or the first NaN)
    of each slice; the gradient goes to it alone, zeros elsewhere. (numpy's argmax finds
    it in one pass, so no slice needs ``pick``.)"""
    pick_index = staticmethod(np.argmax)

    def forward(self, a, dim, keepdim, given):
        self._saved_self_sym_sizes, self._saved_keepdim = a.shape, keepdim
        self._dim, self._given_dim = dim, given
        slices = a.reshape(a.shape or (1,))              # (a number: one slice of one)
        indices = self.pick_index(slices, axis=dim, keepdims=True)
        values = np.take_along_axis(slices, indices, axis=dim)
        if not keepdim or not a.ndim:
            values, indices = values.squeeze(dim), indices.squeeze(dim)
        self.keep("indices", indices)
        return values, indices


class MinBackward0(MaxBackward0):
    pick_index = staticmethod(np.argmin)


class MedianBackward1(ValueSelectingReduction):
    """The median along ``dim``. PyTorch orders equal values by position, so the median is
    the middle element of a stable sort; a slice with a NaN gives its first NaN."""

    @staticmethod
    def pick(values):
        is_nan = np.isnan(values)
        if is_nan.any():
            return np.argmax(is_nan)
        return np.argsort(values, kind="stable")[(values.size - 1) // 2]


class NanmedianBackward1(ValueSelectingReduction):
    """The median of the values that are not NaN along ``dim`` (a stable sort puts the NaNs
    last). When all are NaN, the NaN std::nth_element leaves first (PyTorch asks it for
    position 0, with no NaN less than another)."""

    @staticmethod
    def pick(values):
        count = values.size - np.isnan(values).sum()
        if count == 0:
            positions = list(range(values.size))
            cpp_orders.nth_element(positions, 0, lambda i, j: False)
            return positions[0]
        return np.argsort(values, kind="stable")[(count - 1) // 2]


def _has_nan(slices):
    if slices.dtype.kind != "f":
        return np.zeros(slices.shape[:-1], dtype=bool)
    return np.isnan(slices).any(-1)


class ModeBackward0(ValueSelectingReduction):
    """The most frequent value along ``dim`` (the smallest of equally frequent ones).
    PyTorch sorts (value, position) pairs by value with std::sort, which is not stable,
    and reports the position that ends the value's run: ``pick`` sorts the same way."""

    @staticmethod
    def positions(slices):
        """Without NaN: if no value repeats, the mode is the smallest, where it is; up to 16
        values std::sort only sorts by insertion, which keeps equal values in their order,
        so the mode's run ends at its last position."""
        size = slices.shape[-1]
        if size <= 16:
            counts = (slices[..., :, None] == slices[..., None, :]).sum(-1)
            most = counts == counts.max(-1, keepdims=True)
            mode = np.where(most, slices, slices.max(-1, keepdims=True)).min(-1, keepdims=True)
            found = size - 1 - np.argmax((slices == mode)[..., ::-1], axis=-1)
        else:
            ordered = np.sort(slices, axis=-1)
            distinct = (ordered[..., 1:] != ordered[..., :-1]).all(-1)
            found = np.where(distinct, np.argmin(slices, axis=-1), -1)
        return np.where(_has_nan(slices), -1, found).astype(np.int64)

    @staticmethod
    def pick(values):
        values = values.tolist()
        order = list(range(len(values)))
        cpp_orders.sort(order, 0, len(order), lambda i, j: values[i] < values[j])
        best_position, best_count, count = 0, 0, 0
        for rank, position in enumerate(order):
            count += 1
            run_ends = rank == len(order) - 1 or values[position] != values[order[rank + 1]]
            if run_ends:
                if count > best_count:
                    best_position, best_count = position, count
                count = 0
        return best_position


class KthvalueBackward0(ValueSelectingReduction):
    """The k-th smallest value along ``dim`` (NaN counts as the largest), found with
    PyTorch's own quickselect, whose swaps decide which of equal values is reported."""

    @staticmethod
    def positions(slices, k):
        """Where the k-th smallest value occurs once in its slice, it is the answer (numpy
        also puts NaN last)."""
        kth = np.partition(slices, k - 1, axis=-1)[..., k - 1:k]
        equal = slices == kth
        if slices.dtype.kind == "f":
            equal |= np.isnan(slices) & np.isnan(kth)
        return np.where(equal.sum(-1) == 1, np.argmax(equal, axis=-1), -1).astype(np.int64)

    @staticmethod
    def pick(values, k):
        return cpp_orders.quick_select(values.tolist(), k - 1)


def median(input, dim=None, keepdim=False):
    return _median(input, dim, keepdim, MedianBackward0, MedianBackward1, "median")


def nanmedian(input, dim=None, keepdim=False):
    return _median(input, dim, keepdim, NanmedianBackward0, NanmedianBackward1, "nanmedian")


def _median(input, dim, keepdim, whole, along_dim, name):
    """(PyTorch's errors name its median kernels for both median and nanmedian.)"""
    if dim is None:
        _check_not_bool(input, "median_cpu")
        return whole.apply(input)
    _check_not_bool(input, "median_out")
    return MinMaxResult(*along_dim.apply(input, dim=_dim_to_reduce("median", input, dim),
                                         keepdim=keepdim, given=dim), name)


def mode(input, dim=-1, keepdim=False):
    return MinMaxResult(*ModeBackward0.apply(input, dim=_dim_to_reduce("mode", input, dim),
                                             keepdim=keepdim, given=dim), "mode")


def kthvalue(input, k, dim=-1, keepdim=False):
    if not isinstance(k, int):
        raise TypeError(f"kthvalue(): argument 'k' (position 1) must be int, not "
                        f"{type(k).__name__}")
    _check_not_bool(input, "kthvalue_cpu")
    given, dim = dim, _dim_to_reduce("kthvalue", input, dim)
    if not 1 <= k <= (input.shape[dim] if input.ndim else 1):
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {dim}")
    return MinMaxResult(*KthvalueBackward0.apply(input, dim=dim, keepdim=keepdim, given=given,
                                                 k=k), "kthvalue")


# ---- sums and means that skip NaN, counts, quantiles ---------------------------------
class NansumBackward0(Operation):
    """The sum over ``dims`` (None: all) with NaN counted as 0; a NaN gets no gradient."""
    _saved_dim = GivenDim(many=True)

    def forward(self, a, dims, given, keepdim, dtype=None):
        self.save("self")
        self._dims, self._given_dim, self._saved_keepdim = dims, given, keepdim
        return np.asarray(quiet_numpy.run(np.nansum, a, axis=dims, keepdims=keepdim,
                                          dtype=_sum_dtype(a, dtype)))

    def backward(self, grad):
        x, dims = self._saved_self, self._dims
        if dims is not None:
            grad = restore_reduced_dims(grad, dims, self._saved_keepdim)
        return grad.expand(x.shape) * x.isnan().logical_not()


def _reduced_dims(dim, ndim):
    """``dim`` as a sorted tuple of dims (None for all; an empty list means all too), with
    PyTorch's error for a dim named twice."""
    if dim is None or dim == () or dim == []:
        return None
    named = dim if isinstance(dim, (tuple, list)) else (dim,)
    dims = [d for one in named for d in normalize_dims(one, ndim)]
    for d in dims:
        if dims.count(d) > 1:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    return tuple(sorted(dims))


def nansum(input, dim=None, keepdim=False, *, dtype=None):
    return NansumBackward0.apply(input, dims=_reduced_dims(dim, input.ndim), given=dim,
                                 keepdim=keepdim, dtype=dtype)


def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    """The mean of the elements that are not NaN: their sum divided by their count."""
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"nanmean(): expected input to have floating point or complex dtype "
                           f"but got {input.dtype.short_name}")
    counted = sum(input.isnan().logical_not(), dim, keepdim)
    return nansum(input, dim, keepdim, dtype=dtype) / counted


def count_nonzero(input, dim=None):
    dims = _reduced_dims(dim, input.ndim)
    return Tensor._make(np.asarray(np.sum(input._data != 0, axis=dims, dtype=np.int64)))


_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")
_ROUNDINGS = {"lower": np.floor, "higher": np.ceil, "nearest": np.round}   # of the ranks


def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    return _quantile(input, q, dim, keepdim, interpolation, ignore_nan=False)


def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    return _quantile(input, q, dim, keepdim, interpolation, ignore_nan=True)


def _quantile(input, q, dim, keepdim, interpolation, ignore_nan):
    """PyTorch's quantile_compute, step by step, so that the graph has the same nodes:
    sort the values, find the rank q * (count - 1) in each slice, gather the values at the
    ranks just below and above it and interpolate between them (lerp)."""
    q = _checked_quantiles(input, q, interpolation)
    dim = None if dim is None else _check_dim(dim, input.ndim)
    if dim is None:
        ordered = sort(input.flatten()).values
    elif dim == input.ndim - 1:
        ordered = sort(input).values
    else:
        ordered = sort(input.unsqueeze(-1).transpose(dim, -1)).values
    ordered = ordered.view(_reduced_shape(input.shape, dim, keepdim) + [ordered.shape[-1]])
    below, above, weights = _quantile_ranks(ordered._data, q._data, interpolation, ignore_nan)
    values = ordered.gather(-1, below)
    if interpolation in ("linear", "midpoint"):
        from teachgrad.ops.pointwise import lerp
        values = lerp(values, ordered.gather(-1, above), weights)
    return _quantiles_first(values, q.ndim)


def _reduced_shape(shape, dim, keepdim):
    """The shape a reduction over ``dim`` (None: all) leaves."""
    if dim is None or not shape:
        return [1] * len(shape) if keepdim else []
    reduced = list(shape)
    reduced[dim:dim + 1] = [1] if keepdim else []
    return reduced


def _checked_quantiles(input, q, interpolation):
    """``q`` as a tensor of the input's dtype, after PyTorch's checks."""
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(f"quantile() interpolation must be one of linear, lower, higher, "
                           f"midpoint or nearest, but got {interpolation}")
    if not isinstance(q, Tensor):
        if not 0 <= q <= 1:
            raise RuntimeError(f"quantile() q must be in the range [0, 1] but got {q}")
        q = Tensor._make(np.asarray(q, dtype=input._data.dtype))
    if input.numel() == 0:
        raise RuntimeError("quantile() input tensor must be non-empty")
    if q.ndim > 1:
        raise RuntimeError("quantile() q must be a scalar or 1D tensor")
    if input.dtype.name not in ("float32", "float64"):
        raise RuntimeError("quantile() input tensor must be either float or double dtype")
    if q.dtype is not input.dtype:
        raise RuntimeError("quantile() q tensor must be same dtype as the input tensor")
    if not ((q._data >= 0) & (q._data <= 1)).all():
        raise RuntimeError("quantile() q values must be in the range [0, 1]")
    return q


def _quantile_ranks(ordered, q, interpolation, ignore_nan):
    """The ranks to gather below and above each quantile, and the interpolation weights:
    plain numbers (no gradient), computed in the input's dtype as in PyTorch. A slice with
    a NaN gives NaN (rank of the last value), unless NaNs are ignored."""
    q = q.reshape(-1)
    if ignore_nan:
        counts = (~np.isnan(ordered)).sum(-1, keepdims=True).astype(q.dtype)
        ranks = q * (counts - 1)
        ranks = np.where(ranks < 0, q.dtype.type(0), ranks)
    else:
        last = ordered.shape[-1] - 1
        has_nan = np.isnan(ordered).any(-1, keepdims=True)
        ranks = np.where(has_nan, q.dtype.type(last), q * last)
    if interpolation in _ROUNDINGS:
        ranks = _ROUNDINGS[interpolation](ranks)
    below = ranks.astype(np.int64)
    if interpolation == "midpoint":
        weights = np.full_like(ranks, 0.5)
    else:
        weights = ranks - below.astype(ranks.dtype)
    above = np.ceil(ranks).astype(np.int64)
    return Tensor._make(below), Tensor._make(above), Tensor._make(weights)


def _quantiles_first(values, q_ndim):
    """Drop the quantile dimension (last) for a number q; for a vector q, move it first.
    PyTorch does this in place (squeeze_, unsqueeze_, transpose_), hence the node names."""
    from teachgrad.ops.shape import SqueezeBackward4, TransposeBackward1, UnsqueezeBackward1
    if q_ndim:
        values = UnsqueezeBackward1.apply(values, dim=0)
        values = TransposeBackward1.apply(values, dim0=0, dim1=values.ndim - 1)
    return SqueezeBackward4.apply(values, dim=-1)


# ---- unique values, and where values fall among sorted ones ---------------------------
class NotDifferentiable(Operation):
    """An op PyTorch records in the graph but has no derivative for: its output requires
    grad, and backward through it raises PyTorch's error."""
    function_name = None          # PyTorch's name for the function, in the error

    def backward(self, *grads):
        raise NotImplementedError(f"the derivative for '{self.function_name}' is not "
                                  f"implemented.")


class Unique2Backward0(NotDifferentiable):
    """The distinct values, sorted (each NaN distinct); for each element the position of
    its value among them (the inverse); how often each value occurs (the counts)."""
    function_name = "_unique2"

    def forward(self, a):
        values, inverse, counts = np.unique(a.reshape(-1), return_inverse=True,
                                            return_counts=True, equal_nan=False)
        return values, inverse.reshape(a.shape).astype(np.int64), counts.astype(np.int64)


class UniqueDimBackward0(NotDifferentiable):
    """The distinct slices along ``dim``, in lexicographic order."""
    function_name = "unique_dim"

    def forward(self, a, dim):
        if a.shape[dim] == 0:
            return a.copy(), np.zeros(0, np.int64), np.zeros(0, np.int64)
        values, inverse, counts = np.unique(a, return_inverse=True, return_counts=True,
                                            axis=dim, equal_nan=False)
        return values, inverse.reshape(-1).astype(np.int64), counts.astype(np.int64)


class UniqueConsecutiveBackward0(NotDifferentiable):
    """Each run of equal neighbours (elements, or slices along ``dim``) kept once."""
    function_name = "unique_consecutive"

    def forward(self, a, dim):
        axis = 0 if dim is None else dim
        slices = np.moveaxis(a.reshape(-1) if dim is None else a, axis, 0)
        differs = slices[1:] != slices[:-1]
        starts = np.ones(len(slices), dtype=bool)
        starts[1:] = differs.any(axis=tuple(range(1, differs.ndim)))   # (NaN differs from NaN)
        inverse = np.cumsum(starts) - 1
        counts = np.diff(np.append(np.flatnonzero(starts), len(slices)))
        values = np.moveaxis(slices[starts], 0, axis)
        if dim is None:
            inverse = inverse.reshape(a.shape)
        return values, inverse.astype(np.int64), counts.astype(np.int64)


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct values (or slices along ``dim``), sorted: PyTorch's CPU kernel sorts
    even when ``sorted=False``."""
    if dim is None:
        results = Unique2Backward0.apply(input)
    else:
        results = UniqueDimBackward0.apply(input, dim=_unique_dim(input, dim))
    return _unique_results(results, return_inverse, return_counts)


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    if dim is not None:
        dim = _unique_dim(input, dim)
    results = UniqueConsecutiveBackward0.apply(input, dim=dim)
    return _unique_results(results, return_inverse, return_counts)


def _unique_dim(input, dim):
    if input.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    dim = _check_dim(dim, input.ndim)
    if input.numel() == 0 and input.shape[dim] != 0:
        raise RuntimeError("There are 0 sized dimensions, and they aren't selected, so unique "
                           "cannot be applied")
    return dim


def _unique_results(results, return_inverse, return_counts):
    """The values alone, or a tuple with the inverse and / or the counts after them."""
    values, inverse, counts = results
    chosen = [values]
    if return_inverse:
        chosen.append(inverse)
    if return_counts:
        chosen.append(counts)
    return values if len(chosen) == 1 else tuple(chosen)


def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None,
                 sorter=None):
    """For each value, the position where it would go in the sorted last dimension of
    ``sorted_sequence`` (before equal values, or after them with ``right``/``side="right"``)."""
    from teachgrad.ops.pointwise import as_tensor_like
    right = _search_side(right, side)
    values = as_tensor_like(input, sorted_sequence)
    _check_search(sorted_sequence, values, sorter)
    common = dtypes.result_type([sorted_sequence, values]).numpy
    row_count = int(np.prod(sorted_sequence.shape[:-1]))
    boundaries = sorted_sequence._data.astype(common).reshape(row_count, -1)
    rows = values._data.astype(common).reshape(row_count, -1)
    order = None if sorter is None else sorter._data.reshape(boundaries.shape)
    positions = _binary_search(boundaries, rows, right, order).reshape(values.shape)
    return Tensor._make(positions.astype(np.int32 if out_int32 else np.int64))


def bucketize(input, boundaries, *, out_int32=False, right=False):
    """The bucket of each value: i such that boundaries[i - 1] < value <= boundaries[i]."""
    if boundaries.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got "
                           f"dim({boundaries.ndim})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


def _search_side(right, side):
    if side is None:
        return right
    if side not in ("left", "right"):
        raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got "
                           f"{side}")
    if right and side == "left":
        raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, got "
                           "side of left while right was True")
    return side == "right"


def _check_search(boundaries, values, sorter):
    """PyTorch's searchsorted_pre_check, in its order."""
    if sorter is not None:
        if sorter.shape != boundaries.shape:
            raise RuntimeError(f"torch.searchsorted(): boundary and sorter must have the same "
                               f"size, but got boundary tensor {list(boundaries.shape)}and got "
                               f"sorter tensor {list(sorter.shape)}")
        if sorter.dtype.name != "int64":
            raise RuntimeError(f"torch.searchsorted(): sorter must be a tensor of long dtype but "
                               f"got dtype {sorter.dtype.short_name}")
        positions = sorter._data
        if positions.size and not (positions.min() >= 0 and positions.max() < sorter.shape[-1]):
            raise RuntimeError("torch.searchsorted(): sorter index out of range")
    if values.ndim == 0 and boundaries.ndim != 1:
        raise RuntimeError(f"torch.searchsorted(): input value can be a scalar only when "
                           f"boundaries tensor dimension is 1, but we got boundaries tensor "
                           f"dim({boundaries.ndim}) and input value's dim(0) numel(1)")
    if boundaries.ndim == 0:
        raise RuntimeError("torch.searchsorted(): boundaries tensor should have positive "
                           "dimension, but got 0 dimension")
    if boundaries.ndim != 1 and (boundaries.ndim != values.ndim or
                                 boundaries.shape[:-1] != values.shape[:-1]):
        raise RuntimeError(f"torch.searchsorted(): boundaries tensor should be 1 dimension or "
                           f"the first N-1 dimensions of boundaries tensor and input value "
                           f"tensor must match, but we got boundaries tensor "
                           f"{list(boundaries.shape)} and input value tensor "
                           f"{list(values.shape)}")
    _check_not_bool(values, "searchsorted_out_cpu")


def _binary_search(boundaries, values, right, order):
    """PyTorch's cus_lower_bound / cus_upper_bound for every value of every row at once:
    halve [start, end) until it is empty, going right while ``not boundary >= value``
    (``not boundary > value`` for ``right``), so a NaN value lands at the end. ``order``
    (a sorter) lists the boundaries of each row in sorted order."""
    rows = np.arange(len(boundaries))[:, None]
    start = np.zeros(values.shape, dtype=np.int64)
    end = np.full(values.shape, boundaries.shape[1], dtype=np.int64)
    searching = start < end
    while searching.any():
        middle = (start + end) // 2
        place = np.minimum(middle, boundaries.shape[1] - 1)   # (a finished search's may be past)
        if order is not None:
            place = order[rows, place]
        boundary = boundaries[rows, place]
        go_right = ~(boundary > values) if right else ~(boundary >= values)
        start = np.where(searching & go_right, middle + 1, start)
        end = np.where(searching & ~go_right, middle, end)
        searching = start < end
    return start


# ---- two results at once, and running extremes -----------------------------------------
class AminmaxBackward0(Operation):
    """The smallest and the largest value, over ``dim`` or all of it, in one pass. Each
    spreads its gradient over the elements equal to it, as amin and amax do."""

    kept_names = ("min", "max")

    def forward(self, a, dim, keepdim):
        self.save("self")
        self._saved_dim, self._saved_keepdim = dim, keepdim
        self._dims = normalize_dims(dim, a.ndim)
        self._named = () if dim is None else self._dims       # the dims a keepdim=False drops
        smallest = np.asarray(np.min(a, axis=self._dims, keepdims=keepdim))
        largest = np.asarray(np.max(a, axis=self._dims, keepdims=keepdim))
        self.keep("min", smallest)
        self.keep("max", largest)
        return smallest, largest

    def backward(self, grad_min, grad_max):
        gradient = None
        for grad, extreme in ((grad_min, self._saved_min), (grad_max, self._saved_max)):
            if grad is None:
                continue
            winners = self._saved_self == restore_reduced_dims(extreme, self._named,
                                                               self._saved_keepdim)
            grad = restore_reduced_dims(grad, self._named, self._saved_keepdim)
            part = (grad / winners.sum(self._dims, keepdim=True)) * winners
            gradient = part if gradient is None else gradient + part
        return gradient


class VarMeanBackward0(VarBackward0):
    """The variance and the mean at once (a tuple of two tensors)."""

    def forward(self, a, dims, correction, keepdim, as_given):
        self.save("self")
        self.keep_spread(dims, correction, keepdim, as_given)
        return self.spread(a, root=False), self.mean_of(a)

    def mean_of(self, a):
        with quiet():
            mean = a.astype(np.float64).mean(axis=self._dims, keepdims=self._saved_keepdim)
        return np.asarray(mean).astype(a.dtype)

    def backward(self, grad_spread, grad_mean):
        """PyTorch's var_mean_backward: the variance's gradient plus the mean's."""
        gradient = None if grad_spread is None else self.spread_gradient(grad_spread)
        if grad_mean is not None:
            x, dims = self._saved_self, self._dims
            count = int(np.prod([x.shape[d] for d in dims]))
            grad = restore_reduced_dims(grad_mean, dims if self._saved_dim else (),
                                        self._saved_keepdim)
            part = grad.expand(x.shape) / count
            gradient = part if gradient is None else gradient + part
        return gradient

    def spread_gradient(self, grad):
        return _variance_gradient(self, grad)


class StdMeanBackward0(VarMeanBackward0):
    """The standard deviation and the mean at once."""
    _saved_result0 = SavedAttribute("result")       # (PyTorch's name for the saved std)

    def forward(self, a, dims, correction, keepdim, as_given):
        self.save("self")
        self.save("result")
        self.keep_spread(dims, correction, keepdim, as_given)
        return self.spread(a, root=True), self.mean_of(a)

    def spread_gradient(self, grad):
        std = self._saved_result0
        return _variance_gradient(self, (grad / times_number(std, 2)).masked_fill(std == 0, 0))



def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return _spread(VarMeanBackward0, "var_mean", input, dim, unbiased, keepdim, correction)


def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return _spread(StdMeanBackward0, "std_mean", input, dim, unbiased, keepdim, correction)


def aminmax(input, *, dim=None, keepdim=False):
    if dim is None and input.numel() == 0:
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the "
                           "operation has no identity.")
    if dim is not None and input.ndim and input.shape[dim] == 0:
        raise IndexError(f"aminmax: Expected reduction dim {dim} to have non-zero size.")
    smallest, largest = AminmaxBackward0.apply(input, dim=dim, keepdim=keepdim)
    return AminmaxResult(smallest, largest)


class AminmaxResult(tuple):
    """``(min, max)``, also readable as ``.min`` and ``.max``."""

    def __new__(cls, smallest, largest):
        return super().__new__(cls, (smallest, largest))

    @property
    def min(self):
        return self[0]

    @property
    def max(self):
        return self[1]

    def __repr__(self):
        return f"teachgrad.return_types.aminmax(\nmin={self[0]!r},\nmax={self[1]!r})"


class CummaxBackward0(Operation):
    """The running maximum along ``dim`` and where it was reached: on a tie the later
    element, and from a nan on, nan at the last nan so far (PyTorch's CPU kernel). The
    gradient of each output goes back to the element it came from."""
    kept_names = ("indices",)
    _saved_dim = GivenDim(many=False)
    better = staticmethod(np.greater_equal)

    def forward(self, a, dim, given):
        self.save("self")
        self._dim, self._given_dim = dim, given
        if a.size == 0:
            self.keep("indices", np.zeros(a.shape, dtype=np.int64))
            return a.copy(), np.zeros(a.shape, dtype=np.int64)
        slices = np.moveaxis(a.reshape(a.shape or (1,)), dim, 0)
        values, indices = np.empty_like(slices), np.zeros(slices.shape, dtype=np.int64)
        best, where_best = slices[0].copy(), np.zeros(slices.shape[1:], dtype=np.int64)
        for i, current in enumerate(slices):
            with quiet():
                takes = self.better(current, best) & ~np.isnan(best) if a.dtype.kind == "f" \
                    else self.better(current, best)
            if a.dtype.kind == "f":
                takes |= np.isnan(current)
            best, where_best = np.where(takes, current, best), np.where(takes, i, where_best)
            values[i], indices[i] = best, where_best
        values = np.moveaxis(values, 0, dim).reshape(a.shape)
        indices = np.moveaxis(indices, 0, dim).reshape(a.shape)
        self.keep("indices", indices)
        return values, indices

    def backward(self, grad, grad_indices=None):
        from teachgrad.ops.indexing import into_zeros, scatter_add
        x = self._saved_self
        if x.numel() == 0:
            return x
        return into_zeros(scatter_add, x.shape, self._dim, self._saved_indices, grad)


class CumminBackward0(CummaxBackward0):
    better = staticmethod(np.less_equal)


def cummax(input, dim):
    return _running_extreme(CummaxBackward0, "cummax", input, dim)


def cummin(input, dim):
    return _running_extreme(CumminBackward0, "cummin", input, dim)


def _running_extreme(operation, name, input, dim):
    positive = normalize_dims(dim, builtins.max(input.ndim, 1))[0]
    values, indices = operation.apply(input, dim=positive, given=dim)
    return MinMaxResult(values, indices, name)


class LogcumsumexpBackward0(Operation):
    """The running log(sum(exp(x))) along ``dim``, without overflow."""
    _saved_dim = GivenDim(many=False)

    def forward(self, a, dim, given):
        if a.dtype.kind != "f":
            raise NotImplementedError(f"\"logcumsumexp_out_cpu\" not implemented for "
                               f"'{dtypes.from_numpy_dtype(a.dtype).short_name}'")
        self.save("self")
        self.save("result")
        self._dim, self._given_dim = dim, given
        flat = a.reshape(a.shape or (1,))
        return quiet_numpy.run(np.logaddexp.accumulate, flat, axis=dim).reshape(a.shape)

    def backward(self, grad):
        """PyTorch's logcumsumexp_backward: the reversed running log-sum-exp of
        log|grad| - result, apart for the positive and the negative gradients (so that
        the logarithms exist), each plus x and exponentiated, then subtracted."""
        if grad.ndim == 0 or grad.numel() == 0:
            return grad
        x, result, dim = self._saved_self, self._saved_result, self._dim
        lowest = float(np.finfo(grad._data.dtype).min)

        def reversed_logcumsumexp(values):
            return logcumsumexp(values.flip(dim), dim).flip(dim)

        log_abs_grad = grad.abs().log()
        log_grad_positive = where(grad > 0, log_abs_grad, lowest)
        log_grad_negative = where(grad < 0, log_abs_grad, lowest)
        output_positive = (reversed_logcumsumexp(log_grad_positive - result) + x).exp()
        output_negative = (reversed_logcumsumexp(log_grad_negative - result) + x).exp()
        return output_positive - output_negative


def logcumsumexp(input, dim):
    positive = normalize_dims(dim, builtins.max(input.ndim, 1))[0]
    return LogcumsumexpBackward0.apply(input, dim=positive, given=dim)
