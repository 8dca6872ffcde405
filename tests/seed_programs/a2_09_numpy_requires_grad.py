# a2_09: numpy() on a tensor that requires grad fails; detach() first.
# (The article quotes the old "Can't call numpy() on Variable ..." wording;
# torch 2.13 says "Tensor" and "tensor.detach().numpy()".)
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
try:
    x.numpy()
except Exception as e:
    print(f"{type(e).__name__}: {str(e).splitlines()[0]}")
n = x.detach().numpy()
print(type(n).__name__, n, n.dtype)
y = x * 2
try:
    y.numpy()
except Exception as e:
    print(f"{type(e).__name__}: {str(e).splitlines()[0]}")
print(y.detach().numpy())
print(torch.ones(2).numpy())
