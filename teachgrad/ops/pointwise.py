"""Element-wise operations: arithmetic, functions of one tensor, comparisons.

Each class is one node type, named as PyTorch names it. ``forward`` works on
numpy arrays; ``backward`` returns one gradient per tensor input, written with
teachgrad operations. A gradient may have the broadcast shape: the engine sums
it back to the input's shape (see ``engine.validate_outputs``).
"""
import math

import numpy as np

from teachgrad import dtypes
from teachgrad.autograd import grad_mode
from teachgrad.autograd.operation import Operation
from teachgrad.ieee import cast, quiet, quiet_numpy
from teachgrad.tensor import Tensor


def as_tensor_like(value, like):
    """A Python number as a 0-d tensor of the dtype the operation will compute in.

    A number never widens the tensor's dtype within its category (``float32 * 2.5``
    stays float32); it only lifts the category (``int_tensor * 2.5`` is float32).
    """
    if isinstance(value, Tensor):
        return value
    category = dtypes.scalar_category(value)
    like_dtype = like.dtype
    dtype = like_dtype if category <= like_dtype.category else \
        dtypes.default_dtype_for_category(category)
    number = Tensor._make(np.asarray(value, dtype=dtype.numpy))
    number._wrapped_number = True
    return number


# ---- arithmetic ------------------------------------------------------------
class AddBackward0(Operation):
    """``self + alpha * other``; ``alpha`` is 1 unless given, as in ``x.add(y, alpha=2)``."""
    input_names = ("self", "other")
    _saved_alpha = 1

    def forward(self, a, b, alpha=1):
        if alpha == 1:
            return quiet_numpy.run(np.add, a, b)          # inf + -inf is nan, without a warning
        self._saved_alpha = alpha
        with quiet():
            return a + alpha * b

    def backward(self, grad):
        alpha = self._saved_alpha
        return grad, grad if alpha == 1 else times_number(grad, alpha)


class SubBackward0(Operation):
    """``self - alpha * other``."""
    input_names = ("self", "other")
    _saved_alpha = 1

    def forward(self, a, b, alpha=1):
        if alpha == 1:
            return quiet_numpy.run(np.subtract, a, b)
        self._saved_alpha = alpha
        with quiet():
            return a - alpha * b

    def backward(self, grad):
        alpha = self._saved_alpha
        return grad, -grad if alpha == 1 else times_number(-grad, alpha)


def check_subtraction(input, other):
    """PyTorch refuses ``-`` on bool tensors (before any promotion)."""
    bools = [t.dtype is dtypes.bool_ for t in (input, other)]
    if bools == [True, True]:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                           "supported. Use the `^` or `logical_xor()` operator instead.")
    if True in bools:
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")


def alpha_params(input, other, alpha):
    """The ``alpha`` argument of add / sub as the node's parameters (none when it is the
    default 1), after PyTorch's checks against the dtype of the result."""
    if type(alpha) is int and alpha == 1:
        return {}
    result = dtypes.result_type((input, other))
    if isinstance(alpha, bool) and result is not dtypes.bool_:
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if isinstance(alpha, float) and not result.is_floating_point:
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating "
                           "point number.")
    return {"alpha": alpha}


class RsubBackward1(Operation):
    """number - tensor."""
    _saved_alpha = 1

    def forward(self, a, number):
        self._saved_other = number
        return quiet_numpy.run(np.subtract, np.asarray(number, dtype=a.dtype), a)

    def backward(self, grad):
        return -grad


class MulBackward0(Operation):
    input_names = ("self", "other")

    def forward(self, a, b):
        if self.needs_input_grad[0]:
            self.save("other")
        if self.needs_input_grad[1]:
            self.save("self")
        return quiet_numpy.run(np.multiply, a, b)        # inf * 0 is nan, without a warning

    def backward(self, grad):
        grad_self = grad * self._saved_other if self.needs_input_grad[0] else None
        grad_other = grad * self._saved_self if self.needs_input_grad[1] else None
        return grad_self, grad_other


class DivBackward0(Operation):
    input_names = ("self", "other")

    def forward(self, a, b):
        self.save("other")
        if self.needs_input_grad[1]:
            self.save("self")
        if a.dtype.kind != "f":     # integer / integer is true division, in float
            a, b = (x.astype(dtypes.get_default_dtype().numpy) for x in (a, b))
        return quiet_numpy.run(np.true_divide, a, b)

    def backward(self, grad):
        other = self._saved_other
        grad_self = grad / other if self.needs_input_grad[0] else None
        grad_other = -grad * ((self._saved_self / other) / other) \
            if self.needs_input_grad[1] else None
        return grad_self, grad_other


class NegBackward0(Operation):
    def forward(self, a):
        return -a

    def backward(self, grad):
        return -grad


# The exponents PyTorch's CPU kernel computes with products and roots, not pow(): the
# last bit of the result differs (1 / (x * x) is 0 for x = 1e20, pow(x, -2) a subnormal).
_POWERS_BY_PRODUCTS = {
    0.5: np.sqrt,
    2: lambda a: a * a,
    3: lambda a: a * a * a,
    -0.5: lambda a: 1 / np.sqrt(a),        # -inf at -0., nan at -inf
    -1: lambda a: 1 / a,
    -2: lambda a: 1 / (a * a),
}


class PowBackward0(Operation):
    """tensor ** number."""

    def forward(self, a, exponent):
        self.save("self")
        self._saved_exponent = exponent
        with quiet():
            if a.dtype.kind != "f":
                return np.power(a, exponent)
            special = _POWERS_BY_PRODUCTS.get(exponent)
            if special is not None:     # (half precision: computed in float32, rounded once)
                return special(a.astype(np.float32)).astype(a.dtype) if a.itemsize < 4 \
                    else special(a)
            return np.power(a, np.asarray(exponent, dtype=a.dtype))

    def backward(self, grad):
        exponent, x = self._saved_exponent, self._saved_self
        if exponent == 0:
            return x.new_zeros(x.shape)
        return grad * times_number(x.pow(exponent - 1), exponent)


class PowBackward1(Operation):
    """tensor ** tensor."""
    input_names = ("self", "exponent")

    def forward(self, a, b):
        self.save("self")
        self.save("exponent")
        if self.needs_input_grad[1]:
            self.save("result")
        with quiet():
            return np.power(a, b)

    def backward(self, grad):
        """PyTorch's pow_backward_self and pow_backward_exponent: an exponent 0 sends nothing
        to the base, a base 0 with an exponent >= 0 nothing to the exponent."""
        base, exponent = self._saved_self, self._saved_exponent
        grad_base = grad_exponent = None
        if self.needs_input_grad[0]:
            grad_base = where(exponent == 0, 0.0,
                              grad * (exponent * base ** minus_number(exponent, 1)))
        if self.needs_input_grad[1]:
            log_base = where((exponent >= 0) & (base == 0), 0.0, self._saved_result * base.log())
            grad_exponent = grad * log_base
        return grad_base, grad_exponent


class PowBackward2(Operation):
    """number ** tensor."""
    input_names = ("exponent",)

    def forward(self, exponent, base):
        self._saved_self = base
        self.save("exponent")
        self.save("result")
        with quiet():
            if exponent.dtype.kind in "iu" and (exponent < 0).any():
                # integers to negative powers: truncated, as in PyTorch (2 ** -3 is 0)
                return np.trunc(np.power(float(base), exponent)).astype(exponent.dtype)
            return np.power(np.asarray(base, dtype=exponent.dtype), exponent).astype(exponent.dtype)

    def backward(self, grad):
        base = self._saved_self
        if base == 0:        # as PyTorch: 0 ** e sends nothing to an exponent e >= 0
            return grad * where(self._saved_exponent >= 0, 0.0,
                                times_number(self._saved_result, -math.inf))
        return grad * times_number(self._saved_result, float(quiet_numpy.run(np.log, base)))


