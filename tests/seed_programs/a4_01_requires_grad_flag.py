# a4_01: requires_grad is an attribute that can be read and changed on a leaf.
import torch

x = torch.tensor(1., requires_grad=True)
print(x)
# tensor(1., requires_grad=True)
print(x.requires_grad)
# True
x.requires_grad = False
print(x.requires_grad)
# False
print(x)
# tensor(1.)
print(x.is_leaf, x.grad_fn)
