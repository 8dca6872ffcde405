# Saving a model and its optimizer, and loading them into fresh objects.
import io

import torch
import torch.nn as nn


class TinyNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(4, 3)
        self.norm = nn.BatchNorm1d(3)
        self.out = nn.Linear(3, 2)

    def forward(self, x):
        return self.out(torch.relu(self.norm(self.hidden(x))))


torch.manual_seed(6)
model = TinyNet()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
x = torch.randn(8, 4)
for _ in range(3):
    optimizer.zero_grad()
    model(x).pow(2).mean().backward()
    optimizer.step()

for key, value in model.state_dict().items():
    print(key, tuple(value.shape), value.dtype)

buffer = io.BytesIO()
torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": 3},
           buffer)
buffer.seek(0)
checkpoint = torch.load(buffer)

restored = TinyNet()
print(restored.load_state_dict(checkpoint["model"]))
restored_optimizer = torch.optim.SGD(restored.parameters(), lr=0.5)
restored_optimizer.load_state_dict(checkpoint["optimizer"])
print("epoch", checkpoint["epoch"], "lr", restored_optimizer.param_groups[0]["lr"])

model.eval()
restored.eval()
with torch.no_grad():
    print("same output:", torch.equal(model(x), restored(x)))
print("momentum buffers:", len(restored_optimizer.state_dict()["state"]))
missing = restored.load_state_dict({"hidden.weight": torch.zeros(3, 4)}, strict=False)
print("missing keys:", len(missing.missing_keys), "unexpected:", missing.unexpected_keys)
