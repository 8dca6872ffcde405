"""teachgrad.nn: modules, layers, losses, ``functional``, ``init`` and ``utils``,
as in ``torch.nn``. Start reading at ``module.py``."""
from teachgrad.nn import functional, init, utils
from teachgrad.nn.containers import (ModuleDict, ModuleList, ParameterDict, ParameterList,
                                     Sequential)
from teachgrad.nn.layers import (AvgPool2d, BatchNorm1d, BatchNorm2d, Conv2d, Dropout, Embedding,
                                 Flatten, GELU, Identity, LeakyReLU, Linear, LogSoftmax,
                                 MaxPool2d, ReLU, SiLU, Sigmoid, Softmax, Softplus, Tanh)
from teachgrad.nn.loss import (BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, L1Loss, MSELoss,
                               NLLLoss)
from teachgrad.nn.module import Module
from teachgrad.nn.parameter import Parameter

__all__ = ["AvgPool2d", "BCELoss", "BCEWithLogitsLoss", "BatchNorm1d", "BatchNorm2d", "Conv2d",
           "CrossEntropyLoss", "Dropout", "Embedding", "Flatten", "GELU", "Identity", "L1Loss",
           "LeakyReLU", "Linear", "LogSoftmax", "MSELoss", "MaxPool2d", "Module", "ModuleDict",
           "ModuleList", "NLLLoss", "Parameter", "ParameterDict", "ParameterList", "ReLU",
           "Sequential", "SiLU", "Sigmoid", "Softmax", "Softplus", "Tanh",
           "functional", "init", "utils"]
