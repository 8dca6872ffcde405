"""The DataLoader that cuts a dataset into (shuffled) mini-batches.

A sampler gives the indices of the samples (``sampler.py``: in order, or shuffled as
PyTorch's RandomSampler draws them, so after the same ``manual_seed`` the batches are the
same as in PyTorch); a batch sampler groups them; the ``DataLoader`` fetches the samples
one by one and stacks them into batches (``default_collate``).
"""
import warnings

import numpy as np

from teachgrad import creation, random
from teachgrad.ops import shape
from teachgrad.tensor import Tensor
from teachgrad.utils.data.sampler import BatchSampler, RandomSampler, SequentialSampler


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

    The indices come from ``sampler`` (by default in order, or a ``RandomSampler`` with
    ``shuffle=True``, which draws a new order every epoch), grouped by ``batch_sampler``
    (by default a ``BatchSampler``; ``drop_last=True`` leaves out a last batch that would
    be smaller than the others); ``collate_fn`` turns a list of samples into a batch
    (``default_collate`` stacks them). With ``batch_size=None`` each sample comes alone.

    ``num_workers`` is checked as PyTorch checks it, but teachgrad starts no worker
    processes: every sample is fetched in this process, in order, so the batches are
    PyTorch's (a dataset that draws random numbers draws them from the main generator,
    and ``worker_init_fn`` is not called). ``pin_memory`` has nothing to pin without a
    GPU and warns as PyTorch does; ``timeout`` and ``prefetch_factor`` change nothing.
    """

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
                 worker_init_fn=None, generator=None, *, prefetch_factor=None,
                 persistent_workers=False):
        _check_workers(num_workers, timeout, prefetch_factor, persistent_workers)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                                 "shuffle, sampler, and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually "
                             "exclusive with drop_last")
        if sampler is None:
            sampler = (RandomSampler(dataset, generator=generator) if shuffle
                       else SequentialSampler(dataset))
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.dataset, self.batch_size, self.drop_last = dataset, batch_size, drop_last
        self.sampler, self.batch_sampler = sampler, batch_sampler
        self._auto_collation = batch_sampler is not None
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else _as_it_is
        self.collate_fn, self.generator = collate_fn, generator
        self.num_workers, self.pin_memory, self.timeout = num_workers, pin_memory, timeout
        self.worker_init_fn = worker_init_fn
        self.prefetch_factor, self.persistent_workers = prefetch_factor, persistent_workers

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def __len__(self):
        return len(self._index_sampler)

    def __iter__(self):
        if self.pin_memory:
            warnings.warn("'pin_memory' argument is set as true but no accelerator is found, "
                          "then device pinned memory won't be used.", stacklevel=2)
        indices = iter(self._index_sampler)   # a generator: a sampler draws at the first next
        with random.drawing_from(self.generator):
            random.randint(0, 2**63, ())   # PyTorch draws a seed for worker processes here
        return self._batches(indices)

    def _batches(self, indices):
        for index in indices:
            if self._auto_collation:
                yield self.collate_fn([self.dataset[i] for i in index])
            else:
                yield self.collate_fn(self.dataset[index])


def _as_it_is(sample):
    """Without batches, a sample is passed on unchanged."""
    return sample


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
