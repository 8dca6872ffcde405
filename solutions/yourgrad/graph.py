"""Chapter 02 — the backward graph: nodes, their links, and the leaves' AccumulateGrad."""
import itertools
import weakref

from . import leaves, versions

_sequence = itertools.count()

class Node:
    """A step of the backward graph. Subclasses (in ops.py) give `forward` and `backward`."""
    is_view = False                         # its result may share the input's memory (05)

    def __init__(self, **params):
        self.params = params                # non-tensor arguments: dim=, exponent=, key= ...
        self.next_functions = self.needs_input_grad = self.input_shapes = ()
        self.saved = {}                     # name -> versions.SavedTensor
        self.pre_hooks = []                 # the output's tensor hooks (chapter 04)
        self.retained = None                # weak link to an output that retains its grad
        self.sequence_nr = next(_sequence)  # later nodes run first in backward

    def name(self): return type(self).__name__
    def __call__(self, *grads): return self.backward(*grads)
    def __repr__(self): return f"<{self.name()} object>"

    def save(self, /, **tensors):
        """Keep tensors for backward, readable as node._saved_<name> (None: nothing to keep)."""
        for name, tensor in tensors.items():
            if tensor is not None:
                self.saved[name] = versions.SavedTensor(tensor, is_output=tensor.grad_fn is self)

    def __getattr__(self, attribute):
        """node._saved_self and the like: the saved tensor, checked when unpacked (chapter 05)."""
        saved = self.__dict__.get("saved", {})
        if attribute.startswith("_saved_") and attribute[7:] in saved:
            return saved[attribute[7:]].unpack(self)
        raise AttributeError(f"'{self.name()}' object has no attribute '{attribute}'")

    def __dir__(self):
        return [*super().__dir__(), *(f"_saved_{name}" for name in self.saved)]

class AccumulateGrad(Node):
    """The last node on a leaf's path: adds the arriving gradient into `variable.grad`."""
    def __init__(self, variable):
        super().__init__()
        self.variable = variable
        self.sequence_nr = float("inf")     # PyTorch runs accumulation as soon as it can

    def backward(self, grad):
        """Run the leaf's hooks on `grad` (chapter 04), then accumulate it."""
        if self.variable._hooks:
            grad = leaves.run_hooks(self.variable._hooks, grad)
        leaf = self.variable
        if leaf._grad is None:
            leaf._grad = grad
        else:
            ### BEGIN SOLUTION chapter 04: add grad to the gradient already in variable.grad
            leaf._grad = leaf._grad + grad
            ### END SOLUTION
        return ()

def gradient_edge(tensor):
    """(grad_fn, 0), (the AccumulateGrad, 0) of a leaf that requires grad, else (None, 0). A leaf
    has ONE AccumulateGrad while a graph holds it: a weakref.ref in `tensor._accumulator`."""
    ### BEGIN SOLUTION chapter 02: return the (node, input_nr) pair for this input
    if tensor.grad_fn is not None:
        return tensor.grad_fn, 0
    if not tensor.requires_grad:
        return None, 0
    node = tensor._accumulator() if tensor._accumulator is not None else None
    if node is None:
        node = AccumulateGrad(tensor)
        tensor._accumulator = weakref.ref(node)
    return node, 0
    ### END SOLUTION

def record(node, inputs, output):
    """Link `node` into the graph: its next_functions (gradient_edge), needs_input_grad and
    input_shapes (chapter 03) from the inputs; `output` requires grad, with `node` as grad_fn."""
    ### BEGIN SOLUTION chapter 02: fill next_functions and the flags, make node output's grad_fn
    node.next_functions = tuple(gradient_edge(t) for t in inputs)
    node.needs_input_grad = tuple(t.requires_grad for t in inputs)
    node.input_shapes = tuple(t.shape for t in inputs)
    output._requires_grad = True
    output.grad_fn = node
    ### END SOLUTION
