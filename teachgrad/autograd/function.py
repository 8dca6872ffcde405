"""Custom autograd Functions, as in ``torch.autograd.Function``.

    class Square(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, grad):
            x, = ctx.saved_tensors
            return 2 * x * grad

``Square.apply(x)`` runs forward without recording, then, if a gradient is
needed, makes one graph node of class ``SquareBackward``. As in PyTorch, the
``ctx`` passed to forward and backward *is* that node.
"""
import functools
import warnings

from teachgrad.autograd import forward_ad, grad_mode, views
from teachgrad.autograd.graph import Node, SavedTensor


class FunctionCtx(Node):
    """The node of a custom Function, and the ``ctx`` its methods receive."""
    _forward_cls = None

    def __init__(self):
        super().__init__()
        self._to_save = ()
        self._saved = ()
        self._dirty = ()
        self._non_differentiable = ()
        self._for_forward = None          # what save_for_forward kept, for jvp
        self.materialize_grads = True

    # ---- what forward may call ------------------------------------------------
    def save_for_backward(self, *tensors):
        from teachgrad.tensor import Tensor
        for position, tensor in enumerate(tensors):
            if tensor is not None and not isinstance(tensor, Tensor):
                raise TypeError(f"save_for_backward can only save variables, but argument "
                                f"{position} is of type {type(tensor).__name__}")
        self._to_save = tensors

    def save_for_forward(self, *tensors):
        """Keep tensors for ``jvp`` (forward mode), where ``ctx.saved_tensors`` gives them."""
        self._for_forward = tensors

    def mark_dirty(self, *tensors):
        """Declare inputs that forward modified in place."""
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors):
        self._non_differentiable = tensors

    def set_materialize_grads(self, value):
        """With False, backward receives None (not zeros) for outputs that got no gradient."""
        self.materialize_grads = value

    # ---- what backward may read -------------------------------------------------
    @property
    def saved_tensors(self):
        if self._for_forward is not None:     # inside jvp
            return self._for_forward
        return tuple(s.unpack(self) if s is not None else None for s in self._saved)

    @property
    def _raw_saved_tensors(self):
        """The SavedTensor records themselves, as in PyTorch (where None was saved, PyTorch
        gives a record of None; here the entry is None itself)."""
        return self._saved

    def release_saved(self):
        for saved in self._saved:
            if saved is not None:
                saved.free()

    def __repr__(self):
        """Fully qualified, as PyTorch prints a custom Function's node
        (``<torch.autograd.function.SquareBackward object at ...>``)."""
        return f"<{type(self).__module__}.{type(self).__qualname__} object at {id(self):#x}>"

    def __call__(self, *grad_outputs):
        from teachgrad import creation
        if self.materialize_grads:
            grad_outputs = [_zeros_for(meta, creation) if g is None else g
                            for g, meta in zip(grad_outputs, self._output_metadata)]
        grads = self._forward_cls.backward(self, *grad_outputs)
        grads = grads if isinstance(grads, tuple) else (grads,)
        expected = len(self._arg_is_tensor)
        if len(grads) > expected and all(g is None for g in grads[expected:]):
            grads = grads[:expected]          # extra Nones are allowed, as in PyTorch
        if len(grads) != expected:
            raise RuntimeError(f"function {self.name()} returned an incorrect number of gradients "
                               f"(expected {len(self._arg_is_tensor)}, got {len(grads)})")
        self._check_gradient_types(grads)
        return tuple(g for g, is_tensor in zip(grads, self._arg_is_tensor) if is_tensor)

    def _check_gradient_types(self, grads):
        from teachgrad.tensor import Tensor
        for position, (grad, is_tensor) in enumerate(zip(grads, self._arg_is_tensor), start=1):
            if grad is None:
                continue
            if not isinstance(grad, Tensor):
                raise RuntimeError(f"expected Variable or None (got {type(grad).__name__})")
            if not is_tensor:
                raise RuntimeError(f"function {self.name()} returned a gradient different than "
                                   f"None at position {position}, but the corresponding forward "
                                   f"input was not a Variable")


