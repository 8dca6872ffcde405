# a0_01: TinyCnn from article 0 -- walk loss.grad_fn down next_functions.
# needs: nn, random
# Article (PyTorch 1.6) shows BinaryCrossEntropyBackward, MaxPool2DWithIndicesBackward,
# ReluBackward1 and ThnnConv2DBackward.  torch 2.13 names them
# BinaryCrossEntropyBackward0, MaxPool2DWithIndicesBackward0, ReluBackward0 and
# ConvolutionBackward0; the structure (None for images, AccumulateGrad for
# weight and bias) is unchanged.  The article lists loss's next_functions as
# just (MaxPool2DWithIndicesBackward, 0); torch 2.13 also lists (None, 0) for
# the labels, which do not require grad.
import torch

torch.manual_seed(0)


class TinyCnn(torch.nn.Module):
    def __init__(self, arg_dict={}):
        super(TinyCnn, self).__init__()
        self.conv = torch.nn.Conv2d(3, 3, kernel_size=2, stride=2)
        self.relu = torch.nn.ReLU(inplace=True)
        self.pool = torch.nn.MaxPool2d(kernel_size=2, stride=2)

    def forward(self, images):
        conv_out = self.conv(images)
        relu_out = self.relu(conv_out)
        pool_out = self.pool(relu_out)
        return pool_out


cnn = TinyCnn()
loss_fun = torch.nn.BCELoss()
images = torch.rand((1, 3, 4, 4))
labels = torch.rand((1, 3, 1, 1))
preds = cnn(images)
loss = loss_fun(preds, labels)


def node_name(node):
    return None if node is None else type(node).__name__


def walk(node, depth=0):
    print("  " * depth + str(node_name(node)))
    if node is None:
        return
    for nxt, idx in node.next_functions:
        walk(nxt, depth + 1)


print("loss.grad_fn:", node_name(loss.grad_fn))
print("next_functions:", [(node_name(n), i) for n, i in loss.grad_fn.next_functions])
pool_node = loss.grad_fn.next_functions[0][0]
print("pool next_functions:", [(node_name(n), i) for n, i in pool_node.next_functions])
walk(loss.grad_fn)

# AccumulateGrad nodes hold the leaf they accumulate into.
conv_node = pool_node.next_functions[0][0].next_functions[0][0]
acc_w = conv_node.next_functions[1][0]
acc_b = conv_node.next_functions[2][0]
print("AccumulateGrad.variable is conv.weight:", acc_w.variable is cnn.conv.weight)
print("AccumulateGrad.variable is conv.bias:", acc_b.variable is cnn.conv.bias)

print("images:", images.requires_grad, images.is_leaf, images.grad_fn)
print("weight:", cnn.conv.weight.requires_grad, cnn.conv.weight.is_leaf, cnn.conv.weight.grad_fn)
print("preds:", preds.shape, preds.requires_grad, preds.is_leaf, node_name(preds.grad_fn))
print("loss:", loss)

loss.backward()
print("weight.grad shape:", cnn.conv.weight.grad.shape)
print("bias.grad:", cnn.conv.bias.grad)
print("images.grad:", images.grad)
