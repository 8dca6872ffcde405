# a1_06: register_hook on intermediate tensors; hooks fire from the loss
# backwards (loss, l4, l1).
# The article says loss.grad is None because it "was cleared after the
# print"; in fact loss is a non-leaf whose .grad is never populated (and
# torch 2.13 warns when it is read).
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

l1.register_hook(lambda grad: print('l1 grad: ', grad))
l4.register_hook(lambda grad: print('l4 grad: ', grad))
loss.register_hook(lambda grad: print('loss grad: ', grad))

loss.backward()

# loss grad:  tensor(1.)
# l4 grad:  tensor([[0.2500, 0.2500],
#         [0.2500, 0.2500]])
# l1 grad:  tensor([[7., 7.],
#         [7., 7.]])

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    print(loss.grad)
    # None
for w in caught:
    print("warning:", w.category.__name__, str(w.message)[:60])

print(w1.grad, w2.grad, w3.grad)
