"""teachgrad.nn: modules, layers, losses, ``functional``, ``init`` and ``utils``,
as in ``torch.nn``. Start reading at ``module.py``."""
from teachgrad.nn import functional, init, utils
from teachgrad.nn.containers import (ModuleDict, ModuleList, ParameterDict, ParameterList,
                                     Sequential)
from teachgrad.nn.layers import (AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveMaxPool1d,
                                 AdaptiveMaxPool2d, AvgPool1d, AvgPool2d, BatchNorm1d,
                                 BatchNorm2d, CELU, ConstantPad1d, ConstantPad2d, Conv1d,
                                 Conv2d, ConvTranspose1d, ConvTranspose2d, Dropout, Dropout1d,
                                 Dropout2d, ELU, Embedding, Flatten, GELU, GLU, GroupNorm,
                                 Hardshrink, Hardsigmoid, Hardswish, Hardtanh, Identity,
                                 InstanceNorm1d, InstanceNorm2d, LayerNorm, LazyLinear,
                                 LeakyReLU, Linear, LogSigmoid, LogSoftmax, MaxPool1d, MaxPool2d,
                                 Mish, PReLU,
                                 ReLU, ReLU6, SELU, Sigmoid, SiLU, Softmax, Softmin, Softplus,
                                 Softshrink, Softsign, Tanh, Tanhshrink, Threshold, Unflatten,
                                 Upsample, UpsamplingBilinear2d, UpsamplingNearest2d, ZeroPad2d)
from teachgrad.nn.loss import (BCELoss, BCEWithLogitsLoss, CosineEmbeddingLoss,
                               CosineSimilarity, CrossEntropyLoss, GaussianNLLLoss,
                               HingeEmbeddingLoss, HuberLoss, KLDivLoss, L1Loss,
                               MarginRankingLoss, MSELoss, MultiLabelSoftMarginLoss,
                               MultiMarginLoss, NLLLoss, PairwiseDistance, PoissonNLLLoss,
                               SmoothL1Loss, SoftMarginLoss, TripletMarginLoss)
from teachgrad.nn.module import Module
from teachgrad.nn import parallel
from teachgrad.nn.parallel import DataParallel
from teachgrad.nn.parameter import Parameter, UninitializedParameter
from teachgrad.nn.recurrent import GRU, GRUCell, LSTM, LSTMCell, RNN, RNNCell
from teachgrad.nn.transformer import (MultiheadAttention, Transformer, TransformerDecoder,
                                      TransformerDecoderLayer, TransformerEncoder,
                                      TransformerEncoderLayer)

__all__ = ["AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d",
           "AvgPool1d", "AvgPool2d", "BCELoss", "BCEWithLogitsLoss", "BatchNorm1d",
           "BatchNorm2d", "CELU", "ConstantPad1d", "ConstantPad2d", "Conv1d", "Conv2d",
           "ConvTranspose1d", "ConvTranspose2d", "CosineEmbeddingLoss", "CosineSimilarity",
           "CrossEntropyLoss", "DataParallel", "Dropout", "Dropout1d", "Dropout2d", "ELU", "Embedding",
           "Flatten", "GELU", "GLU", "GRU", "GRUCell", "GaussianNLLLoss", "GroupNorm",
           "Hardshrink", "Hardsigmoid", "Hardswish", "Hardtanh", "HingeEmbeddingLoss",
           "HuberLoss", "Identity", "InstanceNorm1d", "InstanceNorm2d", "KLDivLoss", "L1Loss",
           "LSTM", "LSTMCell", "LayerNorm", "LazyLinear", "LeakyReLU", "Linear", "LogSigmoid", "LogSoftmax",
           "MSELoss", "MarginRankingLoss", "MaxPool1d", "MaxPool2d", "Mish", "Module", "MultiheadAttention",
           "ModuleDict", "ModuleList", "MultiLabelSoftMarginLoss", "MultiMarginLoss", "NLLLoss",
           "PReLU", "PairwiseDistance", "Parameter", "ParameterDict", "ParameterList",
           "PoissonNLLLoss", "RNN", "RNNCell", "ReLU", "ReLU6", "SELU", "Sequential", "SiLU",
           "Sigmoid", "SmoothL1Loss", "SoftMarginLoss", "Softmax", "Softmin", "Softplus",
           "Softshrink", "Softsign", "Tanh", "Tanhshrink", "Threshold", "Transformer", "TransformerDecoder",
           "TransformerDecoderLayer", "TransformerEncoder", "TransformerEncoderLayer",
           "TripletMarginLoss",
           "Unflatten", "UninitializedParameter", "Upsample", "UpsamplingBilinear2d", "UpsamplingNearest2d", "ZeroPad2d",
           "functional", "init", "parallel", "utils"]
