"""Functions that create tensors: ``tensor``, ``zeros``, ``rand``, ``arange``...

A tensor made here is a leaf: it has no ``grad_fn``. Pass ``requires_grad=True``
to make it a leaf that autograd will compute a gradient for.
"""
import math

import numpy as np

from teachgrad import devices, dtypes, ieee, random
from teachgrad.ops.shape import as_shape
from teachgrad.tensor import Tensor


def _leaf(array, requires_grad=False):
    tensor = Tensor._make(array)
    if requires_grad:
        if array.dtype.kind != "f":
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               "gradients")
        tensor._requires_grad = True
    return tensor


def _shape(shape, size):
    """The shape given as ``zeros(2, 3)``, ``zeros((2, 3))`` or ``zeros(size=(2, 3))``."""
    return as_shape(shape if size is None else (size,))


def _numpy_dtype(dtype, default=None):
    if dtype is None:
        return (default or dtypes.get_default_dtype()).numpy
    return dtype.numpy


def _infer_dtype(data):
    """PyTorch's dtype for Python data: floats -> float32, ints -> int64, bools -> bool."""
    array = np.asarray(data)
    if array.dtype == object:
        array = np.asarray(data, dtype=np.float64)
    kind = array.dtype.kind
    if kind == "b":
        return np.bool_
    if kind in "iu":
        return np.int64 if not isinstance(data, np.ndarray) else array.dtype
    if isinstance(data, np.ndarray):
        return array.dtype
    return dtypes.get_default_dtype().numpy


def tensor(data, dtype=None, device=None, requires_grad=False):
    """A new leaf tensor holding a copy of ``data`` (a number, nested lists or an array)."""
    devices.check(device)
    if isinstance(data, Tensor):
        data = data._data
    elif isinstance(data, (list, tuple)) and _contains_tensors(data):
        data = _tensors_to_lists(data)
    numpy_dtype = dtype.numpy if dtype is not None else np.dtype(_infer_dtype(data))
    values = np.asarray(data)
    if not isinstance(data, np.ndarray) and (dtype is None or numpy_dtype.kind in "iu"):
        _check_integers_fit(data, values, numpy_dtype)
    return _leaf(ieee.cast(values, numpy_dtype), requires_grad)


def _check_integers_fit(data, values, numpy_dtype):
    """PyTorch's errors for Python numbers that an integer dtype cannot hold (an unsigned
    type takes -max..-1, wrapping around). Floats beyond a float type's range become inf."""
    if values.dtype.kind in "Ouf" and values.size and _holds_huge_int(data, values):
        raise ValueError("Overflow when unpacking long long")
    if numpy_dtype.kind not in "iu":
        return
    limits = np.iinfo(numpy_dtype)
    smallest = -int(limits.max) if limits.min == 0 else limits.min
    if values.size and not (np.isfinite(values).all() and smallest <= values.min()
                            and values.max() <= limits.max):
        raise RuntimeError(f"value cannot be converted to type {np.dtype(numpy_dtype)} "
                           "without overflow")


def _holds_huge_int(data, values):
    """Whether Python ``data`` (made into ``values``) has an int that int64 cannot hold."""
    if values.dtype.kind in "fu" and not np.abs(values).max() >= 2.0**63:
        return False                        # the common case, decided without a loop
    if isinstance(data, (list, tuple)):
        return any(_holds_huge_int(item, np.asarray(item)) for item in data)
    return isinstance(data, int) and not -2**63 <= data < 2**63


def _contains_tensors(data):
    return any(isinstance(x, Tensor) or isinstance(x, (list, tuple)) and _contains_tensors(x)
               for x in data)


def _tensors_to_lists(data):
    return [x.tolist() if isinstance(x, Tensor) else
            _tensors_to_lists(x) if isinstance(x, (list, tuple)) else x for x in data]


def as_tensor(data, dtype=None, device=None):
    devices.check(device)
    if isinstance(data, Tensor) and (dtype is None or data.dtype is dtype):
        return data
    if isinstance(data, np.ndarray) and dtype is None:
        return from_numpy(data)
    return tensor(data, dtype=dtype)


