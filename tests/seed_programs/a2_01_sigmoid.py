# a2_01: y = torch.sigmoid(x) prints its SigmoidBackward0 node.
import torch

x = torch.ones(2, 2, requires_grad=True)
y = torch.sigmoid(x)
print(y)
# tensor([[0.7311, 0.7311],
#         [0.7311, 0.7311]], grad_fn=<SigmoidBackward0>)
print(x.sigmoid())
print(y.is_leaf)
# False
