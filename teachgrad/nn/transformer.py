"""Attention and the Transformer, as ``torch.nn`` builds them.

* ``scaled_dot_product_attention``: one ``ScaledDotProductFlashAttentionForCpuBackward0``
  node (``ops/attention.py``) as PyTorch's CPU kernel records it; with dropout, PyTorch's
  "math" path instead, made of plain operations (so the dropout mask is drawn as
  ``F.dropout`` draws it).
* ``MultiheadAttention``: one packed input projection (``in_proj_weight``, 3 * E rows),
  the heads as a reshape, attention, and ``out_proj``. With ``need_weights=True`` (its
  default) the probabilities are computed in the open, to be returned averaged over the
  heads; with ``need_weights=False`` (as the Transformer layers call it) through
  ``scaled_dot_product_attention``.
* ``TransformerEncoderLayer`` / ``DecoderLayer``: attention and a feed-forward block, each
  with dropout, a residual connection and a LayerNorm (after, or before with
  ``norm_first``); ``TransformerEncoder`` / ``Decoder`` stack copies of a layer;
  ``Transformer`` puts an encoder and a decoder together.

Parameters are created and initialised in PyTorch's order, so after the same
``manual_seed`` the weights are PyTorch's. teachgrad has no fused "fast path" for
inference: it always takes the path PyTorch takes in training.
"""
import copy
import math
import warnings

from teachgrad import creation, dtypes
from teachgrad.nn import functional as F
from teachgrad.nn import init
from teachgrad.nn.containers import ModuleList
from teachgrad.nn.layers import Dropout, LayerNorm, Linear
from teachgrad.nn.module import Module
from teachgrad.nn.parameter import Parameter
from teachgrad.ops import linalg, pointwise, reduction
from teachgrad.ops.attention import ScaledDotProductFlashAttentionForCpuBackward0, additive_mask
from teachgrad.tensor import Tensor


# ---- the functions --------------------------------------------------------------------
def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None, enable_gqa=False):
    """``softmax(query @ key.T * scale + mask) @ value``, then dropout of the probabilities
    if ``dropout_p`` > 0 (even outside training: the caller decides, as in PyTorch)."""
    mask = None if attn_mask is None else attn_mask._data
    if dropout_p > 0 or not query.dim() == key.dim() == value.dim() == 4:
        return _attention_math(query, key, value, mask, dropout_p, is_causal, scale)
    mask = additive_mask(mask, is_causal, query.shape[-2], key.shape[-2], query._data.dtype)
    return ScaledDotProductFlashAttentionForCpuBackward0.apply(
        query, key, value, mask=mask, is_causal=is_causal, scale=scale, dropout_p=dropout_p)


def _attention_math(query, key, value, mask, dropout_p, is_causal, scale):
    """PyTorch's composite path: query and key each scaled by sqrt(scale), then matmul,
    mask, softmax (a row that sees nothing gives zeros), dropout and matmul."""
    root_scale = math.sqrt(1 / math.sqrt(query.shape[-1]) if scale is None else scale)
    scores = linalg.matmul(query * root_scale, key.transpose(-2, -1) * root_scale)
    mask = additive_mask(mask, is_causal, query.shape[-2], key.shape[-2], query._data.dtype)
    if mask is not None:
        scores = scores + Tensor._make(mask)
    probabilities = reduction.softmax(scores, -1)
    probabilities = pointwise.where(probabilities.isnan(), 0.0, probabilities)
    if dropout_p > 0:
        probabilities = F.dropout(probabilities, dropout_p, training=True)
    return linalg.matmul(probabilities, value)


def canonical_mask(mask, dtype):
    """A boolean mask (True: leave out) as an additive float mask; a float mask as it is."""
    if mask is None:
        return None
    if mask.dtype != dtypes.bool_ and not mask.dtype.is_floating_point:
        raise AssertionError("only bool and floating types of masks are supported")
    if mask.dtype == dtypes.bool_:
        return creation.zeros_like(mask, dtype=dtype).masked_fill_(mask, float("-inf"))
    return mask


