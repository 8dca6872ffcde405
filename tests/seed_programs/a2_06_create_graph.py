# a2_06: create_graph=True builds a graph for the first derivative so that
# a second derivative can be taken (mentioned in article 2).
import torch

x = torch.tensor(2.0, requires_grad=True)
y = x ** 3
(g,) = torch.autograd.grad(y, x, create_graph=True)
print(g)
# dy/dx = 3x^2 = 12, and it has a grad_fn
print(g.requires_grad)
g.backward()
print(x.grad)
# d2y/dx2 = 6x = 12

