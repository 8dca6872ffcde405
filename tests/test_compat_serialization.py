"""``load`` under ``weights_only=True`` refuses numpy arrays and scalars with PyTorch's
message, and takes them once allowed (issue 20)."""
import collections
import io
import pickle

import numpy as np
import pytest

import teachgrad

torch = pytest.importorskip("torch")


def load_outcome(t, obj, **options):
    buffer = io.BytesIO()
    t.save(obj(t), buffer)
    buffer.seek(0)
    try:
        loaded = t.load(buffer, **options)
    except pickle.UnpicklingError as error:
        return "refused", str(error)
    return "loaded", type(loaded).__name__


@pytest.mark.parametrize("obj", [
    lambda t: np.arange(3), lambda t: np.float32(2), lambda t: {"a": np.float64(1.5)},
    lambda t: {"weight": t.ones(2), "mean": np.zeros(2)}, lambda t: [np.int64(3)],
    lambda t: {"w": t.ones(2, requires_grad=True), "step": 3, "name": "x", "l": [1.5, (2, 3)]},
    lambda t: collections.OrderedDict(bias=t.zeros(1)),
    lambda t: t.nn.Linear(2, 1).state_dict(),
])
def test_weights_only_load_as_torch(obj):
    assert load_outcome(teachgrad, obj) == load_outcome(torch, obj)


def test_numpy_array_loads_when_allowed_or_weights_only_is_false():
    array = lambda t: np.arange(3)                         # noqa: E731
    assert load_outcome(teachgrad, array, weights_only=False) == ("loaded", "ndarray")
    allowed = [np._core.multiarray._reconstruct, np.ndarray, np.dtype, type(np.dtype(np.int64))]
    for t in (teachgrad, torch):
        with t.serialization.safe_globals(allowed):
            assert load_outcome(t, array) == ("loaded", "ndarray")
        assert load_outcome(t, array)[0] == "refused"