# ---- functions of one tensor -------------------------------------------------
class UnaryFloatOperation(Operation):
    """A function of one tensor; integer inputs are computed in the default float dtype."""
    promote = "float"


class ExpBackward0(UnaryFloatOperation):
    def forward(self, a):
        self.save("result")
        with quiet():
            return np.exp(a)

    def backward(self, grad):
        return grad * self._saved_result


class LogBackward0(UnaryFloatOperation):
    def forward(self, a):
        self.save("self")
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.log(a)

    def backward(self, grad):
        return grad / self._saved_self


class Log1PBackward0(UnaryFloatOperation):
    """log(1 + x), accurate for small x."""
    def forward(self, a):
        self.save("self")
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.log1p(a)

    def backward(self, grad):
        return grad / (self._saved_self + 1)


class Expm1Backward0(UnaryFloatOperation):
    """exp(x) - 1, accurate for small x."""
    def forward(self, a):
        self.save("result")
        with quiet():
            return np.expm1(a)

    def backward(self, grad):
        return grad * (self._saved_result + 1)


class RsqrtBackward0(UnaryFloatOperation):
    """1 / sqrt(x)."""
    def forward(self, a):
        self.save("result")
        with np.errstate(invalid="ignore", divide="ignore"):
            return 1 / np.sqrt(a)

    def backward(self, grad):
        return -0.5 * grad * self._saved_result.pow(3)


class SqrtBackward0(UnaryFloatOperation):
    def forward(self, a):
        self.save("result")
        with np.errstate(invalid="ignore"):
            return np.sqrt(a)

    def backward(self, grad):
        return grad / (2 * self._saved_result)


class SinBackward0(UnaryFloatOperation):
    def forward(self, a):
        self.save("self")
        return quiet_numpy.run(np.sin, a)               # sin(inf) is nan

    def backward(self, grad):
        return grad * self._saved_self.cos()


class CosBackward0(UnaryFloatOperation):
    def forward(self, a):
        self.save("self")
        return quiet_numpy.run(np.cos, a)

    def backward(self, grad):
        return grad * -self._saved_self.sin()


class TanBackward0(UnaryFloatOperation):
    def forward(self, a):
        self.save("result")
        return quiet_numpy.run(np.tan, a)

    def backward(self, grad):
        return grad * (1 + self._saved_result.pow(2))


class AsinBackward0(UnaryFloatOperation):
    def forward(self, a):
        self.save("self")
        with quiet():
            return np.arcsin(a)

    def backward(self, grad):
        x = self._saved_self
        return grad * (-x * x + 1).rsqrt()


class AcosBackward0(UnaryFloatOperation):
    def forward(self, a):
        self.save("self")
        with quiet():
            return np.arccos(a)

    def backward(self, grad):
        x = self._saved_self
        return grad * -((-x * x + 1).rsqrt())


class AtanBackward0(UnaryFloatOperation):
    def forward(self, a):
        self.save("self")
        return np.arctan(a)

    def backward(self, grad):
        x = self._saved_self
        return grad / (x * x + 1)


class SinhBackward0(UnaryFloatOperation):
    def forward(self, a):
        self.save("self")
        with quiet():
            return np.sinh(a)

    def backward(self, grad):
        return grad * self._saved_self.cosh()


class CoshBackward0(UnaryFloatOperation):
    def forward(self, a):
        self.save("self")
        with quiet():
            return np.cosh(a)

    def backward(self, grad):
        return grad * self._saved_self.sinh()


class Log2Backward0(UnaryFloatOperation):
    def forward(self, a):
        self.save("self")
        with quiet():
            return np.log2(a)

    def backward(self, grad):
        return grad / times_number(self._saved_self, 0.6931471805599453)      # x ln 2


class Log10Backward0(UnaryFloatOperation):
    def forward(self, a):
        self.save("self")
        with quiet():
            return np.log10(a)

    def backward(self, grad):
        return grad / times_number(self._saved_self, 2.3025850929940456)      # x ln 10


class Atan2Backward0(Operation):
    """The angle of the point (other, self): atan2(y, x)."""
    input_names = ("self", "other")
    promote = "float"

    def forward(self, y, x):
        self.save("self")
        self.save("other")
        return np.arctan2(y, x)

    def backward(self, grad):
        y, x = self._saved_self, self._saved_other
        squared_radius = y * y + x * x
        recip = squared_radius.reciprocal().masked_fill(squared_radius == 0, 0)   # (0, 0): none
        return grad * x * recip, grad * -y * recip


class TanhBackward0(UnaryFloatOperation):
    def forward(self, a):
        self.save("result")
        return np.tanh(a)

    def backward(self, grad):
        return TanhBackwardBackward0.apply(grad, self._saved_result)


class TanhBackwardBackward0(Operation):
    """tanh's gradient, ``grad * (1 - tanh(x)**2)``, as one node (PyTorch's tanh_backward)."""
    input_names = ("grad_output", "output")

    def forward(self, grad, output):
        self.save("grad_output")
        self.save("output")
        with quiet():
            return grad * (1 - output * output)

    def backward(self, grad):
        grad_output, output = self._saved_grad_output, self._saved_output
        return grad * (1 - output * output), grad * grad_output * -2 * output


class SigmoidBackward0(UnaryFloatOperation):
    def forward(self, a):
        self.save("result")
        with np.errstate(over="ignore"):
            return 1 / (1 + np.exp(-a))

    def backward(self, grad):
        return SigmoidBackwardBackward0.apply(grad, self._saved_result)


class SigmoidBackwardBackward0(Operation):
    """sigmoid's gradient, ``grad * s * (1 - s)``, as one node (PyTorch's sigmoid_backward)."""
    input_names = ("grad_output", "output")

    def forward(self, grad, output):
        self.save("grad_output")
        self.save("output")
        with quiet():
            return grad * output * (1 - output)

    def backward(self, grad):
        grad_output, output = self._saved_grad_output, self._saved_output
        return grad * output * (1 - output), grad * grad_output * (1 - 2 * output)


class AbsBackward0(Operation):
    def forward(self, a):
        self.save("self")
        return np.abs(a)

    def backward(self, grad):
        return grad * self._saved_self.sgn()


class SignBackward0(Operation):
    def forward(self, a):
        if a.dtype == bool:
            return a.copy()
        if a.dtype.kind == "f":     # PyTorch's sign is (0 < x) - (x < 0): 0 for nan
            return np.where(np.isnan(a), a.dtype.type(0), np.sign(a))
        return np.sign(a)

    def backward(self, grad):
        from teachgrad import creation
        return creation.zeros_like(grad)


class ReluBackward0(Operation):
    def forward(self, a):
        self.save("result")
        return np.maximum(a.dtype.type(0), a)     # (a zero of a's dtype; for the order see _clip)

    def backward(self, grad):
        return ThresholdBackwardBackward0.apply(grad, self._saved_result, threshold=0)


def zero_where(mask, values):
    """``np.where(mask, 0, values)`` for a float array, about twice as fast.

    numpy's ``where`` branches on every element, which is slow when the mask has no
    pattern (relu's mask of a layer's outputs). A bitwise and with words of all zeros
    (where ``mask`` holds) or all ones picks each value bit for bit (inf, nan and -0.0
    too) or gives +0.0, as ``where`` does; ``values * mask`` would not (inf * 0 is nan,
    -1 * 0 is -0.0). The words are made from the mask's bytes (1 - 1 = 0, 0 - 1 = -1) and
    widened by the and itself.
    """
    word = f"i{values.itemsize}"
    keep = np.subtract(np.asarray(mask).view(np.int8), 1)
    # written into an array of its own (not a view of the words), as PyTorch's result is: a
    # gradient summed with another is then added into in place, and its version counts it
    result = np.empty_like(values)
    np.bitwise_and(values.view(word), keep, out=result.view(word))
    return result