def from_numpy(array):
    """A tensor that shares memory with the numpy array: a change to one shows in the other."""
    dtypes.from_numpy_dtype(array.dtype)
    return Tensor._make(array)


def zeros(*shape, size=None, dtype=None, requires_grad=False, device=None):
    devices.check(device)
    return _leaf(np.zeros(_shape(shape, size), dtype=_numpy_dtype(dtype)), requires_grad)


def ones(*shape, size=None, dtype=None, requires_grad=False, device=None):
    devices.check(device)
    return _leaf(np.ones(_shape(shape, size), dtype=_numpy_dtype(dtype)), requires_grad)


def empty(*shape, size=None, dtype=None, requires_grad=False, device=None):
    """Like zeros (teachgrad fills new memory, so notebooks stay deterministic)."""
    return zeros(*shape, size=size, dtype=dtype, requires_grad=requires_grad, device=device)


def full(size, fill_value, dtype=None, requires_grad=False, device=None):
    devices.check(device)
    if dtype is None:
        dtype = dtypes.default_dtype_for_category(dtypes.scalar_category(fill_value))
    shape = as_shape((size,))
    dtypes.check_fits(fill_value, dtype, math.prod(shape))
    return _leaf(ieee.cast(np.full(shape, fill_value), dtype.numpy), requires_grad)


def arange(start, end=None, step=1, dtype=None, requires_grad=False, device=None):
    devices.check(device)
    if end is None:
        start, end = 0, start
    if dtype is None:
        is_integral = all(dtypes.scalar_category(v) < 2 for v in (start, end, step))
        dtype = dtypes.int64 if is_integral else dtypes.get_default_dtype()
    if dtype.is_floating_point:
        count = int(np.ceil((end - start) / step))
        return _leaf(_arange_floats(float(start), float(step), count, dtype.numpy),
                     requires_grad)
    return _leaf(np.arange(start, end, step, dtype=dtype.numpy), requires_grad)


def _arange_floats(start, step, count, numpy_dtype):
    """``count`` values from ``start`` by ``step``, bit for bit as PyTorch's CPU kernel
    computes them (numpy's arange differs in the last bit, and a ReLU's gradient at 0 can
    turn on it). The kernel fills 32-byte vectors: each vector's first element is
    ``start + i * step`` in double, one fused multiply-add, rounded to the dtype; the
    others add ``k * step`` to that first element, in double. The elements after the
    last whole pair of vectors are each ``start + i * step``."""
    exact = _fused_multiply_add(step, np.arange(count, dtype=np.float64), start)
    lanes = 32 // numpy_dtype.itemsize
    vectorised = count - count % (2 * lanes)
    firsts = exact[:vectorised:lanes].astype(numpy_dtype).astype(np.float64)
    offsets = np.tile(np.arange(lanes, dtype=np.float64), len(firsts))
    exact[:vectorised] = _fused_multiply_add(offsets, step, np.repeat(firsts, lanes))
    return exact.astype(numpy_dtype)


def _fused_multiply_add(a, b, c):
    """``a * b + c`` with one rounding, as the CPU's fused multiply-add (float64): the
    product's rounding error (Dekker's split) and the sum's (Knuth's two-sum) are added
    back before the last rounding."""
    product = a * b
    a_high, a_low = _split(a)
    b_high, b_low = _split(b)
    product_error = ((a_high * b_high - product) + a_high * b_low + a_low * b_high) + a_low * b_low
    total = product + c
    c_part = total - product
    sum_error = (product - (total - c_part)) + (c - c_part)
    return total + (sum_error + product_error)


def _split(x):
    """``x`` as high + low, each with at most 26 significant bits (Veltkamp's split)."""
    scaled = 134217729.0 * x               # 2**27 + 1
    high = scaled - (scaled - x)
    return high, x - high


