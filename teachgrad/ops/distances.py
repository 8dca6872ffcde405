"""Distances: ``cdist``, between every row of one set of points and every row of another,
and ``dist``, the p-norm of the difference of two tensors.

The p-norm of a vector v is (sum |v_i|^p)^(1/p); for p = 0 it is the number of nonzero
entries, for p = inf the largest |v_i| (for -inf the smallest).
"""
import math

import numpy as np

from teachgrad import dtypes
from teachgrad.autograd.operation import Operation, broadcast_error_message
from teachgrad.tensor import Tensor


def p_norm(values, p, axis=None):
    """The p-norm of ``values`` along ``axis`` (of all of them for None), in their dtype."""
    magnitudes = np.abs(values)
    if p == 0:
        return np.asarray((magnitudes != 0).sum(axis), dtype=values.dtype)
    if p == math.inf:
        return np.asarray(magnitudes.max(axis, initial=0))
    if p == -math.inf:
        return np.asarray(magnitudes.min(axis, initial=math.inf))
    return np.asarray((magnitudes ** p).sum(axis) ** (1 / p))


def norm_gradient(grad, x, p, norm):
    """The gradient of ``norm``, the p-norm of all of ``x``, as PyTorch's norm_backward
    writes it: x / norm for p = 2, sign(x) for p = 1, sign(x) at the entries where |x| is
    the norm for p = ±inf (shared between ties), sign(x) |x|^(p-1) / norm^(p-1) otherwise.
    Where the norm is 0 the gradient is 0."""
    if p == 1:
        return x.sgn() * grad
    if p == 2:
        return grad * (x / norm).masked_fill(norm == 0, 0)
    if math.isinf(p):
        magnitudes = x.abs()
        at_the_norm = (magnitudes == norm) | magnitudes.isnan()
        return x.sgn() * ((grad / at_the_norm.sum()) * at_the_norm)
    if p < 1:
        scaled = x.sgn() * x.abs().pow(p - 1).masked_fill(x == 0, 0)
        return scaled * grad * norm.pow(1 - p)
    scaled = x.sgn() * x.abs().pow(p - 1) if p < 2 else x * x.abs().pow(p - 2)
    return scaled * (grad / norm.pow(p - 1)).masked_fill(norm == 0, 0)


# ---- dist ----------------------------------------------------------------------------------
class DistBackward0(Operation):
    """``dist(a, b, p)``: the p-norm of all of a - b (broadcast). Its gradient is the norm's,
    of a - b: for a as it is, for b negated."""
    input_names = ("self", "other")

    def forward(self, a, b, p):
        self.save("self")
        self.save("other")
        self.save("result")
        self._saved_p = p
        return np.asarray(p_norm(a - b, p), dtype=a.dtype)

    def backward(self, grad):
        if self._saved_p == 0:
            # the count of nonzero entries is flat: PyTorch gives a no gradient, and then
            # fails to negate that no gradient for other
            if self.needs_input_grad[1]:
                raise RuntimeError("Expected a proper Tensor but got None (or an undefined "
                                   "Tensor in C++) for argument #0 'self'")
            return None, None
        difference = self._saved_self - self._saved_other
        grad_self = norm_gradient(grad, difference, self._saved_p, self._saved_result)
        return grad_self, -grad_self


def dist(input, other, p=2):
    common = dtypes.result_type((input, other))
    if not common.is_floating_point:
        raise RuntimeError(f"norm(): input dtype should be either floating point or complex. "
                           f"Got {common.short_name} instead.")
    return DistBackward0.apply(input, other, p=p.item() if isinstance(p, Tensor) else p)


# ---- cdist ---------------------------------------------------------------------------------
COMPUTE_MODES = ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
                 "donot_use_mm_for_euclid_dist")


class CdistBackward0(Operation):
    """The p-norm distance of every row of x1 (..., P, M) to every row of x2 (..., R, M):
    a (..., P, R) tensor; the batch dimensions broadcast."""
    input_names = ("x1", "x2")

    def forward(self, x1, x2, p):
        self.save("x1")
        self.save("x2")
        self.save("result")
        self._saved_p = p
        differences = x1[..., :, None, :] - x2[..., None, :, :]        # (..., P, R, M)
        return p_norm(differences, p, axis=-1)

    def backward(self, grad):
        x1, x2, distances, p = self._saved_x1, self._saved_x2, self._saved_result, self._saved_p
        grad_x1 = CdistBackwardBackward0.apply(grad.contiguous(), x1, x2, distances, p=p) \
            if self.needs_input_grad[0] else None
        # x2's gradient is x1's with the roles swapped: the distances transposed
        grad_x2 = CdistBackwardBackward0.apply(grad.mT.contiguous(), x2, x1,
                                               distances.mT.contiguous(), p=p) \
            if self.needs_input_grad[1] else None
        return grad_x1, grad_x2


