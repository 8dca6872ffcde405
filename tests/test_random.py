"""Tests for teachgrad.random: same numbers as torch's CPU generator."""

import math
import platform
from fractions import Fraction

import numpy as np
import pytest

from teachgrad import random as tr

SEEDS = [0, 1, 42, 2**32 + 7, 12345678901234]
RANDN_SIZES = list(range(1, 41)) + [100, 1000]


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def same(mine, theirs):
    """Exact equality, dtype included."""
    theirs = theirs.detach().numpy()
    assert mine.dtype == theirs.dtype
    assert mine.shape == theirs.shape
    np.testing.assert_array_equal(mine, theirs)


def seed_both(torch, seed):
    tr.manual_seed(seed)
    torch.manual_seed(seed)


# ------------------------------------------------------- compared with torch

@pytest.mark.torch
@pytest.mark.parametrize("seed", SEEDS)
def test_seed_is_kept(torch, seed):
    seed_both(torch, seed)
    assert tr.initial_seed() == torch.initial_seed() == seed


@pytest.mark.torch
def test_negative_seed_wraps_like_torch(torch):
    seed_both(torch, -1)
    assert tr.initial_seed() == torch.initial_seed()
    same(tr.rand(5), torch.rand(5))


@pytest.mark.torch
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_rand(torch, seed, dtype):
    seed_both(torch, seed)
    tdtype = getattr(torch, dtype)
    for shape in [(1,), (3,), (5,), (4, 7), (2, 3, 5), ()]:
        same(tr.rand(shape, dtype), torch.rand(shape, dtype=tdtype))


@pytest.mark.torch
def test_second_call_continues_the_stream(torch):
    seed_both(torch, 0)
    tr.rand(3)
    torch.rand(3)
    same(tr.rand(5), torch.rand(5))


@pytest.mark.torch
@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_uniform(torch, seed, dtype):
    bounds = np.random.default_rng(seed).normal(size=2) * [1, 10]
    low, high = sorted(bounds.tolist())
    seed_both(torch, seed)
    tdtype = getattr(torch, dtype)
    for low_, high_ in [(low, high), (-0.5, 0.5), (2.0, 7.25)]:
        same(tr.uniform((300,), low_, high_, dtype),
             torch.empty(300, dtype=tdtype).uniform_(low_, high_))


@pytest.mark.torch
def test_uniform_never_returns_high(torch):
    # With this narrow range, one float32 sample rounds onto `high`;
    # torch returns `low` in its place.
    low, high = -1.2883614637495544, -1.2879316000547323
    seed_both(torch, 18)
    values = tr.uniform((500,), low, high)
    same(values, torch.empty(500).uniform_(low, high))
    assert values.max() < np.float32(high)


@pytest.mark.torch
@pytest.mark.parametrize("seed", range(4))
def test_linear_and_conv_default_init(torch, seed):
    """nn.Linear / nn.Conv2d: kaiming_uniform_(a=sqrt(5)) then bias."""
    def kaiming_uniform(shape, fan_in):
        gain = math.sqrt(2.0 / (1 + 5))
        bound = math.sqrt(3.0) * gain / math.sqrt(fan_in)
        return tr.uniform(shape, -bound, bound)

    def bias(shape, fan_in):
        bound = 1 / math.sqrt(fan_in)
        return tr.uniform(shape, -bound, bound)

    seed_both(torch, seed)
    linear = torch.nn.Linear(3, 2)
    conv = torch.nn.Conv2d(3, 16, 5)
    same(kaiming_uniform((2, 3), 3), linear.weight)
    same(bias((2,), 3), linear.bias)
    same(kaiming_uniform((16, 3, 5, 5), 75), conv.weight)
    same(bias((16,), 75), conv.bias)


@pytest.mark.torch
@pytest.mark.parametrize("size", RANDN_SIZES)
def test_randn_float32_sizes(torch, size):
    for seed in SEEDS[:3]:
        seed_both(torch, seed)
        same(tr.randn((size,)), torch.randn(size))
        same(tr.randn((size,)), torch.randn(size))   # uses the cached sample


@pytest.mark.torch
@pytest.mark.parametrize("size", [1, 2, 3, 15, 16, 17, 31, 40, 100, 1000])
def test_randn_float64_sizes(torch, size):
    for seed in SEEDS[:3]:
        seed_both(torch, seed)
        same(tr.randn((size,), np.float64), torch.randn(size, dtype=torch.float64))
        same(tr.randn((size,), np.float64), torch.randn(size, dtype=torch.float64))


