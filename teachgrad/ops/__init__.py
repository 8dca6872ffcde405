"""The differentiable primitives, and the one place where they become Tensor methods.

``tensor.py`` knows nothing of the operations; this module attaches them
(``Tensor.exp = pointwise.exp``, ``Tensor.__mul__ = pointwise.mul``...), so the
two never import each other in a circle.
"""
import functools

from teachgrad import creation, devices, dtypes, legacy
from teachgrad.autograd import functional
from teachgrad.ops import indexing, inplace, jacobians, linalg, pointwise, reduction, shape
from teachgrad.ops import histogram, unary_inplace
from teachgrad.ops import forward_rules  # noqa: F401  (registers the JVP rules with forward_ad)
from teachgrad.tensor import Tensor


def _swap(function):
    """For reflected operators: ``2 - x`` calls ``x.__rsub__(2)``."""
    return lambda self, other: function(other, self)


def _conversion(dtype):
    return lambda self: pointwise.to_dtype(self, dtype)


def destination(args, dtype=None, device=None):
    """The dtype of ``x.to(...)`` or ``model.to(...)`` (None: unchanged), whose arguments may
    be a dtype, a tensor (its dtype) or a device: the CPU, the only one; any other device
    gets PyTorch's error."""
    for arg in args:
        if isinstance(arg, dtypes.dtype):
            dtype = arg
        elif isinstance(arg, Tensor):
            dtype = arg.dtype
        else:
            device = arg
    if device is not None:
        devices.check(device, "move")
    return dtype


def _to(self, *args, dtype=None, device=None, non_blocking=False, **kwargs):
    """``x.to(teachgrad.float64)``, ``x.to("cpu")``, ``x.to(other)``."""
    dtype = destination(args, dtype, device)
    return self if dtype is None else pointwise.to_dtype(self, dtype)


def _type(self, dtype=None, non_blocking=False):
    """``x.type()`` names the legacy class ("teachgrad.FloatTensor"); ``x.type(t)``
    converts to the dtype of ``t``: a dtype, a legacy class or its name."""
    if dtype is None:
        return f"teachgrad.{self.dtype.legacy_name}"
    return pointwise.to_dtype(self, legacy.dtype_of(dtype))


def numpy_spellings(function):
    """PyTorch also takes numpy's names ``axis`` for ``dim`` and ``keepdims`` for
    ``keepdim``: ``x.sum(axis=0, keepdims=True)``."""
    @functools.wraps(function)
    def with_numpy_names(*args, **kwargs):
        if "axis" in kwargs:
            kwargs["dim"] = kwargs.pop("axis")
        if "keepdims" in kwargs:
            kwargs["keepdim"] = kwargs.pop("keepdims")
        return function(*args, **kwargs)
    return with_numpy_names


# The reductions take numpy's spellings, as methods and as teachgrad.sum etc. (which
# teachgrad/__init__.py imports from reduction after this rebinding).
for _name in ("sum", "mean", "prod", "var", "std", "max", "min", "amax", "amin", "argmax",
              "argmin", "logsumexp", "norm", "all", "any", "median", "nanmedian", "mode",
              "nansum", "nanmean", "quantile", "nanquantile", "var_mean", "std_mean",
              "aminmax", "kthvalue", "count_nonzero"):
    setattr(reduction, _name, numpy_spellings(getattr(reduction, _name)))


def _size_args(function):
    """Methods such as ``x.view(2, 3)`` take the shape as varargs."""
    return lambda self, *shape: function(self, *shape)


