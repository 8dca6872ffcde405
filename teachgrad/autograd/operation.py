"""How a built-in operation records itself in the graph.

Each differentiable primitive is a subclass of ``Operation`` named after
PyTorch's node (``MulBackward0``), with two short methods:

* ``forward(*arrays, **params)`` computes the result with numpy and says which
  tensors backward will need (``self.save("other")``, ``self.save("result")``);
* ``backward(grad)`` returns one gradient per input, written with teachgrad
  operations, so that under ``create_graph=True`` the gradient is a graph too.

``Operation.apply`` runs forward and, when a gradient is needed, wires the new
node to the nodes of its inputs. ``Operation.apply_inplace`` does the same for
``x.add_(y)`` and friends: it writes into ``x``, bumps its version and rebases
its history.
"""
from types import MappingProxyType

from teachgrad import dtypes
from teachgrad.autograd import forward_ad, grad_mode
from teachgrad.autograd.forward_ad import active_levels as forward_levels   # (one list, never rebound)
from teachgrad.autograd.graph import Node, SavedTensor, freed_records, shared
from teachgrad.tensor import Tensor


class SavedAttribute:
    """What ``node._saved_other`` reads: the saved tensor, unpacked (and version-checked),
    or None for an input this node did not need to keep (as in PyTorch).
    ``node._raw_saved_other`` (``raw=True``) gives the SavedTensor record itself.

    Every Operation class gets these attributes for its input names, ``result`` and its
    ``kept_names`` (see ``Operation.__init_subclass__``). They are class attributes, not
    a ``__getattr__``: a class with ``__getattr__`` makes every attribute lookup on its
    nodes slower, and the hot path reads node attributes all the time.
    """

    def __init__(self, name, raw=False):
        self.name = name
        self.raw = raw

    def __get__(self, node, owner=None):
        if node is None:
            return self
        saved = node._saved.get(self.name)
        if self.raw:
            if saved is None:
                raise AttributeError(f"'{type(node).__name__}' object has no attribute "
                                     f"'_raw_saved_{self.name}'")
            return saved
        return None if saved is None else saved.unpack(node)