@pytest.mark.torch
def test_randn_large_and_shaped(torch):
    seed_both(torch, 3)
    same(tr.randn((123, 457)), torch.randn(123, 457))
    same(tr.randn((2, 3, 4)), torch.randn(2, 3, 4))


@pytest.mark.torch
@pytest.mark.parametrize("size", [1, 5, 15, 16, 20, 1000])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_normal_with_mean_and_std(torch, size, dtype):
    tdtype = getattr(torch, dtype)
    for seed, (mean, std) in enumerate([(0.3, 2.5), (-4.0, 0.01), (10.0, 3.3)]):
        seed_both(torch, seed)
        same(tr.normal((size,), mean, std, dtype),
             torch.empty(size, dtype=tdtype).normal_(mean, std))


@pytest.mark.torch
def test_mixed_calls_share_one_stream(torch):
    seed_both(torch, 5)
    pairs = [
        (tr.randn(3), torch.randn(3)),
        (tr.randn(20), torch.randn(20)),
        (tr.randn(1), torch.randn(1)),     # cached sample from randn(3)
        (tr.rand(2), torch.rand(2)),
        (tr.randn(17, np.float64), torch.randn(17, dtype=torch.float64)),
        (tr.randint(0, 10, (4,)), torch.randint(0, 10, (4,))),
        (tr.randperm(7), torch.randperm(7)),
        (tr.normal(3, 1.5, 0.1), torch.empty(3).normal_(1.5, 0.1)),
        (tr.rand(4), torch.rand(4)),
    ]
    for mine, theirs in pairs:
        same(mine, theirs)


@pytest.mark.torch
@pytest.mark.parametrize("seed", SEEDS)
def test_randint(torch, seed):
    seed_both(torch, seed)
    for low, high, shape in [(0, 10, (20,)), (-3, 17, (4, 5)), (0, 2, (33,)),
                             (0, 2**40, (10,)), (-2**35, 2**35, (3, 3))]:
        same(tr.randint(low, high, shape), torch.randint(low, high, shape))


@pytest.mark.torch
@pytest.mark.parametrize("n", [0, 1, 2, 3, 10, 100, 1000, 60000])
def test_randperm(torch, n):
    for seed in SEEDS[:3]:
        seed_both(torch, seed)
        same(tr.randperm(n), torch.randperm(n))


def torch_bernoulli_uses_mkl(torch):
    """torch on Intel CPUs with MKL draws bernoulli_(p) from MKL instead."""
    try:
        with open("/proc/cpuinfo") as f:
            intel = "GenuineIntel" in f.read()
    except OSError:
        intel = "Intel" in platform.processor()
    return intel and torch.backends.mkl.is_available()


@pytest.mark.torch
@pytest.mark.parametrize("p", [0.0, 0.1, 0.5, 0.8, 1.0])
def test_bernoulli(torch, p):
    if torch_bernoulli_uses_mkl(torch):
        pytest.skip("torch uses MKL's generator for bernoulli_ on Intel CPUs")
    seed_both(torch, 0)
    same(tr.bernoulli((4, 25), p), torch.empty(4, 25).bernoulli_(p))
    same(tr.rand(3), torch.rand(3))


@pytest.mark.torch
@pytest.mark.parametrize("p", [0.1, 0.5, 0.9])
def test_dropout_mask(torch, p):
    """F.dropout on CPU keeps an element where bernoulli_(1 - p) gives 1.

    (For p == 0 or p == 1 torch draws nothing at all.)
    """
    if torch_bernoulli_uses_mkl(torch):
        pytest.skip("torch uses MKL's generator for bernoulli_ on Intel CPUs")
    seed_both(torch, 1)
    dropped = torch.nn.functional.dropout(torch.ones(6, 50), p)
    same(tr.bernoulli((6, 50), 1 - p), (dropped != 0).float())
    same(tr.rand(3), torch.rand(3))


@pytest.mark.torch
def test_state_restore_matches_torch(torch):
    seed_both(torch, 9)
    tr.randn(3)
    torch.randn(3)                      # leaves a cached normal sample
    mine, theirs = tr.get_rng_state(), torch.get_rng_state()
    first = tr.randn(5)
    same(first, torch.randn(5))
    tr.set_rng_state(mine)
    torch.set_rng_state(theirs)
    same(tr.randn(5), torch.randn(5))
    np.testing.assert_array_equal(tr.randn(0), np.empty(0, np.float32))


