"""Random numbers that match PyTorch's CPU default generator.

After ``manual_seed(s)`` every function here returns the same numbers as the
matching torch call on CPU, so a course notebook shows exactly what a student
running real PyTorch would see.

How torch does it (ATen, CPU):

* One Mersenne Twister (mt19937) seeded with the standard ``init_genrand`` on
  the low 32 bits of the seed.  It hands out 32-bit words; a "64-bit word" is
  two consecutive 32-bit words, the first one being the high half.
* float32 samples use one 32-bit word, float64 samples use one 64-bit word.
* Each distribution is a small formula on those words.  torch's C++ is built
  with floating-point contraction, so ``a * b + c`` is computed as a fused
  multiply-add (one rounding).  ``_fma`` below reproduces that exactly.

The state is module-level, like torch's default generator.
"""

import contextlib
import math

import numpy as np

__all__ = [
    "Generator", "drawing_from",
    "manual_seed", "seed", "initial_seed", "get_rng_state", "set_rng_state",
    "rand", "randn", "uniform", "normal", "randint", "randperm", "bernoulli",
    "exponential", "multinomial",
]

_MT_SIZE = 624          # mt19937 keeps 624 32-bit words of state
_DEFAULT_SEED = 67280421310721  # torch's default seed before any manual_seed


# ----------------------------------------------------------------- generator

class _Generator:
    """The default generator: an mt19937 stream plus torch's extra state.

    ``normal_cache`` mirrors torch's ``next_double_normal_sample``: the scalar
    Box-Muller path makes two normals at a time and keeps the second one for
    the next call.
    """

    def __init__(self, seed):
        self.seed = seed
        self.normal_cache = None
        self.mt = np.random.MT19937()
        self.mt.state = {
            "bit_generator": "MT19937",
            "state": {"key": _init_genrand(seed & 0xFFFFFFFF), "pos": _MT_SIZE},
        }

    def words32(self, n):
        """The next ``n`` raw 32-bit outputs, as uint64."""
        return self.mt.random_raw(n).astype(np.uint64)

    def words64(self, n):
        """The next ``n`` 64-bit words; each is (first word << 32) | second."""
        w = self.words32(2 * n)
        return (w[0::2] << np.uint64(32)) | w[1::2]


def _init_genrand(seed32):
    """Knuth's linear recurrence that fills the mt19937 state from one word."""
    key = np.empty(_MT_SIZE, dtype=np.uint32)
    x = seed32
    for i in range(_MT_SIZE):
        key[i] = x
        x = (1812433253 * (x ^ (x >> 30)) + i + 1) & 0xFFFFFFFF
    return key


_gen = _Generator(_DEFAULT_SEED)


def manual_seed(seed):
    """Reset the generator, like ``torch.manual_seed``.

    Negative seeds wrap around modulo 2**64, as in torch.
    """
    global _gen
    _gen = _Generator(int(seed) % 2**64)


def seed():
    """Seed from the operating system's entropy, like ``torch.seed``."""
    s = int(np.random.SeedSequence().entropy) % 2**64
    manual_seed(s)
    return s


def initial_seed():
    """The seed given to the last ``manual_seed``."""
    return _gen.seed


def get_rng_state():
    """An opaque snapshot of the generator; give it back to ``set_rng_state``."""
    return _snapshot(_gen)


def set_rng_state(state):
    """Restore a snapshot taken with ``get_rng_state``."""
    global _gen
    _gen = _restored(state)


def _snapshot(generator_state):
    return (generator_state.seed, generator_state.normal_cache, generator_state.mt.state)


def _restored(snapshot):
    seed_value, normal_cache, mt_state = snapshot
    generator_state = _Generator(seed_value)
    generator_state.normal_cache = normal_cache
    generator_state.mt.state = mt_state
    return generator_state


