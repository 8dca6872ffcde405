# Defining a network class, looking at its layers, parameters and predicted classes.
import torch
from torch import nn

device = torch.accelerator.current_accelerator().type if torch.accelerator.is_available() else "cpu"
torch.manual_seed(12)


class NeuralNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.linear_relu_stack = nn.Sequential(
            nn.Linear(6 * 6, 16),
            nn.ReLU(),
            nn.Linear(16, 16),
            nn.ReLU(),
            nn.Linear(16, 5),
        )

    def forward(self, x):
        return self.linear_relu_stack(self.flatten(x))


model = NeuralNetwork().to(device)
print(model)

images = torch.rand(3, 6, 6, device=device)
logits = model(images)
probabilities = nn.Softmax(dim=1)(logits)
print("predicted classes:", probabilities.argmax(1))
print("flattened:", nn.Flatten()(images).size(), "first layer:", model.linear_relu_stack[0](
    nn.Flatten()(images)).shape)

for name, param in model.named_parameters():
    print(f"Layer: {name} | Size: {param.size()} | Values : {param[:2]} \n")