class Operation(Node):
    input_names = ("self",)      # PyTorch's names for the tensor inputs, as in _saved_self
    kept_names = ()              # names of the arrays this node saves with ``keep``
    promote = "common"           # "common": inputs cast to one dtype; "float": ints become float
    _recording = False           # True for a node that is wired into the graph
    _inplace = False             # True for the node of an in-place op (see apply_inplace)
    _saved = MappingProxyType({})   # a node that records gets its own dict of saved tensors
    # how an input of the in-place form may not meet the memory it writes (views._overlap):
    # x.add_(x) is fine, x.index_put_(..., x) is not
    refused_overlaps = ("partial",)

    def __init_subclass__(cls, **kwargs):
        """Give the class its ``_saved_<name>`` and ``_raw_saved_<name>`` attributes."""
        super().__init_subclass__(**kwargs)
        for name in (*cls.input_names, "result", *cls.kept_names):
            if not hasattr(cls, f"_saved_{name}"):
                setattr(cls, f"_saved_{name}", SavedAttribute(name))
                setattr(cls, f"_raw_saved_{name}", SavedAttribute(name, raw=True))

    # ---- forward: compute, save, wire ------------------------------------
    @classmethod
    def apply(cls, *inputs, **params):
        """Run the op: ``forward`` on numpy, then, if a gradient is needed, wire a node."""
        node = cls._new_node(inputs)
        result = node._forward_checked(cls._input_arrays(inputs), params)
        if result.__class__ is tuple:
            outputs = tuple(map(Tensor._make, result))
            if node._recording:
                node._connect(inputs, outputs)
            if forward_levels:        # forward mode: push the tangents through
                forward_ad.propagate(cls, inputs, outputs, params, node)
            return outputs
        output = Tensor._make(result)
        if node._recording:
            node._connect(inputs, (output,))
        if forward_levels:
            forward_ad.propagate(cls, inputs, (output,), params, node)
        return output

    @classmethod
    def _new_node(cls, inputs):
        node = cls.__new__(cls)
        node._inputs = inputs
        if grad_mode.is_recording():
            flags = []
            for t in inputs:
                # (a view asks its base too: the base may require grad since the view was made)
                flags.append(t._requires_grad or t._base is not None and t.requires_grad)
            # (PyTorch's autograd does not see an op whose inputs are all inference tensors)
            if True in flags and (not inputs[0]._version_counter.inference
                                  or grad_mode.autograd_sees(inputs)):
                Node.__init__(node)
                node._recording = True
                node._saved = {}
                node.needs_input_grad = shared(tuple(flags))
                return node
        node.needs_input_grad = (False,) * len(inputs)     # a scratch node: nothing recorded
        return node

    @classmethod
    def _input_arrays(cls, inputs):
        """The inputs' numpy arrays, cast as ``promote`` says (most often nothing to cast)."""
        arrays = []
        for t in inputs:
            arrays.append(t._data)
        if cls.promote == "common":
            first = arrays[0].dtype
            for a in arrays:
                if a.dtype != first:
                    common = dtypes.result_type(inputs).numpy
                    return [array if array.dtype == common else array.astype(common)
                            for array in arrays]
        elif cls.promote == "float":
            for a in arrays:
                if a.dtype.kind != "f":
                    default = dtypes.get_default_dtype().numpy
                    return [array if array.dtype.kind == "f" else array.astype(default)
                            for array in arrays]
        return arrays

    def _forward_checked(self, arrays, params):
        """``forward``, with numpy's broadcasting error turned into PyTorch's."""
        try:
            return self.forward(*arrays, **params)
        except ValueError as error:
            if "broadcast" not in str(error):
                raise
            raise RuntimeError(broadcast_error_message([a.shape for a in arrays])) from None
        finally:
            self._inputs = None

    def save(self, name):
        """Keep an input (by its PyTorch name) or the ``"result"`` for backward."""
        if self._recording:
            if name == "result":
                self._saved["result"] = None          # filled in once the output exists
            elif name == "self" and self._inplace:
                self._saved["self"] = None            # apply_inplace saves a clone of it
            else:
                tensor = self._inputs[self.input_names.index(name)]
                self._saved[name] = SavedTensor(tensor)

    def keep(self, name, value):
        """Keep a numpy array or a tensor that backward needs (not an input), as
        ``_saved_<name>`` (``name`` is one of the class's ``kept_names``); it is freed with
        the saved tensors after backward. A tensor is kept with its version, so changing
        it in place before backward raises PyTorch's error."""
        if name not in self.kept_names:
            raise TypeError(f"{type(self).__name__}.kept_names must list {name!r}, "
                            f"so that _saved_{name} can read it")
        if self._recording:
            tensor = value if isinstance(value, Tensor) else Tensor._make(value)
            self._saved[name] = SavedTensor(tensor)

    def _connect(self, inputs, outputs):
        """Point the outputs at this node and this node at its inputs' nodes."""
        self._connect_inputs(inputs)
        self._connect_outputs(outputs)

    def _connect_inputs(self, inputs):
        edges, metadata = [], []
        for t in inputs:
            edges.append(t._gradient_edge())
            metadata.append((t._data.shape, t.dtype))
        self.next_functions = tuple(edges)
        self._input_metadata = shared(tuple(metadata))

    def _connect_outputs(self, outputs):
        if len(outputs) > 1:
            self._num_outputs = len(outputs)
        for output_nr, out in enumerate(outputs):
            if out._data.dtype.kind == "f":
                out._grad_fn = self
                out._requires_grad = True
                if output_nr:                 # 0 is the class default: most tensors store nothing
                    out._output_nr = output_nr
        if "result" in self._saved:
            self._saved["result"] = SavedTensor(outputs[0], self, is_output=True)

    # ---- in-place: write into the target, bump its version, rebase ----------
    @classmethod
    def apply_inplace(cls, target, *others, **params):
        from teachgrad.autograd import views
        views.check_autograd_allows_inplace(target, others)
        if forward_ad.transforms_running:       # teachgrad.func: no write into a captured tensor
            forward_ad.refuse_captured_mutation(cls, target, others)
        inputs = (target, *others)
        node = cls._new_node(inputs)
        node._inplace = True
        if node._recording:
            # as PyTorch, the node points at its inputs' histories before the kernel runs (a
            # view of the target among them is given a new history only after the write)
            node._connect_inputs(inputs)
        views.check_memory_allows_inplace(target, others, cls.refused_overlaps)
        result = node._forward_checked(cls._input_arrays(inputs), params)
        if node._recording and "self" in node._saved:
            # backward needs the old value of the target, which we are about to overwrite: a
            # clone, recorded (CloneBackward0), so that a second derivative reaches it too
            node._saved["self"] = SavedTensor(target.clone())
        if forward_levels:        # the tangent, from the inputs before the write
            forward_ad.propagate_inplace(cls, inputs, result, params)
        views.write_inplace(target, result)
        if node._recording:
            views.rebase_history(target, node)
        return target

    # ---- backward ----------------------------------------------------------
    def __call__(self, *grad_outputs):
        for saved in self._saved.values():    # as in PyTorch, every saved tensor is checked
            saved.check(self)                 # before the formula runs, whether it reads it or not
        grads = self.backward(*grad_outputs)
        grads = grads if isinstance(grads, tuple) else (grads,)
        if False in self.needs_input_grad:
            # no gradient for an input that needs none (the formula may have computed one anyway)
            grads = tuple([g if needed else None for g, needed in zip(grads, self.needs_input_grad)])
        return grads[0] if len(grads) == 1 else grads     # as PyTorch: one input, one tensor

    def __dir__(self):
        names = [f"_saved_{key}" for key in self._saved] + [f"_raw_saved_{key}" for key in self._saved]
        attributes = set(super().__dir__())
        internal = {"_saved", "_inputs", "_recording"}
        unsaved = {name for name in attributes if isinstance(getattr(type(self), name, None),
                                                             SavedAttribute)}
        return sorted(attributes - internal - unsaved | set(names))

    def release_saved(self):
        for saved in self._saved.values():
            saved.free()
        if self._saved:
            self._saved = freed_records(self._saved)


def broadcast_error_message(shapes):
    """PyTorch's words for shapes that cannot be broadcast together."""
    a, b = shapes[0], shapes[1] if len(shapes) > 1 else ()
    ndim = max(len(a), len(b))
    for dim in range(ndim - 1, -1, -1):
        size_a = a[dim - ndim + len(a)] if dim - ndim + len(a) >= 0 else 1
        size_b = b[dim - ndim + len(b)] if dim - ndim + len(b) >= 0 else 1
        if size_a != size_b and 1 not in (size_a, size_b):
            return (f"The size of tensor a ({size_a}) must match the size of tensor b "
                    f"({size_b}) at non-singleton dimension {dim}")
    return f"shapes {[list(s) for s in shapes]} cannot be broadcast together"
