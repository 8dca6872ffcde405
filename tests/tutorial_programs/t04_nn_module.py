# The network as an nn.Sequential, updated by hand under no_grad.
import torch
from torch import nn

device = torch.accelerator.current_accelerator().type if torch.accelerator.is_available() else "cpu"
print(f"Using {device} device")
torch.manual_seed(3)
x = torch.randn(64, 10, device=device)
y = torch.randn(64, 1).to(device)

model = nn.Sequential(
    nn.Linear(10, 16),
    nn.ReLU(),
    nn.Linear(16, 1),
).to(device)
loss_fn = nn.MSELoss(reduction="sum")
print(model)
print("parameters:", sum(p.numel() for p in model.parameters()))

learning_rate = 1e-3
for step in range(200):
    loss = loss_fn(model(x), y)
    if step % 40 == 39:
        print(step, f"{loss.item():.4g}")
    model.zero_grad()
    loss.backward()
    with torch.no_grad():
        for param in model.parameters():
            param -= learning_rate * param.grad

for name, param in model.named_parameters():
    print(name, tuple(param.shape), f"{param.abs().mean().item():.4f}")