class ThresholdBackwardBackward0(Operation):
    """relu's and threshold's gradient: ``grad`` where ``self`` (relu: its output) is above
    the threshold, else 0, as one node (PyTorch's threshold_backward); differentiated
    again, it is itself for ``grad`` and 0 for ``self``."""
    input_names = ("grad_output", "self")

    def forward(self, grad, a, threshold):
        self.save("self")
        self._saved_threshold = threshold
        return zero_where(a <= threshold, grad)     # (a nan is not <=: its gradient passes)

    def backward(self, grad):
        from teachgrad import creation
        grad_grad_output = ThresholdBackwardBackward0.apply(
            grad, self._saved_self, threshold=self._saved_threshold)
        return grad_grad_output, creation.zeros_like(grad)


def _clip(a, low, high):
    """``a`` raised to ``low`` and lowered to ``high`` (either may be None), PyTorch's way:
    where ``a`` ties with a bound it keeps its own value, so ``relu(-0.0)`` is -0.0.
    numpy's maximum and minimum return their second argument on a tie (and np.clip the
    bound), hence the bound comes first."""
    if low is not None:
        a = np.maximum(low, a)
    return a if high is None else np.minimum(high, a)


def _bound(number, a):
    """A clamp's Python number in ``a``'s dtype, as PyTorch's kernels convert it: with its
    error when the dtype cannot hold the number (-1 becomes 255 for uint8, as in C)."""
    if number is None:
        return None
    dtypes.check_fits(number, dtypes.BY_NUMPY[a.dtype])
    return np.asarray(number).astype(a.dtype)


class ClampBackward1(Operation):
    def forward(self, a, min=None, max=None):
        low, high = _bound(min, a), _bound(max, a)
        self.save("self")
        self._saved_min, self._saved_max = min, max
        return _clip(a, low, high)

    def backward(self, grad):
        x = self._saved_self
        inside = x == x       # all True, also keeps the shape
        if self._saved_min is not None:
            inside = inside & (x >= self._saved_min)
        if self._saved_max is not None:
            inside = inside & (x <= self._saved_max)
        return where(inside, grad, 0.0)


class ClampBackward0(Operation):
    """Clamp between tensor bounds (either may be absent: then a placeholder tensor that
    needs no grad fills its place, and its ``_saved_`` attribute is None)."""
    input_names = ("self", "min", "max")

    def forward(self, a, low, high, has_min, has_max):
        self._has_min, self._has_max = has_min, has_max
        self.save("self")
        if has_min:
            self.save("min")
        if has_max:
            self.save("max")
        return _clip(a, low if has_min else None, high if has_max else None)

    def backward(self, grad):
        """PyTorch's clamp_backward and clamp_backward_min_max: ``x`` gets the gradient where
        it lies within the bounds; a bound gets it where it was the one that won."""
        x, low, high = self._saved_self, self._saved_min, self._saved_max
        if low is not None and high is not None:
            inside = (x >= low) & (x <= high)
            return (where(inside, grad, 0.0), where((x < low) & (low < high), grad, 0.0),
                    where((x > high) | (high < low), grad, 0.0))
        if low is not None:
            return where(x >= low, grad, 0.0), where(x < low, grad, 0.0), None
        return where(x <= high, grad, 0.0), None, where(x > high, grad, 0.0)


class ClampMinBackward0(Operation):
    """``clamp_min(x, number)``: x, raised to the bound where it is below."""

    def forward(self, a, min):
        self.save("self")
        self._saved_min = min
        return _clip(a, _bound(min, a), None)

    def backward(self, grad):
        return where(self._saved_self >= self._saved_min, grad, 0.0)


class ClampMaxBackward0(Operation):
    """``clamp_max(x, number)``: x, lowered to the bound where it is above."""

    def forward(self, a, max):
        self.save("self")
        self._saved_max = max
        return _clip(a, None, _bound(max, a))

    def backward(self, grad):
        return where(self._saved_self <= self._saved_max, grad, 0.0)


class ClampMinBackward1(Operation):
    """``clamp_min(x, tensor)``: the bound gets the gradient where it won."""
    input_names = ("self", "min")

    def forward(self, a, low):
        self.save("self")
        self.save("min")
        return _clip(a, low, None)

    def backward(self, grad):
        x, low = self._saved_self, self._saved_min
        return where(x >= low, grad, 0.0), where(x < low, grad, 0.0)


class ClampMaxBackward1(Operation):
    """``clamp_max(x, tensor)``."""
    input_names = ("self", "max")

    def forward(self, a, high):
        self.save("self")
        self.save("max")
        return _clip(a, None, high)

    def backward(self, grad):
        x, high = self._saved_self, self._saved_max
        return where(x <= high, grad, 0.0), where(x > high, grad, 0.0)


class NanToNumBackward0(Operation):
    """nan, inf and -inf replaced by numbers; only the finite places pass a gradient."""

    def forward(self, a, nan, posinf, neginf):
        self.save("self")
        if a.dtype.kind != "f":
            return a.copy()
        return np.nan_to_num(a, nan=nan, posinf=posinf, neginf=neginf)

    def backward(self, grad):
        return grad * self._saved_self.isfinite()


class FmodBackward0(Operation):
    """The remainder of a division by a number, with the sign of the dividend (C's fmod)."""

    def forward(self, a, other):
        return quiet_numpy.run(np.fmod, a, np.asarray(other, dtype=a.dtype))

    def backward(self, grad):
        return grad


class FmodBackward1(Operation):
    """fmod by a tensor: ``self - trunc(self / other) * other``, so other gets
    ``-grad * trunc(self / other)``."""
    input_names = ("self", "other")

    def forward(self, a, b):
        if self.needs_input_grad[1]:
            self.save("self")
            self.save("other")
        with quiet():
            return np.fmod(a, b)

    def backward(self, grad):
        grad_other = None
        if self.needs_input_grad[1]:
            grad_other = -grad * (self._saved_self / self._saved_other).trunc()
        return grad, grad_other


class WhereBackward0(Operation):
    input_names = ("self", "other")
    kept_names = ("condition",)

    def forward(self, a, b, condition):
        self.keep("condition", condition)     # the bool tensor, version-checked like an input
        return np.where(condition._data, a, b)

    def backward(self, grad):
        condition = self._saved_condition
        grad_self = where(condition, grad, 0.0) if self.needs_input_grad[0] else None
        grad_other = where(condition, 0.0, grad) if self.needs_input_grad[1] else None
        return grad_self, grad_other


class StepFunction(Operation):
    """A function made of flat steps (floor, ceil, round): its gradient is 0 everywhere
    (PyTorch's convention at the jumps too). An integer tensor is returned unchanged."""
    numpy_function = None

    def forward(self, a):
        if a.dtype.kind in "biu":
            return a.copy()
        return type(self).numpy_function(a)

    def backward(self, grad):
        from teachgrad import creation
        return creation.zeros_like(grad)


class FloorBackward0(StepFunction):
    numpy_function = np.floor


class CeilBackward0(StepFunction):
    numpy_function = np.ceil


class TruncBackward0(StepFunction):
    numpy_function = np.trunc


class RoundBackward0(StepFunction):
    numpy_function = np.round            # halves to even, as PyTorch rounds


