"""Chapter 05 — versions: in-place changes, and the saved tensors that notice them."""
import re

from . import grad_mode, ops, tensor

SECOND_BACKWARD_ERROR = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward.")

class VersionCounter:
    """How many in-place changes the memory of a tensor (and of its views) has seen."""
    def __init__(self): self.value = 0

class SavedTensor:
    """A tensor a node keeps, with its version; the node's own output as its array (no cycle)."""
    def __init__(self, t, is_output):
        self.version, self.counter, self.is_output = t._version, t._version_counter, is_output
        self.tensor, self.array = None if is_output else t, t.array
        self.made_by = t.grad_fn.name() if is_output else None   # an input's: when described
        self.freed = False

    def describe(self):
        """PyTorch's words for the tensor: "[torch.FloatTensor [3]], which is output 0 of Mul,"
        (the node that saved its output; for an input, its grad_fn now, less "Backward0")."""
        kind = {"float32": "Float", "float64": "Double"}.get(str(self.array.dtype), "Long")
        node = self.made_by or (self.tensor.grad_fn and self.tensor.grad_fn.name())
        made_by = f", which is output 0 of {re.sub(r'Backward[0-9]*$', '', node)}," if node else ""
        return f"[torch.{kind}Tensor {list(self.array.shape)}]{made_by}"

    def release(self):
        """After a backward without retain_graph: let go of the tensor (chapter 06)."""
        self.tensor = self.array = None
        self.freed = True

    def unpack(self, node):
        """The saved tensor, for `node`'s backward or for `node._saved_<name>`."""
        if self.freed:
            ### BEGIN SOLUTION chapter 06: refuse to unpack a freed tensor (SECOND_BACKWARD_ERROR)
            raise RuntimeError(SECOND_BACKWARD_ERROR)
            ### END SOLUTION
        if self.counter.value != self.version:
            ### BEGIN SOLUTION chapter 05: raise PyTorch's in-place error with the two versions
            raise RuntimeError(
                "one of the variables needed for gradient computation has been modified by an "
                f"inplace operation: {self.describe()} is at version {self.counter.value}; "
                f"expected version {self.version} instead. Hint: enable anomaly detection to "
                "find the operation that failed to compute its gradient, with "
                "torch.autograd.set_detect_anomaly(True, check_nan=False).")
            ### END SOLUTION
        if not self.is_output:
            return self.tensor
        output = tensor.Tensor(self.array)
        output._version_counter, output.grad_fn, output._requires_grad = self.counter, node, True
        return output

def in_place(t, node_class, *values, **params):
    """t.add_(value), t[key] = value ...: while grad mode is on, a leaf that requires grad
    refuses (RuntimeError "a leaf Variable that requires grad is being used in an in-place
    operation.", "a view of a leaf ..." for t[key] = value). Apply the op to a snapshot of t (a
    copy of its array with t's grad_fn and requires_grad: what the node saves stays untouched),
    write the result into t.array, bump the counter; t takes the op's grad_fn if recorded."""
    if t.requires_grad and t.grad_fn is not None and t.grad_fn.is_view:
        raise RuntimeError("yourgrad does not rebase the graph of a view's base (PyTorch "
                           "does): change the base tensor in place instead of its view")
    ### BEGIN SOLUTION chapter 05: refuse a leaf, apply the op to a snapshot, write, bump, rebase
    if t.is_leaf and t.requires_grad and grad_mode.is_grad_enabled():
        view = "a view of " if "key" in params else ""
        raise RuntimeError(f"{view}a leaf Variable that requires grad is being used in an "
                           "in-place operation.")
    before = tensor.Tensor(t.array.copy())
    before.grad_fn, before._requires_grad = t.grad_fn, t.requires_grad
    result = ops.apply(node_class, before, *values, **params)
    t.array[...] = result.array
    t._version_counter.value += 1
    if result.grad_fn is not None:
        t.grad_fn, t._requires_grad = result.grad_fn, True
    return t
    ### END SOLUTION

def data_alias(t):
    """t.data: a new tensor over the same array, with a version counter of its own."""
    ### BEGIN SOLUTION chapter 07: a new Tensor over the same array, with a fresh counter
    return tensor.Tensor(t.array)
    ### END SOLUTION
