# A two-layer network, forward and backward written by hand with tensor operations.
import torch

device = torch.device("cpu")
dtype = torch.float
torch.manual_seed(0)

batch, n_in, hidden, n_out = 32, 50, 20, 4
x = torch.randn(batch, n_in, device=device, dtype=dtype)
y = torch.randn(batch, n_out, device=device, dtype=dtype)
w1 = torch.randn(n_in, hidden, device=device, dtype=dtype)
w2 = torch.randn(hidden, n_out, device=device, dtype=dtype)

learning_rate = 1e-5
for step in range(300):
    h = x.mm(w1)
    h_relu = h.clamp(min=0)
    y_pred = h_relu.mm(w2)
    loss = (y_pred - y).pow(2).sum().item()
    if step % 50 == 49:
        print(step, f"{loss:.4g}")
    grad_y_pred = 2.0 * (y_pred - y)
    grad_w2 = h_relu.t().mm(grad_y_pred)
    grad_h = grad_y_pred.mm(w2.t())
    grad_h[h < 0] = 0
    grad_w1 = x.t().mm(grad_h)
    w1 -= learning_rate * grad_w1
    w2 -= learning_rate * grad_w2

print("device:", w1.device, "dtype:", w1.dtype, "shape:", tuple(w2.shape))
