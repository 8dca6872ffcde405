"""Chapter 04 — leaves and hooks: who keeps a gradient, and who may look at it on the way.

Only leaves keep `.grad`; a non-leaf does when asked (`retain_grad()`). A hook registered on a
tensor sees its gradient during backward and may replace it. `requires_grad` can be switched
on leaves only, and `detach()` makes a new leaf over the same numbers.
"""
import warnings
import weakref

from . import graph, tensor

NOT_LEAF_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
    "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
    "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
    "instead. See github.com/pytorch/pytorch/pull/30531 for more informations.")


def accumulator(leaf):
    """The AccumulateGrad node of a leaf that requires grad (made on first use)."""
    return graph.gradient_edge(leaf)[0]


def warn_not_leaf():
    """Reading .grad on a non-leaf that does not retain its gradient: PyTorch's UserWarning
    (NOT_LEAF_WARNING), pointing at the line that read it (stacklevel=3)."""
    raise NotImplementedError("chapter 04: warn as PyTorch does when a non-leaf's .grad is read")


def set_requires_grad(t, flag):
    """t.requires_grad = flag. PyTorch's RuntimeErrors: "only Tensors of floating point dtype
    can require gradients" for an integer tensor, and "you can only change requires_grad flags
    of leaf variables." for a non-leaf (followed, when flag is False, by PyTorch's advice to
    use var.detach())."""
    raise NotImplementedError("chapter 04: refuse non-leaves and integers as PyTorch does; set the flag")


def retain_grad(t):
    """Ask a non-leaf to keep its gradient in .grad: mark it (t._retains_grad) and let its
    grad_fn know through a weak link (node.retained = weakref.ref(t)). Nothing to do for a
    leaf; PyTorch's RuntimeError "can't retain_grad on Tensor that has requires_grad=False"."""
    raise NotImplementedError("chapter 04: mark the tensor and give its grad_fn a weak link to it")


class RemovableHandle:
    """What register_hook returns: `handle.remove()` takes the hook out again."""

    def __init__(self, hooks, hook):
        self.hooks, self.hook = hooks, hook

    def remove(self):
        if self.hook in self.hooks:
            self.hooks.remove(self.hook)


def register_hook(t, hook):
    """Call `hook(grad)` when t's gradient is computed; a returned tensor replaces it.

    A leaf keeps its hooks in `t._hooks` (AccumulateGrad runs them); a non-leaf's go to its
    grad_fn's `pre_hooks` (the engine runs them before the node). PyTorch's RuntimeError
    "cannot register a hook on a tensor that doesn't require gradient"."""
    raise NotImplementedError("chapter 04: put the hook in the right list and return a RemovableHandle")


def run_hooks(hooks, grad):
    """Call each hook on the gradient, in order; a hook that returns a tensor replaces the
    gradient for the hooks after it and for what follows (a leaf's .grad, the node)."""
    raise NotImplementedError("chapter 04: call the hooks in order, keeping any replacement")


def call_tensor_hooks(node, grad):
    """Before `node` runs: its output's hooks (run_hooks), then, if that output retains its
    grad, store the result in its .grad (or add it to the one there)."""
    raise NotImplementedError("chapter 04: run the node's hooks, then fill the retained .grad")


def detach(t):
    """A new leaf with the same numbers (the same numpy array, no copy) and the same version
    counter, that does not require grad: the graph stops here."""
    raise NotImplementedError("chapter 04: wrap the same array in a new Tensor sharing t's version counter")