def linspace(start, end, steps, dtype=None, requires_grad=False, device=None):
    """``steps`` evenly spaced values, computed as PyTorch's CPU kernel does so that the last
    bits agree: the first half counted up from ``start``, the second half down from ``end``,
    each value rounded once (the kernel's fused multiply-add), in the result's float dtype."""
    devices.check(device)
    out_dtype = np.dtype(_numpy_dtype(dtype))
    step_dtype = out_dtype if out_dtype.kind == "f" else np.dtype(np.float64)
    first, last = (step_dtype.type(out_dtype.type(value)) for value in (start, end))
    step = (last - first) / step_dtype.type(max(steps - 1, 1))
    index = np.arange(steps)
    wide = np.longdouble                   # wide enough for step * index before one rounding
    up = wide(first) + wide(step) * index
    down = wide(last) - wide(step) * (steps - 1 - index)
    values = up if steps == 1 else np.where(index < steps // 2, up, down)
    return _leaf(values.astype(step_dtype).astype(out_dtype), requires_grad)


def logspace(start, end, steps, base=10.0, dtype=None, requires_grad=False, device=None):
    """``steps`` powers of ``base`` whose exponents are evenly spaced from ``start`` to
    ``end``, computed as PyTorch's CPU code does so that the last bits agree: the step is
    the difference of the ends in the result's dtype, divided in float64; each exponent,
    in float64, counts up from ``start`` in the first half and down from ``end`` in the
    second; each power is rounded once to the result's dtype. The powers are the C library's
    ``pow``, one number at a time, as PyTorch's ``std::pow``: numpy's vectorised power gives
    other last bits on a CPU with AVX-512."""
    devices.check(device)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    out_dtype = np.dtype(_numpy_dtype(dtype))
    if steps == 1:
        return _leaf(_powers(base, [float(start)]).astype(out_dtype), requires_grad)
    first, last = out_dtype.type(start), out_dtype.type(end)
    step = float(last - first) / (steps - 1)
    index = np.arange(steps)
    exponents = np.where(index < steps // 2, float(first) + step * index,
                         float(last) - step * (steps - 1 - index))
    return _leaf(_powers(base, exponents).astype(out_dtype), requires_grad)


def _powers(base, exponents):
    """``base ** e`` for each exponent, in float64, by the C library's pow (no SIMD)."""
    return np.array([_c_pow(float(base), float(e)) for e in exponents], dtype=np.float64)


def _c_pow(base, exponent):
    """C's ``pow``: ``math.pow``, with C's infinities and nans where Python raises instead."""
    try:
        return math.pow(base, exponent)
    except (OverflowError, ValueError):      # too large, 0 to a negative power, (-2) ** 0.5
        if base < 0 and exponent != int(exponent):
            return math.nan
        odd = exponent % 2 == 1
        return math.copysign(math.inf, base) if odd else math.inf


def eye(n, m=None, dtype=None, requires_grad=False, device=None):
    devices.check(device)
    return _leaf(np.eye(n, m, dtype=_numpy_dtype(dtype)), requires_grad)


def rand(*shape, size=None, generator=None, dtype=None, requires_grad=False, device=None):
    devices.check(device)
    with random.drawing_from(generator):
        values = random.rand(_shape(shape, size), dtype=_numpy_dtype(dtype))
    return _leaf(values, requires_grad)


def randn(*shape, size=None, generator=None, dtype=None, requires_grad=False, device=None):
    devices.check(device)
    with random.drawing_from(generator):
        values = random.randn(_shape(shape, size), dtype=_numpy_dtype(dtype))
    return _leaf(values, requires_grad)


def normal_sample(mean, std, size, generator=None, dtype=None, requires_grad=False):
    """``torch.normal(mean, std, size)`` with two numbers."""
    with random.drawing_from(generator):
        values = random.normal(as_shape((size,)), mean, std, dtype=_numpy_dtype(dtype))
    return _leaf(values, requires_grad)


def randint(low, high=None, size=None, generator=None, dtype=None, requires_grad=False,
            device=None):
    devices.check(device)
    if size is None:                  # randint(high, size)
        low, high, size = 0, low, high
    elif high is None:                # randint(high, size=size)
        low, high = 0, low
    with random.drawing_from(generator):
        values = random.randint(low, high, as_shape((size,)))
    return _leaf(values.astype(_numpy_dtype(dtype, dtypes.int64)), requires_grad)


def randperm(n, generator=None, dtype=None, requires_grad=False, device=None):
    devices.check(device)
    with random.drawing_from(generator):
        values = random.randperm(n)
    return _leaf(values.astype(_numpy_dtype(dtype, dtypes.int64)), requires_grad)


def multinomial(input, num_samples, replacement=False, *, generator=None):
    """Indices drawn from the distributions in the rows of ``input`` (weights, not
    necessarily normalised), with PyTorch's numbers after the same seed."""
    _check_distributions(input, num_samples, replacement)
    with random.drawing_from(generator):
        values = random.multinomial(input._data, num_samples, replacement)
    return _leaf(values)


def _check_distributions(input, num_samples, replacement):
    """PyTorch's checks, in its order (all made before any number is drawn)."""
    if isinstance(num_samples, float):
        raise TypeError("multinomial(): argument 'num_samples' (position 2) must be int, not float")
    if input.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: "
                           f"{input.dtype.short_name}")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    if not replacement and num_samples > input.shape[-1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                           "replacement")
    if input.shape[-1] > 2 ** 24:
        raise RuntimeError("number of categories cannot exceed 2^24")
    weights = input._data.reshape(-1, input.shape[-1])
    if not replacement or num_samples == 1:
        if not (np.all(weights < np.inf) and np.all(weights >= 0)):
            raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    else:
        bad = ~(weights >= 0) | ~np.isfinite(weights)
        if bad.any():
            first = weights.reshape(-1)[np.argmax(bad.reshape(-1))]
            raise RuntimeError("invalid multinomial distribution (encountering probability entry "
                               + ("< 0)" if not first >= 0 else "= infinity or NaN)"))
    if weights.size and (weights.sum(axis=-1) == 0).any():
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")


