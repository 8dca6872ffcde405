"""Attention and the Transformer layers against torch 2.13 (issue 30): the same weights
after the same seed, the same outputs and gradients, the node PyTorch's CPU attention
records, masks (boolean, additive, causal, key padding), dropout drawn as torch draws it,
and the warnings and errors programs meet."""
import re

import numpy as np
import pytest

import program_compare
import teachgrad

torch = pytest.importorskip("torch")


def run_both(program):
    return program_compare.run_both(program, torch, teachgrad)


def values(tensor):
    return None if tensor is None else tensor.detach().numpy().astype(np.float64)


def text(obj):
    return re.sub(r" at 0x[0-9a-f]+", "", repr(obj)).replace("teachgrad", "torch")


def qkv(t, shape=(2, 3, 4, 8), seed=0):
    t.manual_seed(seed)
    return [t.randn(*shape, requires_grad=True) for _ in range(3)]


@pytest.mark.parametrize("options", [
    {}, {"is_causal": True}, {"scale": 0.5},
    {"attn_mask": "bool"}, {"attn_mask": "float"}, {"attn_mask": "nothing"},
], ids=["plain", "causal", "scale", "bool-mask", "float-mask", "all-masked"])
def test_scaled_dot_product_attention_one_node(options):
    def program(t):
        q, k, v = qkv(t)
        kwargs = dict(options)
        mask = kwargs.get("attn_mask")
        if mask == "bool":
            kwargs["attn_mask"] = t.tensor([[True, False, True, True]] * 4)
        elif mask == "float":
            kwargs["attn_mask"] = t.arange(16.0).reshape(4, 4) / 10
        elif mask == "nothing":
            kwargs["attn_mask"] = t.zeros(4, 4, dtype=t.bool)
        out = t.nn.functional.scaled_dot_product_attention(q, k, v, **kwargs)
        (out * t.arange(8.0)).sum().backward()
        node = out.grad_fn
        return (node.name(), [text(n.name()) for n, _ in node.next_functions], node._saved_scale,
                node._saved_is_causal, node._saved_dropout_p, values(out),
                [values(x.grad) for x in (q, k, v)])
    record = run_both(program)
    assert record[0] == "ScaledDotProductFlashAttentionForCpuBackward0"


def test_attention_with_dropout_takes_the_math_path_and_draws_as_torch():
    def program(t):
        q, k, v = qkv(t)
        t.manual_seed(1)
        out = t.nn.functional.scaled_dot_product_attention(q, k, v, dropout_p=0.5,
                                                           is_causal=True)
        out.sum().backward()
        return out.grad_fn.name(), values(out), values(q.grad), t.rand(1).item()
    run_both(program)


def test_attention_gradient_is_not_differentiable_again():
    def program(t):
        q, k, v = qkv(t, (1, 2, 3, 4))
        out = t.nn.functional.scaled_dot_product_attention(q, k, v)
        grad_q, = t.autograd.grad(out.pow(2).sum(), q, create_graph=True)
        try:
            grad_q.sum().backward()
        except RuntimeError as error:
            return type(grad_q.grad_fn).__name__, values(grad_q), str(error)
    assert "is not implemented" in run_both(program)[2]


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("need_weights", [True, False])
def test_multihead_attention(batch_first, need_weights):
    def program(t):
        t.manual_seed(0)
        attention = t.nn.MultiheadAttention(8, 2, batch_first=batch_first)
        leaf = t.randn(5, 3, 8, requires_grad=True)
        x, memory = leaf, t.randn(4, 3, 8)
        if batch_first:
            x, memory = x.transpose(0, 1), memory.transpose(0, 1)
        padding = t.tensor([[False] * 4, [False, False, False, True], [False] * 4])
        mask = t.nn.Transformer.generate_square_subsequent_mask(5)
        self_out, self_weights = attention(x, x, x, attn_mask=mask, need_weights=need_weights)
        cross_out, cross_weights = attention(x, memory, memory, key_padding_mask=padding,
                                             need_weights=need_weights)
        (self_out.sum() + cross_out.pow(2).sum()).backward()
        return (text(attention), [(n, tuple(p.shape)) for n, p in attention.named_parameters()],
                list(attention.state_dict()), values(self_out), values(self_weights),
                values(cross_out), values(cross_weights), values(leaf.grad),
                values(attention.in_proj_weight.grad))
    run_both(program)


@pytest.mark.parametrize("options", [
    dict(), dict(norm_first=True, activation="gelu"), dict(batch_first=True, bias=False),
], ids=["post-norm", "pre-norm-gelu", "batch-first-no-bias"])
def test_transformer_encoder_trains_as_torch(options):
    def program(t):
        t.manual_seed(0)
        layer = t.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.1, **options)
        encoder = t.nn.TransformerEncoder(layer, num_layers=2)
        optimizer = t.optim.SGD(encoder.parameters(), lr=0.1)
        x = t.randn(5, 3, 8)
        if options.get("batch_first"):
            x = x.transpose(0, 1).contiguous()
        mask = t.nn.Transformer.generate_square_subsequent_mask(5)
        losses = []
        for _ in range(3):
            optimizer.zero_grad()
            loss = encoder(x, mask=mask).pow(2).mean()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        encoder.eval()
        with t.no_grad():
            evaluated = values(encoder(x, src_key_padding_mask=t.zeros(3, 5, dtype=t.bool))
                               if options.get("batch_first") else encoder(x))
        return text(layer), list(encoder.state_dict())[:6], losses, evaluated
    run_both(program)


def test_full_transformer_and_its_errors():
    def program(t):
        t.manual_seed(0)
        model = t.nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1,
                                 num_decoder_layers=1, dim_feedforward=16, dropout=0.0)
        src, tgt = t.randn(6, 2, 8), t.randn(4, 2, 8)
        out = model(src, tgt, tgt_mask=model.generate_square_subsequent_mask(4))
        out.sum().backward()
        errors = []
        for call in (lambda: model(src, t.randn(4, 3, 8)), lambda: model(src, t.randn(4, 2, 6)),
                     lambda: t.nn.MultiheadAttention(8, 3),
                     lambda: model.encoder.layers[0].self_attn(src, src, src, is_causal=True)):
            try:
                call()
            except (RuntimeError, AssertionError) as error:
                errors.append((type(error).__name__, str(error)))
        return (len(list(model.parameters())), values(out), errors,
                values(model.decoder.layers[0].multihead_attn.in_proj_weight.grad))
    run_both(program)


@pytest.mark.parametrize("make", [
    lambda t: t.ones(3, 4, 5).permute(2, 0, 1), lambda t: t.ones(3, 4, 5).transpose(0, 1),
    lambda t: t.ones(3, 4, 5)[:, ::2], lambda t: t.ones(4, 5).t(),
], ids=["permuted", "transposed", "strided", "t"])
def test_dropout_of_a_transposed_tensor_draws_in_memory_order(make):
    def program(t):
        t.manual_seed(0)
        return t.nn.functional.dropout(make(t), 0.5).tolist()
    run_both(program)
