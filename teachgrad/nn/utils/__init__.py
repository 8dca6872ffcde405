"""``nn.utils``: helpers for training loops."""
from teachgrad.nn.utils.clip_grad import clip_grad_norm_, clip_grad_value_

__all__ = ["clip_grad_norm_", "clip_grad_value_"]
