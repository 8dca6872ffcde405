"""Numbers a dtype cannot hold, compared with torch: conversions turn floats beyond a float
type's range into inf without a warning; ``fill_``, ``full`` and ``tensor`` of Python numbers
refuse what an integer type (or, for ``fill_`` and ``full``, a float type) cannot hold, with
PyTorch's errors."""
import numpy as np
import pytest

try:
    from . import differential as D
except ImportError:
    import differential as D

torch = pytest.importorskip("torch")
SILENT = {"warn": ("RuntimeWarning", ""), "warn_count": 0}     # no warning from either


def run(prog):
    D.run_both(prog, raises=D.ANY, **SILENT)

DTYPES = ["float16", "float32", "float64", "int64", "int32", "uint8", "bool"]
NUMBERS = [4e38, 3.4028235e38, -3.5e38, 65504.0, 65519.0, 65520.0, 1e5, float("inf"),
           float("-inf"), float("nan"), 1e10, 2.0**63, 300, -1, -255, -256, 2**40, 2**63,
           2**64 - 1, 2**64, -2**63, -2**63 - 1, 0.5, True]


@pytest.mark.parametrize("size", [1, 3])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("number", NUMBERS, ids=repr)
def test_fill_and_full(number, dtype, size):
    def prog(tg):
        kind = getattr(tg, dtype)
        return {"fill_": lambda: tg.zeros(size, dtype=kind).fill_(number),
                "full": lambda: tg.full((size,), number, dtype=kind)}
    for name in ("fill_", "full"):
        run(lambda tg: prog(tg)[name]())


@pytest.mark.parametrize("dtype", DTYPES + [None])
@pytest.mark.parametrize("number", NUMBERS, ids=repr)
def test_tensor_of_python_numbers(number, dtype):
    run(lambda tg: tg.tensor([number, 1], dtype=None if dtype is None else getattr(tg, dtype)))


@pytest.mark.parametrize("target", ["float16", "float32", "int32", "int64", "uint8"])
@pytest.mark.parametrize("values", [[4e38, -4e38, 1.0], [1e5, -7e4], [float("nan"), 2.5],
                                    [300.0, -1.0], [1e10]], ids=repr)
def test_conversions_are_silent(values, target):
    def prog(tg):
        source = tg.tensor(values, dtype=tg.float64)
        kind = getattr(tg, target)
        return {"to": source.to(kind), "type": source.type(kind),
                "copy_": tg.zeros(len(values), dtype=kind).copy_(source),
                "from_array": tg.tensor(np.array(values), dtype=kind)}
    if target in ("float16", "float32"):
        run(prog)
    else:           # the integers an out-of-range float becomes are undefined behaviour in C++
        run(lambda tg: [t.dtype for t in prog(tg).values()])
