"""What a compiled step depends on besides its arrays: the guards.

A program is valid only for the Python state it was traced in. As ``torch.compile`` does,
the step's objects are found where it can reach them -- its arguments, its closure, the
globals it names, and inside those: modules, optimisers, tensors, plain Python values --
and summed up as a hashable key. A call whose key differs (a new shape, dtype or
``requires_grad``, ``model.eval()``, a new learning rate, optimiser state that appeared,
a flag in the closure) is traced again.
"""
import types

from teachgrad.nn.module import Module
from teachgrad.optim.optimizer import Optimizer
from teachgrad.tensor import Tensor

DEPTH = 3           # how far into functions' closures the walk goes
SCALARS = (bool, int, float, str, type(None))


def reachable(fn, args, kwargs):
    """(name, object) pairs the step can reach: arguments, closure, named globals."""
    found = [(f"arg{i}", arg) for i, arg in enumerate(args)]
    found += [(key, value) for key, value in kwargs.items()]
    _walk_function(fn, found, DEPTH)
    return found


def _walk_function(fn, found, depth):
    code = getattr(fn, "__code__", None)
    if code is None or depth == 0:
        return
    for name, cell in zip(code.co_freevars, fn.__closure__ or ()):
        try:
            value = cell.cell_contents
        except ValueError:           # a cell not yet filled
            continue
        found.append((name, value))
        if isinstance(value, types.FunctionType):
            _walk_function(value, found, depth - 1)
    for name in code.co_names:
        value = fn.__globals__.get(name)
        if isinstance(value, (Module, Optimizer, Tensor, *SCALARS)):
            found.append((name, value))


def tensor_key(tensor):
    grad = tensor.__dict__.get("_grad")
    return (tuple(tensor._data.shape), tensor._data.dtype, tensor.requires_grad, grad is None,
            bool(tensor._hooks))


def object_key(obj):
    """The part of an object's Python state that can change what the step does."""
    if isinstance(obj, Tensor):
        return tensor_key(obj)
    if isinstance(obj, Module):
        return module_key(obj)
    if isinstance(obj, Optimizer):
        groups = tuple(tuple((k, v) for k, v in group.items()
                             if k != "params" and isinstance(v, SCALARS))
                       for group in obj.param_groups)
        state = tuple(tuple(sorted((k, tensor_key(v) if isinstance(v, Tensor) else v)
                                   for k, v in obj.state[p].items()))
                      for group in obj.param_groups for p in group["params"] if p in obj.state)
        return groups, state
    if isinstance(obj, SCALARS):
        return obj
    if isinstance(obj, (list, tuple)) and len(obj) <= 16:
        return tuple(object_key(item) for item in obj)
    return type(obj).__name__


def module_key(module):
    """A module's layers (their type, ``training``, hooks) and parameters, walked once."""
    key = [type(module).__name__, module.training, bool(module._forward_hooks),
           bool(module._forward_pre_hooks)]
    key += [None if p is None else tensor_key(p) for p in module._parameters.values()]
    key += [None if m is None else module_key(m) for m in module._modules.values()]
    return tuple(key)


def guard_key(found):
    return tuple(object_key(obj) for _, obj in found)


def named_tensors(found):
    """id(tensor) -> a readable name ("model.0.weight", "x") for the program's inputs."""
    names = {}
    for name, obj in found:
        if isinstance(obj, Tensor):
            names.setdefault(id(obj), name)
        elif isinstance(obj, Module):
            for key, param in obj.named_parameters():
                names.setdefault(id(param), f"{name}.{key}")
    return names


def state_tensors(found):
    """Tensors whose .grad, data or version a step may change: parameters, optimiser state,
    tensors in the closure and the arguments."""
    tensors = {}
    for _, obj in found:
        if isinstance(obj, Tensor):
            tensors[id(obj)] = obj
        elif isinstance(obj, Module):
            tensors.update((id(p), p) for p in obj.parameters())
        elif isinstance(obj, Optimizer):
            for group in obj.param_groups:
                tensors.update((id(p), p) for p in group["params"])
            for entries in obj.state.values():
                tensors.update((id(v), v) for v in entries.values() if isinstance(v, Tensor))
    return tensors
