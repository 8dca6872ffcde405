"""Chapter 08 — your own differentiable operation: Function, its context, and gradcheck.

    class MyExp(Function):
        @staticmethod
        def forward(ctx, x):             # runs with recording off
            result = x.exp()
            ctx.save_for_backward(result)
            return result

        @staticmethod
        def backward(ctx, grad_output):  # one gradient per forward input (None for a number)
            result, = ctx.saved_tensors
            return grad_output * result

`MyExp.apply(x)` records one node, named as PyTorch names it (`MyExpBackward`); that node is
also the `ctx` both methods receive.
"""
import numpy as np

from . import autograd, grad_mode, graph, tensor


class BackwardFunction(graph.Node):
    """The node of a Function's call, and its ctx. Subclassed once per Function: MyExpBackward."""
    function = None

    def save_for_backward(self, *tensors):
        """Keep tensors for backward, version-checked like any saved tensor (chapter 05).
        Anything else raises PyTorch's TypeError "save_for_backward can only save variables,
        but argument 1 is of type float"."""
        raise NotImplementedError("chapter 08: refuse non-tensors; save each tensor under its position")

    @property
    def saved_tensors(self):
        return tuple(getattr(self, f"_saved_tensor_{i}") for i in range(self.saved_count))

    def backward(self, grad):
        """The Function's backward, with one gradient per forward input; keep those of the
        tensor inputs. A wrong count raises PyTorch's RuntimeError "function MyExpBackward
        returned an incorrect number of gradients (expected 2, got 1)"."""
        raise NotImplementedError("chapter 08: call function.backward(self, grad) and check the count")


class Function:
    """Subclass it with static `forward(ctx, ...)` and `backward(ctx, grad)`; call `apply`."""

    def __init_subclass__(cls):
        cls.node_class = type(f"{cls.__name__}Backward", (BackwardFunction,), {"function": cls})

    @classmethod
    def apply(cls, *args):
        """Run forward with recording off on a fresh node (the ctx). If a tensor argument
        requires grad (and grad mode is on), record the node: its edges are the tensor
        arguments' (graph.record), ctx.needs_input_grad has one flag per argument."""
        ctx = cls.node_class()
        ctx.is_tensor = [isinstance(a, tensor.Tensor) for a in args]
        ctx.needs_input_grad = tuple(isinstance(a, tensor.Tensor) and a.requires_grad
                                     for a in args)
        raise NotImplementedError("chapter 08: run forward under no_grad, then record ctx if needed")


class GradcheckError(RuntimeError):
    """What gradcheck raises when backward disagrees with the central differences."""


def gradcheck(function, inputs, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True):
    """Compare `function`'s backward with central differences, with PyTorch's tolerances.

    For each input that requires grad (float64, for the differences to mean something): a
    mismatch raises GradcheckError("Jacobian mismatch for output 0 with respect to input
    {i},\nnumerical:...\nanalytical:...") — or returns False without raise_exception."""
    inputs = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
    output = function(*inputs)
    for i, x in enumerate(inputs):
        if isinstance(x, tensor.Tensor) and x.requires_grad:
            numerical = numerical_jacobian(function, inputs, x, eps)
            analytical = analytical_jacobian(output, x)
            if not np.allclose(analytical, numerical, rtol, atol):
                if not raise_exception:
                    return False
                raise GradcheckError(f"Jacobian mismatch for output 0 with respect to input {i},"
                                     f"\nnumerical:{tensor.Tensor(numerical)!r}\n"
                                     f"analytical:{tensor.Tensor(analytical)!r}\n")
    return True


def numerical_jacobian(function, inputs, x, eps):
    """Row k: (f(x + eps) - f(x - eps)) / (2 eps), moving element k of x only (in place in
    x.array, put back afterwards), the output flattened; computed with recording off."""
    raise NotImplementedError("chapter 08: central differences, one element of x at a time")


def analytical_jacobian(output, x):
    """Column j: x's gradient of output element j, from backward: autograd.grad with a one-hot
    grad_outputs (retain_graph=True, allow_unused=True: None counts as zeros)."""
    raise NotImplementedError("chapter 08: one grad() call per output element, with a one-hot gradient")
