# a2_12: the training-loop pattern of article 2 on a tiny logistic model:
# zero_grad, forward, loss, backward, clip_grad_norm_, step.
# needs: nn
# Article claim: "clip_grad_norm_(model.parameters(), 0.5) keeps the absolute
# value of each gradient within 0.5".  In torch it rescales all gradients
# together so that their total L2 norm is at most 0.5, and returns the norm
# measured before clipping.
# nn layer init draws random numbers, but the weights are overwritten below.
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(2, 1)

    def forward(self, x):
        return torch.sigmoid(self.fc(x))


model = Model()
with torch.no_grad():
    model.fc.weight.copy_(torch.tensor([[0.5, -0.5]]))
    model.fc.bias.copy_(torch.tensor([0.0]))

input = torch.tensor([[1.0, 2.0], [2.0, 1.0], [-1.0, -2.0], [-2.0, 0.5]])
label = torch.tensor([[1.0], [0.0], [0.0], [1.0]])
criterion = torch.nn.BCELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)

for step in range(3):
    optimizer.zero_grad()
    output = model(input)
    loss = criterion(output, label)
    loss.backward()
    print(step, "loss", loss)
    print("  grads", model.fc.weight.grad, model.fc.bias.grad)
    total = torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
    print("  norm before clip", total)
    print("  clipped", model.fc.weight.grad, model.fc.bias.grad)
    clipped = torch.sqrt(model.fc.weight.grad.pow(2).sum() + model.fc.bias.grad.pow(2).sum())
    print("  norm after clip <= 0.5:", bool(clipped <= 0.5 + 1e-6))
    optimizer.step()
    print("  params", model.fc.weight, model.fc.bias)

# plain gradient descent by hand gives the same update: w = w - lr * w.grad
optimizer.zero_grad()
print(model.fc.weight.grad)
loss = criterion(model(input), label)
loss.backward()
expected = model.fc.weight.detach() - 0.5 * model.fc.weight.grad
optimizer.step()
print(torch.allclose(model.fc.weight, expected))
