"""yourgrad: a small autograd built chapter by chapter, with PyTorch's names and rules."""
from . import ops  # first: its classes build on graph.Node, and the other modules import ops
from . import autograd, nn, optim
from .grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from .nn import manual_seed
from .tensor import Tensor, float32, float64, full, int64, ones, tensor, zeros
from .tracer import trace
