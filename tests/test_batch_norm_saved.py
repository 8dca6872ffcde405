"""What BatchNorm's node keeps, compared with torch: the running statistics (so changing one
in place before backward raises the in-place error, in training and in evaluation), the
batch's mean and 1 / std in training (empty in evaluation), None for what is absent (no
running statistics, no affine weight) -- and the gradients are unchanged by all of it."""
import numpy as np
import pytest

try:
    from . import differential as D
except ImportError:
    import differential as D

torch = pytest.importorskip("torch")
run = D.run_both

VERSION_MSG = "one of the variables needed for gradient computation has been modified by an inplace operation"


def _batch(tg):
    values = np.linspace(-2, 3, 4 * 3 * 2, dtype=np.float32).reshape(4, 3, 2) ** 2
    return tg.tensor(values, requires_grad=True)


SAVED = ("eps", "input", "result1", "result2", "running_mean", "running_var", "training",
         "weight")       # PyTorch's fields; dir() lists them all, those holding None too


def _saved(node):
    """Each ``_saved_`` field: a tensor by its values, anything else as it is."""
    return {name: D.snap(value, version=False) if D.is_tensor(value) else value
            for name, value in ((n, getattr(node, f"_saved_{n}")) for n in SAVED)}


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("track_running_stats", [True, False])
def test_batch_norm_saves_like_torch(training, affine, track_running_stats):
    def prog(tg):
        bn = tg.nn.BatchNorm1d(3, affine=affine, track_running_stats=track_running_stats)
        bn.train(training)
        x = _batch(tg)
        out = bn(x)
        saved = _saved(out.grad_fn)
        (out * out).sum().backward()
        return {"saved": saved, "grad": x.grad,
                "weight_grad": bn.weight.grad if affine else None}
    run(prog)


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("statistic", ["running_mean", "running_var"])
def test_changing_a_running_statistic_before_backward_raises(training, statistic):
    def prog(tg):
        bn = tg.nn.BatchNorm1d(3)
        bn.train(training)
        out = bn(_batch(tg))
        with tg.no_grad():
            getattr(bn, statistic).add_(1)
        out.sum().backward()
    run(prog, raises="RuntimeError", msg=VERSION_MSG)


def test_the_running_statistics_update_is_not_a_new_version():
    def prog(tg):
        bn = tg.nn.BatchNorm1d(3)
        before = bn.running_mean._version
        bn(_batch(tg))
        return {"before": before, "after": bn.running_mean._version,
                "running_mean": D.snap(bn.running_mean, version=False)}
    run(prog)
