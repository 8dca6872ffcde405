# a2_10: fine-tuning: freeze pretrained parameters with requires_grad = False.
# needs: nn
# nn layer init draws random numbers, but the weights are overwritten below,
# so the output does not depend on the generator.
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.body = torch.nn.Linear(2, 2)
        self.head = torch.nn.Linear(2, 1)

    def forward(self, x):
        return self.head(torch.relu(self.body(x)))


model = Model()
with torch.no_grad():
    model.body.weight.copy_(torch.tensor([[1.0, -1.0], [0.5, 2.0]]))
    model.body.bias.copy_(torch.tensor([0.0, 0.5]))
    model.head.weight.copy_(torch.tensor([[2.0, 1.0]]))
    model.head.bias.copy_(torch.tensor([-1.0]))

print([(n, p.requires_grad, p.is_leaf) for n, p in model.named_parameters()])

# freeze the pretrained body
for param in model.body.parameters():
    param.requires_grad = False
print([(n, p.requires_grad) for n, p in model.named_parameters()])

input = torch.tensor([[1.0, 2.0], [3.0, -1.0]])
out = model(input)
print(out)
out.sum().backward()
print(model.body.weight.grad, model.body.bias.grad)
print(model.head.weight.grad, model.head.bias.grad)

# freezing everything: the output no longer requires grad
for param in model.parameters():
    param.requires_grad = False
out = model(input)
print(out.requires_grad, out.grad_fn)
print(out)
