"""``utils.data``: datasets (``dataset.py``), samplers (``sampler.py``) and the DataLoader
that puts them together (``dataloader.py``), as in ``torch.utils.data``."""
from teachgrad.utils.data.dataloader import DataLoader, default_collate, get_worker_info
from teachgrad.utils.data.dataset import Dataset, Subset, TensorDataset, random_split
from teachgrad.utils.data.sampler import (BatchSampler, RandomSampler, Sampler,
                                          SequentialSampler, SubsetRandomSampler,
                                          WeightedRandomSampler)

__all__ = ["BatchSampler", "DataLoader", "Dataset", "RandomSampler", "Sampler",
           "SequentialSampler", "Subset", "SubsetRandomSampler", "TensorDataset",
           "WeightedRandomSampler", "default_collate", "get_worker_info", "random_split"]
