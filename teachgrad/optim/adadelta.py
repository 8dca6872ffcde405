"""Adadelta: RMSprop's step, rescaled by the mean square of the recent steps themselves.

    v = rho * v + (1 - rho) * g * g                       (recent squared gradients)
    delta = sqrt(u + eps) / sqrt(v + eps) * g
    u = rho * u + (1 - rho) * delta * delta               (recent squared steps)
    p -= lr * delta

The ratio has the units of the weights, so the default lr is 1.
"""
import numpy as np

from teachgrad import creation
from teachgrad.optim.optimizer import Optimizer, refuse_negative


class Adadelta(Optimizer):
    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *,
                 capturable=False, maximize=False, differentiable=False):
        refuse_negative(lr=lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        refuse_negative(eps=eps, weight_decay=weight_decay)
        # (foreach, capturable and differentiable are kept only to be shown, see
        # optimizer.implementation_options; Adadelta has no fused kernel)
        super().__init__(params, dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay,
                                      maximize=maximize, capturable=capturable, foreach=foreach,
                                      differentiable=differentiable))

    def update(self, param, grad, group):
        state = self.state[param]
        if not state:
            state["step"] = creation.tensor(0.0)
            state["square_avg"] = creation.zeros_like(param)
            state["acc_delta"] = creation.zeros_like(param)
        rho, eps = group["rho"], group["eps"]
        state["step"]._data += 1
        if group["maximize"]:
            grad = -grad
        if group["weight_decay"] != 0:
            grad = grad + group["weight_decay"] * param._data
        square_avg, acc_delta = state["square_avg"]._data, state["acc_delta"]._data
        square_avg *= rho
        square_avg += (1 - rho) * grad * grad
        delta = np.sqrt(acc_delta + eps) / np.sqrt(square_avg + eps) * grad
        acc_delta *= rho
        acc_delta += (1 - rho) * delta * delta
        param._data -= group["lr"] * delta
        self.changed(param)