class Generator:
    """``torch.Generator``: a random stream of its own, for code that must not disturb
    the global one (a DataLoader's shuffling, say). After the same ``manual_seed`` it
    gives the same numbers as the global generator would."""

    def __init__(self, device="cpu"):
        self._state = _Generator(_DEFAULT_SEED)
        self.device = device

    def manual_seed(self, seed):
        self._state = _Generator(int(seed) % 2**64)
        return self

    def seed(self):
        s = int(np.random.SeedSequence().entropy) % 2**64
        self.manual_seed(s)
        return s

    def initial_seed(self):
        return self._state.seed

    def get_state(self):
        """An opaque snapshot (PyTorch gives a ByteTensor); give it back to ``set_state``."""
        return _snapshot(self._state)

    def set_state(self, state):
        self._state = _restored(state)
        return self


@contextlib.contextmanager
def drawing_from(generator):
    """Inside the block, every draw uses ``generator`` (None: the global generator)."""
    global _gen
    if generator is None:
        yield
        return
    previous, _gen = _gen, generator._state
    try:
        yield
    finally:
        generator._state, _gen = _gen, previous


# ------------------------------------------------------- exact float helpers

def _two_sum(a, b):
    """s, err with s = fl(a + b) and s + err == a + b exactly (Knuth)."""
    s = a + b
    b_part = s - a
    err = (a - (s - b_part)) + (b - b_part)
    return s, err


