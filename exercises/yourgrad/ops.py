"""The operations, one graph node class each, and the Tensor's operators. Forward: chapter 01;
the backward formulas where their lecture tells them (03, 05, 06 and 09: see README.md).

A node computes on numpy (`forward`), names the tensors its formula needs (`saves`) and gives
one gradient per input (`backward`; None where none is needed) in yourgrad operations, so that
create_graph=True can record it (chapter 06)."""
import numpy as np

from . import grad_mode, graph, tensor, tracer

def apply(node_class, *inputs, **params):
    """Run one operation at once on numpy (numbers become tensors); record it if an input
    requires grad. A view shares its input's version counter; a running trace hears of it."""
    tensors = [as_tensor(x, inputs[0]) for x in inputs]
    node = node_class(**params)
    if node.broadcasts:
        check_broadcast(tensors[0].shape, tensors[1].shape)
    raise NotImplementedError("chapter 01: compute the result with node.forward on the numpy arrays")
    result = np.asarray(result)             # a reduction gives a numpy number
    output = tensor.Tensor(result.astype(result_dtype(tensors, result), copy=False))
    if node.is_view and np.shares_memory(output.array, tensors[0].array):
        output._version_counter = tensors[0]._version_counter
    if grad_mode.is_grad_enabled() and any(t.requires_grad for t in tensors):
        graph.record(node, tensors, output)
        node.save_for_backward(tensors, output)
    if tracer.recording is not None:
        tracer.recording.record(node_class, tensors, params, output)
    return output

def check_broadcast(shape_a, shape_b):
    """Sizes aligned on the right must be equal or 1, else PyTorch's RuntimeError "The size of
    tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1" (dims of the
    longer shape)."""
    raise NotImplementedError("chapter 01: compare the sizes from the right; raise PyTorch's error")

def result_dtype(inputs, result):
    """PyTorch's type promotion: the widest float among the inputs; else float32 (PyTorch's
    default) if integers gave a float (an int tensor / 2), else the integers' dtype."""
    floats = [t.dtype for t in inputs if t.dtype.kind == "f"]
    return np.result_type(*floats) if floats else np.dtype(
        tensor.float32 if result.dtype.kind == "f" else result.dtype)

def as_tensor(value, like):
    """`value` itself if it is a tensor, else a 0-d tensor of `like`'s dtype (a wrapped number)."""
    if isinstance(value, tensor.Tensor):
        return value
    dtype = like.dtype if like.dtype.kind == "f" or isinstance(value, int) else np.float32
    return tensor.Tensor(np.asarray(value, dtype))

class Op(graph.Node):
    broadcasts = False      # two inputs that broadcast against each other
    saves = {}              # {name: (input index or "out", the input needing it or None: all)}

    def save_for_backward(self, inputs, output):
        for name, (what, needed_for) in self.saves.items():
            if needed_for is None or self.needs_input_grad[needed_for]:
                self.save(**{name: output if what == "out" else inputs[what]})

# ---------------------------------------------------------------- arithmetic
class AddBackward0(Op):
    forward, broadcasts = staticmethod(np.add), True
    def backward(self, grad):
        raise NotImplementedError("chapter 03: the gradient of a + b for each input")

class SubBackward0(Op):
    forward, broadcasts = staticmethod(np.subtract), True
    def backward(self, grad):
        raise NotImplementedError("chapter 03: the gradient of a - b for each input")

class MulBackward0(Op):
    forward, broadcasts = staticmethod(np.multiply), True
    saves = {"self": (0, 1), "other": (1, 0)}
    def backward(self, grad):
        raise NotImplementedError("chapter 03: the gradient of a * b for each input that needs one")

class DivBackward0(Op):
    """a / b: its backward uses yourgrad operations only, so create_graph can differentiate it."""
    forward, broadcasts = staticmethod(np.true_divide), True
    saves = {"self": (0, 1), "other": (1, None)}
    def backward(self, grad):
        raise NotImplementedError("chapter 06: the gradient of a / b for each input that needs one")

