# A custom autograd Function: a ReLU whose backward we write ourselves.
import torch


class ClampedLinear(torch.autograd.Function):
    """max(x, 0), with its gradient written by hand."""

    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return input.clamp(min=0)

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        grad_input = grad_output.clone()
        grad_input[input < 0] = 0
        return grad_input


torch.manual_seed(2)
x = torch.randn(16, 8)
y = torch.randn(16, 2)
w1 = torch.randn(8, 6, requires_grad=True)
w2 = torch.randn(6, 2, requires_grad=True)

relu = ClampedLinear.apply
for step in range(200):
    hidden = relu(x.mm(w1))
    loss = (hidden.mm(w2) - y).pow(2).sum()
    if step == 0:
        node = hidden.grad_fn
        print("node:", str(node).split(" object")[0] + ">", node.name())
        print("saved:", len(node.saved_tensors), tuple(node.saved_tensors[0].shape))
    if step % 40 == 39:
        print(step, f"{loss.item():.4g}")
    loss.backward()
    with torch.no_grad():
        for w in (w1, w2):
            w -= 1e-3 * w.grad
            w.grad = None

check = torch.randn(5, dtype=torch.float64, requires_grad=True)
print("gradcheck:", torch.autograd.gradcheck(ClampedLinear.apply, (check,)))
