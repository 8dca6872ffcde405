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
    ### BEGIN SOLUTION chapter 04: warn as PyTorch does when a non-leaf's .grad is read
    warnings.warn(NOT_LEAF_WARNING, UserWarning, stacklevel=3)
    ### END SOLUTION

def set_requires_grad(t, flag):
    """t.requires_grad = flag, with PyTorch's RuntimeErrors: "you can only change
    requires_grad flags of leaf variables." (when flag is False, followed by its advice to use
    var.detach()) and "only Tensors of floating point dtype can require gradients"."""
    ### BEGIN SOLUTION chapter 04: refuse non-leaves and integers as PyTorch does; set the flag
    if not t.is_leaf:
        detach_hint = "" if flag else (
            " If you want to use a computed variable in a subgraph that doesn't require "
            "differentiation use var_no_grad = var.detach().")
        raise RuntimeError("you can only change requires_grad flags of leaf variables."
                           + detach_hint)
    if flag and t.dtype.kind != "f":
        raise RuntimeError("only Tensors of floating point dtype can require gradients")
    t._requires_grad = bool(flag)
    ### END SOLUTION

def retain_grad(t):
    """Mark a non-leaf (t._retains_grad), its grad_fn with a weak link to it (node.retained).
    PyTorch's RuntimeError "can't retain_grad on Tensor that has requires_grad=False"."""
    ### BEGIN SOLUTION chapter 04: mark the tensor and give its grad_fn a weak link to it
    if not t.requires_grad:
        raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    if t.is_leaf:
        return
    t._retains_grad = True
    t.grad_fn.retained = weakref.ref(t)
    ### END SOLUTION

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
    ### BEGIN SOLUTION chapter 04: put the hook in the right list and return a RemovableHandle
    if not t.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    hooks = t._hooks if t.is_leaf else t.grad_fn.pre_hooks
    hooks.append(hook)
    return RemovableHandle(hooks, hook)
    ### END SOLUTION

def run_hooks(hooks, grad):
    """Call each hook on the gradient in order; a returned tensor replaces it from then on."""
    ### BEGIN SOLUTION chapter 04: call the hooks in order, keeping any replacement
    for hook in hooks:
        result = hook(grad)
        grad = grad if result is None else result
    return grad
    ### END SOLUTION

def call_tensor_hooks(node, grad):
    """Before `node` runs: its output's hooks (run_hooks), then, if that output retains its
    grad, the result stored in its .grad (or added to the one there)."""
    ### BEGIN SOLUTION chapter 04: run the node's hooks, then fill the retained .grad
    grad = run_hooks(node.pre_hooks, grad)
    retained = node.retained() if node.retained is not None else None
    if retained is not None:
        retained._grad = grad if retained._grad is None else retained._grad + grad
    return grad
    ### END SOLUTION

def detach(t):
    """A new leaf over the same numpy array (no copy) sharing t's version counter."""
    ### BEGIN SOLUTION chapter 04: wrap the same array in a new Tensor sharing t's version counter
    cut = tensor.Tensor(t.array)
    cut._version_counter = t._version_counter
    return cut
    ### END SOLUTION
