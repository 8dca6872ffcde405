"""Chapter 09 — optimizers: SGD with momentum, updating the parameters in place under no_grad."""
from . import grad_mode

class SGD:
    """p -= lr * v: v the gradient, or with momentum v = momentum * v + grad (first v: grad)."""
    def __init__(self, params, lr, momentum=0.0):
        self.params, self.lr, self.momentum = list(params), lr, momentum
        self.state = {}                     # parameter -> its momentum buffer

    def zero_grad(self):
        for p in self.params:
            p.grad = None

    def step(self):
        """Move each parameter that has a gradient, in place and unrecorded (no_grad)."""
        ### BEGIN SOLUTION chapter 09: update the buffers and the parameters under no_grad
        with grad_mode.no_grad():
            for p in self.params:
                if p.grad is None:
                    continue
                step = p.grad
                if self.momentum:
                    buffer = self.state.get(p)
                    step = step.clone() if buffer is None else buffer * self.momentum + step
                    self.state[p] = step
                p -= self.lr * step
        ### END SOLUTION
