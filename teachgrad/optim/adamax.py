"""Adamax: Adam with the infinity norm: each weight's step is divided by a slowly fading
maximum of its gradients' sizes instead of their root mean square.

    m = beta1 * m + (1 - beta1) * g            (the mean of recent gradients)
    u = max(beta2 * u, |g| + eps)              (the largest recent |g|)
    p -= lr / (1 - beta1**t) * m / u

Only m needs the bias correction (``t`` is the step count): u starts at |g|, not at zero.
"""
import numpy as np

from teachgrad import creation
from teachgrad.optim.optimizer import Optimizer, refuse_bad_betas, refuse_negative


class Adamax(Optimizer):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 foreach=None, *, maximize=False, differentiable=False, capturable=False):
        refuse_negative(lr=lr, eps=eps)
        refuse_bad_betas(betas)
        refuse_negative(weight_decay=weight_decay)
        # (foreach, capturable and differentiable are kept only to be shown, see
        # optimizer.implementation_options; Adamax has no fused kernel)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      foreach=foreach, maximize=maximize,
                                      differentiable=differentiable, capturable=capturable))

    def update(self, param, grad, group):
        state = self.state[param]
        if not state:
            state["step"] = creation.tensor(0.0)
            state["exp_avg"] = creation.zeros_like(param)
            state["exp_inf"] = creation.zeros_like(param)
        beta1, beta2 = group["betas"]
        if group["maximize"]:
            grad = -grad
        state["step"]._data += 1
        if group["weight_decay"] != 0:
            grad = grad + group["weight_decay"] * param._data
        exp_avg, exp_inf = state["exp_avg"]._data, state["exp_inf"]._data
        exp_avg += (1 - beta1) * (grad - exp_avg)
        exp_inf *= beta2
        np.maximum(exp_inf, np.abs(grad) + group["eps"], out=exp_inf)
        step_size = group["lr"] / (1 - beta1 ** state["step"].item())
        param._data -= step_size * exp_avg / exp_inf
        self.changed(param)