def _project(query, key, value, weight, bias):
    """The packed input projection: one matrix for query, key and value when they are the
    same tensor (self-attention), otherwise its thirds."""
    size = query.size(-1)
    if query is key is value:
        packed = F.linear(query, weight, bias).unflatten(-1, (3, size))
        packed = packed.unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous()
        return packed[0], packed[1], packed[2]
    weights = weight.chunk(3)
    biases = (None,) * 3 if bias is None else bias.chunk(3)
    return tuple(F.linear(x, w, b) for x, w, b in zip((query, key, value), weights, biases))


def multi_head_attention_forward(query, key, value, num_heads, in_proj_weight, in_proj_bias,
                                 dropout_p, out_proj_weight, out_proj_bias, training=True,
                                 key_padding_mask=None, need_weights=True, attn_mask=None,
                                 average_attn_weights=True, is_causal=False,
                                 separate_weights=None):
    """Inputs shaped (length, batch, embedding), or (length, embedding) for one sequence."""
    batched = query.dim() == 3
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    target_length, batch, embed_dim = query.shape
    head_dim = embed_dim // num_heads
    key_padding_mask = canonical_mask(key_padding_mask, query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the "
                           "Transformer module method `generate_square_subsequent_mask` to "
                           "create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None                 # attention applies the causal mask itself
    else:
        attn_mask = canonical_mask(attn_mask, query.dtype)
        is_causal = is_causal and key_padding_mask is None
    if separate_weights is None:
        q, k, v = _project(query, key, value, in_proj_weight, in_proj_bias)
    else:
        biases = (None,) * 3 if in_proj_bias is None else in_proj_bias.chunk(3)
        q, k, v = (F.linear(x, w, b) for x, w, b in zip((query, key, value),
                                                       separate_weights, biases))
    attn_mask = _mask_for_heads(attn_mask, target_length, key.shape[0], batch * num_heads)
    q = q.view(target_length, batch * num_heads, head_dim).transpose(0, 1)
    k = k.view(k.shape[0], batch * num_heads, head_dim).transpose(0, 1)
    v = v.view(v.shape[0], batch * num_heads, head_dim).transpose(0, 1)
    source_length = k.size(1)
    if key_padding_mask is not None:
        key_padding_mask = key_padding_mask.view(batch, 1, 1, source_length).expand(
            -1, num_heads, -1, -1).reshape(batch * num_heads, 1, source_length)
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask
    if not training:
        dropout_p = 0.0
    if need_weights:
        scores = linalg.bmm(q * math.sqrt(1.0 / float(head_dim)), k.transpose(-2, -1))
        if attn_mask is not None:
            scores = attn_mask + scores
        weights = F.softmax(scores, dim=-1)
        if dropout_p > 0.0:
            weights = F.dropout(weights, p=dropout_p)
        output = linalg.bmm(weights, v).transpose(0, 1).reshape(target_length * batch,
                                                                 embed_dim)
        weights = weights.view(batch, num_heads, target_length, source_length)
        if average_attn_weights:
            weights = weights.mean(dim=1)
    else:
        if attn_mask is not None:
            attn_mask = (attn_mask.unsqueeze(0) if attn_mask.size(0) == 1
                         else attn_mask.view(batch, num_heads, -1, source_length))
        q, k, v = (t.view(batch, num_heads, -1, head_dim) for t in (q, k, v))
        output = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
        output = output.permute(2, 0, 1, 3).reshape(batch * target_length, embed_dim)
        weights = None
    output = F.linear(output, out_proj_weight, out_proj_bias)
    output = output.view(target_length, batch, output.size(1))
    if not batched:
        output = output.squeeze(1)
        weights = None if weights is None else weights.squeeze(0)
    return output, weights


def _mask_for_heads(attn_mask, target_length, source_length, heads_in_batch):
    """A 2-d mask (target, source) for all heads at once, or a 3-d one per head."""
    if attn_mask is None:
        return None
    if attn_mask.dim() == 2:
        expected = (target_length, source_length)
        if attn_mask.shape != expected:
            raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but "
                               f"should be {expected}.")
        return attn_mask.unsqueeze(0)
    if attn_mask.dim() == 3:
        expected = (heads_in_batch, target_length, source_length)
        if attn_mask.shape != expected:
            raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but "
                               f"should be {expected}.")
        return attn_mask
    raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")


