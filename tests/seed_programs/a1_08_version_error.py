# a1_08: _version counts in-place changes; backward notices b was modified.
# torch 2.13 reports b as "output 0 of torch::autograd::CopySlices" because
# the assignment b[0] = ... already rebased b's history onto CopySlices.
import torch

a = torch.tensor([1.0, 3.0], requires_grad=True)
b = a + 2
print(b._version)
# 0

loss = (b * b).mean()
b[0] = 1000.0
print(b._version)
# 1
print(b)
print(type(b.grad_fn).__name__)

try:
    loss.backward()
except Exception as e:
    print(f"{type(e).__name__}: {str(e).splitlines()[0]}")
# RuntimeError: one of the variables needed for gradient computation has been
# modified by an inplace operation ...
print(a.grad)
