# a1_10: assigning into a leaf that requires grad.
# The article (PyTorch 1.1) shows that a[:] = 0 worked, turned a into a
# non-leaf with grad_fn=<CopySlices> and later backward failed with
# "leaf variable has been moved into the graph interior".  torch 2.13
# refuses the assignment immediately with "a leaf Variable that requires
# grad is being used in an in-place operation." and a stays an unchanged leaf.
import torch

a = torch.tensor([10., 5., 2., 3.], requires_grad=True)
print(a, a.is_leaf)
# tensor([10.,  5.,  2.,  3.], requires_grad=True) True

try:
    a[:] = 0
except Exception as e:
    print(f"{type(e).__name__}: {str(e).splitlines()[0]}")
print(a, a.is_leaf, a._version)

loss = (a * a).mean()
loss.backward()
print(a.grad)
# d/da mean(a*a) = 2a/4 = a/2 -> tensor([5.0000, 2.5000, 1.0000, 1.5000])
