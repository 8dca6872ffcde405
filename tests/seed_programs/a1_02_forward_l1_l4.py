# a1_02: forward pass of the l1..l4 model of article 1 (before backward).
# The article prints grad_fn objects (shown empty on the page); here we print
# the class name so that no address appears.  Reading .grad of a non-leaf
# tensor raises a UserWarning in torch 2.13 (the article predates it).
import warnings

import torch


def fn(t):
    return None if t.grad_fn is None else type(t.grad_fn).__name__


input = torch.ones([2, 2], requires_grad=False)
w1 = torch.tensor(2.0, requires_grad=True)
w2 = torch.tensor(3.0, requires_grad=True)
w3 = torch.tensor(4.0, requires_grad=True)

l1 = input * w1
l2 = l1 + w2
l3 = l1 * w3
l4 = l2 * l3
loss = l4.mean()

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    print(w1.data, w1.grad, fn(w1))
    # tensor(2.) None None
    print(l1.data, l1.grad, fn(l1))
    # tensor([[2., 2.],
    #         [2., 2.]]) None MulBackward0
    print(loss.data, loss.grad, fn(loss))
    # tensor(40.) None MeanBackward0
for w in caught:
    print("warning:", w.category.__name__, str(w.message)[:60])

print(l2, l3, l4, sep="\n")
print([t.requires_grad for t in (input, w1, w2, w3, l1, l2, l3, l4, loss)])
print([t.is_leaf for t in (input, w1, w2, w3, l1, l2, l3, l4, loss)])
print([fn(t) for t in (l1, l2, l3, l4, loss)])
