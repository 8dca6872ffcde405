"""The backward graph: nodes, edges and saved tensors.

Every tensor made by an operation that needs a gradient points to the node that
made it (``tensor.grad_fn``). A node points on to the nodes of its inputs through
``next_functions``: a tuple of ``(node, input_nr)`` pairs, ``(None, 0)`` for an
input that needs no gradient. Leaves that require grad end in an
``AccumulateGrad`` node, whose ``variable`` is the leaf itself. That chain of
nodes is the whole graph: there is no other graph object.
"""
import itertools
import re
import sys
import weakref
from collections import OrderedDict
from types import MappingProxyType

from teachgrad.autograd import anomaly

_sequence_numbers = itertools.count()


class RemovableHandle:
    """Returned by ``register_hook``: ``handle.remove()`` takes the hook away again."""

    _ids = itertools.count()

    def __init__(self, hooks_dict):
        self.id = next(self._ids)
        self._hooks = weakref.ref(hooks_dict)

    def remove(self):
        hooks = self._hooks()
        if hooks is not None:
            hooks.pop(self.id, None)


class HookDict(OrderedDict):
    """Hooks keyed by handle id, in the order they run (a subclass, so that a handle can
    refer to it weakly; ordered, so that a module's hook can be put first)."""


def add_hook(hooks, fn):
    handle = RemovableHandle(hooks)
    hooks[handle.id] = fn
    return handle


_NO_HOOKS = MappingProxyType({})

# A graph keeps, for every node, small tuples -- its inputs' flags (needs_input_grad),
# shapes and dtypes -- that take few distinct values across many nodes. Each node
# points to one shared tuple rather than keeping a copy of its own.
_SHARED_TUPLES = {}


def shared(value):
    """The one stored tuple equal to ``value`` (stored now if it is new)."""
    return _SHARED_TUPLES.setdefault(value, value)


class Node:
    """A node of the backward graph: called with the gradients of its outputs,
    it returns the gradients of its inputs, one per entry of ``next_functions``."""
    __slots__ = ("__weakref__",)      # subclasses without __slots__ get a __dict__ as usual

    # Hooks are rare: a node gets its own dicts only when one is registered.
    _pre_hooks = _post_hooks = _NO_HOOKS
    _tensor_pre_hooks = _NO_HOOKS     # output_nr -> hooks of that output tensor
    _retains_grad_hooks = _NO_HOOKS   # output_nr -> the retain_grad hook of that output
    next_functions = ()               # set when the node is wired to its inputs
    _num_outputs = 1                  # how many tensors the node made (split makes several)
    _input_metadata = ()              # (shape, dtype) of each input, to check gradients
    _metadata = None

    def __init__(self):
        self._sequence_number = next(_sequence_numbers)   # creation order
        self._forward_trace = anomaly.forward_trace()

    def name(self):
        return type(self).__name__

    def _sequence_nr(self):
        """The node's creation number: among ready nodes, the engine runs the highest first."""
        return self._sequence_number

    def __call__(self, *grad_outputs):
        """Run this node's backward: one gradient per output in, one per input edge out."""
        raise NotImplementedError

    def register_hook(self, fn):
        """``fn(grad_inputs, grad_outputs)`` runs after the node; it may return new grad_inputs."""
        if self._post_hooks is _NO_HOOKS:
            self._post_hooks = HookDict()
        return add_hook(self._post_hooks, fn)

    def register_prehook(self, fn):
        """``fn(grad_outputs)`` runs before the node; it may return new grad_outputs."""
        if self._pre_hooks is _NO_HOOKS:
            self._pre_hooks = HookDict()
        return add_hook(self._pre_hooks, fn)

    def _register_tensor_hook(self, output_nr, fn):
        """A hook of the tensor that is this node's output ``output_nr``."""
        if self._tensor_pre_hooks is _NO_HOOKS:
            self._tensor_pre_hooks = {}
        return add_hook(self._tensor_pre_hooks.setdefault(output_nr, HookDict()), fn)

    def _set_retain_grad_hook(self, output_nr, hook):
        if self._retains_grad_hooks is _NO_HOOKS:
            self._retains_grad_hooks = {}
        self._retains_grad_hooks[output_nr] = hook

    @property
    def metadata(self):
        """A dict for the user's own notes about this node (as in PyTorch)."""
        if self._metadata is None:
            self._metadata = {}
        return self._metadata

    def release_saved(self):
        """Free what backward needed: called after backward without retain_graph."""

    def __repr__(self):
        return f"<{type(self).__name__} object at {id(self):#x}>"


