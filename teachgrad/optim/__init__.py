"""teachgrad.optim: optimisers that move parameters along their gradients, as ``torch.optim``."""
from teachgrad.optim import lr_scheduler
from teachgrad.optim.adadelta import Adadelta
from teachgrad.optim.adagrad import Adagrad
from teachgrad.optim.adam import Adam, AdamW
from teachgrad.optim.adamax import Adamax
from teachgrad.optim.asgd import ASGD
from teachgrad.optim.lbfgs import LBFGS
from teachgrad.optim.nadam import NAdam
from teachgrad.optim.optimizer import Optimizer
from teachgrad.optim.radam import RAdam
from teachgrad.optim.rmsprop import RMSprop
from teachgrad.optim.sgd import SGD

__all__ = ["ASGD", "Adadelta", "Adagrad", "Adam", "AdamW", "Adamax", "LBFGS", "NAdam", "Optimizer",
           "RAdam", "RMSprop", "SGD", "lr_scheduler"]
