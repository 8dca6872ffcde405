"""RAdam: Adam whose adaptive step is switched on only once v is a reliable estimate.

    m = beta1 * m + (1 - beta1) * g
    v = beta2 * v + (1 - beta2) * g * g
    rho_t = rho_inf - 2 t beta2**t / (1 - beta2**t),   rho_inf = 2 / (1 - beta2) - 1

rho_t is the length of the average that v amounts to after t steps. While it is at most 5,
v is too noisy and the step is plain momentum, p -= lr * m / (1 - beta1**t); after that
it is Adam's step, times a "rectification" r_t that grows towards 1:

    p -= lr * m / (1 - beta1**t) * sqrt(1 - beta2**t) / (sqrt(v) + eps) * r_t
    r_t = sqrt((rho_t - 4)(rho_t - 2) rho_inf / ((rho_inf - 4)(rho_inf - 2) rho_t))
"""
import numpy as np

from teachgrad import creation
from teachgrad.optim.adam import decayed_gradient, update_moments
from teachgrad.optim.optimizer import Optimizer, refuse_bad_betas, refuse_negative


class RAdam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False,
                 capturable=False, differentiable=False):
        refuse_negative(lr=lr, eps=eps)
        refuse_bad_betas(betas)
        refuse_negative(weight_decay=weight_decay)
        # (foreach, capturable and differentiable are kept only to be shown, see
        # optimizer.implementation_options; RAdam has no fused kernel)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      maximize=maximize, foreach=foreach, capturable=capturable,
                                      decoupled_weight_decay=decoupled_weight_decay,
                                      differentiable=differentiable))

    def update(self, param, grad, group):
        state = self.state[param]
        if not state:
            state["step"] = creation.tensor(0.0)
            state["exp_avg"] = creation.zeros_like(param)
            state["exp_avg_sq"] = creation.zeros_like(param)
        lr = group["lr"]
        beta1, beta2 = group["betas"]
        if group["maximize"]:
            grad = -grad
        state["step"]._data += 1
        step = state["step"].item()
        grad = decayed_gradient(self, param, grad, group)
        exp_avg, exp_avg_sq = update_moments(state, grad, beta1, beta2)
        bias_correction2 = 1 - beta2 ** step
        momentum_step = exp_avg / (1 - beta1 ** step) * lr
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
        if rho_t > 5.0:
            rectification = ((rho_t - 4) * (rho_t - 2) * rho_inf
                             / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
            # (PyTorch divides a number by a tensor as reciprocal, then multiply)
            adaptive_lr = 1 / (np.sqrt(exp_avg_sq) + group["eps"]) * bias_correction2 ** 0.5
            param._data -= momentum_step * adaptive_lr * rectification
        else:
            param._data -= momentum_step
        self.changed(param)
