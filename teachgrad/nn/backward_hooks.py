"""Module backward hooks, built as PyTorch builds them: from graph nodes and node hooks.

``register_full_backward_hook(hook)`` calls ``hook(module, grad_input, grad_output)``
with the gradients of the module's inputs and outputs. To catch them, the call passes
the tensor inputs, and then the tensor outputs, through an identity Function; its node
(``BackwardHookFunctionBackward``, visible in the graph) carries node hooks: the
output's node records ``grad_output`` (and runs the backward pre-hooks), the input's
node hands both to the user's hooks, which may replace ``grad_input``.

The old ``register_backward_hook`` hooks the output's ``grad_fn`` alone, so its
``grad_input`` is that one node's (PyTorch warns where this differs from the module's).
"""
import warnings

from teachgrad.autograd.function import Function
from teachgrad.autograd.grad_mode import is_grad_enabled
from teachgrad.tensor import Tensor


class BackwardHookFunction(Function):
    """The identity, as a graph node whose hooks see the gradients passing through."""

    @staticmethod
    def forward(ctx, *args):
        ctx.mark_non_differentiable(*[arg for arg in args if not arg.requires_grad])
        return args

    @staticmethod
    def backward(ctx, *grads):
        return grads


class BackwardHook:
    """One module call's full backward hooks: set up on its inputs, then its outputs."""

    def __init__(self, module, user_hooks, user_pre_hooks):
        self.module, self.user_hooks, self.user_pre_hooks = module, user_hooks, user_pre_hooks
        self.grad_outputs = None
        self.n_inputs = self.n_outputs = -1
        self.input_tensors_index = self.output_tensors_index = None

    def setup_input_hook(self, args):
        result, self.input_tensors_index = _through_identity(args, self._hook_input_node)
        self.n_inputs = len(args)
        return result

    def setup_output_hook(self, result):
        outputs = result if isinstance(result, tuple) else (result,)
        new_outputs, self.output_tensors_index = _through_identity(outputs,
                                                                    self._hook_output_node)
        self.n_outputs = len(outputs)
        return new_outputs if isinstance(result, tuple) else new_outputs[0]

    def _hook_input_node(self, node):
        def hook(grad_inputs, _):
            if self.grad_outputs is None:     # the gradient did not pass the outputs
                return None
            packed = _pack_with_none(self.input_tensors_index, grad_inputs, self.n_inputs)
            for user_hook in self.user_hooks:
                replaced = user_hook(self.module, packed, self.grad_outputs)
                if replaced is None:
                    continue
                if len(replaced) != len(packed):
                    raise RuntimeError(f"Backward hook returned an invalid number of "
                                       f"grad_input, got {len(replaced)}, but expected "
                                       f"{len(packed)}")
                packed = replaced
            self.grad_outputs = None
            return tuple(packed[i] for i in self.input_tensors_index)
        node.register_hook(hook)

    def _hook_output_node(self, node):
        def hook(_, grad_outputs):
            self.grad_outputs = _pack_with_none(self.output_tensors_index, grad_outputs,
                                                self.n_outputs)
            self._run_pre_hooks()
            local_grad_outputs = self.grad_outputs
            if self.input_tensors_index is None:
                self._fire_without_input_grads()
            return tuple(local_grad_outputs[i] for i in self.output_tensors_index)
        node.register_hook(hook)

    def _run_pre_hooks(self):
        for pre_hook in self.user_pre_hooks:
            replaced = pre_hook(self.module, self.grad_outputs)
            if replaced is None:
                continue
            if len(replaced) != len(self.grad_outputs):
                raise RuntimeError(f"Backward pre hook returned an invalid number of "
                                   f"grad_output, got {len(replaced)}, but expected "
                                   f"{len(self.grad_outputs)}")
            self.grad_outputs = replaced

    def _fire_without_input_grads(self):
        """No input requires grad: the hooks fire here, at the outputs, with None inputs."""
        warnings.warn("Full backward hook is firing when gradients are computed with respect "
                      "to module outputs since no inputs require gradients. See "
                      "https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
                      "#torch.nn.Module.register_full_backward_hook for more details.",
                      stacklevel=5)
        grad_inputs = (None,) * self.n_inputs
        for user_hook in self.user_hooks:
            result = user_hook(self.module, grad_inputs, self.grad_outputs)
            if result is not None and not (isinstance(result, tuple)
                                           and all(g is None for g in result)):
                raise RuntimeError("Backward hook for Modules where no input requires "
                                   "gradient should always return None or None for all "
                                   "gradients.")
        self.grad_outputs = None


