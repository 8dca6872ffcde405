# a1_12: method 1 of article 1: change a leaf through .data (or .detach()).
import torch

a = torch.tensor([10., 5., 2., 3.], requires_grad=True)
print(a, a.is_leaf)
previous_id = id(a)
# tensor([10.,  5.,  2.,  3.], requires_grad=True) True

a.data.fill_(10.)
print(a, a.is_leaf, id(a) == previous_id)
# tensor([10., 10., 10., 10.], requires_grad=True) True True

loss = (a * a).mean()
loss.backward()
print(a.grad)
# tensor([5., 5., 5., 5.])

# the same with a.detach().fill_(10.)
b = torch.tensor([10., 5., 2., 3.], requires_grad=True)
previous_id = id(b)
d = b.detach()
print(d.requires_grad, d.is_leaf)
d.fill_(10.)
print(b, b.is_leaf, id(b) == previous_id)
loss = (b * b).mean()
loss.backward()
print(b.grad)
# tensor([5., 5., 5., 5.])
print(b.data, b.data.requires_grad)
