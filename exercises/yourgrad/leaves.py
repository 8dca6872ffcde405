"""Chapter 04 — leaves and hooks: who keeps a gradient, and who may look at it on the way."""
import warnings
import weakref

from . import tensor

NOT_LEAF_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
    "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
    "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
    "instead. See github.com/pytorch/pytorch/pull/30531 for more informations.")

def warn_not_leaf():
    """PyTorch's UserWarning (NOT_LEAF_WARNING), pointing at the line that read .grad."""
    raise NotImplementedError("chapter 04: warn as PyTorch does when a non-leaf's .grad is read")

def set_requires_grad(t, flag):
    """t.requires_grad = flag, with PyTorch's RuntimeErrors: "you can only change
    requires_grad flags of leaf variables." (when flag is False, followed by its advice to use
    var.detach()) and "only Tensors of floating point dtype can require gradients"."""
    raise NotImplementedError("chapter 04: refuse non-leaves and integers as PyTorch does; set the flag")

def retain_grad(t):
    """Mark a non-leaf (t._retains_grad), its grad_fn with a weak link to it (node.retained).
    PyTorch's RuntimeError "can't retain_grad on Tensor that has requires_grad=False"."""
    raise NotImplementedError("chapter 04: mark the tensor and give its grad_fn a weak link to it")

class RemovableHandle:
    """What register_hook returns: `handle.remove()` takes the hook out again."""
    def __init__(self, hooks, hook): self.hooks, self.hook = hooks, hook

    def remove(self):
        if self.hook in self.hooks:
            self.hooks.remove(self.hook)

def register_hook(t, hook):
    """Have `hook(grad)` called with t's gradient: a leaf keeps it in `t._hooks`
    (AccumulateGrad runs them), a non-leaf in its grad_fn's `pre_hooks` (run before the node).
    PyTorch's RuntimeError "cannot register a hook on a tensor that doesn't require gradient"."""
    raise NotImplementedError("chapter 04: put the hook in the right list and return a RemovableHandle")

def run_hooks(hooks, grad):
    """Call each hook on the gradient in order; a returned tensor replaces it from then on."""
    raise NotImplementedError("chapter 04: call the hooks in order, keeping any replacement")

def call_tensor_hooks(node, grad):
    """Before `node` runs: its output's hooks (run_hooks), then, if that output retains its
    grad, the result stored in its .grad (or added to the one there)."""
    raise NotImplementedError("chapter 04: run the node's hooks, then fill the retained .grad")

def detach(t):
    """A new leaf over the same numpy array (no copy) sharing t's version counter."""
    raise NotImplementedError("chapter 04: wrap the same array in a new Tensor sharing t's version counter")