def _through_identity(args, hook_node):
    """``args`` with its tensors passed through BackwardHookFunction, whose node gets
    ``hook_node``; and the positions of the tensors (None if none requires grad)."""
    positions = [i for i, arg in enumerate(args) if isinstance(arg, Tensor)]
    tensors = [args[i] for i in positions]
    if not (any(t.requires_grad for t in tensors) and is_grad_enabled()):
        return args, None
    new_tensors = BackwardHookFunction.apply(*tensors)
    hook_node(next(t.grad_fn for t in new_tensors if t.grad_fn is not None))
    replaced = list(args)
    for position, tensor in zip(positions, new_tensors):
        replaced[position] = tensor
    return tuple(replaced), positions


def _pack_with_none(positions, values, size):
    packed = [None] * size
    for position, value in zip(positions, values):
        packed[position] = value
    return tuple(packed)


def hook_output_node(module, hooks, args, result):
    """The old ``register_backward_hook``: each hook runs as a hook of the ``grad_fn`` of the
    first tensor in ``result``, with that node's gradients."""
    first = result
    while not isinstance(first, Tensor):
        first = next(v for v in first.values() if isinstance(v, Tensor)) \
            if isinstance(first, dict) else first[0]
    grad_fn = first.grad_fn
    if grad_fn is None:
        return
    for hook in hooks:
        grad_fn.register_hook(lambda grad_inputs, grad_outputs, hook=hook:
                              hook(module, grad_inputs, grad_outputs))
    _warn_if_not_full(args, result, grad_fn)


_FUTURE = " is deprecated and will be removed in future versions. "
_USE_FULL = "Please use register_full_backward_hook to get the documented behavior."


def _warn_if_not_full(inputs, result, grad_fn):
    """PyTorch's FutureWarnings where the old hook's gradients are not the module's."""
    if not isinstance(result, Tensor):
        if not (isinstance(result, tuple) and all(isinstance(r, Tensor) for r in result)):
            return _future("Using non-full backward hooks on a Module that does not return a "
                           "single Tensor or a tuple of Tensors" + _FUTURE + "This hook will "
                           "be missing some of the grad_output. " + _USE_FULL)
    else:
        result = (result,)
    if not isinstance(inputs, Tensor):
        if not (isinstance(inputs, tuple) and all(isinstance(i, Tensor) for i in inputs)):
            return _future("Using non-full backward hooks on a Module that does not take as "
                           "input a single Tensor or a tuple of Tensors" + _FUTURE + "This "
                           "hook will be missing some of the grad_input. " + _USE_FULL)
    else:
        inputs = (inputs,)
    output_nodes = {r.grad_fn for r in result if r.grad_fn is not None}
    if not output_nodes or (len(output_nodes) == 1 and grad_fn not in output_nodes):
        _future("Using a non-full backward hook when outputs are nested in python data "
                "structure" + _FUTURE + "This hook will be missing some grad_output.")
    elif len(output_nodes) > 1:
        _future("Using a non-full backward hook when outputs are generated by different "
                "autograd Nodes" + _FUTURE + "This hook will be missing some grad_output. "
                + _USE_FULL)
    elif {i.grad_fn for i in inputs if i.grad_fn is not None} != {
            node for node, _ in grad_fn.next_functions}:
        _future("Using a non-full backward hook when the forward contains multiple autograd "
                "Nodes" + _FUTURE + "This hook will be missing some grad_input. " + _USE_FULL)
    return None


def _future(message):
    warnings.warn(message, FutureWarning, stacklevel=4)
