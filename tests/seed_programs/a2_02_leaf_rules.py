# a2_02: the leaf rules of article 2, .double() making a non-leaf, and the
# error when changing requires_grad of a computed tensor.
import torch


def fn(t):
    return None if t.grad_fn is None else type(t.grad_fn).__name__


# a new tensor has requires_grad=False by default and is a leaf
a = torch.ones(2, 2)
print(a.requires_grad, a.is_leaf, fn(a))
# True when created with requires_grad=True: still a leaf
b = torch.ones(2, 2, requires_grad=True)
print(b.requires_grad, b.is_leaf, fn(b))
# computed from a tensor that requires grad: not a leaf
c = b * 2
print(c.requires_grad, c.is_leaf, fn(c))
# any input requiring grad makes the result require grad
d = a + b
print(d.requires_grad, d.is_leaf, fn(d))
e = a + a
print(e.requires_grad, e.is_leaf, fn(e))

# .double() (like .cuda()) is an operation too
f = torch.ones(2, 2, requires_grad=True).double()
print(f.requires_grad, f.is_leaf, fn(f), f.dtype == torch.float64)
print(f)
g = torch.ones(2, 2).double()
print(g.requires_grad, g.is_leaf, fn(g))

x = torch.ones(2, 2, requires_grad=True)
y = torch.sigmoid(x)
print(y.is_leaf)
# False
try:
    y.requires_grad = False
except Exception as e:
    print(f"{type(e).__name__}: {str(e).splitlines()[0]}")
# RuntimeError: you can only change requires_grad flags of leaf variables. ...
print(y.requires_grad)
# a leaf can change it
x.requires_grad = False
print(x.requires_grad, x.is_leaf)
