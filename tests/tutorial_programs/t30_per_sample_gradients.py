# Per-sample gradients with torch.func, after PyTorch's tutorial: functional_call makes the
# model a function of its parameters, grad differentiates one example's loss, vmap maps that
# over the batch; the result agrees with a loop of ordinary backward passes.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call, grad, vmap

torch.manual_seed(0)


class SimpleCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3)
        self.fc = nn.Linear(4 * 3 * 3, 5)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv(x)), 2)
        return F.log_softmax(self.fc(torch.flatten(x, 1)), dim=1)


model = SimpleCNN()
data = torch.randn(6, 1, 8, 8)
targets = torch.randint(0, 5, (6,))

# the slow way: one backward pass per example
loop_grads = []
for example, target in zip(data, targets):
    loss = F.nll_loss(model(example.unsqueeze(0)), target.unsqueeze(0))
    loop_grads.append(torch.autograd.grad(loss, list(model.parameters())))
loop_grads = [torch.stack(per_param) for per_param in zip(*loop_grads)]

# the torch.func way
params = {name: p.detach() for name, p in model.named_parameters()}
buffers = {name: b.detach() for name, b in model.named_buffers()}


def compute_loss(params, buffers, sample, target):
    batch, targets = sample.unsqueeze(0), target.unsqueeze(0)
    predictions = functional_call(model, (params, buffers), (batch,))
    return F.nll_loss(predictions, targets)


per_sample = vmap(grad(compute_loss), in_dims=(None, None, 0, 0))(params, buffers, data, targets)
for (name, g), expected in zip(per_sample.items(), loop_grads):
    print(f"{name:12s} {tuple(g.shape)} matches the loop: {torch.allclose(g, expected, atol=1e-6)}"
          f" | norm of example 0: {g[0].norm():.4f}")
print("no gradient left on the model:", all(p.grad is None for p in model.parameters()))
