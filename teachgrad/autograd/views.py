"""Views, in-place operations and how they rewrite the graph.

A view (``x[0]``, ``x.t()``, ``x.view(6)``...) shares its base's memory *and*
its base's ``VersionCounter``, so an in-place change through either one is seen
by every saved tensor that shares the memory. ``.data`` is the exception: same
memory, fresh counter, so autograd cannot see changes made through it.

After ``base_view.mul_(2)`` on a view that needs a gradient, the base's history
is rebased onto a ``CopySlices`` node: its backward routes the gradient of the
changed region through the in-place op's backward and passes the rest through.
"""
import numpy as np

from teachgrad.autograd import grad_mode
from teachgrad.autograd.graph import BACKWARD_TWICE, Node, cpp_name


def make_view(view, source, replay):
    """Mark ``view`` as a view of ``source``: same memory, same version counter.

    ``replay(t)`` re-applies the view operation to another tensor ``t`` shaped like
    ``source``; it is composed along chains of views so that any view can be
    replayed from its root base. PyTorch tracks no views of an inference tensor: such a
    view is an inference tensor without a counter, and nothing more.
    """
    if source._version_counter.inference:
        view._version_counter = grad_mode.INFERENCE
        return view
    view._version_counter = source._version_counter
    view._view_version = source._version_counter.version
    if source._multi_output_view:
        view._multi_output_view = True        # a view of such a view inherits its rule
    if source._requires_grad:
        view._requires_grad = True    # also for a view made under no_grad (a leaf then)
    if source._made_in_no_grad or not grad_mode.is_recording():
        _mark_made_in_no_grad(view, source)
    if source._base is None:
        view._base, view._view_replay = source, replay
    else:
        parent_replay = source._view_replay
        view._base, view._view_replay = source._base, lambda t: replay(parent_replay(t))
    return view


def check_inplace_allowed(target, others=(), refused_overlaps=("partial",)):
    """PyTorch's errors for in-place changes that would break autograd, then those of memory
    written twice or read while written (all checked before computing); ``others`` are the
    op's other tensor inputs."""
    check_autograd_allows_inplace(target, others)
    check_memory_allows_inplace(target, others, refused_overlaps)


def check_autograd_allows_inplace(target, others=()):
    """Autograd's rules, as PyTorch's ``check_inplace``: first those of a view (made under
    no_grad, a piece of split, a view of a leaf), then that of a leaf. (A view whose base came
    to require grad after it was made counts as a leaf until its history is asked for.)"""
    if not (grad_mode.is_recording() and grad_mode.autograd_sees((target, *others))
            and _will_record(target, others)):
        return
    base = target._base
    if base is not None:
        rule = _rule_against_inplace(target)
        if rule is not None:
            raise RuntimeError(view_rebase_error(target, "is being", rule))
        if base._grad_fn is None and base._requires_grad:
            raise RuntimeError("a view of a leaf Variable that requires grad is being used in "
                               "an in-place operation.")
    if target._grad_fn is None and target.requires_grad:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                           "operation.")


def check_memory_allows_inplace(target, others=(), refused_overlaps=("partial",)):
    """The kernel's checks: no element of the target written twice, no input meeting the
    target's memory in a way ``refused_overlaps`` names (an input may be the target itself
    for most ops, ``x.add_(x)``, not for index_put_ and friends: see ``_overlap``); then the
    inference tensor's rule (PyTorch checks it when the version is bumped)."""
    if not target._data.flags.writeable:
        raise RuntimeError("unsupported operation: more than one element of the written-to "
                           "tensor refers to a single memory location. Please clone() the tensor "
                           "before performing the operation.")
    for other in others:
        if _overlap(target._data, other._data) in refused_overlaps:
            raise RuntimeError("unsupported operation: some elements of the input tensor and the "
                               "written-to tensor refer to a single memory location. Please "
                               "clone() the tensor before performing the operation.")
    if (target._version_counter is grad_mode.INFERENCE
            and not grad_mode.is_inference_mode_enabled()):
        raise RuntimeError("Inplace update to inference tensor outside InferenceMode is not "
                           "allowed.You can make a clone to get a normal tensor before doing "
                           "inplace update.See https://github.com/pytorch/rfcs/pull/17 for more "
                           "details.")


def _mark_made_in_no_grad(view, source):
    """Mark a view made under no_grad or inference_mode, or a view of such a view (whether
    its base requires grad or not, as in PyTorch): an in-place change of it that would be
    recorded in the graph is refused. A view made in inference_mode keeps that mark."""
    view._made_in_no_grad = True
    if source._made_in_inference_mode or grad_mode.is_inference_mode_enabled():
        view._made_in_inference_mode = True


