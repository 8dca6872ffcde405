# a4_02: y = x ** 2, z = y + 1: every tensor computed from a differentiable
# one is differentiable and remembers the step that made it.
# The article prints "<PowBackward0 at 0x...>" / "<AddBackward0 at 0x...>";
# we print the node's name so no address appears.
import torch

x = torch.tensor(1., requires_grad=True)
print(x)
# tensor(1., requires_grad=True)

y = x ** 2
print(y)
# tensor(1., grad_fn=<PowBackward0>)
print(type(y.grad_fn).__name__, y.grad_fn.name())
# PowBackward0
print(x.grad_fn)
# None
print(y.requires_grad)
# True

z = y + 1
print(z)
# tensor(2., grad_fn=<AddBackward0>)
print(z.requires_grad)
# True
print(type(z.grad_fn).__name__)
# AddBackward0

# the chain z -> y -> x through next_functions
nf = z.grad_fn.next_functions
print(len(nf), [type(n).__name__ if n is not None else None for n, _ in nf])
pow_node = nf[0][0]
print(pow_node is y.grad_fn)
acc = pow_node.next_functions[0][0]
print(type(acc).__name__, acc.variable is x)
print(x.is_leaf, y.is_leaf, z.is_leaf)

z.backward()
print(x.grad)
# dz/dx = 2x = tensor(2.)
