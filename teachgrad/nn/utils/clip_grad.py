"""Gradient clipping: keep one bad batch from throwing the weights far away.

``clip_grad_norm_`` rescales *all* gradients together so that their total
norm (as if they were one long vector) is at most ``max_norm``; the direction
of the step is kept. ``clip_grad_value_`` clamps each element on its own.
"""
import math

from teachgrad import creation
from teachgrad.autograd.grad_mode import no_grad
from teachgrad.ops import pointwise, shape
from teachgrad.tensor import Tensor


def _gradients(parameters):
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return [p.grad for p in parameters if p.grad is not None]


def _vector_norm(tensor, norm_type):
    magnitudes = tensor.abs()
    if norm_type == math.inf:
        return magnitudes.amax()
    return (magnitudes ** norm_type).sum() ** (1.0 / norm_type)


@no_grad()
def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False):
    """Scale the gradients in place by min(1, max_norm / (total norm + 1e-6)); return
    the total norm measured before clipping."""
    grads = _gradients(parameters)
    norm_type = float(norm_type)
    if not grads:
        return creation.tensor(0.0)
    norms = shape.stack([_vector_norm(g, norm_type) for g in grads])
    total_norm = _vector_norm(norms, norm_type)
    if error_if_nonfinite and not bool(pointwise.isfinite(total_norm)):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from "
                           "`parameters` is non-finite, so it cannot be clipped. To disable "
                           "this error and scale the gradients by the non-finite norm anyway, "
                           "set `error_if_nonfinite=False`")
    clip_coef = pointwise.clamp(float(max_norm) / (total_norm + 1e-6), max=1.0)
    for grad in grads:
        grad.mul_(clip_coef)
    return total_norm


@no_grad()
def clip_grad_value_(parameters, clip_value):
    """Clamp every gradient element into [-clip_value, clip_value], in place."""
    clip_value = float(clip_value)
    for grad in _gradients(parameters):
        grad.clamp_(-clip_value, clip_value)
