"""``nn.Parameter``: a tensor that a Module treats as one of its learnable weights."""
from teachgrad import printing
from teachgrad.tensor import Tensor


class Parameter(Tensor):
    """A leaf tensor that requires grad (by default) and registers itself when assigned
    to a Module attribute. It shares memory with the tensor it is made from."""

    def __new__(cls, data=None, requires_grad=True):
        from teachgrad.creation import empty
        data = empty(0) if data is None else data.detach()
        if requires_grad and not data.dtype.is_floating_point:
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               "gradients")
        parameter = cls._make(data._data, data._version_counter)
        parameter.requires_grad = requires_grad
        return parameter

    def __init__(self, data=None, requires_grad=True):
        """Everything happens in ``__new__`` (``Tensor.__init__`` would copy the data)."""

    def __deepcopy__(self, memo):
        """A copy of the values and the flag; unlike a plain tensor's copy, no ``.grad``."""
        copy = Parameter(self.detach().clone(), self._requires_grad)
        memo[id(self)] = copy
        return copy

    def __repr__(self):
        return printing.format_parameter(self._data, dtype_name=repr(self.dtype),
                                         requires_grad=self._requires_grad)
