# a3_02: the network of article 3 with fixed w and b so that the numbers
# can be checked by hand: z = x @ w + b, loss = BCE-with-logits(z, y = 0),
# dloss/dz = sigmoid(z) / 3.
# needs: nn
import torch

x = torch.ones(5)
y = torch.zeros(3)
w = torch.tensor([[0.25, -0.5, 0.0],
                  [0.5, 0.25, -0.25],
                  [0.0, 0.75, 0.25],
                  [-0.25, 0.0, 0.5],
                  [0.0, -0.5, -0.5]], requires_grad=True)
b = torch.tensor([0.5, 0.0, -1.0], requires_grad=True)
# (all values are exact in binary, so the sums carry no rounding error)
z = torch.matmul(x, w) + b
print(z)
# column sums 0.5, 0.0, 0.0 plus b -> tensor([ 1.,  0., -1.])
loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)
print(loss)
# mean(log(1 + e^z)) = (1.3133 + 0.6931 + 0.3133) / 3 = 0.7732
print(f"Gradient function for z = {z.grad_fn.name()}")
print(f"Gradient function for loss = {loss.grad_fn.name()}")

loss.backward()
print(w.grad)
print(b.grad)
# sigmoid([1, 0, -1]) / 3 = [0.7311, 0.5, 0.2689] / 3 = tensor([0.2437, 0.1667, 0.0896])
print(x.grad, y.grad)
