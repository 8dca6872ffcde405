# First steps with autograd: leaves, grad_fn, backward, gradients of non-scalars, no_grad.
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print("device:", device, "| mps:", torch.backends.mps.is_available())

x = torch.ones(2, 2, requires_grad=True, device=device)
y = x + 2
z = y * y * 3
out = z.mean()
print(y.grad_fn.name(), z.grad_fn.name(), out.grad_fn.name())
print("leaf?", x.is_leaf, y.is_leaf, "| y requires grad:", y.requires_grad)
out.backward()
print(x.grad)

a = torch.randn(2, 2)
a = ((a * 3) / (a - 1))
print("before:", a.requires_grad)
a.requires_grad_(True)
b = (a * a).sum()
print("after:", a.requires_grad, b.grad_fn.name())

v = torch.tensor([0.1, 1.0, 0.0001], dtype=torch.float)
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * 2
while y.data.norm() < 1000:
    y = y * 2
y.backward(v)
print("vector-Jacobian product:", x.grad)

with torch.no_grad():
    print("inside no_grad:", (x ** 2).requires_grad)
print("detached:", x.detach().requires_grad, "| enabled:", torch.is_grad_enabled())

torch.manual_seed(0)
inp = torch.eye(4, 5, requires_grad=True)
out = (inp + 1).pow(2).t()
out.backward(torch.ones_like(out), retain_graph=True)
print("first call\n", inp.grad)
out.backward(torch.ones_like(out))
print("second call\n", inp.grad)
