# A tiny data pipeline: a Dataset, a DataLoader with options, and a training loop over it.
import torch
from torch.utils.data import DataLoader, Dataset, TensorDataset, random_split


class Squares(Dataset):
    """Sample i is (i, i squared) as float tensors."""

    def __init__(self, count):
        self.count = count

    def __len__(self):
        return self.count

    def __getitem__(self, index):
        value = torch.tensor([float(index)])
        return value, value ** 2


torch.manual_seed(7)
loader = DataLoader(Squares(10), batch_size=4, shuffle=True, num_workers=2, drop_last=True)
print("batches per epoch:", len(loader))
for epoch in range(2):
    for inputs, targets in loader:
        print(epoch, inputs.flatten().tolist(), targets.sum().item())

features = torch.randn(40, 3)
labels = (features[:, 0] > 0).long()
train, valid = random_split(TensorDataset(features, labels), [30, 10])
print("split:", len(train), len(valid))


def stack_pairs(samples):
    xs, ys = zip(*samples)
    return torch.stack(xs), torch.tensor(ys)


train_loader = DataLoader(train, batch_size=8, shuffle=True, collate_fn=stack_pairs,
                          pin_memory=False)
model = torch.nn.Linear(3, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
for epoch in range(5):
    total = 0.0
    for xb, yb in train_loader:
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(xb), yb)
        loss.backward()
        optimizer.step()
        total += loss.item() * len(yb)
    print("epoch", epoch, f"mean loss {total / len(train):.3f}")

with torch.no_grad():
    xv, yv = stack_pairs([valid[i] for i in range(len(valid))])
    print("valid accuracy:", (model(xv).argmax(1) == yv).float().mean().item())
try:
    DataLoader([], shuffle=True)
except ValueError as error:
    print("empty:", error)
