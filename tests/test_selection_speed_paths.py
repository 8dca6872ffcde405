"""mode and kthvalue answer most slices with numpy and keep PyTorch's C++ steps for the
slices where ties decide: compared with torch on inputs that mix both kinds of slices
(values and indices bit for bit, and the gradient), and checked to take the numpy path
where no tie can matter."""
import numpy as np
import pytest

try:
    from . import differential as D
except ImportError:
    import differential as D

torch = pytest.importorskip("torch")
run = D.run_both


def _mixed(seed, shape, dtype=np.float32):
    """Rows of distinct values, rows with a few ties, rows of many ties, a NaN or two."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape).astype(dtype)
    rows = x.reshape(-1, shape[-1])
    rows[1::4] = rng.integers(0, 3, rows[1::4].shape)
    rows[2::4, : shape[-1] // 2] = rows[2::4, shape[-1] // 2: 2 * (shape[-1] // 2)]
    if dtype != np.int64:
        rows[3::8, 1] = np.nan
        rows[3::16, 4] = np.nan
    return x


CASES = {   # (shape, dim)
    "short_rows": ((24, 7), 1),
    "sixteen": ((24, 16), 1),
    "seventeen": ((24, 17), 1),
    "long_rows": ((16, 200), 1),
    "along_dim_0": ((50, 6), 0),
    "three_dims": ((4, 30, 5), 1),
}


@pytest.mark.parametrize("dtype", [np.float32, np.int64])
@pytest.mark.parametrize("case", sorted(CASES))
def test_mode_and_kthvalue_match_torch_on_mixed_slices(case, dtype):
    shape, dim = CASES[case]
    values = _mixed(hash(case) % 1000, shape, dtype).tolist()
    size = shape[dim]

    def prog(tg):
        x = tg.tensor(values)
        out = [x.mode(dim), x.mode(dim, keepdim=True)]
        for k in sorted({1, 2, (size + 1) // 2, size}):
            out.append(x.kthvalue(k, dim))
        return [list(r) for r in out]
    run(prog)


def test_gradients_go_to_the_reported_index():
    values = _mixed(7, (12, 20)).tolist()

    def prog(tg):
        x = tg.tensor(values, requires_grad=True)
        (x.mode(1).values.nan_to_num().sum() + 2 * x.kthvalue(5, 1).values.nan_to_num().sum()).backward()
        return D.snap(x.grad, version=False)
    run(prog)


def test_bool_and_single_values():
    def prog(tg):
        b = tg.tensor([[True, False, True], [False, False, True]])
        return [list(b.mode(1)), list(b.mode(0)), list(tg.tensor(3.0).mode()),
                list(tg.tensor([2.0]).kthvalue(1)), list(tg.tensor(5).kthvalue(1, 0, True))]
    run(prog)


def test_slices_without_ties_do_not_run_the_cpp_steps(monkeypatch):
    if D.SELFTEST:
        pytest.skip("about teachgrad's own code")
    import teachgrad as tg
    from teachgrad.ops import reduction

    def refuse(*args, **kwargs):
        raise AssertionError("the C++ port ran for a slice without ties")
    monkeypatch.setattr(reduction.ModeBackward0, "pick", staticmethod(refuse))
    monkeypatch.setattr(reduction.KthvalueBackward0, "pick", staticmethod(refuse))
    distinct = np.random.default_rng(0).permutation(100 * 1000).reshape(100, 1000) / 7
    x = tg.tensor(distinct.astype(np.float32))
    ties_in_short_rows = tg.tensor([[3, 1, 3, 1, 2], [0, 0, 5, 5, 5]])
    assert x.mode(1).indices.tolist() == np.argmin(x.numpy(), 1).tolist()
    assert x.kthvalue(500, 1).values.tolist() == np.sort(x.numpy(), 1)[:, 499].tolist()
    assert ties_in_short_rows.mode(1).indices.tolist() == [3, 4]
