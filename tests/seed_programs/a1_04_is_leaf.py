# a1_04: a user-created tensor is a leaf, a computed one is not.
import torch

a = torch.ones([2, 2], requires_grad=True)
print(a.is_leaf)
# True

b = a + 2
print(b.is_leaf)
# False
print(b)
print(a.grad_fn, type(b.grad_fn).__name__)

c = torch.ones([2, 2])  # requires_grad=False tensors are leaves by convention
print(c.is_leaf, c.requires_grad, (c + 2).is_leaf, (c + 2).requires_grad)