def _zeros_for(output_metadata, creation):
    """The gradient materialized for an output that got none: zeros of its shape and dtype,
    or None for an output that is not a tensor."""
    if output_metadata is None:
        return None
    shape, dtype = output_metadata
    return creation.zeros(shape, dtype=dtype)


class Function:
    """Base class for operations with a hand-written backward. Its methods are static:
    call ``MyFunction.apply(...)``, never an instance."""

    def __init__(self, *args, **kwargs):
        warnings.warn(f"{type(self)} should not be instantiated. Methods on autograd functions "
                      f"are all static, so you should invoke them on the class itself. "
                      f"Instantiating an autograd function will raise an error in a future "
                      f"version of PyTorch.", DeprecationWarning, stacklevel=2)

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Legacy autograd function with non-static forward method is "
                           "deprecated. Please use new-style autograd function with static "
                           "forward method. (Example: "
                           "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._backward_cls = type(f"{cls.__name__}Backward", (FunctionCtx,), {"_forward_cls": cls})

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom "
                                  "autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        """Override it to write ``forward(*inputs)`` without ``ctx``: this method then saves
        what backward needs, given the inputs and forward's output."""
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def jvp(ctx, *grad_inputs):
        """Forward mode: the outputs' tangents, given one tangent per input (zeros for a
        tensor without one, None for an argument that is not a tensor)."""
        raise NotImplementedError("You must implement the jvp function for custom "
                                  "autograd.Function to use it with forward mode AD.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for "
                                  "your custom autograd.Function to use it with backward mode AD.")

    @classmethod
    def apply(cls, *args, **kwargs):
        from teachgrad.tensor import Tensor
        is_tensor = tuple(isinstance(a, Tensor) for a in args)
        tensors = [a for a in args if isinstance(a, Tensor)]
        ctx = cls._backward_cls()
        recording = grad_mode.is_grad_enabled() and any(t.requires_grad for t in tensors)
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        with grad_mode.no_grad(), forward_ad.rules_paused():   # jvp gives the tangents
            if cls.setup_context is Function.setup_context:
                result = cls.forward(ctx, *args, **kwargs)
            else:          # the other style: forward without ctx, then setup_context
                result = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, result)
        if isinstance(result, tuple):
            result = tuple(_alias_if_input(ctx, out, tensors) for out in result)
        else:
            result = _alias_if_input(ctx, result, tensors)
        outputs = result if isinstance(result, tuple) else (result,)
        kept_for_jvp, ctx._for_forward = ctx._for_forward or (), None
        if forward_ad.active_levels:
            _push_tangents(cls, ctx, args, outputs, kept_for_jvp)
        if recording:
            _connect(ctx, tensors, is_tensor, outputs)
        return result


def _push_tangents(cls, ctx, args, outputs, kept_for_jvp):
    """Forward mode through a custom Function: its ``jvp`` gives the outputs' tangents."""
    from teachgrad.tensor import Tensor
    for level in range(len(forward_ad.active_levels)):
        tangents = [forward_ad.tangent_of(a, level) if isinstance(a, Tensor) else None
                    for a in args]
        if all(t is None for t in tangents):
            continue
        tangents = [a.new_zeros(a.shape) if isinstance(a, Tensor) and t is None else t
                    for a, t in zip(args, tangents)]
        ctx._for_forward = kept_for_jvp        # what ctx.saved_tensors gives jvp
        try:
            out_tangents = cls.jvp(ctx, *tangents)
        finally:
            ctx._for_forward = None
        out_tangents = out_tangents if isinstance(out_tangents, tuple) else (out_tangents,)
        for out, tangent in zip(outputs, out_tangents):
            if isinstance(out, Tensor) and tangent is not None:
                forward_ad.set_tangent(out, level, tangent)


