"""Datasets and the DataLoader that cuts them into (shuffled) mini-batches.

A ``Dataset`` is anything with ``__getitem__`` and ``__len__``; the
``DataLoader`` picks indices, fetches the samples one by one and stacks them
into batches (``default_collate``). With ``shuffle=True`` the order is drawn
as PyTorch's RandomSampler draws it, so after the same ``manual_seed`` the
batches are the same as in PyTorch.
"""
import itertools
import math
import warnings

import numpy as np

from teachgrad import creation, random
from teachgrad.ops import shape
from teachgrad.tensor import Tensor


class Dataset:
    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")


class TensorDataset(Dataset):
    """Sample i is ``(tensors[0][i], tensors[1][i], ...)``: e.g. features and labels."""

    def __init__(self, *tensors):
        if any(tensors[0].size(0) != tensor.size(0) for tensor in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(tensor[index] for tensor in self.tensors)

    def __len__(self):
        return self.tensors[0].size(0)


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``."""

    def __init__(self, dataset, indices):
        self.dataset, self.indices = dataset, indices

    def __getitem__(self, index):
        return self.dataset[self.indices[index]]

    def __len__(self):
        return len(self.indices)


def random_split(dataset, lengths, generator=None):
    """Split into non-overlapping random subsets of the given lengths (or fractions of 1)."""
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        counts = [math.floor(len(dataset) * fraction) for fraction in lengths]
        for i in range(len(dataset) - sum(counts)):      # the remainder, round-robin
            counts[i % len(counts)] += 1
        for i, count in enumerate(counts):
            if count == 0:
                warnings.warn(f"Length of split at index {i} is 0. This might result in an "
                              "empty dataset.", stacklevel=2)
        lengths = counts
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    with random.drawing_from(generator):
        indices = random.randperm(sum(lengths)).tolist()
    return [Subset(dataset, indices[end - length:end])
            for end, length in zip(itertools.accumulate(lengths), lengths)]


def default_collate(batch):
    """Stack a list of samples into one batch: tensors (and numpy arrays, numbers) are
    stacked along a new first dimension; tuples and dicts are collated field by field."""
    first = batch[0]
    if isinstance(first, Tensor):
        return shape.stack(batch, 0)
    if isinstance(first, np.ndarray):
        return shape.stack([creation.as_tensor(b) for b in batch], 0)
    if isinstance(first, (bool, int, float, np.number)):
        return creation.tensor(batch, dtype=_number_dtype(first))
    if isinstance(first, str):
        return batch
    if isinstance(first, dict):
        return {key: default_collate([sample[key] for sample in batch]) for key in first}
    if isinstance(first, (tuple, list)):
        return [default_collate(list(field)) for field in zip(*batch)]
    raise TypeError(f"default_collate: batch must contain tensors, numpy arrays, numbers, dicts "
                    f"or lists; found {type(first)}")


def _number_dtype(number):
    from teachgrad import dtypes
    if isinstance(number, float):
        return dtypes.float64
    if isinstance(number, bool):
        return dtypes.bool_
    if isinstance(number, int):
        return dtypes.int64
    return dtypes.from_numpy_dtype(np.asarray(number).dtype)


class DataLoader:
    """Iterate over ``dataset`` in batches of ``batch_size`` samples.

    ``shuffle=True`` draws a new order every epoch; ``drop_last=True`` leaves out a last
    batch that would be smaller than the others; ``collate_fn`` turns a list of samples
    into a batch (``default_collate`` stacks them).

    ``num_workers`` is checked as PyTorch checks it, but teachgrad starts no worker
    processes: every sample is fetched in this process, in order, so the batches are
    PyTorch's (a dataset that draws random numbers draws them from the main generator,
    and ``worker_init_fn`` is not called). ``pin_memory`` has nothing to pin without a
    GPU and warns as PyTorch does; ``timeout`` and ``prefetch_factor`` change nothing.
    """

    def __init__(self, dataset, batch_size=1, shuffle=None, *, num_workers=0, collate_fn=None,
                 pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None,
                 generator=None, prefetch_factor=None, persistent_workers=False):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got "
                             f"batch_size={batch_size}")
        _check_workers(num_workers, timeout, prefetch_factor, persistent_workers)
        if shuffle and len(dataset) == 0:     # PyTorch's RandomSampler refuses it
            raise ValueError("num_samples should be a positive integer value, but got "
                             "num_samples=0")
        self.dataset, self.batch_size = dataset, batch_size
        self.shuffle, self.drop_last = bool(shuffle), drop_last
        self.collate_fn = default_collate if collate_fn is None else collate_fn
        self.generator = generator
        self.num_workers, self.pin_memory, self.timeout = num_workers, pin_memory, timeout
        self.worker_init_fn = worker_init_fn
        self.prefetch_factor, self.persistent_workers = prefetch_factor, persistent_workers

    def __len__(self):
        if self.drop_last:
            return len(self.dataset) // self.batch_size
        return math.ceil(len(self.dataset) / self.batch_size)

    def __iter__(self):
        if self.pin_memory:
            warnings.warn("'pin_memory' argument is set as true but no accelerator is found, "
                          "then device pinned memory won't be used.", stacklevel=2)
        with random.drawing_from(self.generator):
            random.randint(0, 2**63, ())   # PyTorch draws a seed for worker processes here
        return self._batches()

    def _batches(self):
        """A generator: like PyTorch's sampler, it draws the order at the first ``next``."""
        order = self._sample_order()
        for start in range(0, len(order), self.batch_size):
            indices = order[start:start + self.batch_size]
            if len(indices) < self.batch_size:      # the order ran out while filling it
                self._order_exhausted()
                if self.drop_last:
                    return
            yield self.collate_fn([self.dataset[i] for i in indices])
        if len(order) % self.batch_size == 0:
            self._order_exhausted()

    def _order_exhausted(self):
        """PyTorch's RandomSampler draws one more (unused) permutation when its order runs
        out; from the loader's own generator, that draw shows in the next epoch's order."""
        if self.shuffle and self.generator is not None:
            with random.drawing_from(self.generator):
                random.randperm(len(self.dataset))

    def _sample_order(self):
        count = len(self.dataset)
        if not self.shuffle:
            return list(range(count))
        # PyTorch's RandomSampler: with no generator of the loader's own, a seed drawn from
        # the global generator seeds a new one, and the order is drawn from that
        generator = self.generator
        if generator is None:
            generator = random.Generator().manual_seed(int(random.randint(0, 2**63, ())))
        with random.drawing_from(generator):
            return random.randperm(count).tolist()


def _check_workers(num_workers, timeout, prefetch_factor, persistent_workers):
    """PyTorch's checks of the multiprocessing options."""
    if num_workers < 0:
        raise ValueError("num_workers option should be non-negative; use num_workers=0 to "
                         "disable multiprocessing.")
    if timeout < 0:
        raise ValueError("timeout option should be non-negative")
    if num_workers == 0 and prefetch_factor is not None:
        raise ValueError("prefetch_factor option could only be specified in multiprocessing."
                         "let num_workers > 0 to enable multiprocessing, otherwise set "
                         "prefetch_factor to None.")
    if persistent_workers and num_workers == 0:
        raise ValueError("persistent_workers option needs num_workers > 0")


def get_worker_info():
    """None: the samples are always fetched in the main process (see DataLoader)."""
    return None
