"""DataLoader options of PyTorch 2.13 (issue 20): num_workers (run in-process),
pin_memory, drop_last, collate_fn and PyTorch's errors, against torch."""
import warnings

import pytest

import teachgrad
from test_compat_devices import assert_same

torch = pytest.importorskip("torch")


def _batches(t, **options):
    """The batches of a small loader, after a seed, as lists (and any warnings' text)."""
    t.manual_seed(0)
    data = t.utils.data.TensorDataset(t.arange(10.0).reshape(5, 2), t.arange(5))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        loader = t.utils.data.DataLoader(data, **options)
        batches = [[part.tolist() for part in batch] for epoch in range(2) for batch in loader]
    return len(loader), batches, sorted({str(w.message) for w in caught})


@pytest.mark.parametrize("options", [
    dict(batch_size=2, num_workers=2), dict(batch_size=2, shuffle=True, num_workers=2),
    dict(batch_size=2, drop_last=True), dict(batch_size=2, shuffle=True, drop_last=True),
    dict(batch_size=3, pin_memory=True), dict(batch_size=2, num_workers=2, pin_memory=True,
                                              drop_last=True, shuffle=True),
    dict(batch_size=2, num_workers=1, persistent_workers=True, prefetch_factor=4, timeout=5),
    dict(batch_size=5, shuffle=True, worker_init_fn=lambda worker_id: None, num_workers=2),
])
def test_loader_options_give_torch_batches(options):
    assert _batches(teachgrad, **options) == _batches(torch, **options)


def test_collate_fn():
    def batches(t):
        loader = t.utils.data.DataLoader([1, 2, 3, 4, 5], batch_size=2, num_workers=2,
                                         collate_fn=lambda samples: sum(samples) * 10)
        return list(loader)
    assert batches(teachgrad) == batches(torch) == [30, 70, 50]


@pytest.mark.parametrize("program", [
    lambda t: t.utils.data.DataLoader([], shuffle=True),
    lambda t: t.utils.data.DataLoader(t.utils.data.TensorDataset(t.ones(0, 2)), batch_size=4,
                                      shuffle=True),
    lambda t: len(list(t.utils.data.DataLoader([], shuffle=False))),
    lambda t: t.utils.data.DataLoader([1], num_workers=-1),
    lambda t: t.utils.data.DataLoader([1], timeout=-1),
    lambda t: t.utils.data.DataLoader([1], prefetch_factor=2),
    lambda t: t.utils.data.DataLoader([1], persistent_workers=True),
    lambda t: (t.utils.data.DataLoader([1], num_workers=2).num_workers,
               t.utils.data.DataLoader([1], pin_memory=True).pin_memory),
    lambda t: t.utils.data.get_worker_info(),
])
def test_loader_errors_and_attributes(program):
    assert_same(program)
