# a1_03: backward of the l1..l4 model: w1.grad 28, w2.grad 8, w3.grad 10;
# intermediate tensors keep no .grad (each access warns in torch 2.13).
import warnings

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

loss.backward()

print(w1.grad, w2.grad, w3.grad)
# tensor(28.) tensor(8.) tensor(10.)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    print(l1.grad, l2.grad, l3.grad, l4.grad, loss.grad)
    # None None None None None
for w in caught:
    print("warning:", w.category.__name__, str(w.message)[:60])
print(len(caught))
print(input.grad)
# input does not require grad: None, and no warning (it is a leaf)