# ---- the modules ------------------------------------------------------------------------
class NonDynamicallyQuantizableLinear(Linear):
    """``MultiheadAttention.out_proj``: a Linear, under the name PyTorch prints for it."""


class MultiheadAttention(Module):
    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False,
                 add_zero_attn=False, kdim=None, vdim=None, batch_first=False, device=None,
                 dtype=None):
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got "
                             f"embed_dim={embed_dim} and num_heads={num_heads} instead")
        if add_bias_kv or add_zero_attn:
            raise NotImplementedError("teachgrad's MultiheadAttention has no add_bias_kv or "
                                      "add_zero_attn")
        super().__init__()
        options = {"device": device, "dtype": dtype}
        self.embed_dim, self.num_heads, self.dropout = embed_dim, num_heads, dropout
        self.kdim = embed_dim if kdim is None else kdim
        self.vdim = embed_dim if vdim is None else vdim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if self._qkv_same_embed_dim:
            self.in_proj_weight = Parameter(creation.empty(3 * embed_dim, embed_dim, **options))
            for name in ("q_proj_weight", "k_proj_weight", "v_proj_weight"):
                self.register_parameter(name, None)
        else:
            self.q_proj_weight = Parameter(creation.empty(embed_dim, embed_dim, **options))
            self.k_proj_weight = Parameter(creation.empty(embed_dim, self.kdim, **options))
            self.v_proj_weight = Parameter(creation.empty(embed_dim, self.vdim, **options))
            self.register_parameter("in_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(creation.empty(3 * embed_dim, **options))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias,
                                                        **options)
        self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self):
        projections = ([self.in_proj_weight] if self._qkv_same_embed_dim else
                       [self.q_proj_weight, self.k_proj_weight, self.v_proj_weight])
        for weight in projections:
            init.xavier_uniform_(weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True,
                attn_mask=None, average_attn_weights=True, is_causal=False):
        batched = query.dim() == 3
        if self.batch_first and batched:
            same = (query is key, key is value)
            query, key, value = (x.transpose(1, 0) for x in (query, key, value))
            key = query if same[0] else key          # self-attention stays one tensor
            value = key if same[1] else value
        separate = (None if self._qkv_same_embed_dim else
                    (self.q_proj_weight, self.k_proj_weight, self.v_proj_weight))
        output, weights = multi_head_attention_forward(
            query, key, value, self.num_heads, self.in_proj_weight, self.in_proj_bias,
            self.dropout, self.out_proj.weight, self.out_proj.bias, training=self.training,
            key_padding_mask=key_padding_mask, need_weights=need_weights, attn_mask=attn_mask,
            average_attn_weights=average_attn_weights, is_causal=is_causal,
            separate_weights=separate)
        if self.batch_first and batched:
            output = output.transpose(1, 0)
        return output, weights


_ACTIVATIONS = {"relu": F.relu, "gelu": F.gelu}


def _activation(activation):
    if isinstance(activation, str):
        if activation not in _ACTIVATIONS:
            raise RuntimeError(f"activation should be relu/gelu, not {activation}")
        return _ACTIVATIONS[activation]
    return activation


def _build_layer(layer, attentions, blocks, d_model, nhead, dim_feedforward, dropout,
                 activation, layer_norm_eps, batch_first, norm_first, bias, options):
    """A Transformer layer's parts, created in PyTorch's order (so they draw their initial
    weights as PyTorch's do): the attentions, the feed-forward block, then a LayerNorm and a
    Dropout for each of the ``blocks`` residual blocks."""
    for name in attentions:
        setattr(layer, name, MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                                batch_first=batch_first, **options))
    layer.linear1 = Linear(d_model, dim_feedforward, bias=bias, **options)
    layer.dropout = Dropout(dropout)
    layer.linear2 = Linear(dim_feedforward, d_model, bias=bias, **options)
    layer.norm_first = norm_first
    for block in range(1, blocks + 1):
        setattr(layer, f"norm{block}", LayerNorm(d_model, eps=layer_norm_eps, bias=bias,
                                                  **options))
    for block in range(1, blocks + 1):
        setattr(layer, f"dropout{block}", Dropout(dropout))
    layer.activation = _activation(activation)


