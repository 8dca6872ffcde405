"""``nn.modules``: where PyTorch's files keep the layers, for programs that import from
there (``from torch.nn.modules.loss import _Loss``, ``torch.nn.modules.linear.Linear``).

teachgrad groups its layers differently (``nn/layers.py``, ``nn/loss.py``...), so each of
PyTorch's submodule names below is another name for the teachgrad module that holds
those layers (``activation`` for all of ``nn``: PyTorch keeps MultiheadAttention there).
"""
import importlib
import sys

from teachgrad.nn import *  # noqa: F401,F403  (torch.nn.modules exports the layers too)

TORCH_FILES = {
    "module": "teachgrad.nn.module", "container": "teachgrad.nn.containers",
    "loss": "teachgrad.nn.loss", "rnn": "teachgrad.nn.recurrent",
    "transformer": "teachgrad.nn.transformer", "activation": "teachgrad.nn",
    "linear": "teachgrad.nn.layers", "conv": "teachgrad.nn.layers",
    "dropout": "teachgrad.nn.layers", "batchnorm": "teachgrad.nn.layers",
    "normalization": "teachgrad.nn.layers", "instancenorm": "teachgrad.nn.layers",
    "pooling": "teachgrad.nn.layers", "sparse": "teachgrad.nn.layers",
    "flatten": "teachgrad.nn.layers", "padding": "teachgrad.nn.layers",
    "upsampling": "teachgrad.nn.layers", "lazy": "teachgrad.nn.layers",
}

for _torch_name, _ours in TORCH_FILES.items():
    _module = importlib.import_module(_ours)
    sys.modules[f"{__name__}.{_torch_name}"] = _module
    globals()[_torch_name] = _module