class PowBackward0(Op):
    """x ** exponent, the exponent a number (params["exponent"])."""
    saves = {"self": (0, None)}
    def forward(self, a): return a ** np.asarray(self.params["exponent"], a.dtype)
    def backward(self, grad):
        raise NotImplementedError("chapter 03: the gradient of x ** exponent")

class NegBackward0(Op):
    """-x. Written for you, as the pattern: one gradient per input, in yourgrad operations."""
    forward = staticmethod(np.negative)
    def backward(self, grad): return (-grad,)

class RsubBackward1(NegBackward0):
    """number - x, as PyTorch records `2 - x`: the number is a parameter, not an input."""
    def forward(self, a): return self.params["other"] - a

class ZeroBackward0(Op):
    """x.zero_(), recorded when x is part of a graph."""
    forward = staticmethod(np.zeros_like)
    def backward(self, grad): return (tensor.zeros(*grad.shape, dtype=grad.dtype),)

# ---------------------------------------------------------------- pointwise functions
class ExpBackward0(Op):
    forward, saves = staticmethod(np.exp), {"result": ("out", None)}
    def backward(self, grad):
        raise NotImplementedError("chapter 05: the gradient of exp(x), from the saved result")

class LogBackward0(Op):
    forward, saves = staticmethod(np.log), {"self": (0, None)}
    def backward(self, grad):
        raise NotImplementedError("chapter 05: the gradient of log(x)")

class TanhBackward0(Op):
    forward, saves = staticmethod(np.tanh), {"result": ("out", None)}
    def backward(self, grad):
        raise NotImplementedError("chapter 06: the gradient of tanh(x), from the saved result")

class SigmoidBackward0(Op):
    saves = {"result": ("out", None)}
    def forward(self, a): return 1 / (1 + np.exp(-a))
    def backward(self, grad):
        raise NotImplementedError("chapter 06: the gradient of sigmoid(x), from the saved result")

class ReciprocalBackward0(Op):
    """1 / x; PyTorch records `2 / x` as x.reciprocal() * 2."""
    saves = {"result": ("out", None)}
    def forward(self, a): return 1 / a
    def backward(self, grad): return (-grad * self._saved_result ** 2,)

class ReluBackward0(Op):
    saves = {"result": ("out", None)}
    def forward(self, a): return np.maximum(a, 0)
    def backward(self, grad):
        raise NotImplementedError("chapter 05: the gradient of relu(x): 1 where the result is positive")

# ---------------------------------------------------------------- reductions
class SumBackward1(Op):
    """x.sum(dim, keepdim), dim an int or a tuple of ints."""
    reduce = staticmethod(np.sum)
    def forward(self, a):
        return self.reduce(a, axis=self.params["dim"], keepdims=self.params["keepdim"])

    def backward(self, grad):
        raise NotImplementedError("chapter 03: every summed element gets the gradient of its sum")

class SumBackward0(SumBackward1):
    """x.sum(): dim=None."""

class MeanBackward1(SumBackward1):
    reduce = staticmethod(np.mean)
    def backward(self, grad):
        raise NotImplementedError("chapter 03: sum's gradient over the number of elements each mean took")

class MeanBackward0(MeanBackward1):
    """x.mean(): dim=None."""

def unsqueeze_reduced(grad, node):
    """A reduction's gradient with the reduced dims put back as size 1 (for expand)."""
    if node.params["keepdim"] or node.params["dim"] is None:
        return grad
    shape = list(node.input_shapes[0])
    for d in np.atleast_1d(node.params["dim"]):
        shape[d] = 1
    return grad.reshape(tuple(shape))

def expand(grad, shape):
    """The gradient broadcast to `shape` (a product with ones: recorded like any other)."""
    return grad if grad.shape == tuple(shape) else grad * tensor.ones(*shape, dtype=grad.dtype)

# ---------------------------------------------------------------- matrix products
def matmul(a, b):
    """a @ b for a matrix a and a matrix (MmBackward0) or a vector (MvBackward0) b."""
    node_class = {(2, 2): MmBackward0, (2, 1): MvBackward0}.get((a.ndim, b.ndim))
    if node_class is None:
        raise RuntimeError(f"yourgrad's matmul takes a matrix and a matrix or a vector, not "
                           f"shapes {a.shape} and {b.shape}")
    return apply(node_class, a, b)