METHODS = {
    # arithmetic and operators
    "add": pointwise.add, "sub": pointwise.sub, "mul": pointwise.mul, "div": pointwise.div,
    "neg": pointwise.neg, "pow": pointwise.pow,
    "__add__": pointwise.add, "__radd__": pointwise.add,
    "__sub__": pointwise.sub, "__rsub__": pointwise.rsub,
    "__mul__": pointwise.mul, "__rmul__": pointwise.mul,
    "__truediv__": pointwise.div, "__rtruediv__": pointwise.rdiv,
    "__floordiv__": pointwise.floor_divide, "__mod__": pointwise.remainder,
    "__rfloordiv__": _swap(pointwise.floor_divide), "__rmod__": _swap(pointwise.remainder),
    "floor_divide": pointwise.floor_divide, "remainder": pointwise.remainder,
    "__neg__": pointwise.neg, "__pow__": pointwise.pow, "__rpow__": pointwise.rpow,
    "__matmul__": linalg.matmul, "__rmatmul__": _swap(linalg.matmul),
    "__eq__": pointwise.eq, "__ne__": pointwise.ne, "__lt__": pointwise.lt,
    "__le__": pointwise.le, "__gt__": pointwise.gt, "__ge__": pointwise.ge,
    "__and__": pointwise.bitwise_and, "__or__": pointwise.bitwise_or,
    "__invert__": pointwise.bitwise_not,
    "eq": pointwise.eq, "ne": pointwise.ne, "lt": pointwise.lt, "le": pointwise.le,
    "gt": pointwise.gt, "ge": pointwise.ge, "equal": pointwise.equal,
    "allclose": pointwise.allclose, "isclose": pointwise.isclose, "isnan": pointwise.isnan, "isfinite": pointwise.isfinite,
    "logical_not": pointwise.logical_not, "logical_and": pointwise.logical_and,
    "logical_or": pointwise.logical_or,
    # functions of one tensor
    "exp": pointwise.exp, "log": pointwise.log, "sqrt": pointwise.sqrt,
    "reciprocal": pointwise.reciprocal, "abs": pointwise.abs, "__abs__": pointwise.abs,
    "sign": pointwise.sign, "sin": pointwise.sin, "cos": pointwise.cos,
    "tanh": pointwise.tanh, "sigmoid": pointwise.sigmoid, "relu": pointwise.relu,
    "clamp": pointwise.clamp, "clip": pointwise.clamp, "maximum": pointwise.maximum,
    "clamp_min": pointwise.clamp_min, "clamp_max": pointwise.clamp_max,
    "minimum": pointwise.minimum, "clone": inplace.clone,
    "masked_fill": pointwise.masked_fill, "masked_fill_": pointwise.masked_fill_,
    "square": pointwise.square, "floor": pointwise.floor, "ceil": pointwise.ceil,
    "round": pointwise.round, "log1p": pointwise.log1p, "expm1": pointwise.expm1,
    "rsqrt": pointwise.rsqrt, "erf": pointwise.erf, "lerp": pointwise.lerp,
    "addcmul": pointwise.addcmul, "addcdiv": pointwise.addcdiv,
    "tan": pointwise.tan, "asin": pointwise.asin, "acos": pointwise.acos, "atan": pointwise.atan,
    "arcsin": pointwise.asin, "arccos": pointwise.acos, "arctan": pointwise.atan,
    "atan2": pointwise.atan2, "arctan2": pointwise.atan2, "sinh": pointwise.sinh,
    "cosh": pointwise.cosh, "log2": pointwise.log2, "log10": pointwise.log10,
    "trunc": pointwise.trunc, "fix": pointwise.trunc, "isinf": pointwise.isinf,
    "nan_to_num": pointwise.nan_to_num, "fmod": pointwise.fmod,
    "where": lambda self, condition, other: pointwise.where(condition, self, other),
    "sgn": pointwise.sgn, "asinh": pointwise.asinh, "acosh": pointwise.acosh,
    "atanh": pointwise.atanh, "arcsinh": pointwise.asinh, "arccosh": pointwise.acosh,
    "arctanh": pointwise.atanh, "erfc": pointwise.erfc, "erfinv": pointwise.erfinv,
    "exp2": pointwise.exp2, "frac": pointwise.frac, "logit": pointwise.logit,
    "sinc": pointwise.sinc, "deg2rad": pointwise.deg2rad, "rad2deg": pointwise.rad2deg,
    "hypot": pointwise.hypot, "logaddexp": pointwise.logaddexp,
    "logaddexp2": pointwise.logaddexp2, "xlogy": pointwise.xlogy,
    "copysign": pointwise.copysign, "heaviside": pointwise.heaviside,
    "fmax": pointwise.fmax, "fmin": pointwise.fmin, "float_power": pointwise.float_power,
    "nextafter": pointwise.nextafter, "ldexp": pointwise.ldexp,
    "signbit": pointwise.signbit, "isneginf": pointwise.isneginf,
    "isposinf": pointwise.isposinf, "isreal": pointwise.isreal,
    "absolute": pointwise.abs, "negative": pointwise.neg, "positive": pointwise.positive,
    "multiply": pointwise.mul, "divide": pointwise.div, "subtract": pointwise.sub,
    "true_divide": pointwise.div, "not_equal": pointwise.ne,
    "logical_xor": pointwise.logical_xor,
    "sgn_": pointwise.sgn_, "asinh_": pointwise.asinh_, "acosh_": pointwise.acosh_,
    "atanh_": pointwise.atanh_, "arcsinh_": pointwise.asinh_, "arccosh_": pointwise.acosh_,
    "arctanh_": pointwise.atanh_, "erfc_": pointwise.erfc_, "erfinv_": pointwise.erfinv_,
    "exp2_": pointwise.exp2_, "frac_": pointwise.frac_, "logit_": pointwise.logit_,
    "sinc_": pointwise.sinc_, "deg2rad_": pointwise.deg2rad_, "rad2deg_": pointwise.rad2deg_,
    "hypot_": pointwise.hypot_, "xlogy_": pointwise.xlogy_, "copysign_": pointwise.copysign_,
    "heaviside_": pointwise.heaviside_, "float_power_": pointwise.float_power_,
    "nextafter_": pointwise.nextafter_, "ldexp_": pointwise.ldexp_,
    "abs_": pointwise.abs_, "absolute_": pointwise.abs_, "negative_": inplace.neg_,
    "multiply_": inplace.mul_, "divide_": inplace.div_, "subtract_": inplace.sub_,
    "true_divide_": inplace.div_,
    "aminmax": reduction.aminmax, "cummax": reduction.cummax, "cummin": reduction.cummin,
    "logcumsumexp": reduction.logcumsumexp,
    # conversions
    "to": _to, "type": _type,
    "float": _conversion(dtypes.float32), "double": _conversion(dtypes.float64),
    "half": _conversion(dtypes.float16), "long": _conversion(dtypes.int64),
    "int": _conversion(dtypes.int32), "bool": _conversion(dtypes.bool_),
    "type_as": lambda self, other: pointwise.to_dtype(self, other.dtype),
    # reductions
    "sum": reduction.sum, "mean": reduction.mean, "max": reduction.max, "min": reduction.min,
    "amax": reduction.amax, "amin": reduction.amin, "argmax": reduction.argmax,
    "argmin": reduction.argmin, "softmax": reduction.softmax,
    "log_softmax": reduction.log_softmax, "logsumexp": reduction.logsumexp,
    "norm": reduction.norm, "sum_to_size": reduction.sum_to_size,
    "all": reduction.all, "any": reduction.any,
    "var": reduction.var, "std": reduction.std, "cumsum": reduction.cumsum,
    "cumprod": reduction.cumprod,
    "prod": reduction.prod, "sort": reduction.sort, "argsort": reduction.argsort, "topk": reduction.topk,
    "median": reduction.median, "nanmedian": reduction.nanmedian, "mode": reduction.mode,
    "kthvalue": reduction.kthvalue, "quantile": reduction.quantile,
    "nanquantile": reduction.nanquantile, "nansum": reduction.nansum,
    "nanmean": reduction.nanmean, "count_nonzero": reduction.count_nonzero,
    "unique": reduction.unique, "unique_consecutive": reduction.unique_consecutive,
    # shapes and views
    "view": _size_args(shape.view), "reshape": _size_args(shape.reshape),
    "expand": _size_args(shape.expand), "permute": _size_args(shape.permute),
    "flatten": shape.flatten, "unflatten": shape.unflatten, "squeeze": shape.squeeze,
    "unsqueeze": shape.unsqueeze, "transpose": shape.transpose, "t": shape.t,
    "swapaxes": shape.transpose, "swapdims": shape.transpose,
    "expand_as": shape.expand_as, "contiguous": shape.contiguous,
    "view_as": lambda self, other: shape.view(self, other.shape),
    "reshape_as": lambda self, other: shape.reshape(self, other.shape),
    "narrow": shape.narrow, "select": shape.select, "unbind": shape.unbind,
    "split": shape.split, "chunk": shape.chunk, "flip": shape.flip,
    "unsafe_split": shape.unsafe_split, "unsafe_chunk": shape.unsafe_chunk,
    "tril": shape.tril, "triu": shape.triu, "roll": shape.roll,
    "repeat": _size_args(shape.repeat), "tile": _size_args(shape.tile),
    "movedim": shape.movedim, "diagonal": shape.diagonal, "diag": shape.diag,
    "diag_embed": shape.diag_embed, "broadcast_to": shape.broadcast_to, "diff": shape.diff,
    "repeat_interleave": shape.repeat_interleave,
    "ravel": shape.ravel, "moveaxis": shape.movedim, "rot90": shape.rot90,
    "fliplr": shape.fliplr, "flipud": shape.flipud, "tensor_split": shape.tensor_split,
    "hsplit": shape.hsplit, "vsplit": shape.vsplit, "dsplit": shape.dsplit,
    "narrow_copy": shape.narrow_copy, "diagflat": shape.diagflat,
    "as_strided": shape.as_strided,
    "trace": reduction.trace,
    # matrix products
    "matmul": linalg.matmul, "mm": linalg.mm, "mv": linalg.mv, "dot": linalg.dot,
    "addmm": linalg.addmm, "bmm": linalg.bmm, "outer": linalg.outer, "kron": linalg.kron,
    "cross": linalg.cross, "det": linalg.det, "logdet": linalg.logdet, "slogdet": linalg.slogdet,
    "inverse": linalg.inverse, "dist": linalg.dist,
    # indexing
    "__getitem__": indexing.index, "__setitem__": indexing.setitem,
    "gather": indexing.gather, "scatter_add": indexing.scatter_add,
    "scatter": indexing.scatter, "index_select": indexing.index_select,
    "index_add": indexing.index_add, "masked_select": indexing.masked_select,
    "masked_scatter": indexing.masked_scatter, "masked_scatter_": indexing.masked_scatter_,
    "nonzero": indexing.nonzero,
    "take": indexing.take, "take_along_dim": indexing.take_along_dim, "put": indexing.put,
    "put_": indexing.put_, "multinomial": creation.multinomial,
    "index_copy": indexing.index_copy, "index_copy_": indexing.index_copy_,
    "index_fill": indexing.index_fill, "index_fill_": indexing.index_fill_,
    "select_scatter": indexing.select_scatter, "slice_scatter": indexing.slice_scatter,
    "diagonal_scatter": indexing.diagonal_scatter,
    # new tensors with this one's dtype
    "new_zeros": creation.new_zeros, "new_ones": creation.new_ones,
    "new_full": creation.new_full, "new_tensor": creation.new_tensor,
    # in place
    "add_": inplace.add_, "sub_": inplace.sub_, "mul_": inplace.mul_, "div_": inplace.div_,
    "pow_": inplace.pow_, "neg_": inplace.neg_, "exp_": inplace.exp_,
    "sigmoid_": inplace.sigmoid_, "tanh_": inplace.tanh_, "relu_": inplace.relu_,
    "clamp_": inplace.clamp_, "zero_": inplace.zero_, "fill_": inplace.fill_,
    "clamp_min_": inplace.clamp_min_, "clamp_max_": inplace.clamp_max_,
    "copy_": inplace.copy_, "uniform_": inplace.uniform_, "normal_": inplace.normal_,
    "addmm_": inplace.addmm_,
    "bernoulli": inplace.bernoulli, "bernoulli_": inplace.bernoulli_,
    "t_": inplace.t_, "transpose_": inplace.transpose_, "swapaxes_": inplace.transpose_,
    "swapdims_": inplace.transpose_, "squeeze_": inplace.squeeze_,
    "unsqueeze_": inplace.unsqueeze_,
    "__iadd__": inplace.add_, "__isub__": inplace.sub_, "__imul__": inplace.mul_,
    "__itruediv__": inplace.div_,
}

METHODS.update(histc=histogram.histc, histogram=histogram.histogram)
METHODS.update(unary_inplace.FUNCTIONS)      # cos_, sqrt_, log_... (ops/unary_inplace.py)
for _name, _function in METHODS.items():
    setattr(Tensor, _name, _function)
Tensor.T = property(shape.T)
Tensor.mT = property(lambda self: self.transpose(-2, -1))

# torch.autograd.functional's jacobian, hessian, vjp... stack and reshape tensors, so they
# are written with the ops (ops/jacobians.py) and attached to autograd.functional here.
for _name in jacobians.__all__:
    setattr(functional, _name, getattr(jacobians, _name))
