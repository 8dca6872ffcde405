# a2_03: after backward only leaves get .grad; reading y.grad warns, unless
# y.retain_grad() was called; a leaf with requires_grad=False has grad None.
import warnings

import torch

x = torch.ones(2, 2, requires_grad=True)
y = torch.sigmoid(x)
y.sum().backward()
print(x.grad)
# sigmoid'(1) = s(1)(1 - s(1)) = 0.7311 * 0.2689 = 0.1966
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    print(y.grad)
    # None
for w in caught:
    print("warning:", w.category.__name__, str(w.message)[:60])

# with retain_grad() before backward
x = torch.ones(2, 2, requires_grad=True)
y = torch.sigmoid(x)
y.retain_grad()
y.sum().backward()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    print(y.grad)
    # tensor([[1., 1.], [1., 1.]])
print("warnings:", len(caught))

# a leaf with requires_grad=False gets no gradient and no warning
c = torch.ones(2, 2)
x = torch.ones(2, 2, requires_grad=True)
(c * x).sum().backward()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    print(c.grad, x.grad)
print("warnings:", len(caught))
