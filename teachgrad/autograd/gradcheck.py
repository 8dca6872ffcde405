"""Check a backward formula against finite differences, as torch.autograd.gradcheck does."""
import warnings

import numpy as np

from teachgrad.autograd import forward_ad, functional


class GradcheckError(RuntimeError):
    pass


def _numerical_jacobian(fn, inputs, index, eps):
    """d outputs / d inputs[index], column by column, with central differences."""
    x = inputs[index]
    flat = x._data.reshape(-1)
    columns = []
    for i in range(flat.size):
        original = flat[i]
        flat[i] = original + eps
        plus = _flat_outputs(fn(*inputs))
        flat[i] = original - eps
        minus = _flat_outputs(fn(*inputs))
        flat[i] = original
        columns.append((plus - minus) / (2 * eps))
    return np.stack(columns, axis=1) if columns else np.zeros((0, 0))


def _flat_outputs(outputs):
    outputs = outputs if isinstance(outputs, tuple) else (outputs,)
    return np.concatenate([o.detach()._data.reshape(-1).astype(np.float64) for o in outputs])


def _analytical_jacobian(fn, inputs, index):
    """The same Jacobian, row by row, from backward with one-hot output gradients."""
    from teachgrad import creation
    outputs = fn(*inputs)
    outputs = outputs if isinstance(outputs, tuple) else (outputs,)
    rows = []
    for k, out in enumerate(outputs):
        for j in range(out.numel()):
            one_hot = [creation.zeros_like(o) for o in outputs]
            one_hot[k]._data.reshape(-1)[j] = 1.0
            grad, = functional.grad(outputs, [inputs[index]], one_hot, retain_graph=True,
                                    allow_unused=True)
            rows.append(np.zeros(inputs[index].numel()) if grad is None
                        else grad._data.reshape(-1).astype(np.float64))
    return np.stack(rows, axis=0)


def _forward_mode_jacobian(fn, inputs, index):
    """The same Jacobian, column by column, from forward mode with one-hot tangents."""
    from teachgrad import creation
    x = inputs[index]
    columns = []
    with forward_ad.dual_level():
        for j in range(x.numel()):
            one_hot = creation.zeros_like(x)
            one_hot._data.reshape(-1)[j] = 1.0
            duals = list(inputs)
            duals[index] = forward_ad.make_dual(x.detach(), one_hot)
            outputs = fn(*duals)
            outputs = outputs if isinstance(outputs, tuple) else (outputs,)
            tangents = [forward_ad.unpack_dual(o).tangent for o in outputs]
            columns.append(np.concatenate([
                np.zeros(o.numel()) if t is None else t._data.reshape(-1).astype(np.float64)
                for o, t in zip(outputs, tangents)]))
    return np.stack(columns, axis=1)


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              check_forward_ad=False, check_backward_ad=True, **_ignored):
    """True when backward (``check_backward_ad``) and forward mode (``check_forward_ad``)
    agree with finite differences for every input that requires grad.

    Use float64 inputs: in float32 the finite differences are too coarse.
    """
    from teachgrad.tensor import Tensor
    inputs = inputs if isinstance(inputs, tuple) else (inputs,)
    checked = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    for index in checked:
        if inputs[index].dtype.name != "float64":
            warnings.warn(f"Input #{index} requires gradient and is not a double precision "
                          f"floating point or complex. This check will likely fail if all the "
                          f"inputs are not of double precision floating point or complex. ",
                          UserWarning, stacklevel=2)
    if not (check_forward_ad or check_backward_ad):
        raise AssertionError("Expected at least one of check_forward_ad or check_backward_ad "
                             "to be True")
    modes = [(_analytical_jacobian, "")] if check_backward_ad else []
    if check_forward_ad:
        modes.append((_forward_mode_jacobian, " computed with forward mode"))
    for index in checked:
        numerical = _numerical_jacobian(func, inputs, index, eps)
        for jacobian, how in modes:
            analytical = jacobian(func, inputs, index)
            numerical = numerical.reshape(analytical.shape)
            if np.allclose(analytical, numerical, rtol=rtol, atol=atol):
                continue
            if not raise_exception:
                return False
            dtype = inputs[index].dtype.numpy       # (PyTorch prints one row per input element)
            raise GradcheckError(f"Jacobian{how} mismatch for output 0 with respect to input "
                                 f"{index},\n"
                                 f"numerical:{Tensor._make(numerical.T.astype(dtype))!r}\n"
                                 f"analytical:{Tensor._make(analytical.T.astype(dtype))!r}\n")
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  raise_exception=True, **_ignored):
    """gradcheck of the first derivative: are the second derivatives (backward of backward,
    built with create_graph) right? ``grad_outputs`` default to random values in [-1, 1),
    drawn from the global generator as PyTorch draws them (``torch.testing.make_tensor``),
    so the random numbers after a gradgradcheck are PyTorch's too."""
    inputs = inputs if isinstance(inputs, tuple) else (inputs,)
    if grad_outputs is None:
        grad_outputs = tuple(_random_grad_output(o) for o in _differentiable(func(*inputs)))
    grad_outputs = grad_outputs if isinstance(grad_outputs, tuple) else (grad_outputs,)
    count = len(inputs)

    def first_derivative(*args):
        xs, vs = args[:count], args[count:]
        needing = [x for x in xs if getattr(x, "requires_grad", False)]
        grads = functional.grad(_differentiable(func(*xs)), needing, vs, create_graph=True,
                                allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(first_derivative, inputs + tuple(grad_outputs), eps=eps, atol=atol,
                     rtol=rtol, raise_exception=raise_exception)


def _differentiable(outputs):
    """The outputs that require grad (gradgradcheck differentiates those)."""
    return [o for o in (outputs if isinstance(outputs, tuple) else (outputs,)) if o.requires_grad]


def _random_grad_output(output):
    """Uniform in [-1, 1), output's shape (float64 for a non-float output), requiring grad."""
    from teachgrad import creation, dtypes
    dtype = output.dtype if output.dtype.is_floating_point else dtypes.float64
    return creation.empty(*output.shape, dtype=dtype).uniform_(-1, 1).requires_grad_()
