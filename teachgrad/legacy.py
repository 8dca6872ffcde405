"""PyTorch's legacy tensor types: ``FloatTensor([1, 2])``, ``isinstance(x, LongTensor)``,
``x.type(DoubleTensor)``.

Older tutorials make tensors with these classes. Each one stands for a dtype: calling it
makes a tensor of that dtype (from data, or from a shape), and ``isinstance`` asks
whether a tensor has that dtype. They are not subclasses of Tensor, as in PyTorch.
"""
from teachgrad import devices, dtypes
from teachgrad.tensor import Tensor, legacy_array


class tensortype(type):
    """The type of the legacy classes (PyTorch's ``torch.tensortype``)."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and obj.dtype is cls.dtype

    def __call__(cls, *data_or_shape, device=None):
        devices.check_legacy(device)
        if len(data_or_shape) == 1 and isinstance(data_or_shape[0], Tensor):
            return _same_dtype(data_or_shape[0], cls.dtype)
        return Tensor._make(legacy_array(data_or_shape, cls.dtype.numpy))

    def __repr__(cls):
        return f"<class 'teachgrad.{cls.__name__}'>"


def _same_dtype(tensor, dtype):
    if tensor.dtype is not dtype:
        raise TypeError(f"expected {_options(dtype)} (got {_options(tensor.dtype)})")
    return tensor


def _options(dtype):
    """How PyTorch's C++ prints the options of a CPU tensor of ``dtype``."""
    return (f"TensorOptions(dtype={dtypes.C_NAMES[dtype.name]}, device=cpu, layout=Strided, "
            "requires_grad=false (default), pinned_memory=false (default), "
            "memory_format=(nullopt))")


def _legacy_class(dtype):
    return tensortype(dtype.legacy_name, (), {"dtype": dtype, "__module__": "teachgrad"})


BoolTensor, ByteTensor, IntTensor, LongTensor, HalfTensor, FloatTensor, DoubleTensor = (
    _legacy_class(dtype) for dtype in (dtypes.bool_, dtypes.uint8, dtypes.int32, dtypes.int64,
                                       dtypes.float16, dtypes.float32, dtypes.float64))
BY_NAME = {cls.__name__: cls for cls in (BoolTensor, ByteTensor, IntTensor, LongTensor,
                                         HalfTensor, FloatTensor, DoubleTensor)}


def dtype_of(type_):
    """The dtype ``x.type(type_)`` asks for: a dtype, a legacy class or its name
    (``"torch.LongTensor"`` as well as ``"teachgrad.LongTensor"``)."""
    if isinstance(type_, dtypes.dtype):
        return type_
    if isinstance(type_, tensortype):
        return type_.dtype
    package, _, name = str(type_).rpartition(".")
    if package not in ("torch", "teachgrad") or name not in BY_NAME:
        raise ValueError(f"invalid type: '{type_}'")
    return BY_NAME[name].dtype
