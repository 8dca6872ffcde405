# An older tutorial's style: Variable, typed tensor constructors, .type() and .cuda checks.
import torch
from torch.autograd import Variable

dtype = torch.FloatTensor
if torch.cuda.is_available():
    dtype = torch.cuda.FloatTensor

torch.manual_seed(8)
x = Variable(torch.randn(6, 3).type(dtype), requires_grad=False)
y = Variable(torch.randn(6, 1).type(dtype), requires_grad=False)
w = Variable(torch.randn(3, 1).type(dtype), requires_grad=True)
print(x.type(), w.type(), isinstance(w, torch.FloatTensor), isinstance(w, Variable))

for step in range(50):
    loss = (x.mm(w) - y).pow(2).sum()
    loss.backward()
    w.data -= 0.01 * w.grad.data
    w.grad.data.zero_()
    if step % 10 == 9:
        print(step, f"{loss.data.item():.4f}")

labels = torch.LongTensor([2, 0, 1])
print(labels, labels.type(), torch.DoubleTensor([1, 2]).dtype, torch.Tensor(2, 3).shape)
print(labels.type(torch.FloatTensor), isinstance(labels, torch.LongTensor))
