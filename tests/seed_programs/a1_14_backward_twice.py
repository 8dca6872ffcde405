# a1_14: the graph is freed after backward; a second backward fails and the
# graph has to be built again.
import torch

a = torch.tensor([3.0, 1.0], requires_grad=True)
b = a * a
loss = b.mean()

loss.backward()  # fine
print(a.grad)
# d/da mean(a*a) = a -> tensor([3., 1.])
try:
    loss.backward()  # RuntimeError
except Exception as e:
    print(f"{type(e).__name__}: {str(e).splitlines()[0]}")

# second time: build it again from the start
a = torch.tensor([3.0, 1.0], requires_grad=True)
b = a * a
loss = b.mean()
loss.backward()  # fine
print(a.grad)
