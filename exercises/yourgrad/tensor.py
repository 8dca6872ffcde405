"""Chapter 01 — a tensor: a numpy array, a few flags, and operations that compute at once
("eager": `y = x * 2` has finished when it returns)."""
import numpy as np

from . import engine, leaves, ops, versions

float32, float64, int64 = np.dtype("float32"), np.dtype("float64"), np.dtype("int64")

class Tensor:
    """An n-dimensional array of numbers that can remember how it was computed."""
    def __init__(self, data, dtype=None, requires_grad=False):
        """Keep `data` (a number, nested lists, or an array: not copied) in self.array with
        PyTorch's dtype rule: Python floats give float32, ints int64, a numpy array or number
        (np.float64(2.0), what a reduction returns) keeps its dtype, `dtype=` wins. Requiring
        grad if not floating point: PyTorch's RuntimeError "Only Tensors of floating point and
        complex dtype can require gradients"."""
        raise NotImplementedError("chapter 01: store the array in self.array with PyTorch's dtype rule")
        self._requires_grad = bool(requires_grad)
        self.grad_fn, self._grad = None, None               # its node (02), its gradient (03)
        self._retains_grad, self._hooks = False, []         # chapter 04
        self._accumulator = None                            # weak link to its AccumulateGrad
        self._version_counter = versions.VersionCounter()   # chapter 05

    shape = property(lambda self: self.array.shape)
    dtype = property(lambda self: self.array.dtype)
    ndim = property(lambda self: self.array.ndim)
    requires_grad = property(lambda self: self._requires_grad, lambda self, flag:
                             leaves.set_requires_grad(self, flag))
    retains_grad = property(lambda self: self._retains_grad)
    is_leaf = property(lambda self: self.grad_fn is None, doc="Made by the user, not recorded.")
    _version = property(lambda self: self._version_counter.value)
    data = property(lambda self: versions.data_alias(self))         # chapter 05

    def size(self, dim=None): return self.shape if dim is None else self.shape[dim]
    def numel(self): return self.array.size
    def item(self): return self.array.item()
    def tolist(self): return self.array.tolist()
    def numpy(self): return self.array

    def __repr__(self):
        """PyTorch's text, written for you: tensor([1., 2.]) with 4 decimals unless all are
        whole, then the flags it adds: a dtype other than float32/int64, grad_fn=<Name>,
        requires_grad=True."""
        whole = self.dtype.kind != "f" or bool((self.array == self.array.round()).all())
        body = np.array2string(self.array, separator=", ", prefix="tensor(", precision=4,
                               floatmode="maxprec_equal" if whole else "fixed")
        extras = [] if self.dtype in (float32, int64) else [f"dtype=torch.{self.dtype}"]
        if self.grad_fn is not None:
            extras.append(f"grad_fn=<{self.grad_fn.name()}>")
        elif self.requires_grad:
            extras.append("requires_grad=True")
        return "tensor(" + ", ".join([body] + extras) + ")"

    # ------------------------------------------------ operations (the rest: ops.attach_methods)
    def __pow__(self, exponent): return ops.apply(ops.PowBackward0, self, exponent=exponent)
    def __gt__(self, other): return Tensor(self.array > ops.as_tensor(other, self).array)
    def __lt__(self, other): return Tensor(self.array < ops.as_tensor(other, self).array)
    def __bool__(self): return bool(self.array)
    def __len__(self): return len(self.array)

    def sum(self, dim=None, keepdim=False):
        node_class = ops.SumBackward0 if dim is None else ops.SumBackward1
        return ops.apply(node_class, self, dim=dim, keepdim=keepdim)

    def mean(self, dim=None, keepdim=False):
        node_class = ops.MeanBackward0 if dim is None else ops.MeanBackward1
        return ops.apply(node_class, self, dim=dim, keepdim=keepdim)

    def reshape(self, *shape): return ops.apply(ops.ViewBackward0, self, shape=shape_arg(shape))
    view = reshape

    def transpose(self, dim0, dim1):
        return ops.apply(ops.TransposeBackward0, self, dim0=dim0, dim1=dim1)

    # ------------------------------------------------ autograd (chapters 03, 04)
    def backward(self, gradient=None, retain_graph=None, create_graph=False):
        engine.backward([self], [gradient], retain_graph, create_graph)

    def requires_grad_(self, flag=True):
        if self.is_leaf or not flag:        # a non-leaf already requires grad
            leaves.set_requires_grad(self, flag)
        return self

    @property
    def grad(self):
        """What backward left here: only leaves (and tensors that retain_grad) get one."""
        if not self.is_leaf and not self._retains_grad:
            leaves.warn_not_leaf()
        return self._grad

    @grad.setter
    def grad(self, value):
        self._grad = value

    def retain_grad(self): leaves.retain_grad(self)
    def register_hook(self, hook): return leaves.register_hook(self, hook)
    def detach(self): return leaves.detach(self)

    # ------------------------------------------------ in place (chapter 05)
    def add_(self, other): return versions.in_place(self, ops.AddBackward0, other)
    def mul_(self, other): return versions.in_place(self, ops.MulBackward0, other)
    def sub_(self, other): return versions.in_place(self, ops.SubBackward0, other)
    def zero_(self): return versions.in_place(self, ops.ZeroBackward0)
    def __setitem__(self, key, value): versions.in_place(self, ops.CopySlices, value, key=key)
    __iadd__, __imul__, __isub__ = add_, mul_, sub_

def tensor(data, dtype=None, requires_grad=False):
    """A new tensor holding a copy of `data` (as torch.tensor)."""
    data = data.array if isinstance(data, Tensor) else data
    return Tensor(data.copy() if isinstance(data, np.ndarray) else data, dtype, requires_grad)

def zeros(*shape, dtype=float32, requires_grad=False):
    return Tensor(np.zeros(shape_arg(shape), dtype), requires_grad=requires_grad)

def ones(*shape, dtype=float32, requires_grad=False):
    return Tensor(np.ones(shape_arg(shape), dtype), requires_grad=requires_grad)

def full(shape, value, dtype=float32, requires_grad=False):
    return Tensor(np.full(shape, value, dtype), requires_grad=requires_grad)

def shape_arg(shape):
    """reshape(2, 3) and reshape((2, 3)) both mean the shape (2, 3)."""
    return tuple(shape[0]) if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