class MaximumBackward0(Operation):
    """As in PyTorch: ties split the gradient in half, the smaller gets none (and with a nan,
    neither smaller nor equal, both get all of it)."""
    input_names = ("self", "other")
    pick = staticmethod(np.maximum)

    def forward(self, a, b):
        self.save("self")
        self.save("other")
        return self.pick(b, a)      # (a tie gives a: see _clip)

    def backward(self, grad):
        a, b = self._saved_self, self._saved_other
        grad_self = grad_other = None
        if self.needs_input_grad[0]:
            grad_self = where(a == b, grad / 2, grad).masked_fill_(self._loses(a, b), 0)
        if self.needs_input_grad[1]:
            grad_other = where(a == b, grad / 2, grad).masked_fill_(self._loses(b, a), 0)
        return grad_self, grad_other

    @staticmethod
    def _loses(a, b):
        return a < b


class MinimumBackward0(MaximumBackward0):
    pick = staticmethod(np.minimum)

    @staticmethod
    def _loses(a, b):
        return a > b


class ToCopyBackward0(Operation):
    """A conversion such as ``.double()``: an operation like any other, so not a leaf."""
    promote = "none"

    def forward(self, a, dtype):
        return cast(a, dtype.numpy)

    def backward(self, grad):
        return grad        # the engine casts it back to the input's dtype


class CloneBackward0(Operation):
    promote = "none"

    def forward(self, a, contiguous=False):
        """A copy in memory of its own: row by row for ``contiguous`` (``x.contiguous()``),
        else in the order of ``a``'s strides, as PyTorch's clone (a transpose stays one),
        except for a broadcast (a stride 0), whose copy is laid out row by row."""
        broadcast = any(stride == 0 and size > 1 for stride, size in zip(a.strides, a.shape))
        return a.copy(order="C" if contiguous or broadcast else "K")

    def backward(self, grad):
        return grad


# ---- the functions and methods ------------------------------------------------------
class MulBackward1(Operation):
    """A tensor times a Python number, as PyTorch's C++ code records it (Python's ``x * 2``
    wraps the number in a tensor and records MulBackward0)."""

    def forward(self, a, other):
        self._saved_other = other
        return quiet_numpy.run(np.multiply, a, np.asarray(other, dtype=a.dtype))

    def backward(self, grad):
        return MulBackward1.apply(grad, other=self._saved_other)


class DivBackward1(Operation):
    """A tensor divided by a Python number (PyTorch's C++ ``div(Tensor, Scalar)``)."""

    def forward(self, a, other):
        self._saved_other = other
        return quiet_numpy.run(np.true_divide, a, np.asarray(other, dtype=a.dtype))

    def backward(self, grad):
        return DivBackward1.apply(grad, other=self._saved_other)


class MaskedFillBackward0(Operation):
    """``x.masked_fill(mask, value)`` with a number: the filled places get no gradient."""
    kept_names = ("mask",)

    def forward(self, a, mask, value):
        dtypes.check_fits(value, dtypes.BY_NUMPY[a.dtype])
        self.keep("mask", mask)        # the mask tensor, version-checked and freed like an input
        return np.where(mask._data, np.asarray(value).astype(a.dtype), a)    # (uint8: -1 is 255)

    def backward(self, grad):
        return where(self._saved_mask, 0.0, grad)


class MaskedFillBackward1(Operation):
    """``x.masked_fill(mask, value)`` with a 0-dim tensor ``value``, which gets the
    gradients of all the places it filled."""
    input_names = ("self", "value")
    kept_names = ("mask",)

    def forward(self, a, value, mask):
        self.keep("mask", mask)
        return np.where(mask._data, value.astype(a.dtype), a)

    def backward(self, grad):
        filled = self._saved_mask
        return where(filled, 0.0, grad), where(filled, grad, 0.0).sum()


class AddBackward1(Operation):
    """A tensor plus a Python number, as PyTorch's C++ gradient formulas write it (Python's
    ``x + 1`` wraps the number in a tensor and records AddBackward0)."""

    def forward(self, a, other):
        return quiet_numpy.run(np.add, *self.promoted(a, other))

    @staticmethod
    def promoted(a, number):
        """``a`` and ``number`` as arrays of one dtype: an integer tensor and a float number
        give the default float type, as in PyTorch."""
        if a.dtype.kind != "f" and isinstance(number, float):
            a = a.astype(dtypes.get_default_dtype().numpy)
        return a, np.asarray(number, dtype=a.dtype)

    def backward(self, grad):
        return grad


class SubBackward1(AddBackward1):
    """A tensor minus a Python number (C++'s ``x - 1``)."""

    def forward(self, a, other):
        return quiet_numpy.run(np.subtract, *self.promoted(a, other))


def plus_number(tensor, number):
    return AddBackward1.apply(tensor, other=number)


def minus_number(tensor, number):
    return SubBackward1.apply(tensor, other=number)


def number_minus(number, tensor):
    """``number - tensor`` as C++ writes it: the number becomes a 0-d tensor (SubBackward0)."""
    return sub(as_tensor_like(number, tensor), tensor)


def times_number(tensor, number):
    """``tensor * number`` as PyTorch's C++ gradient formulas write it (MulBackward1)."""
    return MulBackward1.apply(tensor, other=number)


class ErfBackward0(UnaryFloatOperation):
    """The error function, 2/sqrt(pi) times the integral of exp(-t**2) from 0 to x."""
    _erf = np.frompyfunc(math.erf, 1, 1)      # numpy has no erf; math's is exact in float64

    def forward(self, a):
        self.save("self")
        return self._erf(a).astype(a.dtype)

    def backward(self, grad):
        x = self._saved_self
        return times_number((-x.pow(2)).exp(), 2 / math.sqrt(math.pi)) * grad


def _lerp(start, end, weight):
    """``start + weight * (end - start)``, computed from the nearer end as PyTorch does."""
    return np.where(weight < 0.5, start + weight * (end - start),
                    end - (end - start) * (1 - weight))


class LerpBackward0(Operation):
    """Linear interpolation with a number as the weight."""
    input_names = ("self", "end")

    def forward(self, start, end, weight):
        self._saved_weight = weight
        with quiet():
            return _lerp(start, end, np.asarray(weight, dtype=start.dtype))

    def backward(self, grad):
        weight = self._saved_weight
        return times_number(grad, 1 - weight), times_number(grad, weight)


class LerpBackward1(Operation):
    """Linear interpolation with a tensor of weights."""
    input_names = ("self", "end", "weight")

    def forward(self, start, end, weight):
        if self.needs_input_grad[0] or self.needs_input_grad[1]:
            self.save("weight")
        if self.needs_input_grad[2]:
            self.save("self")
            self.save("end")
        with quiet():
            return _lerp(start, end, weight)

    def backward(self, grad):
        needs = self.needs_input_grad
        weight = self._saved_weight
        return (grad * (1 - weight) if needs[0] else None,
                grad * weight if needs[1] else None,
                grad * (self._saved_end - self._saved_self) if needs[2] else None)


class AddcmulBackward0(Operation):
    """``input + value * tensor1 * tensor2`` in one node."""
    input_names = ("self", "tensor1", "tensor2")

    def forward(self, a, t1, t2, value):
        self._saved_value = value
        if self.needs_input_grad[1]:
            self.save("tensor2")
        if self.needs_input_grad[2]:
            self.save("tensor1")
        with quiet():
            return a + np.asarray(value, dtype=t1.dtype) * t1 * t2

    def backward(self, grad):
        value, needs = self._saved_value, self.needs_input_grad
        return (grad,
                grad * times_number(self._saved_tensor2, value) if needs[1] else None,
                grad * times_number(self._saved_tensor1, value) if needs[2] else None)