# ------------------------------------------------------------- torch-free

def test_same_seed_same_numbers():
    def draw():
        return [tr.rand((3, 4)), tr.randn(50), tr.randn(3, np.float64),
                tr.uniform(7, -2, 3), tr.normal(20, 1, 2), tr.randint(0, 9, 6),
                tr.randperm(12), tr.bernoulli(10, 0.3)]
    tr.manual_seed(1234)
    first = draw()
    tr.manual_seed(1234)
    for a, b in zip(first, draw()):
        np.testing.assert_array_equal(a, b)
    assert tr.initial_seed() == 1234


def test_different_seeds_differ():
    tr.manual_seed(1)
    a = tr.rand(10)
    tr.manual_seed(2)
    assert not np.array_equal(a, tr.rand(10))


def test_state_save_and_restore():
    tr.manual_seed(3)
    tr.randn(5)                         # leaves a cached normal sample
    state = tr.get_rng_state()
    expected = [tr.randn(1), tr.rand(4), tr.randperm(5)]
    for _ in range(2):                  # a state can be restored twice
        tr.set_rng_state(state)
        for a, b in zip(expected, [tr.randn(1), tr.rand(4), tr.randperm(5)]):
            np.testing.assert_array_equal(a, b)


def test_first_known_values():
    # mt19937 with init_genrand(5489): first output is 3499211612
    # (the reference value of C++'s std::mt19937).
    tr.manual_seed(5489)
    assert tr.randint(0, 2**32 - 1, 1)[0] == 3499211612


def test_ranges_and_dtypes():
    tr.manual_seed(0)
    u = tr.uniform(1000, -2.0, 3.0)
    assert u.dtype == np.float32 and u.min() >= -2 and u.max() < 3
    assert tr.rand(4, np.float64).dtype == np.float64
    r = tr.randint(-5, 5, (10, 10))
    assert r.dtype == np.int64 and r.min() >= -5 and r.max() < 5
    assert sorted(tr.randperm(50).tolist()) == list(range(50))
    b = tr.bernoulli(1000, 0.25)
    assert set(np.unique(b)) <= {0.0, 1.0} and 150 < b.sum() < 350
    z = tr.randn(100_000)
    assert abs(z.mean()) < 0.02 and abs(z.std() - 1) < 0.02
    with pytest.raises(TypeError):
        tr.rand(3, np.float16)
    with pytest.raises(ValueError):
        tr.randint(3, 3, 1)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fma_is_exactly_rounded(dtype):
    rng = np.random.default_rng(0)
    a, b, c = ((rng.normal(size=2000) * 10.0 ** rng.integers(-3, 3, 2000)).astype(dtype)
               for _ in range(3))
    result = tr._fma(a, b, c)
    assert result.dtype == dtype
    for x, y, z, r in zip(a, b, c, result):
        exact = Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z))
        nearest = dtype(float(exact))          # may double-round for float32
        if dtype == np.float32:
            candidates = [nearest, np.nextafter(nearest, dtype(np.inf)),
                          np.nextafter(nearest, dtype(-np.inf))]
            nearest = min(candidates, key=lambda v: (abs(Fraction(float(v)) - exact),
                                                     int(np.array(v).view(np.uint32)) & 1))
        assert r == nearest


def test_fma_hard_case_single_rounding():
    # a * b + c lies just above a float32 midpoint; rounding twice (first to
    # float64, then to float32) would wrongly land on the even neighbour.
    a = b = np.float32(1 + 2**-12)
    c = np.float32(2**-60)
    assert tr._fma(a, b, c) == np.float32(1 + 2**-11 + 2**-23)
    assert tr._fma(a, b, -c) == np.float32(1 + 2**-11)


# ------------------------------------------------------- generators of their own

@pytest.mark.torch
def test_a_generator_draws_its_own_stream_like_torch(torch):
    import teachgrad as tg
    results = []
    for lib in (tg, torch):
        lib.manual_seed(11)
        g = lib.Generator().manual_seed(3)
        draws = [lib.rand(3, generator=g), lib.randn(20, generator=g),
                 lib.randint(0, 10, (4,), generator=g), lib.randperm(6, generator=g)]
        state = g.get_state()
        again = lib.rand(2, generator=g).tolist()
        g.set_state(state)
        results.append(([d.tolist() for d in draws], again, lib.rand(2, generator=g).tolist(),
                        g.initial_seed(), lib.rand(2).tolist()))    # the global stream untouched
    assert results[0] == results[1]
