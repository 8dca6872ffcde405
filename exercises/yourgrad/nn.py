"""Chapter 09 — networks: modules that find their parameters, layers, and a stable loss.

A `Module` finds its parameters by looking at its own attributes: a `Parameter` is one, a
`Module` holds more. `Linear` starts from PyTorch's uniform initialisation; `cross_entropy`
computes log-softmax the stable way (subtracting each row's maximum first).
"""
import numpy as np

from . import tensor

generator = np.random.default_rng(0)


def manual_seed(seed):
    """Make the initial weights reproducible (numpy's generator, not PyTorch's numbers)."""
    global generator
    generator = np.random.default_rng(seed)


class Parameter(tensor.Tensor):
    """A tensor that a Module reports as one of its parameters; it requires grad."""

    def __init__(self, data):
        super().__init__(data.array if isinstance(data, tensor.Tensor) else data,
                         requires_grad=True)


class Module:
    def __init__(self):
        self.training = True

    def __call__(self, *inputs):
        return self.forward(*inputs)

    def named_parameters(self, prefix=""):
        """(name, parameter) for each Parameter among the attributes, in the order they were
        set, then those of each sub-Module attribute with its name and a dot in front:
        "fc1.weight", "fc1.bias", ... (lists and dicts of modules are not looked into)."""
        raise NotImplementedError("chapter 09: yield the attributes' parameters, then the sub-modules'")

    def parameters(self):
        return (p for _, p in self.named_parameters())

    def zero_grad(self):
        for p in self.parameters():
            p.grad = None

    def train(self, mode=True):
        """Set `training` here and in every sub-module (eval() is train(False))."""
        self.training = mode
        for value in vars(self).values():
            if isinstance(value, Module):
                value.train(mode)
        return self

    def eval(self):
        return self.train(False)


class Linear(Module):
    """x @ weight.t() + bias, both drawn uniformly from ±1/sqrt(in_features) as in PyTorch."""

    def __init__(self, in_features, out_features):
        super().__init__()
        bound = 1 / np.sqrt(in_features)
        self.weight = Parameter(generator.uniform(-bound, bound, (out_features, in_features))
                                .astype(np.float32))
        self.bias = Parameter(generator.uniform(-bound, bound, out_features).astype(np.float32))

    def forward(self, x):
        return x @ self.weight.t() + self.bias


class ReLU(Module):
    def forward(self, x):
        return x.relu()


class Sequential(Module):
    def __init__(self, *modules):
        super().__init__()
        for i, module in enumerate(modules):
            setattr(self, str(i), module)

    def forward(self, x):
        for module in vars(self).values():
            if isinstance(module, Module):
                x = module(x)
        return x


def cross_entropy(logits, target):
    """The mean of -log softmax(logits)[i, target[i]] over the rows.

    log softmax(z) = z - log(sum(exp(z))): subtract each row's maximum (a constant, which does
    not change the result) first, so that exp never overflows; pick the target's entry with a
    one-hot mask, so that everything stays a yourgrad operation."""
    raise NotImplementedError("chapter 09: a stable log-softmax, then the mean of the target entries")


class CrossEntropyLoss(Module):
    def forward(self, logits, target):
        return cross_entropy(logits, target)
