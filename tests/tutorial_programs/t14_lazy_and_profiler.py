# A model whose first layer learns its input size, profiled with named blocks.
import torch
from torch import nn

torch.manual_seed(11)
model = nn.Sequential(nn.LazyLinear(8), nn.ReLU(), nn.Linear(8, 2))
print(model)
x = torch.randn(4, 6)
with torch.autograd.profiler.profile() as prof:
    with torch.autograd.profiler.record_function("forward"):
        out = model(x)
    with torch.autograd.profiler.record_function("backward"):
        out.sum().backward()
print(model)
print("first layer weight:", tuple(model[0].weight.shape))
print({e.key: e.count for e in prof.key_averages() if e.key in ("forward", "backward")})
print("output:", [round(v, 4) for v in out[0].tolist()])
