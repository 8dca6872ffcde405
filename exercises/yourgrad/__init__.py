"""yourgrad: a small autograd built chapter by chapter, with PyTorch's names and rules."""
from . import ops  # first: its classes build on graph.Node, and the other modules import ops
from .grad_mode import is_grad_enabled
from .tensor import Tensor, float32, float64, full, int64, ones, tensor, zeros
