"""teachgrad.utils: ``utils.data`` (datasets and loaders), as ``torch.utils``."""
from teachgrad.utils import data

__all__ = ["data"]
