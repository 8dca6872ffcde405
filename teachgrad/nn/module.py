"""``nn.Module``: the base class of every layer and model.

A Module keeps three ordered dicts, filled by plain attribute assignment:

* ``_parameters``: ``self.weight = Parameter(...)`` lands here;
* ``_buffers``: tensors that are state but not learned (``register_buffer``),
  such as batch norm's running mean;
* ``_modules``: ``self.conv = Conv2d(...)`` lands here.

Everything else (``parameters()``, ``state_dict()``, ``train()``, ``repr``) walks
these dicts, recursively through the submodules.
"""
from collections import OrderedDict, namedtuple

from teachgrad.autograd.grad_mode import no_grad
from teachgrad.autograd.graph import add_hook
from teachgrad.nn import backward_hooks
from teachgrad.nn.changes import ModuleHooks, Registry, changes
from teachgrad.nn.parameter import Parameter
from teachgrad.ops import destination
from teachgrad.tensor import Tensor


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict(strict=False)`` returns."""

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()


class Module:
    """Subclass it, create the layers in ``__init__`` (after ``super().__init__()``)
    and say in ``forward`` how they are applied; call the module, not ``forward``."""
    _version = 1        # of the state_dict format; saved in state_dict()._metadata

    def __init__(self):
        # object.__setattr__: our __setattr__ below needs these dicts to exist already
        object.__setattr__(self, "_parameters", Registry())
        object.__setattr__(self, "_buffers", Registry())
        object.__setattr__(self, "_non_persistent_buffers_set", set())
        object.__setattr__(self, "_modules", Registry())
        object.__setattr__(self, "_forward_pre_hooks", ModuleHooks())
        object.__setattr__(self, "_forward_hooks", ModuleHooks())
        object.__setattr__(self, "_hooks_with_kwargs", set())   # ids of hooks that take kwargs
        object.__setattr__(self, "_backward_hooks", ModuleHooks())
        object.__setattr__(self, "_backward_pre_hooks", ModuleHooks())
        object.__setattr__(self, "_is_full_backward_hook", None)   # which kind it holds
        self.training = True

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required '
                                  '"forward" function')

    def __call__(self, *args, **kwargs):
        if (self._forward_pre_hooks or self._forward_hooks or self._backward_hooks
                or self._backward_pre_hooks):
            return self._call_with_hooks(args, kwargs)
        return self.forward(*args, **kwargs)

    # ---- forward hooks ---------------------------------------------------------------
    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """``hook(module, args)`` runs before ``forward``; it may return new args (a tuple,
        or one value). With ``with_kwargs``: ``hook(module, args, kwargs)`` returns both."""
        return self._add_forward_hook(self._forward_pre_hooks, hook, prepend, with_kwargs)

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False):
        """``hook(module, args, output)`` runs after ``forward``; it may return a new output.
        With ``with_kwargs``: ``hook(module, args, kwargs, output)``."""
        return self._add_forward_hook(self._forward_hooks, hook, prepend, with_kwargs)

    def _add_forward_hook(self, hooks, hook, prepend, with_kwargs):
        handle = add_hook(hooks, hook)
        if prepend:
            hooks.move_to_end(handle.id, last=False)
        if with_kwargs:
            self._hooks_with_kwargs.add(handle.id)
        return handle

    # ---- backward hooks (nn/backward_hooks.py builds them from graph nodes) --------------
    def register_full_backward_hook(self, hook, prepend=False):
        """``hook(module, grad_input, grad_output)`` runs when the gradients of the module's
        positional tensor inputs are computed; it may return a new ``grad_input``."""
        self._check_backward_hook_kind(full=True)
        handle = add_hook(self._backward_hooks, hook)
        if prepend:
            self._backward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_pre_hook(self, hook, prepend=False):
        """``hook(module, grad_output)`` runs before the module's backward; it may return a
        new ``grad_output``."""
        handle = add_hook(self._backward_pre_hooks, hook)
        if prepend:
            self._backward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_backward_hook(self, hook):
        """Deprecated: ``hook`` sees the gradients of the output's ``grad_fn`` node only."""
        self._check_backward_hook_kind(full=False)
        return add_hook(self._backward_hooks, hook)

    def _check_backward_hook_kind(self, full):
        if self._is_full_backward_hook is (not full):
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks "
                               "on a single Module. Please use only one of them.")
        object.__setattr__(self, "_is_full_backward_hook", full)

    def _call_with_hooks(self, args, kwargs):
        for key, hook in list(self._forward_pre_hooks.items()):
            if key in self._hooks_with_kwargs:
                result = hook(self, args, kwargs)
                if result is not None:
                    if not (isinstance(result, tuple) and len(result) == 2):
                        raise RuntimeError("forward pre-hook must return None or a tuple of "
                                           f"(new_args, new_kwargs), but got {result}.")
                    args, kwargs = result
            else:
                result = hook(self, args)
                if result is not None:
                    args = result if isinstance(result, tuple) else (result,)
        full_hooks = list(self._backward_hooks.values()) if self._is_full_backward_hook else []
        backward_hook = None
        if full_hooks or self._backward_pre_hooks:
            backward_hook = backward_hooks.BackwardHook(self, full_hooks,
                                                        list(self._backward_pre_hooks.values()))
            args = backward_hook.setup_input_hook(args)
        output = self.forward(*args, **kwargs)
        for key, hook in list(self._forward_hooks.items()):
            result = (hook(self, args, kwargs, output) if key in self._hooks_with_kwargs
                      else hook(self, args, output))
            if result is not None:
                output = result
        if backward_hook is not None:
            output = backward_hook.setup_output_hook(output)
        if self._backward_hooks and self._is_full_backward_hook is False:
            backward_hooks.hook_output_node(self, list(self._backward_hooks.values()), args,
                                            output)
        return output

    # ---- registration by attribute assignment ------------------------------------
    def __setattr__(self, name, value):
        changes.count += 1                  # (see nn.changes: compile's guards read it)
        parameters = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if parameters is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._forget(name, keep=self._parameters)
            self.register_parameter(name, value)
        elif parameters is not None and name in parameters:
            if value is not None:
                raise TypeError(f"cannot assign '{_type_name(value)}' as parameter '{name}' "
                                "(teachgrad.nn.Parameter or None expected)")
            parameters[name] = None
        elif isinstance(value, Module):
            if parameters is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self._forget(name, keep=self._modules)
            self._modules[name] = value
        elif parameters is not None and name in self._modules:
            if value is not None:
                raise TypeError(f"cannot assign '{_type_name(value)}' as child module '{name}' "
                                "(teachgrad.nn.Module or None expected)")
            self._modules[name] = None
        elif parameters is not None and name in self._buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{_type_name(value)}' as buffer '{name}' "
                                "(teachgrad.Tensor or None expected)")
            self._buffers[name] = value
        else:
            object.__setattr__(self, name, value)

    def _forget(self, name, keep):
        """Remove ``name`` from wherever it was before it is registered anew in ``keep``,
        except from ``keep`` itself: a child or parameter replaced there keeps its place in
        the order (a ``Sequential`` still runs ``seq[0] = ...`` first), as in PyTorch."""
        self.__dict__.pop(name, None)
        for registry in (self._parameters, self._buffers, self._modules):
            if registry is not keep:
                registry.pop(name, None)
        self._non_persistent_buffers_set.discard(name)

    def __getattr__(self, name):
        """Called only when normal lookup fails: look in the three registries."""
        for registry in ("_parameters", "_buffers", "_modules"):
            values = self.__dict__.get(registry)
            if values is not None and name in values:
                return values[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
        changes.count += 1
        for registry in (self._parameters, self._buffers, self._modules):
            if name in registry:
                del registry[name]
                self._non_persistent_buffers_set.discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self):
        names = set(super().__dir__())
        names.update(self._parameters, self._buffers, self._modules)
        return sorted(names)

    def register_parameter(self, name, param):
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_type_name(param)}' object to parameter '{name}' "
                            "(teachgrad.nn.Parameter or None required)")
        self._check_new_name(name, "parameter", self._parameters)
        self._parameters[name] = param

    def register_buffer(self, name, tensor, persistent=True):
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_type_name(tensor)}' object to buffer '{name}' "
                            "(teachgrad Tensor or None required)")
        self._check_new_name(name, "buffer", self._buffers)
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name, module):
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{_type_name(module)} is not a Module subclass")
        self._check_new_name(name, "module", self._modules)
        self._modules[name] = module

    register_module = add_module

    def _check_new_name(self, name, kind, registry):
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {type(name).__name__}")
        if "." in name:
            got = f", got: {name}" if kind == "module" else ""     # (PyTorch names it for modules)
            raise KeyError(f'{kind} name can\'t contain "."{got}')
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')
        if hasattr(self, name) and name not in registry:
            raise KeyError(f"attribute '{name}' already exists")

    # ---- walking the tree ---------------------------------------------------------
    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """This module and all below it, each once, as (dotted name, module), parents first."""
        memo = set() if memo is None else memo
        if remove_duplicate and self in memo:
            return
        memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is not None:
                child_prefix = prefix + ("." if prefix else "") + name
                yield from module.named_modules(memo, child_prefix, remove_duplicate)

    def modules(self):
        for _, module in self.named_modules():
            yield module

    def named_children(self):
        seen = set()
        for name, module in self._modules.items():
            if module is not None and module not in seen:
                seen.add(module)
                yield name, module

    def children(self):
        for _, module in self.named_children():
            yield module

    def _named_members(self, registry, prefix, recurse, remove_duplicate=True):
        modules = self.named_modules(prefix=prefix) if recurse else [(prefix, self)]
        seen = set()
        for module_prefix, module in modules:
            for name, value in getattr(module, registry).items():
                if value is None or (remove_duplicate and value in seen):
                    continue
                seen.add(value)
                yield module_prefix + ("." if module_prefix else "") + name, value

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        return self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse=True):
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        return self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse=True):
        for _, buffer in self.named_buffers(recurse=recurse):
            yield buffer

    def apply(self, fn):
        """Call ``fn`` on every submodule (children first), then on this module."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # ---- modes and gradients ----------------------------------------------------------
    def train(self, mode=True):
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for param in self.parameters():
            param.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        zero_grads(self.parameters(), set_to_none)

    # ---- dtype and device (the device is always the CPU) ---------------------------------
    def to(self, *args, dtype=None, device=None, non_blocking=False):
        """``model.to(teachgrad.float64)``, ``model.to("cpu")``; any other device gets
        PyTorch's error for a build without it."""
        dtype = destination(args, dtype, device)
        if dtype is None:
            return self
        if not dtype.is_floating_point:
            raise TypeError(f"nn.Module.to only accepts floating point or complex dtypes, but "
                            f"got desired dtype={dtype}")
        return self._cast_floats(dtype)

    def _cast_floats(self, dtype):
        """Convert floating-point parameters (and their grads) and buffers in place."""
        tensors = list(self.parameters()) + list(self.buffers())
        tensors += [p.grad for p in self.parameters() if p.grad is not None]
        for tensor in tensors:
            if tensor.dtype.is_floating_point:
                tensor._data = tensor._data.astype(dtype.numpy)
        return self

    def float(self):
        from teachgrad import dtypes
        return self._cast_floats(dtypes.float32)

    def double(self):
        from teachgrad import dtypes
        return self._cast_floats(dtypes.float64)

    def cpu(self):
        return self

    def cuda(self, device=None):
        """PyTorch's error for a build without CUDA (teachgrad has only the CPU)."""
        return self.to("cuda")

    # ---- saving and loading ----------------------------------------------------------
    def state_dict(self, destination=None, prefix="", keep_vars=False):
        """Parameters and persistent buffers by dotted name, e.g. ``"0.weight"``, detached
        (they share memory with the model). A module used twice appears under both names."""
        destination = OrderedDict() if destination is None else destination
        if not hasattr(destination, "_metadata"):
            destination._metadata = OrderedDict()       # each module's version, as PyTorch
        destination._metadata[prefix[:-1]] = {"version": self._version}
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buffer in self._buffers.items():
            if buffer is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buffer if keep_vars else buffer.detach()
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination, prefix + name + ".", keep_vars)
        return destination

    def load_state_dict(self, state_dict, strict=True):
        """Copy tensors into the parameters and buffers of the same names.

        Unlike PyTorch, everything is checked first: when it raises, nothing
        has been copied.
        """
        own = self.state_dict(keep_vars=True)
        missing = [key for key in own if key not in state_dict
                   and not _filled_by_default(key, state_dict)]
        unexpected = [key for key in state_dict if key not in own]
        errors = []
        if strict:
            if missing:
                errors.append("Missing key(s) in state_dict: "
                              + ", ".join(f'"{key}"' for key in missing) + ". ")
            if unexpected:
                errors.append("Unexpected key(s) in state_dict: "
                              + ", ".join(f'"{key}"' for key in unexpected) + ". ")
        for key, target in own.items():
            if key in state_dict:
                errors.extend(_copy_problems(key, state_dict[key], target))
        if errors:
            raise RuntimeError(f"Error(s) in loading state_dict for {self._get_name()}:\n\t"
                               + "\n\t".join(errors))
        with no_grad():
            for key, target in own.items():
                if key in state_dict:
                    target.copy_(state_dict[key])
        return _IncompatibleKeys(missing, unexpected)

    # ---- printing ---------------------------------------------------------------
    def _get_name(self):
        return type(self).__name__

    def extra_repr(self):
        """The settings shown inside the parentheses of ``repr``; layers override it."""
        return ""

    def __repr__(self):
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({name}): " + _indent(repr(module), 2)
                       for name, module in self._modules.items()]
        lines = extra_lines + child_lines
        body = ""
        if len(extra_lines) == 1 and not child_lines:
            body = extra_lines[0]
        elif lines:
            body = "\n  " + "\n  ".join(lines) + "\n"
        return f"{self._get_name()}({body})"


