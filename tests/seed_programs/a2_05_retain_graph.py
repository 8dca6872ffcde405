# a2_05: a second backward fails unless retain_graph=True; with it the
# gradient accumulates to twice the single-pass value.
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = (x * x).sum()
y.backward()
try:
    y.backward()
except Exception as e:
    print(f"{type(e).__name__}: {str(e).splitlines()[0]}")
# RuntimeError: Trying to backward through the graph a second time ...
print(x.grad)
# dy/dx = 2x = tensor([2., 4.])

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = (x * x).sum()
y.backward(retain_graph=True)
print(x.grad)
# tensor([2., 4.])
y.backward()
print(x.grad)
# accumulated: tensor([4., 8.])
