# The same network, with autograd computing the backward pass.
import torch

device = "cuda" if torch.cuda.is_available() else "cpu"
torch.manual_seed(1)

x = torch.randn(32, 50, device=device)
y = torch.randn(32, 4, device=device)
w1 = torch.randn(50, 20, device=device, requires_grad=True)
w2 = torch.randn(20, 4, device=device, requires_grad=True)

learning_rate = 1e-5
for step in range(300):
    y_pred = x.mm(w1).clamp(min=0).mm(w2)
    loss = (y_pred - y).pow(2).sum()
    if step == 0:
        print("graph:", loss.grad_fn.name(), "<-", loss.grad_fn.next_functions[0][0].name())
    if step % 50 == 49:
        print(step, f"{loss.item():.4g}")
    loss.backward()
    with torch.no_grad():
        w1 -= learning_rate * w1.grad
        w2 -= learning_rate * w2.grad
        w1.grad.zero_()
        w2.grad.zero_()

print("leaves:", w1.is_leaf, w2.is_leaf, "requires_grad:", w1.requires_grad)
print("running on", device)