def _split(a):
    """Veltkamp split: a == hi + lo, each half fits in half the mantissa."""
    bits = np.finfo(a.dtype).nmant + 1
    factor = a.dtype.type(2 ** ((bits + 1) // 2) + 1)
    c = factor * a
    hi = c - (c - a)
    return hi, a - hi


def _two_product(a, b):
    """p, err with p = fl(a * b) and p + err == a * b exactly (Dekker)."""
    p = a * b
    a_hi, a_lo = _split(a)
    b_hi, b_lo = _split(b)
    err = ((a_hi * b_hi - p) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo
    return p, err


def _fma(a, b, c):
    """Fused multiply-add ``a * b + c`` with a single rounding, in a's dtype.

    numpy has no fma, but C++ compilers turn ``a * b + c`` into one, so we
    emulate it exactly with Boldo and Melquiond's "round to odd" trick.
    (Exact unless something overflows or underflows to subnormals.)
    """
    a = np.asarray(a)
    dtype = a.dtype
    b = np.asarray(b, dtype=dtype)
    c = np.asarray(c, dtype=dtype)
    with np.errstate(over="ignore", invalid="ignore"):
        prod_hi, prod_lo = _two_product(a, b)
        sum_hi, sum_lo = _two_sum(c, prod_hi)
        tail, tail_err = _two_sum(sum_lo, prod_lo)
        # Round `tail` to odd: if inexact and its last bit is even, step
        # one ulp towards the exact value.
        uint = np.uint32 if dtype == np.float32 else np.uint64
        even = (np.atleast_1d(tail).view(uint) & 1) == 0
        fix = (tail_err != 0) & even.reshape(np.shape(tail))
        towards = np.where(tail_err > 0, np.inf, -np.inf).astype(dtype)
        tail = np.where(fix, np.nextafter(tail, towards), tail)
        result = sum_hi + tail
    return result.astype(dtype)


# ------------------------------------------------------------ uniform floats

def _size(shape):
    """Number of elements and a normalized shape tuple."""
    shape = (shape,) if np.isscalar(shape) else tuple(shape)
    return int(np.prod(shape, dtype=np.int64)), shape


def _float_dtype(dtype):
    """Check for a supported float dtype (float32 or float64)."""
    dtype = np.dtype(dtype)
    if dtype not in (np.float32, np.float64):
        raise TypeError(f"random floats need float32 or float64, not {dtype}")
    return dtype


def _unit_floats(n, dtype):
    """n floats in [0, 1): torch's ``uniform_real_distribution(0, 1)``.

    float32 keeps the low 24 bits of a 32-bit word, float64 the low 53 bits
    of a 64-bit word, then scales by 2**-24 or 2**-53.
    """
    if _float_dtype(dtype) == np.float64:
        bits = _gen.words64(n) & np.uint64(2**53 - 1)
        return bits.astype(np.float64) * 2.0**-53
    bits = _gen.words32(n) & np.uint64(2**24 - 1)
    return bits.astype(np.float32) * np.float32(2.0**-24)


def rand(shape, dtype=np.float32):
    """``torch.rand``: uniform on [0, 1).  Matches torch bit for bit."""
    n, shape = _size(shape)
    return _unit_floats(n, dtype).reshape(shape)


def uniform(shape, low=0.0, high=1.0, dtype=np.float32):
    """``tensor.uniform_(low, high)``.  Matches torch bit for bit.

    torch computes ``x * (high - low) + low`` in the tensor's dtype with a
    fused multiply-add.  Rounding can land exactly on ``high``; torch then
    returns ``low`` instead, to keep the interval half-open.
    """
    n, shape = _size(shape)
    dtype = _float_dtype(dtype)
    low, high = dtype.type(low), dtype.type(high)
    if not low <= high:
        raise ValueError(f"uniform: need low <= high, got {low} and {high}")
    values = _fma(_unit_floats(n, dtype), high - low, low)
    return np.where(values >= high, low, values).reshape(shape)


# ----------------------------------------------------------- normal floats

def randn(shape, dtype=np.float32):
    """``torch.randn``: standard normal.  See ``normal`` for how."""
    return normal(shape, 0.0, 1.0, dtype)


def normal(shape, mean=0.0, std=1.0, dtype=np.float32):
    """``tensor.normal_(mean, std)``, matching torch bit for bit.

    torch picks one of two Box-Muller variants by size:

    * fewer than 16 elements: a scalar float64 Box-Muller that caches its
      second sample for the next call (``_normal_scalar``);
    * 16 or more: fill with uniforms, then transform blocks of 16
      (``_normal_blocks``).  float32 follows torch's AVX2 code path, the
      one x86-64 machines use; torch on ARM (e.g. Apple M1) takes a scalar
      path whose float32 results can differ in the last bits.
    """
    n, shape = _size(shape)
    dtype = _float_dtype(dtype)
    if not std >= 0:
        raise ValueError(f"normal: std must be >= 0, got {std}")
    if n >= 16:
        out = _normal_blocks(n, dtype.type(mean), dtype.type(std), dtype)
    else:
        out = _normal_scalar(n, mean, std).astype(dtype)
    return out.reshape(shape)


def _normal_scalar(n, mean, std):
    """torch's ``at::normal_distribution<double>``, one sample at a time."""
    out = np.empty(n, dtype=np.float64)
    for i in range(n):
        if _gen.normal_cache is None:
            u1, u2 = _unit_floats(2, np.float64)
            radius = math.sqrt(-2.0 * math.log1p(-u2))
            theta = 2.0 * math.pi * u1
            _gen.normal_cache = radius * math.sin(theta)
            z = radius * math.cos(theta)
        else:
            z, _gen.normal_cache = _gen.normal_cache, None
        out[i] = _fma(np.float64(z), std, mean)
    return out


def _normal_blocks(n, mean, std, dtype):
    """torch's ``normal_fill``: Box-Muller on blocks of 16 uniforms.

    In each block, element j and j + 8 (j < 8) form one Box-Muller pair.
    If n is not a multiple of 16, the last 16 elements are redrawn and
    transformed again, overlapping the previous block.
    """
    data = _unit_floats(n, dtype)
    full = n - n % 16
    data[:full] = _box_muller_16(data[:full], mean, std)
    if n % 16:
        tail = _unit_floats(16, dtype)
        data[n - 16:] = _box_muller_16(tail, mean, std)
    return data


def _box_muller_16(data, mean, std):
    """Transform uniforms, block by block of 16, into normals."""
    blocks = data.reshape(-1, 2, 8)
    u1 = 1 - blocks[:, 0]          # [0, 1) -> (0, 1] so log is finite
    u2 = blocks[:, 1]
    if data.dtype == np.float32:
        radius = np.sqrt(np.float32(-2) * _log_avx2(u1))
        theta = np.float32(2.0 * math.pi) * u2
        sin, cos = _sincos_avx2(theta)
        first = _fma(radius * cos, std, mean)
        second = _fma(radius * sin, std, mean)
    else:
        radius = np.sqrt(-2 * _libm(math.log, u1))
        theta = 2.0 * math.pi * u2
        first = _fma(radius * _libm(math.cos, theta), std, mean)
        second = _fma(radius * _libm(math.sin, theta), std, mean)
    return np.stack([first, second], axis=1).reshape(-1)


def _libm(func, x):
    """Apply a ``math`` function elementwise (C libm, as torch's scalar code)."""
    return np.array([func(v) for v in x.ravel()], dtype=x.dtype).reshape(x.shape)


# Cephes polynomial constants from torch's avx_mathfun.h (float32).
_f32 = np.float32
_LOG_P = [_f32(c) for c in (
    7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1,
    1.4249322787e-1, -1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1,
    3.3333331174e-1)]
_LOG_Q1, _LOG_Q2 = _f32(-2.12194440e-4), _f32(0.693359375)
_SQRT_HALF = _f32(0.707106781186547524)
_DP = [_f32(-0.78515625), _f32(-2.4187564849853515625e-4),
       _f32(-3.77489497744594108e-8)]
_SIN_P = [_f32(-1.9515295891e-4), _f32(8.3321608736e-3), _f32(-1.6666654611e-1)]
_COS_P = [_f32(2.443315711809948e-5), _f32(-1.388731625493765e-3),
          _f32(4.166664568298827e-2)]
_FOUR_OVER_PI = _f32(1.27323954473516)


def _log_avx2(x):
    """float32 log of x in (0, 1], step by step as torch's ``log256_ps``.

    Write x = 2**e * (1 + m) with 1 + m in [sqrt(1/2), sqrt(2)), then
    log x = e * log(2) + log(1 + m), with a polynomial in m for the second
    term and log(2) split in two constants (Q2 + Q1) for extra precision.
    Each ``_fma`` is a multiply-add that GCC fused in torch's build.
    """
    one = _f32(1)
    bits = x.view(np.int32)
    e = ((bits >> 23) - 127).astype(np.float32) + one
    m = ((bits & ~0x7F800000) | 0x3F000000).view(np.float32)   # in [0.5, 1)
    small = m < _SQRT_HALF
    e = e - np.where(small, one, _f32(0))
    m = (m - one) + np.where(small, m, _f32(0))
    z = m * m
    y = _LOG_P[0]
    for p in _LOG_P[1:]:
        y = _fma(y, m, p)
    y = y * m
    y = _fma(y, z, e * _LOG_Q1)
    y = _fma(z, _f32(-0.5), y)
    return _fma(e, _LOG_Q2, m + y)


def _sincos_avx2(x):
    """float32 (sin x, cos x) for x >= 0, as torch's ``sincos256_ps``.

    Reduce x by multiples of pi/4, then use a polynomial for sin or cos
    on [-pi/4, pi/4] and fix up which one and the signs.
    """
    j = np.trunc(x * _FOUR_OVER_PI).astype(np.int32)
    j = (j + 1) & ~1                                   # round up to even
    y = j.astype(np.float32)
    for dp in _DP:                     # x -= y * pi/4, pi/4 split in 3 pieces
        x = _fma(y, dp, x)
    z = x * x

    cos_poly = _fma(_fma(_COS_P[0], z, _COS_P[1]), z, _COS_P[2])
    cos_poly = _fma(cos_poly * z, z, -(z * _f32(0.5))) + _f32(1)
    sin_poly = _fma(_fma(_SIN_P[0], z, _SIN_P[1]), z, _SIN_P[2])
    sin_poly = _fma(sin_poly * z, x, x)

    use_sin_poly = (j & 2) == 0
    sin = np.where(use_sin_poly, sin_poly, cos_poly)
    cos = np.where(use_sin_poly, cos_poly, sin_poly)
    sin = np.where((j & 4) != 0, -sin, sin)
    cos = np.where(((j - 2) & 4) == 0, -cos, cos)
    return sin, cos


# ----------------------------------------------------------------- integers

def randint(low, high, shape):
    """``torch.randint(low, high, shape)`` (int64).  Matches torch.

    Each sample is ``word % (high - low) + low``, with a 32-bit word when the
    range fits in 32 bits and a 64-bit word otherwise.
    """
    n, shape = _size(shape)
    span = int(high) - int(low)
    if span <= 0:
        raise ValueError(f"randint: need low < high, got {low} and {high}")
    words = _gen.words64(n) if span >= 2**32 else _gen.words32(n)
    values = (words % np.uint64(span)).astype(np.int64) + np.int64(low)
    return values.reshape(shape)


def randperm(n):
    """``torch.randperm(n)`` (int64).  Matches torch.

    A Fisher-Yates shuffle: position i swaps with i + (word % (n - i)).
    """
    n = int(n)
    perm = np.arange(n, dtype=np.int64)
    if n < 2:
        return perm
    if n >= (2**32 - 1) // 20:
        raise NotImplementedError("randperm: n this large is not supported")
    offsets = _gen.words32(n - 1) % np.arange(n, 1, -1, dtype=np.uint64)
    targets = (offsets + np.arange(n - 1, dtype=np.uint64)).tolist()
    order = perm.tolist()
    for i, t in enumerate(targets):
        order[i], order[t] = order[t], order[i]
    return np.array(order, dtype=np.int64)


def bernoulli(shape, p=0.5, dtype=np.float32):
    """``torch.empty(shape).bernoulli_(p)``: 1 with probability p, else 0.

    Dropout on CPU calls exactly this with p = 1 - drop probability.
    Matches torch's portable kernel: a float64 uniform ``u`` gives ``u < p``.
    Caveat: torch on *Intel* CPUs with MKL uses a different generator
    (MKL's MCG31) for this one function, so the 0/1 pattern differs there;
    it is still reproducible from the seed.
    """
    n, shape = _size(shape)
    if not 0 <= p <= 1:
        raise ValueError(f"bernoulli: p must be in [0, 1], got {p}")
    return (_unit_floats(n, np.float64) < p).astype(dtype).reshape(shape)


def exponential(shape, lambd=1.0, dtype=np.float32):
    """``tensor.exponential_(lambd)``: -1 / lambd * log(1 - u) for a float64 uniform u,
    rounded to ``dtype``.  Matches torch's portable kernel."""
    n, shape = _size(shape)
    u = _unit_floats(n, np.float64)
    return (-1.0 / lambd * np.log1p(-u)).astype(dtype).reshape(shape)


def multinomial(probs, num_samples, replacement=False):
    """``torch.multinomial`` on a 1-D or 2-D array of weights (checked by the caller):
    int64 category indices, one row of samples per distribution.  Matches torch.

    torch has two algorithms:

    * without replacement, or for a single sample: divide each weight by an
      exponential draw and take the ``num_samples`` largest ratios (the Gumbel-max
      trick with exp applied), in the order torch's topk gives them;
    * with replacement: for each sample, a float64 uniform u looked up in the
      row's cumulative weights (summed in order, in the weights' dtype, divided
      by the total, the last set to 1): the first category reaching u.
    """
    from teachgrad.ops.cpp_orders import topk_positions
    rows = np.atleast_2d(probs)
    if not replacement or num_samples == 1:
        ratios = rows / exponential(rows.shape, 1.0, rows.dtype)
        samples = [[np.argmax(row)] if num_samples == 1 else topk_positions(row, num_samples)
                   for row in ratios]
    else:
        samples = [_draw_with_replacement(row, num_samples) for row in rows]
    return np.array(samples, dtype=np.int64).reshape(probs.shape[:-1] + (num_samples,))


def _draw_with_replacement(weights, num_samples):
    cumulative = np.cumsum(weights)         # sequential, in the weights' dtype, as torch
    cumulative = cumulative / cumulative[-1]
    cumulative[-1] = 1
    return np.searchsorted(cumulative, _unit_floats(num_samples, np.float64), side="left")
