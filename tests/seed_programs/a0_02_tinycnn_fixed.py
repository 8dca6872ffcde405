# a0_02: the TinyCnn of article 0 with fixed weights and data, so that the
# loss value and every gradient can be compared without random numbers.
# needs: nn
# nn layer init draws random numbers, but every parameter is overwritten
# below, so the output does not depend on the generator.
import torch


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
with torch.no_grad():
    cnn.conv.weight.copy_((torch.arange(36.).reshape(3, 3, 2, 2) - 20.) / 200.)
    cnn.conv.bias.copy_(torch.tensor([0.3, 0.1, -0.2]))

loss_fun = torch.nn.BCELoss()
images = torch.arange(48.).reshape(1, 3, 4, 4) / 48.
labels = torch.tensor([0.2, 0.5, 0.9]).reshape(1, 3, 1, 1)

conv_out = cnn.conv(images)
print("conv_out:", conv_out)
preds = cnn(images)
print("preds:", preds)
loss = loss_fun(preds, labels)
print("loss:", loss)

print("weight.is_leaf, requires_grad:", cnn.conv.weight.is_leaf, cnn.conv.weight.requires_grad)
print("parameters:", [tuple(p.shape) for p in cnn.parameters()])
print("named:", [n for n, p in cnn.named_parameters()])

loss.backward()
print("weight.grad:", cnn.conv.weight.grad)
print("bias.grad:", cnn.conv.bias.grad)
