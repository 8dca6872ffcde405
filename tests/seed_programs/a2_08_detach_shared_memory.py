# a2_08: a detached tensor shares memory with the original; changing it
# changes y and breaks the backward through y.
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * x
u = y.detach()
z = y * x

u[0] = 5.0
print(y)
# tensor([5., 4.], grad_fn=<MulBackward0>)
print(u, u._version, y._version)

try:
    z.sum().backward()
except Exception as e:
    print(f"{type(e).__name__}: {str(e).splitlines()[0]}")
# RuntimeError: one of the variables needed for gradient computation has been
# modified by an inplace operation ...
