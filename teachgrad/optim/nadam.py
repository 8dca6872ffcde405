"""NAdam: Adam with Nesterov momentum: the step looks ahead, using the mean of the gradients
as it will be after the next step.

    mu_t = beta1 * (1 - 0.5 * 0.96 ** (t * momentum_decay))      (a momentum that grows)
    m = beta1 * m + (1 - beta1) * g
    v = beta2 * v + (1 - beta2) * g * g
    d = sqrt(v / (1 - beta2**t)) + eps
    p -= lr * (1 - mu_t) / (1 - mu_1 ... mu_t) * g / d                (this gradient)
    p -= lr * mu_{t+1} / (1 - mu_1 ... mu_{t+1}) * m / d              (and the mean ahead)

The product of the mus is kept in the state ("mu_product"), a float32 number as in PyTorch.
``decoupled_weight_decay`` shrinks the weights directly, as AdamW does.
"""
import numpy as np

from teachgrad import creation
from teachgrad.optim.adam import decayed_gradient, update_moments
from teachgrad.optim.optimizer import Optimizer, refuse_bad_betas, refuse_negative


class NAdam(Optimizer):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 momentum_decay=4e-3, decoupled_weight_decay=False, *, foreach=None,
                 maximize=False, capturable=False, differentiable=False):
        refuse_negative(lr=lr, eps=eps)
        refuse_bad_betas(betas)
        refuse_negative(weight_decay=weight_decay, momentum_decay=momentum_decay)
        # (foreach, capturable and differentiable are kept only to be shown, see
        # optimizer.implementation_options; NAdam has no fused kernel)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      momentum_decay=momentum_decay,
                                      decoupled_weight_decay=decoupled_weight_decay,
                                      maximize=maximize, foreach=foreach,
                                      capturable=capturable, differentiable=differentiable))

    def update(self, param, grad, group):
        state = self.state[param]
        if not state:
            state["step"] = creation.tensor(0.0)
            state["mu_product"] = creation.tensor(1.0)
            state["exp_avg"] = creation.zeros_like(param)
            state["exp_avg_sq"] = creation.zeros_like(param)
        lr = group["lr"]
        momentum_decay = group["momentum_decay"]
        beta1, beta2 = group["betas"]
        if group["maximize"]:
            grad = -grad
        state["step"]._data += 1
        step = state["step"].item()
        grad = decayed_gradient(self, param, grad, group)
        mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
        mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
        state["mu_product"]._data *= mu
        mu_product = state["mu_product"].item()
        exp_avg, exp_avg_sq = update_moments(state, grad, beta1, beta2)
        denom = np.sqrt(exp_avg_sq / (1 - beta2 ** step)) + group["eps"]
        param._data += (-lr * (1.0 - mu) / (1.0 - mu_product)) * grad / denom
        self.changed(param)
        param._data += (-lr * mu_next) / (1.0 - mu_product * mu_next) * exp_avg / denom
        self.changed(param)
