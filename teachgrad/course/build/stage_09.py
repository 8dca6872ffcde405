"""Chapter 09's build checks: Module, Linear, Sequential, cross_entropy, SGD — and the
chapter's two-moons training run, repeated on the student's engine from teachgrad's weights."""
import functools

import numpy as np

import teachgrad
from teachgrad import datasets
from teachgrad.course.build.compare import as_numpy, checks_list
from teachgrad.course.build.formulas import STAGE_09, add_formula_checks
from teachgrad.utils.data import DataLoader, TensorDataset

CHECKS, check = checks_list("09")
EPOCHS, LOSSES_COMPARED = 40, 20

add_formula_checks(check, STAGE_09)


@functools.cache
def two_moons():
    """Lecture 09's data and the batches its loader gives, epoch after epoch, as numpy arrays."""
    teachgrad.manual_seed(0)
    X, y = datasets.two_moons(200, noise=0.15)
    loader = DataLoader(TensorDataset(X[:150], y[:150]), batch_size=32, shuffle=True,
                        generator=teachgrad.Generator().manual_seed(0))
    batches = [(xb.numpy(), yb.numpy()) for _ in range(EPOCHS) for xb, yb in loader]
    return X.numpy(), y.numpy(), batches


def moon_net(torch):
    """Lecture 09's MoonNet on `torch`, with teachgrad's initial weights for manual_seed(0)."""
    nn = torch.nn

    class MoonNet(nn.Module):
        def __init__(self, hidden=16):
            super().__init__()
            self.fc1 = nn.Linear(2, hidden)
            self.fc2 = nn.Linear(hidden, hidden)
            self.out = nn.Linear(hidden, 2)

        def forward(self, x):
            h = self.fc1(x).tanh()
            h = self.fc2(h).tanh()
            return self.out(h)

    teachgrad.manual_seed(0)
    model = MoonNet()
    if torch is not teachgrad:              # the same initial weights, copied in unrecorded
        teachgrad.manual_seed(0)
        weights = dict(moon_net(teachgrad).named_parameters())
        for name, p in model.named_parameters():
            p.array[...] = as_numpy(weights[name])
    return model


def accuracy(model, X, y):
    return float((as_numpy(model(X)).argmax(axis=1) == as_numpy(y)).mean())


@check("Module finds its parameters through its attributes; train() and eval()",
       "named_parameters walks vars(self): a Parameter by its name, a sub-Module with its name "
       "and a dot in front; train(mode) sets training in every sub-module")
def modules(torch):
    model = moon_net(torch)
    named = [(name, tuple(p.shape), p.requires_grad, p.is_leaf)
             for name, p in model.named_parameters()]
    model.eval()
    seen = {"named_parameters": named, "count": len(list(model.parameters())),
            "training after eval()": model.training, "fc1.training": model.fc1.training}
    model.train()
    seq = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    seen.update({"Sequential names": [n for n, _ in seq.named_parameters()],
                 "fc1.training after train()": model.fc1.training})
    return seen


@check("cross_entropy: a stable log-softmax, and its gradient",
       "log softmax(z) = z - max - log(sum(exp(z - max))) row by row; the loss is the mean of "
       "-log softmax at the targets")
def cross_entropy(torch):
    logits = torch.tensor([[2.0, -1.0, 0.5], [0.0, 0.0, 0.0], [1000.0, 0.0, -1000.0]],
                          requires_grad=True)
    target = torch.tensor([0, 2, 1])
    loss = torch.nn.CrossEntropyLoss()(logits, target)
    loss.backward()
    return {"loss": loss, "logits.grad": logits.grad}


@check("SGD with momentum: its first steps and zero_grad",
       "the momentum buffer starts as the gradient, then v = momentum * v + grad; "
       "p -= lr * v in place under no_grad; zero_grad sets every .grad to None")
def sgd(torch):
    p = torch.nn.Parameter(torch.tensor([1.0, -2.0]))
    optimizer = torch.optim.SGD([p], lr=0.1, momentum=0.9)
    seen = {}
    for step in range(3):
        optimizer.zero_grad()
        ((p * p).sum() + p.sum()).backward()
        optimizer.step()
        seen.update({f"p after step {step}": p.clone(), f"version {step}": p._version})
    optimizer.zero_grad()
    return {**seen, "grad after zero_grad": p.grad, "p.is_leaf": p.is_leaf}


@check("the chapter's two-moons training run: the same losses and accuracy as teachgrad",
       "from the same initial weights every step must match: forward, cross_entropy, backward, "
       "and SGD(lr=0.1, momentum=0.9) with its buffer")
def training(torch):
    X, y, batches = two_moons()
    model = moon_net(torch)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    loss_fn = torch.nn.CrossEntropyLoss()
    losses = []
    for xb, yb in batches:
        optimizer.zero_grad()
        loss = loss_fn(model(torch.tensor(xb)), torch.tensor(yb))
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    model.eval()
    with torch.no_grad():
        return {f"first {LOSSES_COMPARED} losses": np.array(losses[:LOSSES_COMPARED]),
                "train accuracy": accuracy(model, torch.tensor(X[:150]), torch.tensor(y[:150])),
                "test accuracy": accuracy(model, torch.tensor(X[150:]), torch.tensor(y[150:]))}