def _will_record(target, others):
    """Will an in-place op on ``target`` with these other inputs be recorded in the graph?"""
    return target.requires_grad or any(other.requires_grad for other in others)


MULTI_OUTPUT_RULE = (
    "This view is the output of a function that returns multiple views. Such functions do not "
    "allow the output views to be modified inplace. You should replace the inplace operation by "
    "an out-of-place one.")
NO_GRAD_RULE = (
    "Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify "
    "your code by moving both the view and the inplace either both inside the no_grad block (if "
    "you don't want the inplace to be tracked) or both outside (if you want the inplace to be "
    "tracked).")
INFERENCE_MODE_RULE = NO_GRAD_RULE.replace("the no_grad block", "the inference_mode block")


def _rule_against_inplace(view):
    """Why a recorded in-place change of ``view`` is refused (None: it is allowed)."""
    if view._made_in_inference_mode:
        return INFERENCE_MODE_RULE
    if view._made_in_no_grad:
        return NO_GRAD_RULE
    if view._multi_output_view:
        return MULTI_OUTPUT_RULE
    return None


def view_rebase_error(view, modified, rule):
    """PyTorch's words when a view's history cannot follow an in-place change: of the view
    itself (``modified`` = "is being") or of its base ("its base or another view of its base
    has been"). ``rule`` says why it is forbidden: the view is a piece of split / chunk /
    unbind (MULTI_OUTPUT_RULE), or it was made under no_grad or inference_mode (NO_GRAD_RULE,
    INFERENCE_MODE_RULE). The first sentence names the node that made the view: a view no
    node made counts as made in no_grad mode, and one a node made, in grad mode, of a view
    made under no_grad is "a view of a view" (as in PyTorch)."""
    if view._grad_fn is not None and rule is MULTI_OUTPUT_RULE:
        return (f"Output {view._output_nr} of {cpp_name(view._grad_fn)} is a view and "
                f"{modified} modified inplace. {rule}")
    if view._grad_fn is not None:
        start = (f"Output {view._output_nr} of {cpp_name(view._grad_fn)} is a view of a view "
                 "which was created in")
    else:
        start = "A view was created in"
    if rule is INFERENCE_MODE_RULE:
        return f"{start} inference mode and {modified} modified inplace in normal mode. {rule}"
    return f"{start} no_grad mode and {modified} modified inplace with grad mode enabled. {rule}"


def _overlap(written, read):
    """PyTorch's judgement (``get_overlap_status``) of how an input's memory meets the memory an
    in-place op writes: "full" (the very same elements in the same layout, as in ``x.add_(x)``),
    "partial" (some elements, or the same ones in another order, as in ``x.add_(x.t())``), or
    None. Like PyTorch it looks only at tensors laid out densely (some order of their dims is
    contiguous), whose memory is one unbroken span; any other view -- a row of a transposed
    result, a column -- is too hard to judge cheaply, and passes."""
    if written.size == 0 or read.size == 0 or not (_is_dense(written) and _is_dense(read)):
        return None
    written_start = written.__array_interface__["data"][0]
    read_start = read.__array_interface__["data"][0]
    written_end, read_end = written_start + written.nbytes, read_start + read.nbytes
    if (written_start, written_end) == (read_start, read_end):
        return "full" if written.strides == read.strides else "partial"
    if written_start < read_end and read_start < written_end:
        return "partial"
    return None


def _is_dense(array):
    """Do the array's elements fill one span of memory without gaps or repeats, in some order
    of its dims (PyTorch's ``is_non_overlapping_and_dense``)? Dims of size 1 do not count."""
    step = array.itemsize
    for stride, size in sorted((stride, size) for size, stride in zip(array.shape, array.strides)
                               if size != 1):
        if stride != step:
            return False
        step *= size
    return True


def write_inplace(target, result):
    """Write an in-place op's result into the target's memory and bump its version
    (after PyTorch's checks of dtype and shape)."""
    if result.dtype.kind == "f" and target._data.dtype.kind in "biu" or \
            result.dtype.kind in "iu" and target._data.dtype.kind == "b":
        raise RuntimeError(f"result type {_type_name(result.dtype)} can't be cast to the desired "
                           f"output type {_type_name(target._data.dtype)}")
    if result.shape != target._data.shape:
        try:
            broadcast_ok = np.broadcast_shapes(result.shape, target._data.shape) == target._data.shape
        except ValueError:
            broadcast_ok = False
        if not broadcast_ok:
            raise RuntimeError(f"output with shape {list(target._data.shape)} doesn't match the "
                               f"broadcast shape {list(result.shape)}")
    target._data[...] = result
    target._version_counter.bump()


