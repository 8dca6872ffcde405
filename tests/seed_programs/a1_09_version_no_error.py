# a1_09: the special case of article 1: if backward does not need b's value
# (like y = x + 1, whose derivative is 1), modifying b in place is no error.
import torch

a = torch.tensor([1.0, 3.0], requires_grad=True)
b = a + 2
loss = (b + 1).mean()
b[0] = 1000.0
print(b._version, b)
loss.backward()
print(a.grad)
# tensor([0.5000, 0.5000])

# b.sum() does not save b either
a = torch.tensor([1.0, 3.0], requires_grad=True)
b = a * 3
s = b.sum()
b.add_(1)
print(b._version, b)
s.backward()
print(a.grad)
# tensor([3., 3.])
