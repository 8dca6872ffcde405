"""utils.data against torch (the same batches, the same shuffled order after manual_seed,
the same random state afterwards) and the datasets of teachgrad.datasets."""
import numpy as np
import pytest

import teachgrad as tg
from teachgrad import datasets

torch = pytest.importorskip("torch")


def _dataset(lib, n=11):
    return lib.utils.data.TensorDataset(lib.arange(2.0 * n).reshape(n, 2), lib.arange(n))


@pytest.mark.parametrize("batch_size, shuffle, drop_last", [(4, False, False), (4, True, False),
                                                            (3, True, True), (1, True, False),
                                                            (20, False, True)])
def test_dataloader_batches_match_torch(batch_size, shuffle, drop_last):
    batches = []
    for lib in (tg, torch):
        lib.manual_seed(5)
        loader = lib.utils.data.DataLoader(_dataset(lib), batch_size=batch_size, shuffle=shuffle,
                                           drop_last=drop_last)
        epochs = [[(x.tolist(), y.tolist()) for x, y in loader] for _ in range(3)]
        batches.append((len(loader), epochs, lib.rand(3).tolist()))
    assert batches[0] == batches[1]


@pytest.mark.parametrize("n, batch_size, drop_last", [(11, 4, False), (12, 4, False),
                                                     (11, 3, True), (12, 4, True)])
def test_dataloader_with_a_generator_of_its_own_matches_torch(n, batch_size, drop_last):
    """Shuffling from the loader's generator leaves the global one alone; the orders of
    later epochs continue that generator's stream exactly as torch's do."""
    results = []
    for lib in (tg, torch):
        lib.manual_seed(7)
        loader = lib.utils.data.DataLoader(_dataset(lib, n), batch_size=batch_size, shuffle=True,
                                           drop_last=drop_last,
                                           generator=lib.Generator().manual_seed(0))
        epochs = [[y.tolist() for _, y in loader] for _ in range(3)]
        results.append((epochs, lib.rand(2).tolist()))
    assert results[0] == results[1]


def test_random_split_with_a_generator_matches_torch():
    splits = [[list(s.indices) for s in lib.utils.data.random_split(
        range(10), [4, 6], generator=lib.Generator().manual_seed(1))] for lib in (tg, torch)]
    assert splits[0] == splits[1]


def test_dataset_indexing_and_collate():
    ours, theirs = _dataset(tg), _dataset(torch)
    assert len(ours) == len(theirs) == 11
    assert [t.tolist() for t in ours[3]] == [t.tolist() for t in theirs[3]]
    collate = tg.utils.data.default_collate
    their_collate = torch.utils.data.default_collate
    samples = [(1, 2.5, np.ones(2, dtype=np.float32)), (3, 4.5, np.zeros(2, dtype=np.float32))]
    ours, theirs = collate(samples), their_collate(samples)
    assert isinstance(ours, list) and isinstance(theirs, list)
    for o, t in zip(ours, theirs):
        assert o.tolist() == t.tolist() and str(o.dtype)[10:] == str(t.dtype)[6:]
    dicts = [{"x": tg.ones(2), "name": "a"}, {"x": tg.zeros(2), "name": "b"}]
    assert collate(dicts)["x"].shape == (2, 2) and collate(dicts)["name"] == ["a", "b"]


def test_random_split_matches_torch():
    splits = []
    for lib in (tg, torch):
        lib.manual_seed(2)
        parts = lib.utils.data.random_split(_dataset(lib, 10), [0.7, 0.3])
        splits.append([[part[i][1].item() for i in range(len(part))] for part in parts])
    assert splits[0] == splits[1]
    with pytest.raises(ValueError, match="Sum of input lengths"):
        tg.utils.data.random_split(_dataset(tg, 10), [3, 3])


def test_a_custom_dataset_works_with_the_loader():
    class Squares(tg.utils.data.Dataset):
        def __len__(self):
            return 5

        def __getitem__(self, i):
            return tg.tensor([float(i)]), i * i
    x, y = next(iter(tg.utils.data.DataLoader(Squares(), batch_size=5)))
    assert x.shape == (5, 1) and y.tolist() == [0, 1, 4, 9, 16] and y.dtype == tg.int64
    with pytest.raises(NotImplementedError):
        tg.utils.data.Dataset()[0]


def test_generated_datasets_are_reproducible_and_shaped():
    for make, args, shape in ((datasets.two_moons, (50,), (50, 2)),
                              (datasets.spirals, (20, 3), (60, 2)),
                              (datasets.shapes, (30, 10), (30, 1, 10, 10))):
        tg.manual_seed(0)
        first = make(*args)
        tg.manual_seed(0)
        second = make(*args)
        assert first[0].shape == shape and first[0].dtype == tg.float32
        assert first[1].dtype == tg.int64 and len(first[1]) == shape[0]
        assert tg.equal(first[0], second[0]) and tg.equal(first[1], second[1])
    _, labels = datasets.two_moons(100)
    assert labels.sum().item() == 50


def test_iris_is_the_uci_table():
    features, labels = datasets.iris()
    assert features.shape == (150, 4) and labels.tolist() == [0] * 50 + [1] * 50 + [2] * 50
    np.testing.assert_allclose(features[0].numpy(), [5.1, 3.5, 1.4, 0.2], rtol=1e-6)
    np.testing.assert_allclose(features.numpy().mean(0), [5.8433, 3.054, 3.7587, 1.1987],
                               atol=1e-3)
