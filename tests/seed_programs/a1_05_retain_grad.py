# a1_05: retain_grad() keeps the gradients of non-leaf tensors.
import torch

input = torch.ones([2, 2], requires_grad=False)
w1 = torch.tensor(2.0, requires_grad=True)
w2 = torch.tensor(3.0, requires_grad=True)
w3 = torch.tensor(4.0, requires_grad=True)

l1 = input * w1
l2 = l1 + w2
l3 = l1 * w3
l4 = l2 * l3
loss = l4.mean()

l1.retain_grad()
l4.retain_grad()
loss.retain_grad()
print(l1.retains_grad, l2.retains_grad, w1.retains_grad)

loss.backward()

print(loss.grad)
# tensor(1.)
print(l4.grad)
# tensor([[0.2500, 0.2500],
#         [0.2500, 0.2500]])
print(l1.grad)
# tensor([[7., 7.],
#         [7., 7.]])
print(w1.grad, w2.grad, w3.grad)
