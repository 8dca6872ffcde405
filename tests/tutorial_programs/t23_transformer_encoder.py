# A Transformer encoder language model in the style of the PyTorch tutorial "Language
# Modeling with nn.Transformer": sinusoidal positional encoding kept as a buffer, a stack
# of TransformerEncoderLayer under a causal mask, SGD with StepLR and gradient clipping,
# then evaluation without gradients and a key-padding mask with batch_first.
import math

import torch
from torch import nn
from torch.nn import TransformerEncoder, TransformerEncoderLayer


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, dropout=0.1, max_len=50):
        super().__init__()
        self.dropout = nn.Dropout(p=dropout)
        position = torch.arange(max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, 1, d_model)
        pe[:, 0, 0::2] = torch.sin(position * div_term)
        pe[:, 0, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe)

    def forward(self, x):
        return self.dropout(x + self.pe[:x.size(0)])


class TransformerModel(nn.Module):
    def __init__(self, ntoken, d_model, nhead, d_hid, nlayers, dropout=0.2):
        super().__init__()
        self.model_type = "Transformer"
        self.pos_encoder = PositionalEncoding(d_model, dropout)
        encoder_layers = TransformerEncoderLayer(d_model, nhead, d_hid, dropout)
        self.transformer_encoder = TransformerEncoder(encoder_layers, nlayers)
        self.embedding = nn.Embedding(ntoken, d_model)
        self.d_model = d_model
        self.linear = nn.Linear(d_model, ntoken)
        initrange = 0.1
        self.embedding.weight.data.uniform_(-initrange, initrange)
        self.linear.bias.data.zero_()
        self.linear.weight.data.uniform_(-initrange, initrange)

    def forward(self, src, src_mask=None):
        src = self.embedding(src) * math.sqrt(self.d_model)
        src = self.pos_encoder(src)
        output = self.transformer_encoder(src, src_mask)
        return self.linear(output)


torch.manual_seed(0)
model = TransformerModel(ntoken=15, d_model=8, nhead=2, d_hid=16, nlayers=2)
print(model.transformer_encoder.layers[0])
print("parameters:", sum(p.numel() for p in model.parameters()),
      "| buffers:", [name for name, _ in model.named_buffers()])
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 1.0, gamma=0.95)
data = torch.randint(15, (40, 3))
mask = nn.Transformer.generate_square_subsequent_mask(6)
print("mask row 2:", mask[2].tolist())
model.train()
for step, i in enumerate(range(0, 30, 6)):
    source, targets = data[i:i + 6], data[i + 1:i + 7].reshape(-1)
    output = model(source, mask)
    loss = criterion(output.view(-1, 15), targets)
    optimizer.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
    optimizer.step()
    scheduler.step()
    print(f"step {step}: loss {loss.item():.3f}, lr {scheduler.get_last_lr()[0]:.4f}")
model.eval()
with torch.no_grad():
    evaluated = model(data[30:36], mask)
    print("eval loss:", round(criterion(evaluated.view(-1, 15), data[31:37].reshape(-1)).item(),
                              3))

torch.manual_seed(1)
layer = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0, batch_first=True,
                                   norm_first=True, activation="gelu")
encoder = nn.TransformerEncoder(layer, num_layers=2, norm=nn.LayerNorm(8))
x = torch.randn(2, 5, 8, requires_grad=True)
padding = torch.tensor([[False] * 5, [False, False, False, True, True]])
out = encoder(x, src_key_padding_mask=padding)
(out * torch.arange(8.0)).sum().backward()
print("padded output:", [round(v, 4) for v in out[1, 0, :4].tolist()])
print("input gradient norm:", round(x.grad.norm().item(), 4), "| node:", out.grad_fn.name())
attention = nn.MultiheadAttention(8, 2)
weights = attention(x.transpose(0, 1), x.transpose(0, 1), x.transpose(0, 1))[1]
print("attention weights:", tuple(weights.shape), round(weights.sum().item(), 4))
