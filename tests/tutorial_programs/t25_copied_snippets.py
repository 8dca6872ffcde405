# Snippets that training scripts copy from one another: a loss subclassing nn.modules.loss's
# _Loss, weight decay grouped by isinstance(m, _BatchNorm), DataParallel and the "module."
# prefix stripped from its state_dict, a GradScaler on the CPU, a whole model saved and
# loaded under safe_globals, in-place unary functions, histc, and the messages old
# tutorials meet (loss.data[0], type(x), set_grad_enabled).
import io

import torch
import torch.nn as nn
from torch.nn.modules.activation import MultiheadAttention
from torch.nn.modules.batchnorm import _BatchNorm
from torch.nn.modules.loss import _Loss


class SmoothedCrossEntropy(_Loss):
    def __init__(self, smoothing=0.1, reduction="mean"):
        super().__init__(reduction=reduction)
        self.smoothing = smoothing

    def forward(self, logits, target):
        log_probs = logits.log_softmax(dim=-1)
        nll = -log_probs.gather(1, target.unsqueeze(1)).squeeze(1)
        loss = (1 - self.smoothing) * nll - self.smoothing * log_probs.mean(dim=-1)
        return loss.mean() if self.reduction == "mean" else loss


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU())
        self.head = nn.Linear(8, 3)

    def forward(self, x):
        return self.head(self.body(x))


def parameter_groups(model, weight_decay):
    decay, no_decay = [], []
    for module in model.modules():
        for name, param in module.named_parameters(recurse=False):
            skip = isinstance(module, _BatchNorm) or name.endswith("bias")
            (no_decay if skip else decay).append(param)
    return [{"params": decay, "weight_decay": weight_decay},
            {"params": no_decay, "weight_decay": 0.0}]


torch.manual_seed(0)
model = nn.DataParallel(Net())
print("wrapped:", type(model).__name__, "device_ids:", model.device_ids)
groups = parameter_groups(model, 1e-4)
print("decayed:", len(groups[0]["params"]), "not decayed:", len(groups[1]["params"]))
optimizer = torch.optim.SGD(groups, lr=0.1, momentum=0.9)
scaler = torch.amp.GradScaler("cpu", init_scale=1024.0, growth_interval=3)
criterion = SmoothedCrossEntropy()
x, y = torch.randn(16, 4), torch.randint(3, size=(16,))
for step in range(5):
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    print(f"step {step}: loss {loss.item():.4f}, scale {scaler.get_scale():.0f}")

state = {k.replace("module.", "", 1): v for k, v in model.state_dict().items()}
plain = Net()
print("loaded:", plain.load_state_dict(state))
buffer = io.BytesIO()
torch.save(plain, buffer)
buffer.seek(0)
with torch.serialization.safe_globals([Net, nn.Sequential, nn.Linear, nn.BatchNorm1d, nn.ReLU]):
    restored = torch.load(buffer)
restored.eval()
with torch.no_grad():
    print("same outputs:", torch.equal(restored(x), plain.eval()(x)))

w = restored.head.weight.detach().clone()
print("histc of head weights:", torch.histc(w, bins=4, min=-1, max=1).tolist())
w.abs_().sqrt_().log1p_()
print("after abs_, sqrt_, log1p_:", [round(v, 4) for v in w[0].tolist()], "version", w._version)
attention = MultiheadAttention(8, 2)
print("attention parameters:", [n for n, _ in attention.named_parameters()])

loss = criterion(model(x), y)
try:
    print(loss.data[0])
except IndexError as error:
    print("old tutorial line:", error)
print(type(loss), torch.set_grad_enabled(True))