def _filled_by_default(key, state_dict):
    """A batch norm's ``num_batches_tracked`` is not missing from a state dict that does not
    say its module's version is 2 or more (older PyTorch had no such buffer): the
    module keeps its own count, as in PyTorch."""
    prefix, _, name = key.rpartition(".")
    if name != "num_batches_tracked":
        return False
    version = getattr(state_dict, "_metadata", {}).get(prefix, {}).get("version")
    return version is None or version < 2


def zero_grads(parameters, set_to_none=True):
    """Forget the gradients (``grad = None``), or set them to zero in place."""
    for param in parameters:
        grad = param.grad
        if grad is None:
            continue
        if set_to_none:
            param.grad = None
        else:
            grad.detach_().zero_()


def _copy_problems(key, value, target):
    if not isinstance(value, Tensor):
        return [f'While copying the parameter named "{key}", expected teachgrad.Tensor or '
                f"Tensor-like object from checkpoint but received {type(value)}"]
    if value.shape != target.shape:
        return [f"size mismatch for {key}: copying a param with shape {value.shape} from "
                f"checkpoint, the shape in current model is {target.shape}."]
    return []


def _indent(text, spaces):
    """Indent every line but the first (how nested modules are laid out in a repr)."""
    lines = text.split("\n")
    return "\n".join([lines[0]] + [" " * spaces + line for line in lines[1:]])


def _type_name(value):
    return value.type() if isinstance(value, Tensor) else type(value).__name__