class TransformerEncoderLayer(Module):
    """Self-attention, then a feed-forward block (linear1, activation, linear2)."""

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu,
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True,
                 device=None, dtype=None):
        super().__init__()
        _build_layer(self, ("self_attn",), 2, d_model, nhead, dim_feedforward, dropout,
                     activation, layer_norm_eps, batch_first, norm_first, bias,
                     {"device": device, "dtype": dtype})

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
        src_key_padding_mask = canonical_mask(src_key_padding_mask, src.dtype)
        src_mask = canonical_mask(src_mask, src.dtype)
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            return x + self._ff_block(self.norm2(x))
        x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
        return self.norm2(x + self._ff_block(x))

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                           need_weights=False, is_causal=is_causal)[0]
        return self.dropout1(x)

    def _ff_block(self, x):
        return self.dropout2(self.linear2(self.dropout(self.activation(self.linear1(x)))))


class TransformerDecoderLayer(Module):
    """Self-attention, attention over the encoder's output (``memory``), feed-forward."""

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu,
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True,
                 device=None, dtype=None):
        super().__init__()
        _build_layer(self, ("self_attn", "multihead_attn"), 3, d_model, nhead,
                     dim_feedforward, dropout, activation, layer_norm_eps, batch_first,
                     norm_first, bias, {"device": device, "dtype": dtype})

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False):
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask,
                                   tgt_is_causal)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask,
                                    memory_key_padding_mask, memory_is_causal)
            return x + self._ff_block(self.norm3(x))
        x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
        x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask,
                                           memory_is_causal))
        return self.norm3(x + self._ff_block(x))

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                           is_causal=is_causal, need_weights=False)[0]
        return self.dropout1(x)

    def _mha_block(self, x, memory, attn_mask, key_padding_mask, is_causal):
        x = self.multihead_attn(x, memory, memory, attn_mask=attn_mask,
                                key_padding_mask=key_padding_mask, is_causal=is_causal,
                                need_weights=False)[0]
        return self.dropout2(x)

    def _ff_block(self, x):
        return self.dropout3(self.linear2(self.dropout(self.activation(self.linear1(x)))))


def _why_no_nested_tensors(layer):
    """PyTorch's reason, the first it finds, why its inference fast path will not apply."""
    if not isinstance(layer, TransformerEncoderLayer):
        return "encoder_layer was not TransformerEncoderLayer"
    attention = layer.self_attn
    if layer.norm_first:
        return "encoder_layer.norm_first was True"
    if not attention.batch_first:
        return ("encoder_layer.self_attn.batch_first was not True(use batch_first for better "
                "inference performance)")
    if not attention._qkv_same_embed_dim:
        return "encoder_layer.self_attn._qkv_same_embed_dim was not True"
    if attention.in_proj_bias is None:
        return "encoder_layer.self_attn was passed bias=False"
    if layer.activation not in (F.relu, F.gelu):
        return "encoder_layer.activation_relu_or_gelu was not True"
    if layer.norm1.eps != layer.norm2.eps:
        return "encoder_layer.norm1.eps was not equal to encoder_layer.norm2.eps"
    if attention.num_heads % 2 == 1:
        return "encoder_layer.self_attn.num_heads is odd"
    return ""


def _causal_hint(mask, is_causal, size):
    """PyTorch's ``_detect_is_causal_mask``: ``is_causal=None`` asks whether ``mask`` is
    the causal mask."""
    if is_causal is None and mask is not None:
        causal = Transformer.generate_square_subsequent_mask(size, dtype=mask.dtype)
        return mask.shape == causal.shape and bool((mask == causal).all())
    return is_causal is True


