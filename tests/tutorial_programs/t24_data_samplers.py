# A data pipeline with samplers, as the PyTorch data tutorial and many training scripts
# build them: a Dataset, RandomSampler and SequentialSampler, a WeightedRandomSampler for
# unbalanced classes, a BatchSampler given to the DataLoader, a generator of the loader's
# own for reproducible epochs, and the samplers' module paths imported as programs do.
import torch
from torch.utils.data import (BatchSampler, DataLoader, Dataset, RandomSampler,
                              SequentialSampler, SubsetRandomSampler, WeightedRandomSampler)
from torch.utils.data.dataloader import default_collate
from torch.utils.data.sampler import Sampler


class Points(Dataset):
    """Sample i: a 2-d point and its class (one class in four is 1)."""

    def __init__(self, count):
        torch.manual_seed(3)
        self.x = torch.randn(count, 2)
        self.y = (torch.arange(count) % 4 == 0).long()

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return {"x": self.x[i], "y": self.y[i], "index": i}


class EvenFirst(Sampler):
    """A sampler of our own: the even indices, then the odd ones."""

    def __init__(self, data_source):
        self.count = len(data_source)

    def __iter__(self):
        return iter(list(range(0, self.count, 2)) + list(range(1, self.count, 2)))

    def __len__(self):
        return self.count


dataset = Points(12)
torch.manual_seed(0)
print("sequential:", list(SequentialSampler(dataset)))
print("random:", list(RandomSampler(dataset)))
print("with replacement:", list(RandomSampler(dataset, replacement=True, num_samples=6)))
print("batches:", list(BatchSampler(EvenFirst(dataset), batch_size=5, drop_last=False)))

loader = DataLoader(dataset, batch_size=4, sampler=EvenFirst(dataset))
batch = next(iter(loader))
print("custom sampler batch:", batch["index"].tolist(), batch["y"].tolist(),
      tuple(batch["x"].shape))

weights = [3.0 if int(label) == 1 else 1.0 for label in dataset.y]
balanced = DataLoader(dataset, batch_size=6, sampler=WeightedRandomSampler(weights, 12))
for batch in balanced:
    print("weighted:", batch["index"].tolist(), "ones:", int(batch["y"].sum()))

generator = torch.Generator().manual_seed(42)
batches = BatchSampler(RandomSampler(dataset, generator=generator), batch_size=5,
                       drop_last=True)
loader = DataLoader(dataset, batch_sampler=batches)
print("batches per epoch:", len(loader))
for epoch in range(2):
    print("epoch", epoch, [b["index"].tolist() for b in loader])

train_indices, valid_indices = list(range(8)), list(range(8, 12))
train_loader = DataLoader(dataset, batch_size=3, sampler=SubsetRandomSampler(train_indices))
valid_loader = DataLoader(dataset, batch_size=4, sampler=valid_indices)
model = torch.nn.Linear(2, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
for epoch in range(3):
    for batch in train_loader:
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(batch["x"]), batch["y"])
        loss.backward()
        optimizer.step()
    with torch.no_grad():
        correct = sum((model(b["x"]).argmax(1) == b["y"]).sum().item() for b in valid_loader)
    print(f"epoch {epoch}: last loss {loss.item():.4f}, valid correct {correct}/4")

single = DataLoader(dataset, batch_size=None, sampler=SequentialSampler(range(3)))
print("unbatched:", [sample["index"] for sample in single])
print("collated:", default_collate([(1, 2.0), (3, 4.0)]))
for options in (dict(shuffle=True, sampler=EvenFirst(dataset)),
                dict(batch_sampler=batches, batch_size=2)):
    try:
        DataLoader(dataset, **options)
    except ValueError as error:
        print("refused:", error)
print("after all, the global generator gives:", torch.rand(1).item())