class AddcdivBackward0(Operation):
    """``input + value * tensor1 / tensor2`` in one node."""
    input_names = ("self", "tensor1", "tensor2")

    def forward(self, a, t1, t2, value):
        self._saved_value = value
        self.save("tensor2")
        if self.needs_input_grad[2]:
            self.save("tensor1")
        with quiet():
            return a + np.asarray(value, dtype=t1.dtype) * t1 / t2

    def backward(self, grad):
        value, needs = self._saved_value, self.needs_input_grad
        t2 = self._saved_tensor2
        return (grad,
                grad * times_number(reciprocal(t2), value) if needs[1] else None,
                -grad * (times_number(self._saved_tensor1, value) / (t2 * t2))
                if needs[2] else None)


def add(input, other, *, alpha=1):
    other = as_tensor_like(other, input)
    if alpha.__class__ is int and alpha == 1:        # (the usual case, kept quick)
        return AddBackward0.apply(input, other)
    return AddBackward0.apply(input, other, **alpha_params(input, other, alpha))


def sub(input, other, *, alpha=1):
    other = as_tensor_like(other, input)
    check_subtraction(input, other)
    return SubBackward0.apply(input, other, **alpha_params(input, other, alpha))


def rsub(input, other):
    if isinstance(other, Tensor):
        return sub(other, input)
    check_subtraction(input, as_tensor_like(other, input))
    return RsubBackward1.apply(input, number=other)


def mul(input, other):
    return MulBackward0.apply(input, as_tensor_like(other, input))


def div(input, other):
    return DivBackward0.apply(input, as_tensor_like(other, input))


def rdiv(input, other):
    """number / tensor, computed as PyTorch does: number * (1 / tensor)."""
    return mul(reciprocal(input), other)


def neg(input):
    return NegBackward0.apply(input)


def pow(input, exponent):
    if isinstance(input, Tensor) and isinstance(exponent, Tensor):
        return PowBackward1.apply(input, exponent)
    if isinstance(input, Tensor):
        return PowBackward0.apply(_lift_to_number_category(input, exponent), exponent=exponent)
    return PowBackward2.apply(_lift_to_number_category(exponent, input), base=input)


def _lift_to_number_category(input, *numbers):
    """``int_tensor.clamp(min=0.5)`` and ``int_tensor ** 0.5`` compute in float, as in PyTorch.

    Integer tensors never require grad, so the conversion adds no node to any graph.
    """
    category = max(dtypes.scalar_category(n) for n in numbers if n is not None)
    if category > input.dtype.category:
        return input.to(dtypes.default_dtype_for_category(category))
    return input


def rpow(input, base):
    return pow(base, input)


class ReciprocalBackward0(UnaryFloatOperation):
    def forward(self, a):
        self.save("result")
        with np.errstate(divide="ignore"):
            return 1 / a

    def backward(self, grad):
        result = self._saved_result
        return -grad * (result * result)


def exp(input):
    return ExpBackward0.apply(input)


def log(input):
    return LogBackward0.apply(input)


def sqrt(input):
    return SqrtBackward0.apply(input)


def reciprocal(input):
    return ReciprocalBackward0.apply(input)


def sin(input):
    return SinBackward0.apply(input)


def cos(input):
    return CosBackward0.apply(input)


def tanh(input):
    return TanhBackward0.apply(input)


def sigmoid(input):
    return SigmoidBackward0.apply(input)


def abs(input):
    return AbsBackward0.apply(input)


def sign(input):
    return SignBackward0.apply(input)


def relu(input):
    return ReluBackward0.apply(input)


def clamp(input, min=None, max=None):
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        absent = Tensor._make(np.zeros((), dtype=input._data.dtype))
        return ClampBackward0.apply(
            input, absent if min is None else as_tensor_like(min, input),
            absent if max is None else as_tensor_like(max, input),
            has_min=min is not None, has_max=max is not None)
    return ClampBackward1.apply(_lift_to_number_category(input, min, max), min=min, max=max)


def clamp_min(input, min):
    if isinstance(min, Tensor):
        return ClampMinBackward1.apply(input, min)
    return ClampMinBackward0.apply(_lift_to_number_category(input, min, None), min=min)


def clamp_max(input, max):
    if isinstance(max, Tensor):
        return ClampMaxBackward1.apply(input, max)
    return ClampMaxBackward0.apply(_lift_to_number_category(input, None, max), max=max)


def where(condition, input, other):
    if not isinstance(condition, Tensor):
        condition = Tensor._make(np.asarray(condition))
    if not isinstance(input, Tensor):
        input = as_tensor_like(input, other) if isinstance(other, Tensor) else \
            Tensor._make(np.asarray(input, dtype=dtypes.default_dtype_for_category(
                dtypes.scalar_category(input)).numpy))
    return WhereBackward0.apply(input, as_tensor_like(other, input), condition=condition)


def maximum(input, other):
    return MaximumBackward0.apply(input, other)


def minimum(input, other):
    return MinimumBackward0.apply(input, other)


def to_dtype(input, dtype):
    if input.dtype is dtype:
        return input
    return ToCopyBackward0.apply(input, dtype=dtype)


def clone(input):
    return CloneBackward0.apply(input)


# ---- comparisons: bool results, never part of a graph ------------------------------
def _compare(numpy_function):
    def compare(input, other):
        other_array = other._data if isinstance(other, Tensor) else other
        return Tensor._make(np.asarray(numpy_function(input._data, other_array)))
    compare.__name__ = numpy_function.__name__
    return compare


floor_divide = _compare(np.floor_divide)    # not differentiable: results without a graph
remainder = _compare(np.remainder)
eq = _compare(np.equal)
ne = _compare(np.not_equal)
lt = _compare(np.less)
le = _compare(np.less_equal)
gt = _compare(np.greater)
ge = _compare(np.greater_equal)
logical_and = _compare(np.logical_and)
logical_or = _compare(np.logical_or)
logical_xor = _compare(np.logical_xor)


def logical_not(input):
    return Tensor._make(np.logical_not(input._data))


def bitwise_and(input, other):
    other_array = other._data if isinstance(other, Tensor) else other
    return Tensor._make(np.asarray(input._data & other_array))


def bitwise_or(input, other):
    other_array = other._data if isinstance(other, Tensor) else other
    return Tensor._make(np.asarray(input._data | other_array))


def bitwise_not(input):
    return Tensor._make(~input._data)


def equal(input, other):
    return input.shape == other.shape and bool(np.array_equal(input._data, other._data))


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """|input - other| <= atol + rtol * |other|, element by element (a bool tensor)."""
    if input.dtype is not other.dtype:
        raise RuntimeError(f"{input.dtype.short_name} did not match {other.dtype.short_name}")
    return Tensor._make(np.isclose(input._data, other._data, rtol=rtol, atol=atol,
                                   equal_nan=equal_nan))


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return bool(isclose(input, other, rtol, atol, equal_nan)._data.all())


def isnan(input):
    return Tensor._make(np.isnan(input._data))


def isfinite(input):
    return Tensor._make(np.isfinite(input._data))


def log1p(input):
    return Log1PBackward0.apply(input)


def expm1(input):
    return Expm1Backward0.apply(input)


def rsqrt(input):
    return RsqrtBackward0.apply(input)


def square(input):
    """``input ** 2`` (PyTorch records it as PowBackward0 too)."""
    return pow(input, 2)


def floor(input):
    return FloorBackward0.apply(input)


def ceil(input):
    return CeilBackward0.apply(input)


def round(input):
    return RoundBackward0.apply(input)


def masked_fill(input, mask, value):
    """``value`` wherever ``mask`` (a bool tensor, broadcast) is True, else ``input``."""
    _check_fill_mask(mask, value)
    if isinstance(value, Tensor):
        dtypes.check_fits(value.item(), input.dtype)    # (before the value is cast)
        return MaskedFillBackward1.apply(input, value, mask=mask)
    return MaskedFillBackward0.apply(input, mask=mask, value=value)