def _sequence_length(x, batch_first):
    return x.size(0) if x.dim() == 2 else x.size(1 if batch_first else 0)


class TransformerEncoder(Module):
    """``num_layers`` copies of ``encoder_layer`` one after the other, then ``norm``."""

    def __init__(self, encoder_layer, num_layers, norm=None, enable_nested_tensor=True,
                 mask_check=True):
        super().__init__()
        self.layers = ModuleList([copy.deepcopy(encoder_layer) for _ in range(num_layers)])
        self.num_layers, self.norm = num_layers, norm
        self.enable_nested_tensor = self.use_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check
        reason = _why_no_nested_tensors(encoder_layer)
        if enable_nested_tensor and reason:
            warnings.warn(f"enable_nested_tensor is True, but self.use_nested_tensor is False "
                          f"because {reason}", stacklevel=2)
            self.use_nested_tensor = False

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        src_key_padding_mask = canonical_mask(src_key_padding_mask, src.dtype)
        mask = canonical_mask(mask, src.dtype)
        batch_first = self.layers[0].self_attn.batch_first
        is_causal = _causal_hint(mask, is_causal, _sequence_length(src, batch_first))
        output = src
        for layer in self.layers:
            output = layer(output, src_mask=mask, is_causal=is_causal,
                           src_key_padding_mask=src_key_padding_mask)
        return output if self.norm is None else self.norm(output)


class TransformerDecoder(Module):
    """``num_layers`` copies of ``decoder_layer`` one after the other, then ``norm``."""

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = ModuleList([copy.deepcopy(decoder_layer) for _ in range(num_layers)])
        self.num_layers, self.norm = num_layers, norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal=False):
        batch_first = self.layers[0].self_attn.batch_first
        tgt_is_causal = _causal_hint(tgt_mask, tgt_is_causal,
                                     _sequence_length(tgt, batch_first))
        output = tgt
        for layer in self.layers:
            output = layer(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                           tgt_key_padding_mask=tgt_key_padding_mask,
                           memory_key_padding_mask=memory_key_padding_mask,
                           tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)
        return output if self.norm is None else self.norm(output)


class Transformer(Module):
    """An encoder over ``src`` and a decoder over ``tgt`` that attends to its output."""

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6,
                 dim_feedforward=2048, dropout=0.1, activation=F.relu, custom_encoder=None,
                 custom_decoder=None, layer_norm_eps=1e-5, batch_first=False,
                 norm_first=False, bias=True, device=None, dtype=None):
        super().__init__()
        options = {"device": device, "dtype": dtype}
        layer_options = dict(dim_feedforward=dim_feedforward, dropout=dropout,
                             activation=activation, layer_norm_eps=layer_norm_eps,
                             batch_first=batch_first, norm_first=norm_first, bias=bias,
                             **options)
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            layer = TransformerEncoderLayer(d_model, nhead, **layer_options)
            norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **options)
            self.encoder = TransformerEncoder(layer, num_encoder_layers, norm)
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            layer = TransformerDecoderLayer(d_model, nhead, **layer_options)
            norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **options)
            self.decoder = TransformerDecoder(layer, num_decoder_layers, norm)
        for param in self.parameters():
            if param.dim() > 1:
                init.xavier_uniform_(param)
        self.d_model, self.nhead, self.batch_first = d_model, nhead, batch_first

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None,
                src_key_padding_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, src_is_causal=None, tgt_is_causal=None,
                memory_is_causal=False):
        batched = src.dim() == 3
        if batched and src.size(0 if self.batch_first else 1) != \
                tgt.size(0 if self.batch_first else 1):
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.size(-1) != self.d_model or tgt.size(-1) != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask,
                              is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask,
                            tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)

    @staticmethod
    def generate_square_subsequent_mask(sz, device=None, dtype=None):
        """-inf above the diagonal, 0 elsewhere: position i may attend to 0..i."""
        return creation.full((sz, sz), float("-inf"), dtype=dtype).triu(diagonal=1)
