"""ASGD: averaged SGD. Plain SGD steps with a learning rate that slowly decreases, while
the state keeps a running average of the weights ("ax"), which is what the method returns
(copy it into a model to evaluate the averaged weights).

    p *= 1 - lambd * eta                         (a decay of the weights)
    p -= eta * g
    ax += mu * (p - ax)                          (ax = p while mu is 1)
    eta = lr / (1 + lambd * lr * t) ** alpha     (for the next step; t is the step count)
    mu = 1 / max(1, t - t0)                      (averaging starts after t0 steps)

eta and mu are float32 numbers in the state, as in PyTorch.
"""
import numpy as np

from teachgrad import creation
from teachgrad.optim.optimizer import Optimizer, refuse_negative


class ASGD(Optimizer):
    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0,
                 foreach=None, maximize=False, differentiable=False, capturable=False):
        refuse_negative(lr=lr, weight_decay=weight_decay)
        # (foreach, capturable and differentiable are kept only to be shown, see
        # optimizer.implementation_options; ASGD has no fused kernel)
        super().__init__(params, dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0,
                                      weight_decay=weight_decay, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable,
                                      capturable=capturable))

    def update(self, param, grad, group):
        state = self.state[param]
        if not state:
            state["step"] = creation.tensor(0.0)
            state["eta"] = creation.tensor(float(group["lr"]))
            state["mu"] = creation.tensor(1.0)
            state["ax"] = creation.zeros_like(param)
        lr, lambd = group["lr"], group["lambd"]
        if group["maximize"]:
            grad = -grad
        state["step"]._data += 1
        if group["weight_decay"] != 0:
            grad = grad + group["weight_decay"] * param._data
        eta = state["eta"].item()
        param._data *= 1 - lambd * eta
        self.changed(param)
        param._data -= eta * grad
        self.changed(param)
        ax = state["ax"]._data
        if state["mu"].item() != 1:
            ax += (param._data - ax) * state["mu"]._data
        else:
            ax[...] = param._data
        step = state["step"].item()
        # (PyTorch makes each new value a float32 tensor before copying it into the state)
        state["eta"]._data[...] = np.float32(lr / ((1 + lambd * lr * step) ** group["alpha"]))
        state["mu"]._data[...] = np.float32(1 / max(1, step - group["t0"]))
