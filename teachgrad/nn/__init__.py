"""teachgrad.nn: modules, layers, losses, ``functional``, ``init`` and ``utils``,
as in ``torch.nn``. Start reading at ``module.py``."""
from teachgrad.nn import functional, init, utils
from teachgrad.nn.containers import (ModuleDict, ModuleList, ParameterDict, ParameterList,
                                     Sequential)
from teachgrad.nn.layers import (AvgPool2d, BatchNorm1d, BatchNorm2d, Conv2d, Dropout, ELU,
                                 Embedding, Flatten, GELU, Hardsigmoid, Hardswish, Hardtanh,
                                 Identity, LayerNorm, LeakyReLU, Linear, LogSigmoid, LogSoftmax,
                                 MaxPool2d, Mish, ReLU, ReLU6, SELU, SiLU, Sigmoid, Softmax,
                                 Softplus, Softsign, Tanh, Threshold)
from teachgrad.nn.loss import (BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, L1Loss, MSELoss,
                               NLLLoss)
from teachgrad.nn.module import Module
from teachgrad.nn.parameter import Parameter

__all__ = ["AvgPool2d", "BCELoss", "BCEWithLogitsLoss", "BatchNorm1d", "BatchNorm2d", "Conv2d",
           "CrossEntropyLoss", "Dropout", "ELU", "Embedding", "Flatten", "GELU", "Hardsigmoid",
           "Hardswish", "Hardtanh", "Identity", "L1Loss", "LayerNorm", "LeakyReLU", "Linear",
           "LogSigmoid", "LogSoftmax", "MSELoss", "MaxPool2d", "Mish", "Module", "ModuleDict",
           "ModuleList", "NLLLoss", "Parameter", "ParameterDict", "ParameterList", "ReLU",
           "ReLU6", "SELU", "Sequential", "SiLU", "Sigmoid", "Softmax", "Softplus", "Softsign",
           "Tanh", "Threshold",
           "functional", "init", "utils"]
