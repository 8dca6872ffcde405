"""Scaled dot-product attention as one node, as PyTorch's CPU kernel records it.

``softmax(query @ key.T * scale + mask) @ value`` over the last two dimensions, with
``scale`` 1 / sqrt(head size) unless given, and the mask either a boolean "may attend"
tensor, an additive float tensor, or the causal one (query i sees keys 0..i). A row that
may attend to nothing gives zeros, not NaN (PyTorch's "safe" softmax). The node is named
``ScaledDotProductFlashAttentionForCpuBackward0`` and keeps what PyTorch's keeps; its
backward recomputes the probabilities from the saved query and key (as a flash kernel
does) in one step that, as in PyTorch, cannot be differentiated again.
"""
import math

import numpy as np

from teachgrad.autograd.operation import Operation
from teachgrad.ieee import quiet
from teachgrad.tensor import Tensor


def additive_mask(attn_mask, is_causal, query_length, key_length, dtype):
    """The mask as numbers to add to the scores (0 or -inf), or None."""
    if is_causal:
        allowed = np.tril(np.ones((query_length, key_length), dtype=bool))
        return np.where(allowed, 0, -np.inf).astype(dtype)
    if attn_mask is None:
        return None
    if attn_mask.dtype == np.bool_:
        return np.where(attn_mask, 0, -np.inf).astype(dtype)
    return attn_mask.astype(dtype)


class ScaledDotProductFlashAttentionForCpuBackward0(Operation):
    input_names = ("query", "key", "value")
    kept_names = ("output", "logsumexp", "attn_mask")

    def forward(self, query, key, value, mask, is_causal, scale, dropout_p):
        self.save("query")
        self.save("key")
        self.save("value")
        self._saved_scale, self._saved_is_causal, self._saved_dropout_p = scale, is_causal, 0.0
        self._mask = mask
        probabilities, logsumexp = probabilities_of(query, key, mask,
                                                    self.scale_for(query, scale))
        output = probabilities @ value
        self.keep("output", Tensor._make(output))
        self.keep("logsumexp", Tensor._make(logsumexp))
        return output

    @staticmethod
    def scale_for(query, given):
        """``given``, or 1 / sqrt(head size), as a number of the query's dtype."""
        return query.dtype.type(1 / math.sqrt(query.shape[-1]) if given is None else given)

    def backward(self, grad):
        inputs = (grad, self._saved_query, self._saved_key, self._saved_value)
        return FlashAttentionGradient.apply(*(t for t in inputs if t.requires_grad),
                                            arrays=[t._data for t in inputs],
                                            mask=self._mask, scale=self._saved_scale)


def probabilities_of(query, key, mask, scale):
    """softmax(query @ key.T * scale + mask) over the last dimension; a row that may
    attend to nothing gives zeros. Also the row maxima and sums, for the log-sum-exp."""
    scores = query @ np.swapaxes(key, -1, -2) * scale
    if mask is not None:
        scores = scores + mask
    with quiet():
        top = scores.max(axis=-1, keepdims=True)
        top = np.where(np.isneginf(top), 0, top)
        weights = np.exp(scores - top)
        total = weights.sum(axis=-1, keepdims=True)
        probabilities = np.where(total > 0, weights / total, 0).astype(query.dtype)
        logsumexp = (np.log(total) + top)[..., 0]
    return probabilities, logsumexp


class FlashAttentionGradient(Operation):
    """PyTorch's ``_scaled_dot_product_flash_attention_for_cpu_backward``: the gradients
    of query, key and value, from the probabilities computed again. PyTorch has no
    derivative for it, so its node is NotImplemented and backward through it raises."""
    promote = None

    def forward(self, *inputs_that_require_grad, arrays, mask, scale):
        grad, query, key, value = arrays
        scale = ScaledDotProductFlashAttentionForCpuBackward0.scale_for(query, scale)
        probabilities, _ = probabilities_of(query, key, mask, scale)
        grad_value = np.swapaxes(probabilities, -1, -2) @ grad
        grad_probabilities = grad @ np.swapaxes(value, -1, -2)
        row_dots = (grad_probabilities * probabilities).sum(-1, keepdims=True)
        grad_scores = probabilities * (grad_probabilities - row_dots) * scale
        return grad_scores @ key, np.swapaxes(grad_scores, -1, -2) @ query, grad_value

    def backward(self, *grads):
        raise RuntimeError("derivative for aten::_scaled_dot_product_flash_attention_for_cpu"
                           "_backward is not implemented")


FlashAttentionGradient.__name__ = "NotImplemented"          # PyTorch's name for the node
