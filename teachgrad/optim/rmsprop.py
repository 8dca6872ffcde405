"""RMSprop: each weight's step is divided by the root of its recent mean square gradient.

    v = alpha * v + (1 - alpha) * g * g        (the mean square of recent gradients)
    p -= lr * g / (sqrt(v) + eps)

A weight whose gradients are large takes small steps, one whose gradients are
small takes large ones. ``centered`` also keeps the mean gradient
m = alpha * m + (1 - alpha) * g and divides by sqrt(v - m * m), the gradient's
standard deviation; ``momentum`` turns these steps into a velocity
b = momentum * b + g / (sqrt(v) + eps) and moves p -= lr * b.
"""
import numpy as np

from teachgrad import creation
from teachgrad.optim.optimizer import Optimizer, refuse_negative


class RMSprop(Optimizer):
    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, capturable=False, foreach=None, maximize=False,
                 differentiable=False):
        refuse_negative(lr=lr, eps=eps, momentum=momentum, weight_decay=weight_decay,
                        alpha=alpha)
        # (foreach, capturable and differentiable are kept only to be shown, see
        # optimizer.implementation_options; RMSprop has no fused kernel)
        super().__init__(params, dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps,
                                      centered=centered, weight_decay=weight_decay,
                                      capturable=capturable, foreach=foreach, maximize=maximize,
                                      differentiable=differentiable))

    def update(self, param, grad, group):
        state = self.state[param]
        if not state:
            state["step"] = creation.tensor(0.0)
            state["square_avg"] = creation.zeros_like(param)
            if group["momentum"] > 0:
                state["momentum_buffer"] = creation.zeros_like(param)
            if group["centered"]:
                state["grad_avg"] = creation.zeros_like(param)
        alpha, weight_decay = group["alpha"], group["weight_decay"]
        if group["maximize"]:
            grad = -grad
        state["step"]._data += 1
        if weight_decay != 0:
            grad = grad + weight_decay * param._data
        square_avg = state["square_avg"]._data
        square_avg *= alpha
        square_avg += (1 - alpha) * grad * grad
        if group["centered"]:
            grad_avg = state["grad_avg"]._data
            grad_avg += (1 - alpha) * (grad - grad_avg)
            avg = np.sqrt(square_avg - grad_avg * grad_avg)
        else:
            avg = np.sqrt(square_avg)
        avg += group["eps"]
        if group["momentum"] > 0:
            velocity = state["momentum_buffer"]._data
            velocity *= group["momentum"]
            velocity += grad / avg
            param._data -= group["lr"] * velocity
        else:
            param._data -= group["lr"] * grad / avg
        self.changed(param)
