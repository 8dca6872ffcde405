# a2_04: .detach() returns a new tensor cut from the graph; .detach_()
# detaches in place and makes the tensor a leaf.
import torch


def fn(t):
    return None if t.grad_fn is None else type(t.grad_fn).__name__


x = torch.ones(2, 2, requires_grad=True)
y = torch.sigmoid(x)
d = y.detach()
print(d)
print(d.requires_grad, d.is_leaf, fn(d))
print(y.requires_grad, y.is_leaf, fn(y))

r = y.detach_()
print(r is y)
print(y)
print(y.requires_grad, y.is_leaf, fn(y))
