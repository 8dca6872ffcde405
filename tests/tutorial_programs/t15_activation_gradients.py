# Activation functions and their gradients on a grid of points, as plotted in textbooks.
import torch

x = torch.arange(-8.0, 8.0, 0.1, requires_grad=True)
y = torch.relu(x)
y.backward(torch.ones_like(x), retain_graph=True)
print("relu: points", x.numel(), "gradient ones", int(x.grad.sum().item()))
print("around zero:", x[78:83].detach().tolist())

x.grad.data.zero_()
torch.sigmoid(x).sum().backward()
print("sigmoid gradient max", f"{x.grad.max().item():.4f}", "at", f"{x[x.grad.argmax()].item():.2f}")

x.grad.zero_()
torch.tanh(x).sum().backward()
print("tanh gradient at 0:", f"{x.grad[80].item():.4f}")
print("arange:", torch.arange(5), torch.arange(1, 2.5, 0.5), torch.arange(0, 1, 0.25).dtype)
