# a2_11: model.eval() changes layer behaviour (Dropout), torch.no_grad()
# stops graph building; they do different things.
# needs: nn
# nn layer init draws random numbers, but the weights are overwritten and
# dropout is only run in eval mode, so the output does not depend on the
# generator.
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(3, 2)
        self.drop = torch.nn.Dropout(p=0.5)

    def forward(self, x):
        return self.drop(self.fc(x))


model = Model()
with torch.no_grad():
    model.fc.weight.copy_(torch.tensor([[0.1, 0.2, 0.3], [-0.3, 0.2, -0.1]]))
    model.fc.bias.copy_(torch.tensor([0.5, -0.5]))
input = torch.tensor([[1.0, 2.0, 3.0], [0.0, -1.0, 1.0]])

print(model.training, model.fc.training, model.drop.training)
model.eval()
print(model.training, model.fc.training, model.drop.training)

# eval only: dropout is off, but a graph is still built
output = model(input)
print(output)
print(output.requires_grad)

with torch.no_grad():
    output = model(input)
    print(output)
    print(output.requires_grad, output.grad_fn, output.is_leaf)
    print(torch.is_grad_enabled())
print(torch.is_grad_enabled())

r = model.train()
print(r is model, model.training, model.drop.training)
