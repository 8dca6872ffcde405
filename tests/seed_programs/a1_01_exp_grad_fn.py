# a1_01: b = a.exp() records an ExpBackward0 node.
# The article prints "tensor(7.3891, grad_fn=)" -- the web page ate the
# "<ExpBackward0>" part; torch prints grad_fn=<ExpBackward0>.
import torch

a = torch.tensor(2.0, requires_grad=True)
b = a.exp()
print(b)
# tensor(7.3891, grad_fn=<ExpBackward0>)
print(type(b.grad_fn).__name__, b.grad_fn.name())
print(a.is_leaf, b.is_leaf, b.requires_grad)

b.backward()
print(a.grad)
# d/da exp(a) = exp(2) = 7.3891