class AccumulateGrad(Node):
    """Where a leaf that requires grad receives its gradient: adds it into ``variable.grad``."""
    # One per leaf in every graph: a fixed set of fields, and no __dict__, keeps it small.
    __slots__ = ("variable", "_pre_hooks", "_post_hooks", "_retains_grad_hooks", "_metadata")
    _sequence_number = sys.maxsize    # as in PyTorch: run as soon as it is ready
    _forward_trace = None

    def name(self):
        return "teachgrad::autograd::AccumulateGrad"    # PyTorch: torch::autograd::AccumulateGrad

    def __init__(self, variable):
        self.variable = variable
        self._pre_hooks = self._post_hooks = _NO_HOOKS
        self._retains_grad_hooks = _NO_HOOKS
        self._metadata = None

    @property
    def _tensor_pre_hooks(self):
        """The leaf's own hooks (``x.register_hook``), run as the hooks of this node's input."""
        hooks = self.variable._hooks
        return {0: hooks} if hooks else _NO_HOOKS

    @property
    def _input_metadata(self):
        """The leaf's own (shape, dtype): nothing to store, the node holds the leaf."""
        return ((self.variable._data.shape, self.variable.dtype),)

    def __call__(self, grad):
        self.variable._accumulate_grad(grad)
        return ()


BACKWARD_TWICE = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward.")


INFERENCE_SAVED = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in "
    "inference mode in computation tracked by autograd. To work around this, you can make a "
    "clone to get a normal tensor and use it in autograd, or use `teachgrad.no_grad()` instead of "
    "`teachgrad.inference_mode()`.")


