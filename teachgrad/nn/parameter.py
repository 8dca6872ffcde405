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


class UninitializedParameter(Parameter):
    """A parameter whose shape is not known yet (a lazy module's, until its first call).
    ``materialize(shape)`` gives it memory, and from then on it is a plain Parameter."""

    def materialize(self, shape, dtype=None):
        from teachgrad.creation import empty
        self._data = empty(*shape, dtype=dtype)._data
        self.__class__ = Parameter

    @property
    def shape(self):
        raise RuntimeError("Can't access the shape of an uninitialized parameter or buffer. "
                           "This error usually happens in `load_state_dict` when trying to load "
                           "an uninitialized parameter into an initialized one. Call `forward` "
                           "to initialize the parameters before accessing their attributes.")

    def detach(self):
        return UninitializedParameter(requires_grad=False)

    def __repr__(self):
        return "<UninitializedParameter>"
