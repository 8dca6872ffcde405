# Softmax regression with the loss written out: log-probabilities picked with range(n).
import torch
import torch.nn.functional as F

torch.manual_seed(9)
n, classes = 12, 3
x = torch.randn(n, 4)
y = torch.randint(0, classes, (n,))
W = torch.zeros(4, classes, requires_grad=True)
b = torch.zeros(classes, requires_grad=True)

for step in range(100):
    logits = x @ W + b
    logits = logits - logits.max(dim=1, keepdims=True).values
    log_probs = logits - logits.exp().sum(1, keepdims=True).log()
    loss = -log_probs[range(n), y].mean()
    loss.backward()
    with torch.no_grad():
        W -= 0.5 * W.grad
        b -= 0.5 * b.grad
        W.grad.zero_()
        b.grad.zero_()
    if step % 25 == 24:
        print(step, f"{loss.item():.4f}")

reference = F.cross_entropy(x @ W + b, y)
print("same as cross_entropy:", abs(reference.item() - loss.item()) < 1e-2)
predictions = (x @ W + b).argmax(dim=1)
print("accuracy:", (predictions == y).float().mean().item())
print("picked:", log_probs[range(3), [0, 1, 2]].shape, log_probs[[0, 1], 2].shape)
counts = torch.zeros(classes)
for label in y:
    counts[label] += 1
print("counts:", counts.tolist())
