"""Chapter 08 — your own operation: Function, whose node (MyExpBackward) is its ctx; gradcheck."""
import numpy as np

from . import autograd, grad_mode, graph, tensor

class BackwardFunction(graph.Node):
    """A Function call's node and ctx; subclassed per Function, with `function` the class."""
    def save_for_backward(self, *tensors):
        """Keep tensors, version-checked as in chapter 05. PyTorch's TypeError for anything
        else: "save_for_backward can only save variables, but argument 1 is of type float"."""
        raise NotImplementedError("chapter 08: refuse non-tensors; save each tensor under its position")

    @property
    def saved_tensors(self):
        return tuple(getattr(self, f"_saved_tensor_{i}") for i in range(self.saved_count))

    def backward(self, grad):
        """The Function's backward; keep the tensor arguments' gradients. A wrong count: "function
        MyExpBackward returned an incorrect number of gradients (expected 2, got 1)"."""
        raise NotImplementedError("chapter 08: call function.backward(self, grad) and check the count")

class Function:
    """Subclass it with static `forward(ctx, ...)` and `backward(ctx, grad)`; call `apply`."""
    def __init_subclass__(cls):
        cls.node_class = type(f"{cls.__name__}Backward", (BackwardFunction,), {"function": cls})

    @classmethod
    def apply(cls, *args):
        """1. cls.forward(ctx, *args) with recording off (no_grad): the Function is ONE node,
        its inside is not recorded. 2. If grad mode is on and a tensor argument requires grad:
        graph.record(ctx, the tensor arguments only, output) — which sets needs_input_grad to
        one flag per tensor: put back the flags computed above, one per argument (numbers too)."""
        ctx = cls.node_class()
        ctx.is_tensor = [isinstance(a, tensor.Tensor) for a in args]
        ctx.needs_input_grad = tuple(isinstance(a, tensor.Tensor) and a.requires_grad
                                     for a in args)
        raise NotImplementedError("chapter 08: run forward under no_grad, then record ctx if needed")

class GradcheckError(RuntimeError):
    """What gradcheck raises when backward disagrees with the central differences."""

def gradcheck(function, inputs, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True):
    """Compare `function`'s backward with central differences for each float64 input that
    requires grad; PyTorch's tolerances and error ("Jacobian mismatch for output 0 ...")."""
    inputs = autograd.as_list(inputs)
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
    """Row k: (f(x + eps) - f(x - eps)) / (2 eps), the output flattened, moving element k of
    x.array only (and putting it back), with recording off."""
    raise NotImplementedError("chapter 08: central differences, one element of x at a time")

def analytical_jacobian(output, x):
    """Column j: x's gradient of output element j, from autograd.grad with a one-hot
    grad_outputs (retain_graph=True, allow_unused=True: None counts as zeros)."""
    raise NotImplementedError("chapter 08: one grad() call per output element, with a one-hot gradient")
