"""Samplers: the order in which a DataLoader visits a dataset's indices.

``RandomSampler`` draws its order exactly as PyTorch's does (a seed from the global
generator at the first ``next``, unless it has a generator of its own, then ``randperm``),
so after the same ``manual_seed`` the batches are the same as in PyTorch.
``BatchSampler`` groups the indices of another sampler into lists.
"""
import itertools

from teachgrad import creation, dtypes, random


def _draw(generator, draw, *args):
    """``draw(*args)`` from ``generator``, as a list; a sampler yields its indices outside
    the block, so that what the loop draws meanwhile comes from the global generator."""
    with random.drawing_from(generator):
        return draw(*args).tolist()


class Sampler:
    """Anything iterable over indices (with ``__len__`` where it can say)."""

    def __init__(self, data_source=None):
        pass

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    """0, 1, 2, ... in order."""

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler):
    """A random order (one permutation per pass over the data), or ``num_samples`` indices
    drawn with replacement."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source, self.replacement = data_source, replacement
        self._num_samples, self.generator = num_samples, generator
        if not isinstance(replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got "
                            f"replacement={replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got "
                             f"num_samples={self.num_samples}")

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        count = len(self.data_source)
        generator = self.generator
        if generator is None:      # a new generator, seeded from the global one
            generator = random.Generator().manual_seed(int(random.randint(0, 2**63, ())))
        if self.replacement:
            sizes = [32] * (self.num_samples // 32) + [self.num_samples % 32]
            for size in sizes:
                yield from _draw(generator, random.randint, 0, count, (size,))
        else:
            for _ in range(self.num_samples // count):
                yield from _draw(generator, random.randperm, count)
            yield from _draw(generator, random.randperm, count)[:self.num_samples % count]

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices, in a random order."""

    def __init__(self, indices, generator=None):
        self.indices, self.generator = indices, generator

    def __iter__(self):
        for i in _draw(self.generator, random.randperm, len(self.indices)):
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """``num_samples`` indices drawn with probabilities proportional to ``weights``."""

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) \
                or num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got "
                             f"num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got "
                             f"replacement={replacement}")
        self.weights = creation.as_tensor(weights, dtype=dtypes.float64)
        if self.weights.dim() != 1:
            raise ValueError(f"weights should be a 1d sequence but given weights have shape "
                             f"{tuple(self.weights.shape)}")
        self.num_samples, self.replacement, self.generator = num_samples, replacement, generator

    def __iter__(self):
        drawn = creation.multinomial(self.weights, self.num_samples, self.replacement,
                                     generator=self.generator)
        yield from drawn.tolist()

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """Lists of ``batch_size`` indices from ``sampler``; the last one shorter, or left out
    with ``drop_last``."""

    def __init__(self, sampler, batch_size, drop_last):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got "
                             f"batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got "
                             f"drop_last={drop_last}")
        self.sampler, self.batch_size, self.drop_last = sampler, batch_size, drop_last

    def __iter__(self):
        indices = iter(self.sampler)
        if self.drop_last:
            for batch in zip(*[indices] * self.batch_size):
                yield list(batch)
            return
        batch = list(itertools.islice(indices, self.batch_size))
        while batch:
            yield batch
            batch = list(itertools.islice(indices, self.batch_size))

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size
