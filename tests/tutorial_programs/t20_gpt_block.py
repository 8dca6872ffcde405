# A small GPT in nanoGPT's style, trained a few steps on random tokens: causal self-attention
# through F.scaled_dot_product_attention (with dropout while training), weight tying, AdamW
# with decay groups, gradient clipping, and the imports nanoGPT's train.py starts with.
import inspect
import math
import os
from contextlib import nullcontext

import torch
import torch.nn as nn
from torch.distributed import destroy_process_group, init_process_group  # noqa: F401
from torch.nn import functional as F
from torch.nn.parallel import DistributedDataParallel as DDP  # noqa: F401


class CausalSelfAttention(nn.Module):
    def __init__(self, n_embd, n_head, block_size, dropout):
        super().__init__()
        self.c_attn = nn.Linear(n_embd, 3 * n_embd)
        self.c_proj = nn.Linear(n_embd, n_embd)
        self.attn_dropout = nn.Dropout(dropout)
        self.resid_dropout = nn.Dropout(dropout)
        self.n_head, self.n_embd, self.dropout = n_head, n_embd, dropout
        self.flash = hasattr(torch.nn.functional, "scaled_dot_product_attention")
        if not self.flash:
            self.register_buffer("bias", torch.tril(torch.ones(block_size, block_size))
                                 .view(1, 1, block_size, block_size))

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=None,
                                           dropout_p=self.dropout if self.training else 0,
                                           is_causal=True)
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.resid_dropout(self.c_proj(y))


class MLP(nn.Module):
    def __init__(self, n_embd, dropout):
        super().__init__()
        self.c_fc = nn.Linear(n_embd, 4 * n_embd)
        self.gelu = nn.GELU()
        self.c_proj = nn.Linear(4 * n_embd, n_embd)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        return self.dropout(self.c_proj(self.gelu(self.c_fc(x))))


class Block(nn.Module):
    def __init__(self, n_embd, n_head, block_size, dropout):
        super().__init__()
        self.ln_1 = nn.LayerNorm(n_embd)
        self.attn = CausalSelfAttention(n_embd, n_head, block_size, dropout)
        self.ln_2 = nn.LayerNorm(n_embd)
        self.mlp = MLP(n_embd, dropout)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self, vocab_size=11, block_size=8, n_layer=2, n_head=2, n_embd=16,
                 dropout=0.1):
        super().__init__()
        self.block_size = block_size
        self.transformer = nn.ModuleDict(dict(
            wte=nn.Embedding(vocab_size, n_embd),
            wpe=nn.Embedding(block_size, n_embd),
            drop=nn.Dropout(dropout),
            h=nn.ModuleList([Block(n_embd, n_head, block_size, dropout)
                             for _ in range(n_layer)]),
            ln_f=nn.LayerNorm(n_embd),
        ))
        self.lm_head = nn.Linear(n_embd, vocab_size, bias=False)
        self.transformer.wte.weight = self.lm_head.weight      # weight tying
        self.apply(self._init_weights)
        for name, param in self.named_parameters():
            if name.endswith("c_proj.weight"):
                torch.nn.init.normal_(param, mean=0.0, std=0.02 / math.sqrt(2 * n_layer))

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                torch.nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)

    def forward(self, idx, targets=None):
        b, t = idx.size()
        pos = torch.arange(0, t, dtype=torch.long)
        x = self.transformer.drop(self.transformer.wte(idx) + self.transformer.wpe(pos))
        for block in self.transformer.h:
            x = block(x)
        logits = self.lm_head(self.transformer.ln_f(x))
        loss = None
        if targets is not None:
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1),
                                   ignore_index=-1)
        return logits, loss

    def configure_optimizers(self, weight_decay, learning_rate, betas):
        params = {name: p for name, p in self.named_parameters() if p.requires_grad}
        decay = [p for p in params.values() if p.dim() >= 2]
        no_decay = [p for p in params.values() if p.dim() < 2]
        print(f"num decayed parameter tensors: {len(decay)}, with "
              f"{sum(p.numel() for p in decay):,} parameters")
        print(f"num non-decayed parameter tensors: {len(no_decay)}, with "
              f"{sum(p.numel() for p in no_decay):,} parameters")
        fused_available = "fused" in inspect.signature(torch.optim.AdamW).parameters
        print("fused AdamW available:", fused_available)
        return torch.optim.AdamW([{"params": decay, "weight_decay": weight_decay},
                                  {"params": no_decay, "weight_decay": 0.0}],
                                 lr=learning_rate, betas=betas)

    @torch.no_grad()
    def generate(self, idx, max_new_tokens):
        for _ in range(max_new_tokens):
            logits, _ = self(idx[:, -self.block_size:])
            next_token = logits[:, -1, :].argmax(dim=-1, keepdim=True)
            idx = torch.cat((idx, next_token), dim=1)
        return idx


ddp = int(os.environ.get("RANK", -1)) != -1
print("ddp run:", ddp)
device = "cuda" if torch.cuda.is_available() else "cpu"
torch.backends.cuda.matmul.allow_tf32 = True
ctx = nullcontext() if device == "cpu" else torch.amp.autocast(device_type=device)
scaler = torch.amp.GradScaler(device, enabled=False)

torch.manual_seed(1337)
model = GPT()
print("parameters:", sum(p.numel() for p in model.parameters()))
print("tied:", model.transformer.wte.weight is model.lm_head.weight)
optimizer = model.configure_optimizers(weight_decay=0.1, learning_rate=3e-3, betas=(0.9, 0.95))
data = torch.randint(11, size=(64,))
for step in range(6):
    starts = torch.randint(len(data) - 8, (4,))
    x = torch.stack([data[i:i + 8] for i in starts])
    y = torch.stack([data[i + 1:i + 9] for i in starts])
    with ctx:
        logits, loss = model(x, y)
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad(set_to_none=True)
    print(f"step {step}: loss {loss.item():.3f}, grad norm {norm.item():.3f}")
model.eval()
print("generated:", model.generate(torch.zeros((1, 1), dtype=torch.long), 6).tolist())
q = torch.randn(1, 2, 3, 8, requires_grad=True)
print("attention node:", F.scaled_dot_product_attention(q, q, q, is_causal=True).grad_fn.name())