def _type_name(numpy_dtype):
    return {"f4": "Float", "f8": "Double", "f2": "Half", "i8": "Long", "i4": "Int",
            "u1": "Byte", "b1": "Bool"}[numpy_dtype.str[1:]]


def rebase_history(target, node):
    """Make ``node`` (the in-place op, already pointing at its inputs' histories from before
    the write) the new history of ``target``."""
    old_node, old_output_nr = target._grad_fn, target._output_nr
    node._connect_outputs((target,))
    if target._base is not None:
        rebase_base_of_view(target, node)      # node reads the view's old history
    _move_retain_grad(target, old_node, old_output_nr)


def rebase_base_of_view(view, node):
    """After ``node`` changed ``view`` in place: the base's new history is a ``CopySlices``
    around ``node``, and the view's is replayed from it."""
    base = view._base
    old_node, old_output_nr = base._grad_fn, base._output_nr
    copy_slices = CopySlices(base, view._view_replay, node)
    base._grad_fn, base._output_nr, base._requires_grad = copy_slices, 0, True
    _move_retain_grad(base, old_node, old_output_nr)
    refresh_view_history(view)


def _move_retain_grad(tensor, old_node, old_output_nr):
    """``retain_grad()`` follows the tensor to its new grad_fn, as in PyTorch, so ``.grad``
    is the gradient of the tensor's current value."""
    if tensor._retains_grad and old_node is not None \
            and old_output_nr in old_node._retains_grad_hooks:   # (a view's in-place node has none)
        hook = old_node._retains_grad_hooks.pop(old_output_nr)
        tensor._grad_fn._set_retain_grad_hook(tensor._output_nr, hook)


def refresh_view_history(view):
    """Give a view a new node that replays it from its base's current history.

    Called after the view itself was changed in place, and lazily (from the
    ``grad_fn`` property) when its base was changed in place since the view was made.
    """
    base = view._base
    if not base._requires_grad or not grad_mode.is_recording() and view._grad_fn is None:
        view._view_version = view._version_counter.version
        return
    rule = _rule_against_inplace(view)
    if rule is not None:
        raise RuntimeError(view_rebase_error(view, "its base or another view of its base has "
                                             "been", rule))
    view._view_version = view._version_counter.version     # (only now: an error repeats)
    old_node, old_output_nr = view._grad_fn, view._output_nr
    view_node = AsStridedBackward0(base, view._view_replay)
    view_node.next_functions = (base._gradient_edge(),)
    view._grad_fn, view._output_nr, view._requires_grad = view_node, 0, True
    _move_retain_grad(view, old_node, old_output_nr)


class CopySlices(Node):
    """The base's new history after an in-place change of one of its views."""

    def name(self):
        return "teachgrad::autograd::CopySlices"     # PyTorch: torch::autograd::CopySlices

    def __init__(self, base, view_replay, fn):
        super().__init__()
        self.fn = fn
        self.view_replay = view_replay
        self.next_functions = (base._gradient_edge(), *fn.next_functions[1:])
        self._input_metadata = ((base._data.shape, base.dtype), *fn._input_metadata[1:])

    def __call__(self, grad):
        if self.fn is None:
            raise RuntimeError(BACKWARD_TWICE)    # released after the first backward
        result = grad.clone()
        grad_slice = self.view_replay(result)
        fn_grads = self.fn(grad_slice.clone())
        fn_grads = fn_grads if isinstance(fn_grads, tuple) else (fn_grads,)
        if fn_grads[0] is None:
            grad_slice.zero_()
        else:
            grad_slice.copy_(fn_grads[0])
        return (result, *fn_grads[1:])

    def release_saved(self):
        """As in PyTorch, CopySlices drops its in-place op entirely: a second pass fails."""
        if self.fn is not None:
            self.fn.release_saved()
            self.fn = None


class AsStridedBackward0(Node):
    """A view's history after an in-place change: the view, replayed from its new base."""

    def __init__(self, base, view_replay):
        super().__init__()
        self.view_replay = view_replay
        self._input_metadata = ((base._data.shape, base.dtype),)
        self._base_shape = base._data.shape
        self._base_dtype = base.dtype

    def __call__(self, grad):
        from teachgrad import creation
        base_grad = creation.zeros(self._base_shape, dtype=self._base_dtype)
        self.view_replay(base_grad).copy_(grad)
        return (base_grad,)
