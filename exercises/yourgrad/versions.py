"""Chapter 05 — versions: in-place changes, and the saved tensors that notice them.

Every tensor has a version counter, shared with its views (slices, view/reshape, t(),
transpose, detach()); every in-place change (`add_`, `mul_`, `zero_`, `t[i] = v`, `+=`)
bumps it. A saved tensor remembers the version it was saved at, and backward refuses to use
it if the version moved: the gradient would silently be computed from the wrong numbers.
`.data` shares the numbers but has a counter of its own — so its changes go unnoticed.
"""
from . import grad_mode, ops, tensor

SECOND_BACKWARD_ERROR = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward.")


class VersionCounter:
    """How many in-place changes the memory of a tensor (and of its views) has seen."""

    def __init__(self):
        self.value = 0

    def bump(self):
        self.value += 1


class SavedTensor:
    """A tensor kept by a node for its backward formula, with the version it was saved at.

    A node's own output is kept without its grad_fn (node -> tensor -> node would be a
    reference cycle) and rebuilt with it when unpacked."""

    def __init__(self, t, is_output):
        self.version = t._version
        self.counter = t._version_counter
        self.is_output = is_output
        self.tensor = None if is_output else t
        self.array = t.array
        self.made_by = None if t.grad_fn is None else t.grad_fn.name()
        self.freed = False

    def describe(self):
        """PyTorch's words for the tensor: [torch.FloatTensor [3]], which is output 0 of ..."""
        kind = {"float32": "Float", "float64": "Double"}.get(str(self.array.dtype), "Long")
        made_by = "" if self.made_by is None else f", which is output 0 of {self.made_by},"
        return f"[torch.{kind}Tensor {list(self.array.shape)}]{made_by}"

    def release(self):
        """After a backward without retain_graph: let go of the tensor (chapter 06)."""
        self.tensor = self.array = None
        self.freed = True

    def unpack(self, node):
        """The saved tensor, for `node`'s backward or for reading `node._saved_<name>`."""
        if self.freed:
            raise NotImplementedError("chapter 06: refuse to unpack a freed tensor (SECOND_BACKWARD_ERROR)")
        if self.counter.value != self.version:
            raise NotImplementedError("chapter 05: raise PyTorch's in-place error with the two versions")
        if not self.is_output:
            return self.tensor
        output = tensor.Tensor(self.array)
        output._version_counter, output.grad_fn, output._requires_grad = self.counter, node, True
        return output


def in_place(t, node_class, value, **params):
    """t.add_(value), t.mul_(value), t[key] = value ...: change t's own memory, bump its version.

    - A leaf that requires grad refuses, while grad mode is on: PyTorch's RuntimeError "a leaf
      Variable that requires grad is being used in an in-place operation." (for t[key] = value,
      which PyTorch writes through a view: "a view of a leaf Variable that requires grad ...")
    - The operation is applied (ops.apply) to a snapshot of t's old value: a tensor over a copy
      of the array, with t's grad_fn and requires_grad, so the node links to t's old node and
      saves values that the change cannot touch.
    - The result is written into t.array, the counter is bumped, and if the operation was
      recorded, t takes its grad_fn (and requires grad)."""
    if t.requires_grad and t.grad_fn is not None and t.grad_fn.is_view:
        raise RuntimeError("yourgrad does not rebase the graph of a view's base (PyTorch "
                           "does): change the base tensor in place instead of its view")
    raise NotImplementedError("chapter 05: refuse a leaf, apply the op to a snapshot, write, bump, rebase")


def data_alias(t):
    """t.data: the same numpy array in a new tensor that does not require grad and has a
    version counter of its own (so autograd does not see changes made through it)."""
    raise NotImplementedError("chapter 05: a new Tensor over the same array, with a fresh counter")
