"""sort, argsort and topk among equal values and NaN, compared with torch: the same indices
(so gradients reach the same elements), stable or not, sorted or not, any dtype."""
import numpy as np
import pytest

try:
    from . import differential as D
except ImportError:
    import differential as D

torch = pytest.importorskip("torch")
run = D.run_both


def _tied(seed, shape, with_nan=False):
    rng = np.random.default_rng(seed)
    values = rng.integers(0, 4, size=shape).astype(np.float32)
    if with_nan:
        values[rng.random(shape) < 0.2] = np.nan
    return values


CASES = [(seed, shape, with_nan) for seed, shape in enumerate([(7,), (20,), (2, 45), (3, 90)])
         for with_nan in (False, True)]


@pytest.mark.parametrize("seed,shape,with_nan", CASES)
@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("stable", [False, True])
def test_sort(seed, shape, with_nan, descending, stable):
    def prog(tg):
        x = tg.tensor(_tied(seed, shape, with_nan), requires_grad=True)
        result = x.sort(descending=descending, stable=stable)
        weights = tg.arange(1.0, x.shape[-1] + 1)
        (tg.nan_to_num(result.values) * weights).sum().backward()
        # (torch fills the gradient in place: its version differs)
        return {"values": result.values, "indices": result.indices,
                "grad": D.snap(x.grad, version=False),
                "argsort": x.argsort(dim=0, descending=descending)}
    run(prog)


@pytest.mark.parametrize("seed,shape,with_nan", CASES)
@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("sorted_", [True, False])
def test_topk(seed, shape, with_nan, largest, sorted_):
    def prog(tg):
        x = tg.tensor(_tied(seed, shape, with_nan))
        n = x.shape[-1]
        return {f"k={k}": x.topk(k, largest=largest, sorted=sorted_).indices
                for k in sorted({0, 1, 2, n // 3, n - 1, n})}
    run(prog)


def test_other_dtypes_and_zero_dims():
    def prog(tg):
        ints = tg.tensor([2, 0, 1, 2, 0, 1, 2])
        flags = tg.tensor([True, False, True, False])
        small = tg.tensor([3, 200, 1, 200], dtype=tg.uint8)
        number = tg.tensor(3.0, requires_grad=True)
        top = number.topk(1)
        top.values.backward()
        return {"ints": ints.sort().indices, "ints_top": ints.topk(3).indices,
                "bools": flags.sort(descending=True).indices,
                "uint8": small.sort(descending=True).indices,
                "number_sort": number.sort().indices, "number_top": top.indices,
                "number_grad": D.snap(number.grad, version=False)}
    run(prog)