def _alias_if_input(ctx, output, inputs):
    """An input that forward returned unchanged (and did not mark dirty) comes back as a new
    tensor sharing its memory and version counter, so the input itself keeps its history
    (PyTorch makes it a view of the input)."""
    if any(output is t for t in inputs) and not any(output is t for t in ctx._dirty):
        return type(output)._make(output._data, output._version_counter)
    return output


def _connect(ctx, tensors, is_tensor, outputs):
    """Wire the Function's node into the graph, as Operation._connect does for built-ins."""
    from teachgrad.tensor import Tensor
    ctx.next_functions = tuple(t._gradient_edge() for t in tensors)
    ctx._input_metadata = tuple((t.shape, t.dtype) for t in tensors)
    ctx._arg_is_tensor = is_tensor
    ctx._num_outputs = len(outputs)
    # (forward may return things that are not tensors: they pass through, and get None)
    ctx._output_metadata = tuple((out.shape, out.dtype) if isinstance(out, Tensor) else None
                                 for out in outputs)
    for output_nr, out in enumerate(outputs):
        if not isinstance(out, Tensor) or not out.dtype.is_floating_point \
                or any(out is t for t in ctx._non_differentiable):
            continue
        if any(out is t for t in ctx._dirty):
            _check_dirty(out)
            if out._base is not None:        # a view changed in place: its base is rebased
                views.rebase_base_of_view(out, ctx)
                continue
        out._grad_fn, out._output_nr, out._requires_grad = ctx, output_nr, True
    ctx._saved = tuple(_save(ctx, t, outputs) for t in ctx._to_save)
    ctx._to_save = ()


def _check_dirty(tensor):
    """An input modified in place by forward: PyTorch's leaf check, and one more version."""
    if tensor._grad_fn is None and tensor._requires_grad:
        raise RuntimeError("a leaf Variable that requires grad has been used in an in-place "
                           "operation.")
    tensor._version_counter.bump()


def _save(ctx, tensor, outputs):
    if tensor is None:
        return None
    is_output = any(tensor is out for out in outputs) and tensor._grad_fn is ctx
    return SavedTensor(tensor, ctx, is_output=is_output)


# ---- a backward that cannot be differentiated again ---------------------------------
class Error(Node):
    """The node ``once_differentiable`` puts on the gradients it returns (PyTorch's C++
    ``DelayedError``, which Python sees as ``Error``): the error comes only if someone
    differentiates through them, for a second derivative."""

    def __init__(self, message):
        super().__init__()
        self.message = message

    def __call__(self, *grad_outputs):
        raise RuntimeError(self.message)


def once_differentiable(backward):
    """Decorate a Function's ``backward`` written with operations that cannot be recorded
    (numpy, say): it runs under no_grad, and under create_graph its gradients lead to an
    ``Error`` node instead of a silently wrong second derivative."""
    @functools.wraps(backward)
    def wrapper(ctx, *grad_outputs):
        from teachgrad.tensor import Tensor
        with grad_mode.no_grad():
            grads = backward(ctx, *grad_outputs)
        if not grad_mode.is_grad_enabled() or not any(
                isinstance(g, Tensor) and g.requires_grad for g in grad_outputs):
            return grads
        node = Error("trying to differentiate twice a function that was marked with "
                            "@once_differentiable")
        grads = grads if isinstance(grads, tuple) else (grads,)
        return tuple(_behind(node, grad) for grad in grads)
    return wrapper


def _behind(node, grad):
    """``grad`` as an output of ``node``, whose input is a fresh leaf holding the same values."""
    if grad is None:
        return None
    leaf = grad.detach().requires_grad_()
    node.next_functions += (leaf._gradient_edge(),)
    node._input_metadata += ((leaf.shape, leaf.dtype),)
    output = type(grad)._make(grad._data)
    output._grad_fn, output._requires_grad = node, True
    output._output_nr = len(node.next_functions) - 1
    node._num_outputs = len(node.next_functions)
    return output
