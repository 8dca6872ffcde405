# Fitting sin(x) on [-pi, pi] with a cubic: by hand, then as a module.
import math

import torch

x = torch.linspace(-math.pi, math.pi, 2000)
y = torch.sin(x)

torch.manual_seed(5)
a, b, c, d = (torch.randn((), requires_grad=True) for _ in range(4))
learning_rate = 1e-6
for step in range(2000):
    y_pred = a + b * x + c * x ** 2 + d * x ** 3
    loss = (y_pred - y).pow(2).sum()
    if step % 500 == 499:
        print(step, f"{loss.item():.4g}")
    loss.backward()
    with torch.no_grad():
        for coefficient in (a, b, c, d):
            coefficient -= learning_rate * coefficient.grad
            coefficient.grad = None
print(f"y = {a.item():.3f} + {b.item():.3f} x + {c.item():.3f} x^2 + {d.item():.3f} x^3")

powers = torch.tensor([1, 2, 3])
features = x.unsqueeze(-1).pow(powers)
model = torch.nn.Sequential(torch.nn.Linear(3, 1), torch.nn.Flatten(0, 1))
loss_fn = torch.nn.MSELoss(reduction="sum")
optimizer = torch.optim.RMSprop(model.parameters(), lr=1e-3)
for step in range(1500):
    loss = loss_fn(model(features), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step % 500 == 499:
        print(step, f"{loss.item():.3g}")
linear = model[0]
print("bias", f"{linear.bias.item():.2f}", "weights", [round(w, 2) for w in linear.weight[0].tolist()])
