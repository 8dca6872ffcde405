"""``autograd.Variable``: PyTorch's wrapper before version 0.4, now an alias for tensors.

Old tutorials write ``Variable(x, requires_grad=True)``. Every tensor is a Variable
now: the call returns ``x.detach()`` (a new leaf sharing ``x``'s memory and version
counter) with ``requires_grad`` set, and ``isinstance(t, Variable)`` holds for any tensor.
"""
import warnings


class _VariableMeta(type):
    def __instancecheck__(cls, other):
        from teachgrad.tensor import Tensor
        return isinstance(other, Tensor)


class Variable(metaclass=_VariableMeta):
    def __new__(cls, data=None, requires_grad=False, volatile=False):
        from teachgrad.tensor import Tensor
        if volatile:
            warnings.warn("volatile was removed and now has no effect. Use `with "
                          "torch.no_grad():` instead.", UserWarning, stacklevel=2)
        if data is None:
            data = Tensor()
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        if requires_grad and not data.dtype.is_floating_point:
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               "gradients")
        return data.detach().requires_grad_(requires_grad)