class SavedTensor:
    """A tensor kept by a node for its backward, with the version it had when saved.

    Unpacking checks the version: if the tensor was changed in place since, the
    gradient would be computed from the wrong numbers, so PyTorch's error is raised.
    A saved *output* of the node keeps only the data and the version counter (not
    the tensor, whose grad_fn is this node), so there is no reference cycle.
    """
    __slots__ = ("saved_version", "_version_counter", "shape", "dtype", "is_output", "freed",
                 "_data", "_requires_grad", "_node", "_output_nr", "_tensor", "_output_ref",
                 "_packed", "_unpack_hook")

    def __init__(self, tensor, node=None, is_output=False):
        if tensor._version_counter.inference:
            raise RuntimeError(INFERENCE_SAVED)
        self._packed = self._unpack_hook = None
        self.saved_version = tensor._version_counter.version
        self._version_counter = tensor._version_counter
        self.shape = shared(tensor._data.shape)
        self.dtype = tensor.dtype
        self.is_output = is_output
        self.freed = False
        if is_output:
            self._data = tensor._data
            self._requires_grad = tensor.requires_grad
            self._node = weakref.ref(node)     # non-owning, like PyTorch's weak grad_fn
            self._output_nr = tensor._output_nr
            self._tensor = None
            self._output_ref = weakref.ref(tensor)
        else:
            self._tensor = tensor
        if _saved_tensors_hooks_in_force and not tensor._wrapped_number:    # as PyTorch
            self._set_hooks(*_saved_tensors_hooks_in_force[-1], tensor)

    # ---- saved tensor hooks: pack at save time, unpack at backward -------------------
    def register_hooks(self, pack_hook, unpack_hook):
        """``pack_hook(values)`` runs now and its result is kept instead of the tensor;
        unpacking calls ``unpack_hook`` on that result to get the tensor back."""
        if self.freed:
            raise RuntimeError("Calling register_hooks on a saved tensor after it has been "
                               "freed. Saved intermediate values of the graph are freed when "
                               "you call .backward() or autograd.grad(). Specify "
                               "retain_graph=True if you need to backward through the graph "
                               "a second time or if you need to access saved variables after "
                               "calling backward.")
        if self._unpack_hook is not None:
            raise RuntimeError("Calling register_hooks on a saved tensor whose hooks have "
                               "already been set. Hint: only one pair of hooks is allowed at "
                               "a time.")
        self._set_hooks(pack_hook, unpack_hook, self.unpack().detach())

    def _set_hooks(self, pack_hook, unpack_hook, tensor):
        """Keep what ``pack_hook`` makes of ``tensor`` (not the tensor itself), and what
        rebuilding the tensor's place in the graph needs."""
        if not self.is_output:
            saved = self._tensor
            self._requires_grad, self._output_nr = saved.requires_grad, saved._output_nr
            source = saved._gradient_edge()[0]        # its grad_fn, or a leaf's accumulator
            self._node = lambda: source
        version = tensor._version_counter.version
        self._packed = pack_hook(tensor)
        if tensor._version_counter.version != version:
            raise RuntimeError("A saved tensor pack hook is modifying its input in place. "
                               "Tensors provided as input to pack hook cannot be modified by "
                               "in-place operations as this can lead to unexpected "
                               "side-effects. Please open an issue if you need to perform "
                               "in-place operations on the input to a pack hook.")
        self._unpack_hook, self._tensor, self._data = unpack_hook, None, None

    def _unpack_with_hook(self):
        """What ``unpack_hook`` returns, in the saved tensor's place in the graph (no version
        check: the hooks decided what was kept)."""
        from teachgrad.tensor import Tensor
        if self.freed:
            raise RuntimeError(BACKWARD_TWICE)
        value = self._unpack_hook(self._packed)
        if not isinstance(value, Tensor):
            raise TypeError(f"Output of saved tensor unpack_hook expected to be a Tensor but "
                            f"got result of type {type(value).__name__}")
        return self._rebuild(value._data, value._version_counter)

    @property
    def tensor(self):
        """The tensor that was saved, if it still exists (for explaining errors)."""
        if self.freed:
            return None
        return self._tensor if not self.is_output else self._output_ref()

    @property
    def current_version(self):
        return self._version_counter.version

    @property
    def is_stale(self):
        return not self.freed and self._unpack_hook is None \
            and self.current_version != self.saved_version

    def check(self, node=None):
        """PyTorch's two errors for a saved tensor: freed already, or changed in place."""
        if self.freed:
            raise RuntimeError(BACKWARD_TWICE)
        if self._version_counter.version != self.saved_version \
                and self._unpack_hook is None:      # self.is_stale, inlined
            raise inplace_modification_error(self, node)

    def unpack(self, node=None):
        if self._unpack_hook is not None:
            return self._unpack_with_hook()
        self.check(node)
        if self._tensor is not None:
            return self._tensor
        return self._rebuild(self._data, self._version_counter)

    def _rebuild(self, data, version_counter):
        """A tensor of ``data`` that stands where the saved one stood in the graph."""
        from teachgrad.tensor import Tensor
        tensor = Tensor._make(data, version_counter)
        node = self._node()
        if self._requires_grad and isinstance(node, AccumulateGrad):    # a leaf, via hooks
            tensor._requires_grad, tensor._accumulator_ref = True, weakref.ref(node)
        elif self._requires_grad and node is not None:
            tensor._grad_fn = node
            tensor._output_nr = self._output_nr
            tensor._requires_grad = True
        return tensor

    def free(self):
        """Let go of the tensor (or output data): only the record of what was saved stays."""
        self.freed = True
        self._tensor = self._data = self._version_counter = None
        self._node = self._output_ref = self._packed = self._unpack_hook = None

    @classmethod
    def freed_record(cls, shape, dtype, is_output):
        """A record of a tensor that was saved and has been freed (shape and dtype only)."""
        record = cls.__new__(cls)
        record.shape, record.dtype, record.is_output = shape, dtype, is_output
        record.saved_version = None
        record.free()
        return record