def masked_fill_(input, mask, value):
    _check_fill_mask(mask, value)
    if isinstance(value, Tensor):
        value = value.item()
    return MaskedFillBackward0.apply_inplace(input, mask=mask, value=value)


def _check_fill_mask(mask, value):
    if mask.dtype is not dtypes.bool_:
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{dtypes.C_NAMES[mask.dtype.name]}")
    if isinstance(value, Tensor) and value.ndim != 0:
        raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got "
                           f"tensor with {value.ndim} dimension(s).")


def erf(input):
    return ErfBackward0.apply(input)


def lerp(input, end, weight):
    """``input + weight * (end - input)``; ``weight`` is a number or a tensor."""
    for name, other in (("end", end), ("weight", weight)):
        if isinstance(other, Tensor) and other.dtype is not input.dtype:
            raise RuntimeError(f"expected dtype {dtypes.C_NAMES[input.dtype.name]} for "
                               f"`{name}` but got dtype {dtypes.C_NAMES[other.dtype.name]}")
    if isinstance(weight, Tensor):
        return LerpBackward1.apply(input, end, weight)
    return LerpBackward0.apply(input, end, weight=weight)


def addcmul(input, tensor1, tensor2, *, value=1):
    return AddcmulBackward0.apply(input, tensor1, tensor2, value=value)


def addcdiv(input, tensor1, tensor2, *, value=1):
    if tensor1.dtype.category < 2 and tensor2.dtype.category < 2:
        raise RuntimeError("Integer division with addcdiv is no longer supported, and in a "
                           "future  release addcdiv will perform a true division of tensor1 "
                           "and tensor2. The historic addcdiv behavior can be implemented as "
                           "(input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) "
                           "for integer inputs and as (input + value * tensor1 / tensor2) for "
                           "float inputs. The future addcdiv behavior is just the latter "
                           "implementation: (input + value * tensor1 / tensor2), for all "
                           "dtypes.")
    return AddcdivBackward0.apply(input, tensor1, tensor2, value=value)


def tan(input):
    return TanBackward0.apply(input)


def asin(input):
    return AsinBackward0.apply(input)


def acos(input):
    return AcosBackward0.apply(input)


def atan(input):
    return AtanBackward0.apply(input)


def atan2(input, other):
    return Atan2Backward0.apply(input, as_tensor_like(other, input))


def sinh(input):
    return SinhBackward0.apply(input)


def cosh(input):
    return CoshBackward0.apply(input)


def log2(input):
    return Log2Backward0.apply(input)


def log10(input):
    return Log10Backward0.apply(input)


def trunc(input):
    return TruncBackward0.apply(input)


def isinf(input):
    return Tensor._make(np.isinf(input._data))


def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    return NanToNumBackward0.apply(input, nan=nan, posinf=posinf, neginf=neginf)


def fmod(input, other):
    if isinstance(other, Tensor):
        return FmodBackward1.apply(input, other)
    return FmodBackward0.apply(input, other=other)


# ---- more functions of one tensor ------------------------------------------------------
class SgnBackward0(SignBackward0):
    """``x.sgn()``: for real numbers the sign, recorded under its own name (for complex
    numbers, which teachgrad does not have, it is x / |x|). Its gradient is 0."""


class AsinhBackward0(UnaryFloatOperation):
    def forward(self, a):
        self.save("self")
        return np.arcsinh(a)

    def backward(self, grad):
        return grad * plus_number(self._saved_self.pow(2), 1).rsqrt()


class AcoshBackward0(UnaryFloatOperation):
    def forward(self, a):
        self.save("self")
        return quiet_numpy.run(np.arccosh, a)           # nan below 1

    def backward(self, grad):
        x = self._saved_self
        return grad * minus_number(x * x, 1).rsqrt()


class AtanhBackward0(UnaryFloatOperation):
    def forward(self, a):
        self.save("self")
        return quiet_numpy.run(np.arctanh, a)           # ±inf at ±1, nan beyond

    def backward(self, grad):
        return times_number(grad, 1) / number_minus(1, self._saved_self.pow(2))


class InplaceNotDifferentiable(UnaryFloatOperation):
    """``x.asinh_()`` and friends: PyTorch computes them in place but has no derivative
    for the in-place versions, so backward through one raises its error."""
    function_name = None

    def backward(self, grad):
        raise NotImplementedError(f"the derivative for 'inplace version of "
                                  f"{self.function_name}' is not implemented.")


class AsinhBackward1(InplaceNotDifferentiable):
    function_name = "asinh"
    forward = AsinhBackward0.forward


class AcoshBackward1(InplaceNotDifferentiable):
    function_name = "acosh"
    forward = AcoshBackward0.forward


class AtanhBackward1(InplaceNotDifferentiable):
    function_name = "atanh"
    forward = AtanhBackward0.forward


class ErfcBackward0(UnaryFloatOperation):
    """1 - erf(x), accurate where erf(x) is close to 1."""
    _erfc = np.frompyfunc(math.erfc, 1, 1)

    def forward(self, a):
        self.save("self")
        return self._erfc(a).astype(a.dtype)

    def backward(self, grad):
        x = self._saved_self
        return times_number((-x.pow(2)).exp(), -2 / math.sqrt(math.pi)) * grad


def _erfinv(y):
    """The inverse of erf, in float64: a rational first guess (Pavlis' approximation, as
    in PyTorch's calc_erfinv), then three Newton steps on erf(x) = y; in the tails on
    erfc(|x|) = 1 - |y| instead (exact in float64), where erf(x) is too close to 1 to tell
    its neighbours apart."""
    y = np.asarray(y, dtype=np.float64)
    z = y * y
    with quiet():                               # |y| >= 1: the tails give inf or nan
        central = ((((-0.140543331 * z + 0.914624893) * z - 1.645349621) * z + 0.886226899)
                   / ((((0.012229801 * z - 0.329097515) * z + 1.442710462) * z - 2.118377725)
                      * z + 1))
        t = np.sqrt(-np.log((1 - np.abs(y)) / 2))
        tail = (((1.641345311 * t + 3.429567803) * t - 1.624906493) * t - 1.970840454) \
            / ((1.6370678 * t + 3.5438892) * t + 1)
        in_tail = np.abs(y) > 0.7
        x = np.where(in_tail, tail, y * central)
        target = np.where(in_tail, 1 - np.abs(y), y)
        for _ in range(3):
            slope = 2 / math.sqrt(math.pi) * np.exp(-x * x)
            miss = np.where(in_tail, target - ErfcBackward0._erfc(x).astype(np.float64),
                            ErfBackward0._erf(x).astype(np.float64) - target)
            x = x - miss / slope
        x = np.where(in_tail, np.copysign(x, y), x)
    x = np.where(np.abs(y) == 1, np.copysign(np.inf, y), x)
    return np.where(np.abs(y) > 1, np.nan, x)


class ErfinvBackward0(UnaryFloatOperation):
    """The inverse of erf: erfinv(erf(x)) = x, for -1 < x < 1 (±inf at ±1)."""

    def forward(self, a):
        self.save("self")
        return _erfinv(a).astype(a.dtype)

    def backward(self, grad):
        return times_number(self._saved_self.erfinv().pow(2).exp(), 0.5 * math.sqrt(math.pi)) \
            * grad


class Exp2Backward0(UnaryFloatOperation):
    def forward(self, a):
        self.save("result")
        return quiet_numpy.run(np.exp2, a)

    def backward(self, grad):
        return times_number(grad * self._saved_result, math.log(2))


