"""Chapter 09 — networks: modules that find their parameters in their attributes, and a loss."""
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
    def __init__(self): self.training = True
    def __call__(self, *inputs): return self.forward(*inputs)

    def named_parameters(self, prefix=""):
        """(name, parameter) for each Parameter attribute, in the order they were set, and
        each sub-Module attribute's, named with a prefix: "fc1.weight" (not inside lists)."""
        raise NotImplementedError("chapter 09: yield the attributes' parameters, then the sub-modules'")

    def parameters(self): return (p for _, p in self.named_parameters())
    def children(self): return (v for v in vars(self).values() if isinstance(v, Module))

    def zero_grad(self):
        for p in self.parameters():
            p.grad = None

    def train(self, mode=True):
        """Set `training` here and in every sub-module (eval() is train(False))."""
        self.training = mode
        for child in self.children():
            child.train(mode)
        return self

    def eval(self): return self.train(False)

class Linear(Module):
    """x @ weight.t() + bias, both drawn uniformly from ±1/sqrt(in_features) as in PyTorch."""
    def __init__(self, in_features, out_features):
        super().__init__()
        bound = 1 / np.sqrt(in_features)
        def uniform(*shape): return Parameter(np.float32(generator.uniform(-bound, bound, shape)))
        self.weight, self.bias = uniform(out_features, in_features), uniform(out_features)

    def forward(self, x): return x @ self.weight.t() + self.bias

class ReLU(Module):
    def forward(self, x): return x.relu()

class Sequential(Module):
    def __init__(self, *modules):
        super().__init__()
        for i, module in enumerate(modules):
            setattr(self, str(i), module)

    def forward(self, x):
        for module in self.children():
            x = module(x)
        return x

def cross_entropy(logits, target):
    """Mean over rows of -log softmax(logits)[i, target[i]], the targets picked with a one-hot
    product. log softmax(z)_j = z_j - log(sum_k exp(z_k)) overflows for z = 1000; with m the
    row's maximum, z_j - m - log(sum_k exp(z_k - m)) is the same number (the m's cancel) and
    every exp is at most 1: subtract m (a constant, no gradient) first."""
    raise NotImplementedError("chapter 09: a stable log-softmax, then the mean of the target entries")

class CrossEntropyLoss(Module):
    def forward(self, logits, target): return cross_entropy(logits, target)