def _like(maker, input, dtype, requires_grad, device, *args):
    """A new tensor shaped like ``input``, with its dtype and on its device unless told."""
    return maker(input.shape, *args, dtype=dtype or input.dtype, requires_grad=requires_grad,
                 device=device or devices.CPU)


def zeros_like(input, dtype=None, requires_grad=False, device=None):
    return _like(zeros, input, dtype, requires_grad, device)


def ones_like(input, dtype=None, requires_grad=False, device=None):
    return _like(ones, input, dtype, requires_grad, device)


def empty_like(input, dtype=None, requires_grad=False, device=None):
    return _like(zeros, input, dtype, requires_grad, device)


def full_like(input, fill_value, dtype=None, requires_grad=False, device=None):
    return _like(full, input, dtype, requires_grad, device, fill_value)


def rand_like(input, dtype=None, requires_grad=False, device=None):
    return _like(rand, input, dtype, requires_grad, device)


def randn_like(input, dtype=None, requires_grad=False, device=None):
    return _like(randn, input, dtype, requires_grad, device)


def randint_like(input, low=0, high=None, dtype=None, requires_grad=False, device=None):
    """Integers in [low, high) shaped like ``input``, in its dtype (``randint_like(x, 10)``
    means high = 10)."""
    if high is None:
        low, high = 0, low
    return randint(low, high, input.shape, dtype=dtype or input.dtype,
                   requires_grad=requires_grad, device=device or devices.CPU)


manual_seed = random.manual_seed
initial_seed = random.initial_seed
seed = random.seed
get_rng_state = random.get_rng_state
set_rng_state = random.set_rng_state


# ---- x.new_zeros(2, 3) and friends: a new tensor with x's dtype (not its values) ---------
def new_zeros(self, *size, dtype=None, requires_grad=False, device=None):
    return zeros(*size, dtype=dtype or self.dtype, requires_grad=requires_grad,
                 device=device or devices.CPU)


def new_ones(self, *size, dtype=None, requires_grad=False, device=None):
    return ones(*size, dtype=dtype or self.dtype, requires_grad=requires_grad,
                device=device or devices.CPU)


def new_full(self, size, fill_value, dtype=None, requires_grad=False, device=None):
    return full(size, fill_value, dtype=dtype or self.dtype, requires_grad=requires_grad,
                device=device or devices.CPU)


def new_tensor(self, data, dtype=None, requires_grad=False, device=None):
    return tensor(data, dtype=dtype or self.dtype, requires_grad=requires_grad,
                  device=device or devices.CPU)