class FracBackward0(Operation):
    """The fractional part, ``x - trunc(x)`` (with the sign of x)."""

    def forward(self, a):
        _check_floating("frac_cpu", a)
        return quiet_numpy.run(np.subtract, a, np.trunc(a))      # inf - inf: nan

    def backward(self, grad):
        return grad


class LogitBackward0(UnaryFloatOperation):
    """log(p / (1 - p)); with ``eps``, p is first moved into [eps, 1 - eps]."""

    def forward(self, a, eps):
        self.save("self")
        self._saved_eps = eps
        if eps is not None:
            low, high = a.dtype.type(eps), a.dtype.type(1 - eps)
            a = np.where(a < low, low, np.where(a > high, high, a))
        with quiet():
            return np.log(a / (1 - a))

    def backward(self, grad):
        """PyTorch's two formulas: under create_graph a ``where`` of teachgrad ops (0 outside
        [eps, 1 - eps], nan outside [0, 1] without eps); else its logit_backward kernel,
        which gives nan instead of 0 for a nan input with eps."""
        x, eps = self._saved_self, self._saved_eps
        low, high = (0.0, 1.0) if eps is None else (eps, 1 - eps)
        if grad_mode.is_grad_enabled():
            outside = math.nan if eps is None else 0.0
            return where((x >= low) & (x <= high), grad / (x * number_minus(1.0, x)), outside)
        with quiet():
            a, g = x._data, grad._data
            denominator = a * (1 - a)
            slope = g / np.where(denominator == 0, 0, denominator)   # 1 / -0.0 too is +inf
            outside = (a < low) | (a > high)
            return Tensor._make(np.where(outside, a.dtype.type(np.nan if eps is None else 0),
                                         slope))


class SincBackward0(UnaryFloatOperation):
    """sin(pi x) / (pi x), and 1 at 0."""

    def forward(self, a):
        self.save("self")
        with quiet():
            product = a * a.dtype.type(math.pi)
            return np.where(a == 0, a.dtype.type(1), np.sin(product) / product)

    def backward(self, grad):
        x = self._saved_self
        x_pi = times_number(x, math.pi)
        x_squared_pi = times_number(x * x, math.pi)
        out = grad * (((x_pi * x_pi.cos()) - x_pi.sin()) / x_squared_pi)
        return where(x_squared_pi == 0.0, 0.0, out)


class Deg2RadBackward0(UnaryFloatOperation):
    ratio = math.pi / 180

    def forward(self, a):
        return quiet_numpy.run(np.multiply, a, a.dtype.type(self.ratio))

    def backward(self, grad):
        return times_number(grad, self.ratio)


class Rad2DegBackward0(Deg2RadBackward0):
    ratio = 180 / math.pi


# ---- more functions of two tensors -----------------------------------------------------
class BinaryFloatOperation(Operation):
    """A function of two tensors, computed in their common dtype, or in the default float
    dtype when that is an integer one (``torch.xlogy(int, int)`` is float32)."""
    input_names = ("self", "other")

    @classmethod
    def _input_arrays(cls, inputs):
        arrays = super()._input_arrays(inputs)
        if arrays[0].dtype.kind == "f":
            return arrays
        return [a.astype(dtypes.get_default_dtype().numpy) for a in arrays]


def _check_floating(kernel, a):
    """PyTorch's error for a kernel that has no integer version."""
    if a.dtype.kind != "f":
        raise NotImplementedError(f"\"{kernel}\" not implemented for "
                                  f"'{dtypes.from_numpy_dtype(a.dtype).short_name}'")


class HypotBackward0(Operation):
    """sqrt(x**2 + y**2), without overflow on the way."""
    input_names = ("self", "other")

    def forward(self, a, b):
        _check_floating("hypot_cpu", a)
        self.save("self")
        self.save("other")
        self.save("result")
        return np.hypot(a, b)

    def backward(self, grad):
        result = self._saved_result
        return grad * self._saved_self / result, grad * self._saved_other / result


class LogaddexpBackward0(Operation):
    """log(exp(x) + exp(y)), without overflow."""
    input_names = ("self", "other")
    power = staticmethod(exp)

    def forward(self, a, b):
        _check_floating("logaddexp_cpu", a)
        self.save("self")
        self.save("other")
        return quiet_numpy.run(np.logaddexp, a, b)

    def backward(self, grad):
        x, y = self._saved_self, self._saved_other
        return grad / plus_number(self.power(y - x), 1), grad / plus_number(self.power(x - y), 1)


class Logaddexp2Backward0(LogaddexpBackward0):
    """log2(2**x + 2**y)."""
    power = staticmethod(lambda exponent: pow(2, exponent))

    def forward(self, a, b):
        _check_floating("logaddexp2_cpu", a)
        self.save("self")
        self.save("other")
        return quiet_numpy.run(np.logaddexp2, a, b)


def _xlogy(a, b):
    """x * log(y), 0 where x is 0 (unless y is nan)."""
    with quiet():
        return np.where((a == 0) & ~np.isnan(b), a.dtype.type(0), a * np.log(b))


class XlogyBackward0(BinaryFloatOperation):
    """x * log(y) of two tensors. As PyTorch, x = 0 with y <= 0 sends 0 to x."""

    def forward(self, a, b):
        self.save("self")
        self.save("other")
        return _xlogy(a, b)

    def backward(self, grad):
        x, y = self._saved_self, self._saved_other
        grad_self = grad_other = None
        if self.needs_input_grad[0]:
            grad_self = xlogy(grad, y).masked_fill((x == 0.0) & (y <= 0.0), 0.0)
        if self.needs_input_grad[1]:
            grad_other = grad * x / y
        return grad_self, grad_other


class XlogyBackward1(UnaryFloatOperation):
    """number * log(tensor)."""
    input_names = ("other",)

    def forward(self, b, number):
        self.save("other")
        self._saved_self = number
        return _xlogy(np.asarray(number, dtype=b.dtype), b)

    def backward(self, grad):
        return grad * self._saved_self / self._saved_other


class XlogyBackward2(UnaryFloatOperation):
    """tensor * log(number)."""

    def forward(self, a, number):
        self.save("self")
        self._saved_other = number
        return _xlogy(a, np.asarray(number, dtype=a.dtype))

    def backward(self, grad):
        number = self._saved_other
        gradient = xlogy(grad, number)
        return gradient if number > 0 else gradient.masked_fill(self._saved_self == 0.0, 0.0)


class CopysignBackward0(BinaryFloatOperation):
    """|x| with the sign of y (the sign bit: -0.0 counts as negative). y gets no gradient."""

    def forward(self, a, b):
        self.save("self")
        self.save("result")
        return np.copysign(a, b)

    def backward(self, grad):
        from teachgrad import creation
        return _copysign_gradient(grad, self._saved_self, self._saved_result), \
            creation.zeros_like(self._saved_result)


class CopysignBackward1(UnaryFloatOperation):
    """copysign with a number for the sign."""

    def forward(self, a, other):
        self.save("self")
        self.save("result")
        return np.copysign(a, a.dtype.type(other))

    def backward(self, grad):
        return _copysign_gradient(grad, self._saved_self, self._saved_result)


def _copysign_gradient(grad, x, result):
    """PyTorch's copysign_tensor_self_backward: grad * (result / x), 0 where x is 0."""
    return grad * (result / x).masked_fill(x == 0, 0)


class NotImplementedDerivative(Operation):
    """The node PyTorch records for an op that has no derivative at all (heaviside): the
    output requires grad, and backward through the node raises PyTorch's error."""
    input_names = ("self", "values")

    def forward(self, a, *inputs_that_require_grad, values, name):
        self._function_name = name
        return np.where(a == 0, values, a > 0).astype(a.dtype)       # (nan > 0 is false: 0)

    def backward(self, grad):
        raise RuntimeError(f"derivative for aten::{self._function_name} is not implemented")


