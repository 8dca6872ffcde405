# a1_13: method 2 of article 1: assign into a leaf inside torch.no_grad().
import torch

a = torch.tensor([10., 5., 2., 3.], requires_grad=True)
print(a, a.is_leaf)
# tensor([10.,  5.,  2.,  3.], requires_grad=True) True

with torch.no_grad():
    a[:] = 10.
print(a, a.is_leaf)
# tensor([10., 10., 10., 10.], requires_grad=True) True
print(a.grad_fn, a._version)

loss = (a * a).mean()
loss.backward()
print(a.grad)
# tensor([5., 5., 5., 5.])
