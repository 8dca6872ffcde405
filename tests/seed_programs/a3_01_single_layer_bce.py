# a3_01: the single-layer network of article 3 with random w and b and
# binary_cross_entropy_with_logits; backward fills w.grad and b.grad.
# needs: nn, random
# Article typos fixed: "import torchx = torch.ones(5)" is two lines, and
# "b = torch = randn(3, requires_grade=True)" means
# "b = torch.randn(3, requires_grad=True)".
import torch

torch.manual_seed(0)

x = torch.ones(5)  # input tensor
y = torch.zeros(3)  # expected output
w = torch.randn(5, 3, requires_grad=True)
b = torch.randn(3, requires_grad=True)
z = torch.matmul(x, w) + b
loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)

print(w)
print(b)
print(z)
print(loss)

print(f"Gradient function for z = {type(z.grad_fn).__name__}")
print(f"Gradient function for loss = {type(loss.grad_fn).__name__}")
# AddBackward0 and BinaryCrossEntropyWithLogitsBackward0

loss.backward()
print(w.grad)
print(b.grad)
# every row of w.grad equals b.grad because x is all ones
print(torch.allclose(w.grad, b.grad.expand(5, 3)))
