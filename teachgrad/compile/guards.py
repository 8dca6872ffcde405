"""What a compiled step depends on besides its arrays: the guards.

A program is valid only for the Python state it was traced in. As ``torch.compile`` does,
the step's objects are found where it can reach them -- its arguments, its closure, the
globals it names, and inside those: modules, optimisers, tensors, plain Python values --
and summed up as a hashable key. A call whose key differs (a new shape, dtype or
``requires_grad``, ``model.eval()``, a new learning rate, optimiser state that appeared,
a flag in the closure, another tensor where the trace read one) is traced again.
"""
import types

from teachgrad.nn.module import Module
from teachgrad.optim.optimizer import Optimizer
from teachgrad.tensor import Tensor

DEPTH = 3           # how far into functions' closures the walk goes
SCALARS = (bool, int, float, str, type(None))
WATCHED = (Module, Optimizer, Tensor, *SCALARS)


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
    for name in code.co_names:              # (attribute names too: kept only if global)
        if name in fn.__globals__ and isinstance(fn.__globals__[name], WATCHED):
            found.append((name, fn.__globals__[name]))


def tensor_key(tensor, watched=None):
    """A tensor's shape, dtype and flags; with ``watched``, for a tensor the program reads
    as that very object, its identity too (and added to ``watched``): another one in its
    place, even of the same shape, must trace again. (No other tensor can take its ``id``:
    the compiled step keeps every tensor it reads alive.)"""
    identity = None
    if watched is not None:
        identity = id(tensor)
        if identity in watched:             # met before in the same key (a module's parameter
            return identity                 # that its optimiser holds too): keyed there in full
        watched.add(identity)
    data = tensor._data
    return (identity, data.shape, data.dtype, tensor.requires_grad,
            tensor.__dict__.get("_grad") is None, bool(tensor._hooks))


def object_key(obj, watched):
    """The part of an object's Python state that can change what the step does; ``watched``
    collects the tensors the key holds as themselves. (Written with plain loops: it runs
    before every replay.)"""
    if isinstance(obj, Tensor):
        return tensor_key(obj, watched)
    if isinstance(obj, Module):
        return module_key(obj, watched)
    if isinstance(obj, Optimizer):
        return optimizer_key(obj, watched)
    if isinstance(obj, SCALARS):
        return obj
    if isinstance(obj, (list, tuple)) and len(obj) <= 16:
        return tuple([object_key(item, watched) for item in obj])
    return type(obj).__name__


def module_key(module, watched):
    """A module's layers (their type, ``training``, hooks), parameters and buffers, walked
    once."""
    key = [type(module).__name__, module.training, bool(module._forward_hooks),
           bool(module._forward_pre_hooks)]
    for registry in (module._parameters, module._buffers):
        for tensor in registry.values():
            key.append(None if tensor is None else tensor_key(tensor, watched))
    for child in module._modules.values():
        key.append(None if child is None else module_key(child, watched))
    return tuple(key)


def optimizer_key(optimizer, watched):
    """Its groups' settings (lr, momentum, ...), its parameters and the state each has."""
    key = []
    for group in optimizer.param_groups:
        for name, value in group.items():
            if name != "params" and isinstance(value, SCALARS):
                key.append((name, value))
        for param in group["params"]:
            key.append(tensor_key(param, watched))
            if param in optimizer.state:
                for name, value in sorted(optimizer.state[param].items()):
                    key.append((name, tensor_key(value, watched) if isinstance(value, Tensor)
                                else value))
    return tuple(key)


def guard_key(found, arguments, watched=None):
    """The key of everything the step can reach. Its first ``arguments`` entries are the
    step's arguments: a tensor passed directly is read by position, so it is keyed by its
    shape and flags alone (each call may pass a new one)."""
    watched = set() if watched is None else watched
    key = []
    for number, (_, obj) in enumerate(found):
        if number < arguments and isinstance(obj, Tensor):
            key.append(tensor_key(obj))
        else:
            key.append(object_key(obj, watched))
    return tuple(key)


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
    """Tensors whose .grad, data or version a step may change: parameters, buffers,
    optimiser state, tensors in the closure and the arguments."""
    tensors = {}
    for _, obj in found:
        if isinstance(obj, Tensor):
            tensors[id(obj)] = obj
        elif isinstance(obj, Module):
            tensors.update((id(t), t) for t in (*obj.parameters(), *obj.buffers()))
        elif isinstance(obj, Optimizer):
            for group in obj.param_groups:
                tensors.update((id(p), p) for p in group["params"])
            for entries in obj.state.values():
                tensors.update((id(v), v) for v in entries.values() if isinstance(v, Tensor))
    return tensors