class CdistBackwardBackward0(Operation):
    """cdist's gradient for x1: for each row of x1, the sum over the rows of x2 of grad
    times d(distance)/d(row). PyTorch has no formula for the gradient of this gradient, so
    a second derivative through cdist raises its error."""
    input_names = ("grad", "x1", "x2", "cdist")

    def forward(self, grad, x1, x2, distances, p):
        differences = x1[..., :, None, :] - x2[..., None, :, :]        # (..., P, R, M)
        slopes = _distance_slopes(differences, distances[..., None], p)
        return (grad[..., None] * slopes).sum(-2)

    def backward(self, grad):
        raise NotImplementedError("the derivative for '_cdist_backward' is not implemented.")


def _distance_slopes(differences, distances, p):
    """d(distance)/d(x1 row) for each pair of rows (PyTorch's _cdist_backward kernels); 0
    where the distance is 0, and for p < 1 where a difference is 0."""
    if p == 0:
        return np.zeros_like(differences)
    if p == 1:
        return np.sign(differences)
    if math.isinf(p):
        return np.sign(differences) * (np.abs(differences) == distances)
    with np.errstate(divide="ignore", invalid="ignore"):
        if p == 2:
            slopes = differences / distances
        elif p < 2:
            slopes = np.sign(differences) * np.abs(differences) ** (p - 1) / distances ** (p - 1)
        else:
            slopes = differences * np.abs(differences) ** (p - 2) / distances ** (p - 1)
    flat = (distances == 0) | ((differences == 0) & (p < 1))
    return np.where(flat, 0, slopes)


class EuclideanDistBackward0(Operation):
    """cdist for p = 2 written as one matmul, ``|x1|^2 - 2 x1.x2 + |x2|^2`` (clamped at 1e-30,
    then the square root): PyTorch's way for more than 25 rows, faster and a little less
    exact. Its gradient is written with tensor ops, so it can be differentiated again."""
    input_names = ("x1", "x2")

    def forward(self, x1, x2):
        self.save("x1")
        self.save("x2")
        self.save("result")
        x1_norm = (x1 ** 2).sum(-1, keepdims=True)
        x2_norm = (x2 ** 2).sum(-1, keepdims=True)
        x1_padded = np.concatenate([-2 * x1, x1_norm, np.ones_like(x1_norm)], axis=-1)
        x2_padded = np.concatenate([x2, np.ones_like(x2_norm), x2_norm], axis=-1)
        squared = x1_padded @ np.swapaxes(x2_padded, -1, -2)
        return np.sqrt(np.maximum(squared, 1e-30))

    def backward(self, grad):
        x1, x2, distances = self._saved_x1, self._saved_x2, self._saved_result
        ratio = (grad / distances).masked_fill(distances == 0, 0)
        grad_x1 = x1 * ratio.sum(-1, keepdim=True) - ratio.matmul(x2)
        grad_x2 = x2 * ratio.sum(-2).unsqueeze(-1) - ratio.mT.matmul(x1)
        return grad_x1, grad_x2


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    if compute_mode not in COMPUTE_MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    batch = _check_cdist_inputs(x1, x2, p)
    rows = max(x1.shape[-2], x2.shape[-2])
    use_matmul = compute_mode == "use_mm_for_euclid_dist" or (
        compute_mode == "use_mm_for_euclid_dist_if_necessary" and rows > 25)
    if p == 2 and use_matmul and x1.numel() and x2.numel():
        return _euclidean_cdist(x1, x2, batch)
    return CdistBackward0.apply(x1, x2, p=float(p))


def _euclidean_cdist(x1, x2, batch):
    """The matmul form over the broadcast batch, flattened to one dimension (as PyTorch)."""
    out_shape = batch + (x1.shape[-2], x2.shape[-2])
    if math.prod(batch) != 1:
        x1 = x1.expand(*batch, *x1.shape[-2:]).contiguous().view(-1, *x1.shape[-2:])
        x2 = x2.expand(*batch, *x2.shape[-2:]).contiguous().view(-1, *x2.shape[-2:])
    return EuclideanDistBackward0.apply(x1, x2).view(out_shape)


def _check_cdist_inputs(x1, x2, p):
    """PyTorch's checks, in its order; the broadcast batch shape."""
    for name, x in (("X1", x1), ("X2", x2)):
        if x.ndim < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: {x.ndim}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: "
                           f"{x1.shape[-1]} X2: {x2.shape[-1]}")
    for name, x in (("X1", x1), ("X2", x2)):
        if not x.dtype.is_floating_point:
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: "
                               f"{x.dtype.short_name}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    try:
        batch = np.broadcast_shapes(x1.shape[:-2], x2.shape[:-2])
    except ValueError:
        raise RuntimeError(broadcast_error_message([x1.shape[:-2], x2.shape[:-2]])) from None
    if x1.dtype != x2.dtype:
        raise RuntimeError(f"expected scalar type {x1.dtype.short_name} but found "
                           f"{x2.dtype.short_name}")
    return batch
