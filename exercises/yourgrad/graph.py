"""Chapter 02 — the backward graph: nodes, their links, and the leaves' AccumulateGrad.

Each operation on a tensor that requires grad creates a node (`MulBackward0`, ...) and makes it
the result's `grad_fn`. The node's `next_functions` point where the gradient goes next: one
`(node, input_nr)` pair per input, `(None, 0)` for an input that needs no gradient. A leaf
that requires grad is reached through its `AccumulateGrad`, whose `variable` is the leaf.
"""
import itertools
import weakref

from . import leaves, versions

_sequence = itertools.count()


class Node:
    """A step of the backward graph. Subclasses (in ops.py) give `forward` and `backward`."""
    is_view = False                         # its result may share the input's memory (05)

    def __init__(self, **params):
        self.params = params                # non-tensor arguments: dim=, exponent=, key= ...
        self.next_functions = ()
        self.needs_input_grad = ()
        self.input_shapes = ()
        self.saved = {}                     # name -> versions.SavedTensor
        self.pre_hooks = []                 # tensor hooks of the output (chapter 04)
        self.retained = None                # weak link to an output that retains its grad
        self.sequence_nr = next(_sequence)  # later nodes run first in backward

    def name(self):
        return type(self).__name__

    def save(self, /, **tensors):
        """Keep tensors for backward, readable as node._saved_<name> (None: nothing to keep)."""
        for name, tensor in tensors.items():
            if tensor is not None:
                self.saved[name] = versions.SavedTensor(tensor, is_output=tensor.grad_fn is self)

    def __getattr__(self, attribute):
        """node._saved_self and the like: unpack the saved tensor, checking it (chapter 05)."""
        saved = self.__dict__.get("saved", {})
        if attribute.startswith("_saved_") and attribute[7:] in saved:
            return saved[attribute[7:]].unpack(self)
        raise AttributeError(f"'{self.name()}' object has no attribute '{attribute}'")

    def __dir__(self):
        return [*super().__dir__(), *(f"_saved_{name}" for name in self.saved)]

    def __call__(self, *grads):
        return self.backward(*grads)

    def __repr__(self):
        return f"<{self.name()} object>"


class AccumulateGrad(Node):
    """The last node on a leaf's path: adds the arriving gradient into `variable.grad`."""

    def __init__(self, variable):
        super().__init__()
        self.variable = variable
        self.sequence_nr = float("inf")     # PyTorch runs accumulation as soon as it can

    def backward(self, grad):
        """Run the leaf's hooks on `grad` (chapter 04), then accumulate it (chapter 03)."""
        if self.variable._hooks:
            grad = leaves.run_hooks(self.variable._hooks, grad)
        raise NotImplementedError("chapter 03: store grad in variable.grad, or add it to the one there")
        return ()


def gradient_edge(tensor):
    """Where a gradient for `tensor` must go: `(tensor.grad_fn, 0)` for a computed tensor,
    `(its AccumulateGrad, 0)` for a leaf that requires grad, `(None, 0)` otherwise. A leaf
    has ONE AccumulateGrad, shared by all its uses while any graph holds it (keep it in
    `tensor._accumulator` as a weakref.ref, so it goes away with the graph)."""
    raise NotImplementedError("chapter 02: return the (node, input_nr) pair for this input")


def record(node, inputs, output):
    """Connect `node` into the graph: one edge per input (`gradient_edge`), each input's
    `requires_grad` in `node.needs_input_grad`, each input's shape in `node.input_shapes`
    (for broadcasting, chapter 03); then `output` requires grad and has `node` as its grad_fn."""
    raise NotImplementedError("chapter 02: fill next_functions and the flags, make node output's grad_fn")
