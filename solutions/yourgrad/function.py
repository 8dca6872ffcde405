"""Chapter 08 — your own operation: Function, whose node (MyExpBackward) is its ctx; gradcheck."""
import numpy as np

from . import autograd, grad_mode, graph, tensor

class BackwardFunction(graph.Node):
    """A Function call's node and ctx; subclassed per Function, with `function` the class."""
    def save_for_backward(self, *tensors):
        """Keep tensors, version-checked as in chapter 05. PyTorch's TypeError for anything
        else: "save_for_backward can only save variables, but argument 1 is of type float"."""
        ### BEGIN SOLUTION chapter 08: refuse non-tensors; save each tensor under its position
        for i, t in enumerate(tensors):
            if not isinstance(t, tensor.Tensor):
                raise TypeError("save_for_backward can only save variables, but argument "
                                f"{i} is of type {type(t).__name__}")
        self.save(**{f"tensor_{i}": t for i, t in enumerate(tensors)})
        self.saved_count = len(tensors)
        ### END SOLUTION

    @property
    def saved_tensors(self):
        return tuple(getattr(self, f"_saved_tensor_{i}") for i in range(self.saved_count))

    def backward(self, grad):
        """The Function's backward; keep the tensor arguments' gradients. A wrong count: "function
        MyExpBackward returned an incorrect number of gradients (expected 2, got 1)"."""
        ### BEGIN SOLUTION chapter 08: call function.backward(self, grad) and check the count
        grads = self.function.backward(self, grad)
        grads = grads if isinstance(grads, tuple) else (grads,)
        if len(grads) != len(self.is_tensor):
            raise RuntimeError(f"function {self.name()} returned an incorrect number of "
                               f"gradients (expected {len(self.is_tensor)}, got {len(grads)})")
        return [g for g, is_tensor in zip(grads, self.is_tensor) if is_tensor]
        ### END SOLUTION

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
        ### BEGIN SOLUTION chapter 08: run forward under no_grad, then record ctx if needed
        with grad_mode.no_grad():
            output = cls.forward(ctx, *args)
        if grad_mode.is_grad_enabled() and any(ctx.needs_input_grad):
            flags = ctx.needs_input_grad
            graph.record(ctx, [a for a in args if isinstance(a, tensor.Tensor)], output)
            ctx.needs_input_grad = flags
        return output
        ### END SOLUTION

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
    ### BEGIN SOLUTION chapter 08: central differences, one element of x at a time
    rows = []
    with grad_mode.no_grad():
        for k in range(x.numel()):
            original = x.array.flat[k]
            x.array.flat[k] = original + eps
            above = function(*inputs).array.ravel()
            x.array.flat[k] = original - eps
            below = function(*inputs).array.ravel()
            x.array.flat[k] = original
            rows.append((above - below) / (2 * eps))
    return np.array(rows)
    ### END SOLUTION

def analytical_jacobian(output, x):
    """Column j: x's gradient of output element j, from autograd.grad with a one-hot
    grad_outputs (retain_graph=True, allow_unused=True: None counts as zeros)."""
    ### BEGIN SOLUTION chapter 08: one grad() call per output element, with a one-hot gradient
    columns = []
    for j in range(output.numel()):
        one_hot = np.zeros(output.numel(), output.dtype)
        one_hot[j] = 1
        column, = autograd.grad(output, x, tensor.Tensor(one_hot.reshape(output.shape)),
                                retain_graph=True, allow_unused=True)
        columns.append(np.zeros(x.numel()) if column is None else column.array.ravel())
    return np.array(columns).T
    ### END SOLUTION
