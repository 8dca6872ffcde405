"""Stochastic gradient descent, with momentum, dampening, Nesterov and weight decay."""
from teachgrad.optim.optimizer import Optimizer, implementation_options, refuse_negative
from teachgrad.tensor import Tensor


class SGD(Optimizer):
    """p -= lr * g, where g is the gradient (plus weight_decay * p) or, with momentum,
    a running velocity b = momentum * b + (1 - dampening) * g."""

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False,
                 *, maximize=False, foreach=None, differentiable=False, fused=None):
        refuse_negative(lr=lr, momentum=momentum, weight_decay=weight_decay)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening,
                                      weight_decay=weight_decay, nesterov=nesterov,
                                      maximize=maximize,
                                      **implementation_options(foreach, fused,
                                                               differentiable=differentiable)))

    def update(self, param, grad, group):
        momentum = group["momentum"]
        if group["maximize"]:
            grad = -grad
        if group["weight_decay"] != 0:
            grad = grad + group["weight_decay"] * param._data
        if momentum != 0:
            state = self.state[param]
            velocity = state.get("momentum_buffer")
            if velocity is None:
                velocity = state["momentum_buffer"] = Tensor._make(grad.copy())
            else:
                velocity._data *= momentum
                velocity._data += (1 - group["dampening"]) * grad
            grad = grad + momentum * velocity._data if group["nesterov"] else velocity._data
        param._data -= group["lr"] * grad
        self.changed(param)
