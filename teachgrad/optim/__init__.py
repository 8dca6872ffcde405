"""teachgrad.optim: optimisers that move parameters along their gradients, as ``torch.optim``."""
from teachgrad.optim import lr_scheduler
from teachgrad.optim.adam import Adam, AdamW
from teachgrad.optim.optimizer import Optimizer
from teachgrad.optim.sgd import SGD

__all__ = ["Adam", "AdamW", "Optimizer", "SGD", "lr_scheduler"]
