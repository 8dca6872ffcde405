# a3_03: requires_grad can be switched on later with x.requires_grad_(True).
import torch

w = torch.ones(5, 3)
print(w.requires_grad)
r = w.requires_grad_(True)
print(r is w, w.requires_grad, w.is_leaf)
print(w)
b = torch.zeros(3).requires_grad_()
print(b.requires_grad)
x = torch.ones(5)
z = torch.matmul(x, w) + b
print(z)
z.sum().backward()
print(w.grad)
print(b.grad)
