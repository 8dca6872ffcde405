"""Data types and PyTorch's type-promotion rules.

A teachgrad dtype is a thin named wrapper around a numpy dtype, printed the way
PyTorch prints its own (``teachgrad.float32``).
"""
import numpy as np


class dtype:
    """One element type, such as ``teachgrad.float32``."""

    def __init__(self, name, numpy_dtype, category, legacy_name):
        self.name = name
        self.numpy = np.dtype(numpy_dtype)
        self.category = category          # 0 bool, 1 integer, 2 floating point
        self.legacy_name = legacy_name    # "FloatTensor", used in error messages

    @property
    def short_name(self):
        """How PyTorch's messages name the dtype: "Float", "Double", "Long"."""
        return self.legacy_name[:-len("Tensor")]

    @property
    def is_floating_point(self):
        return self.category == 2

    def __repr__(self):
        return f"teachgrad.{self.name}"

    def __reduce__(self):
        return self.name


bool_ = dtype("bool", np.bool_, 0, "BoolTensor")
uint8 = dtype("uint8", np.uint8, 1, "ByteTensor")
int32 = dtype("int32", np.int32, 1, "IntTensor")
int64 = dtype("int64", np.int64, 1, "LongTensor")
float16 = dtype("float16", np.float16, 2, "HalfTensor")
float32 = dtype("float32", np.float32, 2, "FloatTensor")
float64 = dtype("float64", np.float64, 2, "DoubleTensor")

BY_NUMPY = {d.numpy: d for d in (bool_, uint8, int32, int64, float16, float32, float64)}

# How PyTorch's C++ messages name a dtype ("expected m1 and m2 to have the same dtype, but
# got: float != double")
C_NAMES = {"bool": "bool", "uint8": "unsigned char", "int32": "int", "int64": "long int",
           "float16": "c10::Half", "float32": "float", "float64": "double"}
_DEFAULT_FLOAT = [float32]

# How PyTorch's overflow check names a dtype ("value cannot be converted to type int64_t
# without overflow")
_OVERFLOW_NAMES = {"uint8": "uint8_t", "int32": "int", "int64": "int64_t",
                   "float16": "c10::Half", "float32": "float", "float64": "double"}


def check_fits(number, dtype, numel=2):
    """Refuse, as PyTorch does, a Python number that ``dtype`` cannot hold (``fill_``, ``full``).

    A float type holds inf and nan but nothing finite beyond its largest value; an integer
    type holds neither, and an unsigned one also takes -max..-1 (they wrap around). Numbers
    go to bool as they are. One quirk is PyTorch's own: a one-element float16 tensor is
    filled without the check (and becomes inf).
    """
    if isinstance(number, int) and not -2**63 <= number < 2**64:
        raise OverflowError("int too big to convert" if number > 0 else
                            "can't convert negative int to unsigned")
    if dtype is bool_ or (dtype is float16 and numel == 1):
        return
    if dtype.is_floating_point:
        largest = float(np.finfo(dtype.numpy).max)
        fits = not np.isfinite(number) or -largest <= number <= largest
    else:
        limits = np.iinfo(dtype.numpy)
        largest = float(limits.max) if isinstance(number, float) else int(limits.max)
        smallest = -largest if limits.min == 0 else limits.min
        fits = bool(np.isfinite(number)) and smallest <= number <= largest
    if not fits:
        raise RuntimeError(f"value cannot be converted to type {_OVERFLOW_NAMES[dtype.name]} "
                           "without overflow")


def from_numpy_dtype(numpy_dtype):
    """The teachgrad dtype of a numpy dtype (TypeError if teachgrad has none)."""
    try:
        return BY_NUMPY[np.dtype(numpy_dtype)]
    except KeyError:
        raise TypeError(f"can't convert np.ndarray of type numpy.{np.dtype(numpy_dtype)}. "
                        "The only supported types are: float64, float32, float16, int64, "
                        "int32, uint8, and bool.") from None


def get_default_dtype():
    return _DEFAULT_FLOAT[0]


def set_default_dtype(d):
    if d not in (float32, float64):
        raise TypeError("only floating-point types are supported as the default type")
    _DEFAULT_FLOAT[0] = d


def scalar_category(value):
    """Category of a Python number: bool 0, int 1, float 2."""
    if isinstance(value, (bool, np.bool_)):
        return 0
    if isinstance(value, (int, np.integer)):
        return 1
    return 2


def default_dtype_for_category(category):
    return (bool_, int64, get_default_dtype())[category]


def result_type(operands):
    """The dtype of an operation's result, by PyTorch's promotion rules.

    Operands come in three tiers of priority: tensors with dimensions, 0-dim
    tensors, and Python numbers. A lower tier only decides the result when it
    holds a higher category (bool < integer < float): ``int_tensor * 2.5`` is
    float32, but ``float32_tensor * 2.5`` stays float32 and
    ``float32_vector + float64_scalar_tensor`` stays float32 too.
    """
    best = None
    for tier in _tiers(operands):
        if not tier:
            continue
        tier_best = max(tier, key=lambda d: (d.category, d.numpy.itemsize))
        if best is None:
            best = tier_best
        elif tier_best.category > best.category:
            best = tier_best
    return best


def _tiers(operands):
    dimensioned, zero_dim, numbers = [], [], []
    for x in operands:
        if hasattr(x, "_data"):
            (dimensioned if x._data.ndim else zero_dim).append(x.dtype)
        else:
            numbers.append(default_dtype_for_category(scalar_category(x)))
    return dimensioned, zero_dim, numbers


# ---- the limits of each dtype ------------------------------------------------
class finfo:
    """The limits of a floating dtype: ``finfo(float32).eps`` (numpy's numbers)."""

    def __init__(self, type=None):
        type = get_default_dtype() if type is None else type
        if not type.is_floating_point:
            raise TypeError("torch.finfo() requires a floating point input type. "
                            "Use torch.iinfo to handle 'torch.finfo'")
        info = np.finfo(type.numpy)
        self.bits, self.dtype = info.bits, type.name
        self.eps, self.resolution = float(info.eps), 10.0 ** -info.precision
        self.max, self.min = float(info.max), float(info.min)
        self.tiny = self.smallest_normal = float(info.smallest_normal)

    def __eq__(self, other):
        return isinstance(other, finfo) and self.dtype == other.dtype

    def __hash__(self):
        return hash(self.dtype)

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, "
                f"tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:
    """The limits of an integer dtype: ``iinfo(int64).max``."""

    def __init__(self, type):
        if type is bool_:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if type.category != 1:
            raise TypeError("torch.iinfo() requires an integer input type. "
                            "Use torch.finfo to handle 'torch.iinfo'")
        info = np.iinfo(type.numpy)
        self.bits, self.dtype = info.bits, type.name
        self.max, self.min = int(info.max), int(info.min)

    def __eq__(self, other):
        return isinstance(other, iinfo) and self.dtype == other.dtype

    def __hash__(self):
        return hash(self.dtype)

    def __repr__(self):
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"
