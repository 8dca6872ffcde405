# a1_11: in-place ops on a leaf that requires grad fail immediately.
# (the article's "has been used" is "is being used" in torch 2.13)
import torch

a = torch.tensor([10., 5., 2., 3.], requires_grad=True)
try:
    a.add_(10.)
except Exception as e:
    print(f"{type(e).__name__}: {str(e).splitlines()[0]}")
# RuntimeError: a leaf Variable that requires grad is being used in an in-place operation.

try:
    a += 10.
except Exception as e:
    print(f"{type(e).__name__}: {str(e).splitlines()[0]}")

try:
    a.fill_(1.)
except Exception as e:
    print(f"{type(e).__name__}: {str(e).splitlines()[0]}")

print(a, a.is_leaf, a._version)
