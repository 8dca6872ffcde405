"""Adam and AdamW: steps scaled by running averages of the gradient and of its square.

    m = beta1 * m + (1 - beta1) * g            (the mean of recent gradients)
    v = beta2 * v + (1 - beta2) * g * g        (their mean square)
    p -= lr / (1 - beta1**t) * m / (sqrt(v) / sqrt(1 - beta2**t) + eps)

The factors with ``t`` (the step count) correct for m and v starting at zero.
Adam adds ``weight_decay * p`` to the gradient; AdamW instead shrinks the
weights directly, p *= 1 - lr * weight_decay ("decoupled" weight decay).
"""
import numpy as np

from teachgrad import creation
from teachgrad.optim.optimizer import (Optimizer, implementation_options, refuse_bad_betas,
                                      refuse_negative)


class Adam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False):
        refuse_negative(lr=lr, eps=eps)
        refuse_bad_betas(betas)
        refuse_negative(weight_decay=weight_decay)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      amsgrad=amsgrad, maximize=maximize,
                                      **implementation_options(foreach, fused,
                                                               capturable=capturable,
                                                               differentiable=differentiable),
                                      decoupled_weight_decay=decoupled_weight_decay))

    def update(self, param, grad, group):
        state = self.state[param]
        if not state:
            state["step"] = creation.tensor(0.0)
            state["exp_avg"] = creation.zeros_like(param)
            state["exp_avg_sq"] = creation.zeros_like(param)
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = creation.zeros_like(param)
        lr, eps = group["lr"], group["eps"]
        beta1, beta2 = group["betas"]
        if group["maximize"]:
            grad = -grad
        state["step"]._data += 1
        grad = decayed_gradient(self, param, grad, group)
        exp_avg, exp_avg_sq = update_moments(state, grad, beta1, beta2)
        step = state["step"].item()
        step_size = lr / (1 - beta1**step)
        bias_correction2_sqrt = (1 - beta2**step) ** 0.5
        second_moment = exp_avg_sq
        if group["amsgrad"]:       # use the largest v seen so far
            second_moment = state["max_exp_avg_sq"]._data
            np.maximum(second_moment, exp_avg_sq, out=second_moment)
        denom = np.sqrt(second_moment) / bias_correction2_sqrt + eps
        param._data -= step_size * exp_avg / denom
        self.changed(param)


class AdamW(Adam):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False, foreach=None, capturable=False,
                 differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable, differentiable=differentiable,
                         fused=fused, decoupled_weight_decay=True)


def decayed_gradient(optimizer, param, grad, group):
    """The gradient with the group's weight decay added (L2), or, when the decay is
    decoupled, the gradient as it is and the weights shrunk directly."""
    weight_decay = group["weight_decay"]
    if weight_decay == 0:
        return grad
    if group["decoupled_weight_decay"]:
        param._data *= 1 - group["lr"] * weight_decay
        optimizer.changed(param)
        return grad
    return grad + weight_decay * param._data


def update_moments(state, grad, beta1, beta2):
    """m and v, the running averages of the gradient and of its square, updated in place."""
    exp_avg, exp_avg_sq = state["exp_avg"]._data, state["exp_avg_sq"]._data
    exp_avg += (1 - beta1) * (grad - exp_avg)
    exp_avg_sq *= beta2
    exp_avg_sq += (1 - beta2) * grad * grad
    return exp_avg, exp_avg_sq
