# a2_07: the Dive-into-Deep-Learning example: z = y * x with y = x * x,
# and with y.detach() blocking the path through y.
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * x
z = y * x
z.sum().backward()
print(x.grad)
# dz/dx = 3x^2 = tensor([ 3., 12.])

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * x
z = y.detach() * x
z.sum().backward()
print(x.grad)
# y.detach() is a constant u = x^2, dz/dx = u = tensor([1., 4.])
print(z)