_saved_tensors_hooks_in_force = []      # (pack_hook, unpack_hook) pairs, innermost last


class saved_tensors_hooks:
    """``with saved_tensors_hooks(pack_hook, unpack_hook):`` every tensor a node saves in
    the block goes through ``pack_hook`` at once (to compress it, move it, write it to
    disk...), and ``unpack_hook`` brings it back when backward needs it."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook

    def __enter__(self):
        if not (callable(self.pack_hook) and callable(self.unpack_hook)):
            raise TypeError("_push_saved_tensors_default_hooks(): incompatible function "
                            "arguments: the hooks must be callable")
        _saved_tensors_hooks_in_force.append((self.pack_hook, self.unpack_hook))

    def __exit__(self, *exc_info):
        _saved_tensors_hooks_in_force.pop()


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors kept as copies on the CPU (PyTorch's way to spare GPU memory; with
    teachgrad's single device, a copy)."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        super().__init__(lambda tensor: tensor.detach().clone(), lambda copy: copy)


_FREED_RECORDS = {}


def freed_records(saved):
    """What stays of a node's saved tensors once backward has freed them: under each
    name, a record of the shape and dtype (drawings show it; unpacking it raises).
    Equal records are shared by all nodes, so a freed graph keeps little memory."""
    entries = []
    for name, record in saved.items():
        entries.append((name, record.shape, record.dtype, record.is_output))
    key = tuple(entries)
    if key not in _FREED_RECORDS:
        _FREED_RECORDS[key] = MappingProxyType(
            {name: SavedTensor.freed_record(*facts) for name, *facts in key})
    return _FREED_RECORDS[key]


def _inplace_hint():
    if anomaly.is_anomaly_enabled():
        return ("the backtrace further above shows the operation that failed to compute its "
                "gradient. The variable in question was changed in there or anywhere later. "
                "Good luck!")
    return ("enable anomaly detection to find the operation that failed to compute its "
            "gradient, with teachgrad.autograd.set_detect_anomaly(True, check_nan=False).")


def inplace_modification_error(saved, node):
    """PyTorch's error for a saved tensor that was modified in place after it was saved.

    It is a plain RuntimeError, as in PyTorch, carrying what ``teachgrad.viz.explain``
    needs: ``error.saved`` (the SavedTensor), ``error.node`` (whose backward needed it) and
    ``error.tensor`` (the tensor changed in place, if it still exists).
    """
    source = saved._node() if saved.is_output else getattr(saved._tensor, "grad_fn", None)
    shape = ", ".join(str(s) for s in saved.shape)
    # PyTorch's name of the tensor type (its odd one out: bool), and whose output it is
    type_name = "CPUBoolType" if saved.dtype.name == "bool" else f"teachgrad.{saved.dtype.legacy_name}"
    output_nr = saved._output_nr if saved.is_output else getattr(saved._tensor, "_output_nr", 0)
    made_by = "" if source is None else f", which is output {output_nr} of {cpp_name(source)},"
    error = RuntimeError(
        "one of the variables needed for gradient computation has been modified by an "
        f"inplace operation: [{type_name} [{shape}]]{made_by} is at version "
        f"{saved.current_version}; expected "
        f"version {saved.saved_version} instead. Hint: {_inplace_hint()}")
    error.saved, error.node, error.tensor = saved, node, saved.tensor
    return error


def cpp_name(node):
    """How PyTorch's C++ names a node in that message: ``Mul``, ``torch::autograd::CopySlices``."""
    name = type(node).__name__
    if re.fullmatch(r".+Backward\d+", name):
        return re.sub(r"Backward\d+$", "", name)
    forward_class = getattr(node, "_forward_cls", None)     # a custom Function's node
    if forward_class is not None:
        return forward_class.__name__
    return f"teachgrad::autograd::{name}"
