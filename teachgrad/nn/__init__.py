"""teachgrad.nn: modules, layers, losses, ``functional``, ``init`` and ``utils``,
as in ``torch.nn``. Start reading at ``module.py``."""
from teachgrad.nn import functional, init, utils
from teachgrad.nn.containers import (ModuleDict, ModuleList, ParameterDict, ParameterList,
                                     Sequential)
from teachgrad.nn.layers import (AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveMaxPool1d,
                                 AdaptiveMaxPool2d, AvgPool1d, AvgPool2d, BatchNorm1d,
                                 BatchNorm2d, CELU, ConstantPad1d, ConstantPad2d, Conv1d,
                                 Conv2d, Dropout, Dropout1d, Dropout2d, ELU, Embedding, Flatten,
                                 GELU, GLU, GroupNorm, Hardshrink, Hardsigmoid, Hardswish,
                                 Hardtanh, Identity, LayerNorm, LeakyReLU, Linear, LogSigmoid,
                                 LogSoftmax, MaxPool1d, MaxPool2d, Mish, PReLU, ReLU, ReLU6,
                                 SELU, Sigmoid, SiLU, Softmax, Softmin, Softplus, Softshrink,
                                 Softsign, Tanh, Tanhshrink, Threshold, Unflatten, ZeroPad2d)
from teachgrad.nn.loss import (BCELoss, BCEWithLogitsLoss, CosineSimilarity, CrossEntropyLoss,
                               HuberLoss, KLDivLoss, L1Loss, MSELoss, NLLLoss, PairwiseDistance,
                               SmoothL1Loss)
from teachgrad.nn.module import Module
from teachgrad.nn.parameter import Parameter
from teachgrad.nn.recurrent import GRU, GRUCell, LSTM, LSTMCell, RNN, RNNCell

__all__ = ["AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d",
           "AvgPool1d", "AvgPool2d", "BCELoss", "BCEWithLogitsLoss", "BatchNorm1d",
           "BatchNorm2d", "CELU", "ConstantPad1d", "ConstantPad2d", "Conv1d", "Conv2d",
           "CosineSimilarity", "CrossEntropyLoss", "Dropout", "Dropout1d", "Dropout2d", "ELU",
           "Embedding", "Flatten", "GELU", "GLU", "GRU", "GRUCell", "GroupNorm", "Hardshrink",
           "Hardsigmoid", "Hardswish", "Hardtanh", "HuberLoss", "Identity", "KLDivLoss",
           "L1Loss", "LSTM", "LSTMCell", "LayerNorm", "LeakyReLU", "Linear", "LogSigmoid",
           "LogSoftmax", "MSELoss", "MaxPool1d", "MaxPool2d", "Mish", "Module", "ModuleDict",
           "ModuleList", "NLLLoss", "PReLU", "PairwiseDistance", "Parameter", "ParameterDict",
           "ParameterList", "RNN", "RNNCell", "ReLU", "ReLU6", "SELU", "Sequential", "SiLU",
           "Sigmoid", "SmoothL1Loss", "Softmax", "Softmin", "Softplus", "Softshrink",
           "Softsign", "Tanh", "Tanhshrink", "Threshold", "Unflatten", "ZeroPad2d",
           "functional", "init", "utils"]