class MmBackward0(Op):
    forward, saves = staticmethod(np.matmul), {"self": (0, 1), "mat2": (1, 0)}
    def backward(self, grad):
        raise NotImplementedError("chapter 09: the gradients of a matrix product A @ B")

class MvBackward0(Op):
    forward, saves = staticmethod(np.matmul), {"self": (0, 1), "vec": (1, 0)}
    def backward(self, grad):
        raise NotImplementedError("chapter 09: the gradients of a matrix-vector product A @ v")

# ---------------------------------------------------------------- shapes and views
class ViewBackward0(Op):
    is_view = True
    def forward(self, a): return a.reshape(self.params["shape"])
    def backward(self, grad):
        raise NotImplementedError("chapter 05: give the gradient the input's shape back")

class TransposeBackward0(Op):
    """x.transpose(dim0, dim1)."""
    is_view = True
    def forward(self, a): return a.swapaxes(self.params["dim0"], self.params["dim1"])
    def backward(self, grad):
        raise NotImplementedError("chapter 05: swap the same two dims back")

class TBackward0(TransposeBackward0):
    """x.t() of a matrix: dim0=0, dim1=1."""

class CloneBackward0(Op):
    forward = staticmethod(np.copy)
    def backward(self, grad): return (grad,)

def index(x, key):
    """x[key] for ints and slices: one SelectBackward0 per int, one SliceBackward0 per slice."""
    out, dim = x, 0
    for k in key if isinstance(key, tuple) else (key,):
        if not isinstance(k, (int, slice)):
            raise IndexError("yourgrad supports basic indexing only: integers and slices")
        if k != slice(None):
            node_class = SelectBackward0 if isinstance(k, int) else SliceBackward0
            out = apply(node_class, out, key=(slice(None),) * dim + (k,))
        dim += isinstance(k, slice)
    return out if out is not x else apply(SliceBackward0, x, key=(slice(None),))

class SliceBackward0(Op):
    """x[key], params["key"] a tuple of slices (made by index)."""
    is_view = True
    def forward(self, a): return a[self.params["key"] + (Ellipsis,)]
    def backward(self, grad):
        raise NotImplementedError("chapter 05: CopySlices the gradient into zeros of the input's shape")

class SelectBackward0(SliceBackward0):
    """x[i]: a key that ends with an int."""

class CopySlices(Op):
    """x[key] = value as an operation: a copy of x whose slots at key hold value."""
    def forward(self, a, value):
        out = a.copy()
        out[self.params["key"]] = value
        return out

    def backward(self, grad):
        """x keeps the gradient outside the slots (zeros put in them), value gets the slots."""
        key, zero = self.params["key"], tensor.zeros(dtype=grad.dtype)
        return (apply(CopySlices, grad, zero, key=key) if self.needs_input_grad[0] else None,
                index(grad, key) if self.needs_input_grad[1] else None)

# ---------------------------------------------------------------- the Tensor's methods
def method(node_class, **params):
    """A Tensor method applying `node_class` to the tensor and the other operands."""
    return lambda self, *others: apply(node_class, self, *others, **params)

def attach_methods(Tensor):
    """Give the Tensor its operators and the methods that need no parameters."""
    for name, node_class in {"__add__": AddBackward0, "__radd__": AddBackward0,
                             "__sub__": SubBackward0, "__mul__": MulBackward0,
                             "__rmul__": MulBackward0, "__truediv__": DivBackward0,
                             "__neg__": NegBackward0, "exp": ExpBackward0, "log": LogBackward0,
                             "tanh": TanhBackward0, "sigmoid": SigmoidBackward0,
                             "relu": ReluBackward0, "reciprocal": ReciprocalBackward0,
                             "clone": CloneBackward0}.items():
        setattr(Tensor, name, method(node_class))
    Tensor.t = method(TBackward0, dim0=0, dim1=1)
    Tensor.__rsub__ = lambda self, number: apply(RsubBackward1, self, other=number)
    Tensor.__rtruediv__ = lambda self, number: self.reciprocal() * number
    Tensor.__matmul__, Tensor.__getitem__ = matmul, index

attach_methods(tensor.Tensor)
