"""Adagrad: each weight's step is divided by the root of the sum of all its squared gradients.

    s = s + g * g
    p -= lr / (1 + (t - 1) * lr_decay) * g / (sqrt(s) + eps)

The sum only grows, so every weight's steps only shrink, fastest for the weights
whose gradients are large (``t`` is the step count; ``lr_decay`` shrinks the
steps further as t grows).
"""
import numpy as np

from teachgrad import creation
from teachgrad.optim.optimizer import Optimizer, implementation_options, refuse_negative


class Adagrad(Optimizer):
    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0,
                 eps=1e-10, foreach=None, *, maximize=False, differentiable=False, fused=None):
        refuse_negative(lr=lr, lr_decay=lr_decay, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, eps=eps)
        if fused and differentiable:
            raise RuntimeError("`fused` does not support `differentiable`")
        super().__init__(params, dict(lr=lr, lr_decay=lr_decay, eps=eps,
                                      weight_decay=weight_decay,
                                      initial_accumulator_value=initial_accumulator_value,
                                      **implementation_options(foreach, fused, maximize=maximize,
                                                               differentiable=differentiable)))
        for group in self.param_groups:     # unlike the others, Adagrad fills its state at once
            for param in group["params"]:
                self.state[param] = self._initial_state(param)

    def _initial_state(self, param):
        """A step count of 0 and a sum filled with the optimizer's initial_accumulator_value
        (PyTorch's Adagrad ignores a param group's own initial_accumulator_value)."""
        return {"step": creation.tensor(0.0),
                "sum": creation.full_like(param, self.defaults["initial_accumulator_value"])}

    def update(self, param, grad, group):
        state = self.state[param]
        if not state:                       # a group added later with add_param_group
            state.update(self._initial_state(param))
        state["step"]._data += 1
        step = state["step"].item()
        if group["maximize"]:
            grad = -grad
        if group["weight_decay"] != 0:
            grad = grad + group["weight_decay"] * param._data
        decayed_lr = group["lr"] / (1 + (step - 1) * group["lr_decay"])
        square_sum = state["sum"]._data
        square_sum += grad * grad
        std = np.sqrt(square_sum) + group["eps"]
        param._data -= decayed_lr * grad / std
        self.changed(param)