NotImplementedDerivative.__name__ = "NotImplemented"          # PyTorch's name for the node


class FmaxBackward0(Operation):
    """The larger of x and y, ignoring a nan (nan only where both are nan)."""
    input_names = ("self", "other")
    pick = staticmethod(np.fmax)

    def forward(self, a, b):
        self.save("self")
        self.save("other")
        return self.pick(a, b)

    def backward(self, grad):
        x, y = self._saved_self, self._saved_other
        to_self = self.chooses_self(x, y) | y.isnan()
        return grad.masked_fill(to_self.logical_not(), 0), grad.masked_fill(to_self, 0)

    @staticmethod
    def chooses_self(x, y):
        return x >= y


class FminBackward0(FmaxBackward0):
    pick = staticmethod(np.fmin)

    @staticmethod
    def chooses_self(x, y):
        return x <= y


class NextafterBackward0(Operation):
    """The next float after x in the direction of y. As PyTorch: x gets the gradient where
    it is not y, y none."""
    input_names = ("self", "other")

    def forward(self, a, b):
        _check_floating("nextafter_cpu", a)
        self.save("self")
        self.save("other")
        return np.nextafter(a, b)

    def backward(self, grad):
        from teachgrad import creation
        x, y = self._saved_self, self._saved_other
        return where(x != y, grad, 0.0), creation.zeros_like(grad)


class LdexpBackward0(BinaryFloatOperation):
    """x * 2**y."""

    def forward(self, a, b):
        if self.needs_input_grad[0]:
            self.save("other")
        if self.needs_input_grad[1]:
            self.save("result")
        return quiet_numpy.run(lambda: a * np.exp2(b))

    def backward(self, grad):
        grad_self = grad_other = None
        if self.needs_input_grad[0]:
            grad_self = grad * pow(2, self._saved_other)     # (of an int64 other: int64 too)
        if self.needs_input_grad[1]:
            grad_other = times_number(grad * self._saved_result, math.log(2))
        return grad_self, grad_other


# ---- and their functions ------------------------------------------------------------
def sgn(input):
    return SgnBackward0.apply(input)


def asinh(input):
    return AsinhBackward0.apply(input)


def acosh(input):
    return AcoshBackward0.apply(input)


def atanh(input):
    return AtanhBackward0.apply(input)


def erfc(input):
    return ErfcBackward0.apply(input)


def erfinv(input):
    return ErfinvBackward0.apply(input)


def exp2(input):
    return Exp2Backward0.apply(input)


def frac(input):
    return FracBackward0.apply(input)


def logit(input, eps=None):
    return LogitBackward0.apply(input, eps=eps)


def sinc(input):
    return SincBackward0.apply(input)


def deg2rad(input):
    return Deg2RadBackward0.apply(input)


def rad2deg(input):
    return Rad2DegBackward0.apply(input)


def hypot(input, other):
    return HypotBackward0.apply(input, other)


def logaddexp(input, other):
    return LogaddexpBackward0.apply(input, other)


def logaddexp2(input, other):
    return Logaddexp2Backward0.apply(input, other)


def xlogy(input, other):
    """``input * log(other)``, 0 where input is 0; either may be a number."""
    if not isinstance(input, Tensor):
        return XlogyBackward1.apply(other, number=input)
    if not isinstance(other, Tensor):
        return XlogyBackward2.apply(input, number=other)
    return XlogyBackward0.apply(input, other)


def copysign(input, other):
    if isinstance(other, Tensor):
        return CopysignBackward0.apply(input, other)
    return CopysignBackward1.apply(input, other=other)


def heaviside(input, values):
    """0 where input < 0, 1 where input > 0, ``values`` where it is 0."""
    _check_heaviside(input, values)
    return NotImplementedDerivative.apply(*_requiring_grad(input, values), values=values._data,
                                          name="heaviside")


def _requiring_grad(input, values):
    """PyTorch's node for an op without a derivative links only the inputs that need one."""
    return (input, values) if values.requires_grad else (input,)


def _check_heaviside(input, values):
    if input.dtype is not values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different "
                           "dtypes.")


def fmax(input, other):
    return FmaxBackward0.apply(input, other)


def fmin(input, other):
    return FminBackward0.apply(input, other)


def float_power(input, exponent):
    """``input ** exponent`` computed in float64, whatever the dtypes."""
    if isinstance(input, Tensor):
        input = to_dtype(input, dtypes.float64)
    if isinstance(exponent, Tensor):
        exponent = to_dtype(exponent, dtypes.float64)
    return pow(input, exponent)


def nextafter(input, other):
    return NextafterBackward0.apply(input, other)


def ldexp(input, other):
    return LdexpBackward0.apply(input, other)


def signbit(input):
    return Tensor._make(np.signbit(input._data))


def isneginf(input):
    return Tensor._make(np.isneginf(input._data))


def isposinf(input):
    return Tensor._make(np.isposinf(input._data))


def isreal(input):
    """True everywhere: teachgrad's numbers are all real."""
    return Tensor._make(np.ones(input._data.shape, dtype=bool))


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """Whether each of ``elements`` is one of ``test_elements`` (either may be a number)."""
    arrays = [x._data if isinstance(x, Tensor) else np.asarray(x)
              for x in (elements, test_elements)]
    return Tensor._make(np.isin(*arrays, assume_unique=assume_unique, invert=invert))


def positive(input):
    if input.dtype is dtypes.bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


# ---- in place ---------------------------------------------------------------------------
def sgn_(input):
    return SgnBackward0.apply_inplace(input)


def asinh_(input):
    return AsinhBackward1.apply_inplace(input)


def acosh_(input):
    return AcoshBackward1.apply_inplace(input)


def atanh_(input):
    return AtanhBackward1.apply_inplace(input)


def erfc_(input):
    return ErfcBackward0.apply_inplace(input)


def erfinv_(input):
    return ErfinvBackward0.apply_inplace(input)


def exp2_(input):
    return Exp2Backward0.apply_inplace(input)


def frac_(input):
    return FracBackward0.apply_inplace(input)


def logit_(input, eps=None):
    return LogitBackward0.apply_inplace(input, eps=eps)


def sinc_(input):
    return SincBackward0.apply_inplace(input)


def deg2rad_(input):
    return Deg2RadBackward0.apply_inplace(input)


def rad2deg_(input):
    return Rad2DegBackward0.apply_inplace(input)


def hypot_(input, other):
    return HypotBackward0.apply_inplace(input, other)


def xlogy_(input, other):
    if not isinstance(other, Tensor):
        return XlogyBackward2.apply_inplace(input, number=other)
    return XlogyBackward0.apply_inplace(input, other)


def copysign_(input, other):
    if isinstance(other, Tensor):
        return CopysignBackward0.apply_inplace(input, other)
    return CopysignBackward1.apply_inplace(input, other=other)


def heaviside_(input, values):
    _check_heaviside(input, values)
    return NotImplementedDerivative.apply_inplace(*_requiring_grad(input, values),
                                                  values=values._data, name="heaviside_")


def float_power_(input, exponent):
    if input.dtype is not dtypes.float64:
        raise RuntimeError(f"the base given to float_power_ has dtype "
                           f"{input.dtype.short_name} but the operation's result requires "
                           f"dtype Double")
    if isinstance(exponent, Tensor):
        return PowBackward1.apply_inplace(input, to_dtype(exponent, dtypes.float64))
    return PowBackward0.apply_inplace(input, exponent=exponent)


def nextafter_(input, other):
    return NextafterBackward0.apply_inplace(input, other)


def ldexp_(input, other):
    return LdexpBackward0.apply_inplace(input, other)


def abs_(input):
    return AbsBackward0.apply_inplace(input)
