"""What a compiled step depends on besides its arrays: the guards.

A program is valid only for the Python state it was traced in. As ``torch.compile`` does,
the step's objects are found where it can reach them -- its arguments, its closure, the
globals it names -- and looked into: a module's (or any object's) attributes and the dicts
among them (parameters, buffers, submodules, hooks), an optimiser's groups and state, lists,
tuples, dicts, the closures of the functions found. The trace keeps a ``Snapshot`` of it all,
and a later call replays the program only if the snapshot still holds:

* every object found is the very same one: another layer, tensor, list or optimiser in its
  place traces again. Plain values (numbers, strings, None) need only be equal: a new
  learning rate, ``model.eval()`` or ``loss_fn.reduction = "sum"`` traces again;
* every tensor found has the shape, dtype, ``requires_grad`` and hooks it had, and a
  ``.grad`` or none as it had. A tensor passed as an argument is checked by these alone:
  each call may pass a new one.

The check runs before every replay, so it compares flat lists made once at trace time, in C
(``map``, ``operator.is_``, list equality), as dynamo compiles its guards to C++.
"""
import dis
import operator
import types
from itertools import chain, repeat

import numpy as np

from teachgrad.nn.changes import ModuleHooks, Registry, changes
from teachgrad.nn.module import Module
from teachgrad.optim.optimizer import Optimizer
from teachgrad.tensor import Tensor

PLAIN = (bool, int, float, str, type(None))     # compared by value, everything else by identity
DEPTH = 3           # how far into plain objects and functions the walk looks (modules and
                    # optimisers are walked all the way down)
LARGE = 256         # a container with more entries: its length is checked, not its entries
NOT_LOOKED_INTO = (type, types.ModuleType, types.BuiltinFunctionType)

FLAGS = operator.attrgetter("_data.shape", "_data.dtype", "_requires_grad", "_hooks")
SHAPE = operator.attrgetter("shape", "dtype")
GRAD = operator.attrgetter("_grad")
CELL = operator.attrgetter("cell_contents")
ITEMS = operator.methodcaller("items")


class Snapshot:
    """What ``fn(*args)`` can reach, as the trace found it; ``holds(args)`` says whether a
    call now would find the same."""

    def __init__(self, fn, args):
        self.roots = [(f"arg{i}", arg) for i, arg in enumerate(args)]    # (name, object)
        self.arity = len(args)
        self.tensor_args = [i for i, arg in enumerate(args) if isinstance(arg, Tensor)]
        self.array_args = [i for i, arg in enumerate(args) if isinstance(arg, np.ndarray)]
        self.other_args = [i for i, arg in enumerate(args)
                           if i not in self.tensor_args and i not in self.array_args]
        self.cells, self.namespaces = [], []    # closure cells; (globals, names) read
        self.empty_cells = []
        self.dicts, self.lists = [], []         # containers whose entries are compared
        self.module_dicts = []                  # ... and those of modules
        self.sized = []                         # LARGE containers: only their length is
        self.tensors = []                       # tensors found (not arguments): by identity
        self.bases = []                         # the bases of the views among them
        self._seen = set()
        for i in self.other_args:
            self._walk(args[i], DEPTH)
        self._walk_function(fn, DEPTH)
        del self._seen
        self.filled = [d for d in self.dicts if d]      # (the others' lengths say it all)
        self.modules_filled = [d for d in self.module_dicts if d]
        self.lengths, self.entries, self.flags = self._found_now()
        self.modules_seen_at = changes.count
        self.modules = self._modules_now()
        self.arguments = self._arguments_now(args)

    # ---- at trace time: finding what the step reaches --------------------------------
    def _walk(self, obj, depth):
        if isinstance(obj, PLAIN) or id(obj) in self._seen:
            return
        self._seen.add(id(obj))
        if isinstance(obj, Tensor):
            self.tensors.append(obj)
            if obj._base is not None:           # a view's requires_grad may be its base's
                self.bases.append(obj._base)
        elif isinstance(obj, (dict, list)) and len(obj) > LARGE:
            self.sized.append(obj)
        elif isinstance(obj, dict):
            self.dicts.append(obj)
            for item in chain.from_iterable(obj.items()):
                self._walk(item, depth)
        elif isinstance(obj, (list, tuple)):
            if isinstance(obj, list):           # (a tuple cannot change)
                self.lists.append(obj)
            for item in obj:
                self._walk(item, depth)
        elif isinstance(obj, Module):
            self._walk_module(obj, depth)
        elif isinstance(obj, Optimizer):
            self._walk(vars(obj), depth)
        elif depth == 0 or isinstance(obj, NOT_LOOKED_INTO):
            return
        elif isinstance(obj, types.FunctionType):
            self._walk_function(obj, depth)
        elif isinstance(obj, types.MethodType):
            self._walk(obj.__self__, depth - 1)
            self._walk(obj.__func__, depth - 1)
        elif hasattr(obj, "__dict__"):
            self._walk(vars(obj), depth - 1)

    def _walk_module(self, module, depth):
        """A module's attributes, and the registries and hook dicts among them: these
        count their changes (``nn.changes``), so they are compared only when it moved."""
        self.module_dicts.append(vars(module))
        for value in vars(module).values():
            if isinstance(value, (Registry, ModuleHooks)) and id(value) not in self._seen:
                self._seen.add(id(value))
                self.module_dicts.append(value)
                for item in value.values():
                    self._walk(item, depth)
            else:
                self._walk(value, depth)

    def _walk_function(self, fn, depth):
        """A function's closure cells and the globals it names."""
        code = getattr(fn, "__code__", None)
        if code is None or depth == 0:
            return
        for name, cell in zip(code.co_freevars, fn.__closure__ or ()):
            try:
                value = cell.cell_contents
            except ValueError:                  # a cell not yet filled: it must stay so
                self.empty_cells.append(cell)
                continue
            self.cells.append(cell)
            self.roots.append((name, value))
            self._walk(value, depth - 1)
        names = [name for name in _global_names(code) if name in fn.__globals__
                 and not isinstance(fn.__globals__[name], types.ModuleType)]
        self.namespaces.append((fn.__globals__, names))
        for name in names:
            self.roots.append((name, fn.__globals__[name]))
            self._walk(fn.__globals__[name], depth - 1)

    # ---- on every call: the same lists, made again -----------------------------------
    def _found_now(self):
        """The containers' lengths; every object found, in the order the walk found the
        places holding them; each tensor's shape, dtype, flags and hooks, then whether it has
        no .grad."""
        lengths = list(map(len, chain(self.dicts, self.lists, self.sized)))
        entries = list(map(CELL, self.cells))
        for namespace, names in self.namespaces:
            entries += map(namespace.get, names)
        entries += chain.from_iterable(map(dict.values, self.filled))
        entries += chain.from_iterable(self.lists)
        return lengths, entries, _tensor_flags(self.tensors + self.bases)

    def _modules_now(self):
        return (list(map(len, self.module_dicts)),
                list(chain.from_iterable(map(dict.values, self.modules_filled))))

    def _arguments_now(self, args):
        return ([args[i] for i in self.other_args],
                _tensor_flags([args[i] for i in self.tensor_args]),
                [SHAPE(args[i]) for i in self.array_args])

    def holds(self, args):
        """Would ``fn(*args)`` find what the trace found?"""
        try:
            if len(args) != self.arity or not self.holds_apart_from_arguments():
                return False
            if not args:
                return True
            others, flags, shapes = self._arguments_now(args)
            return _same(others, self.arguments[0]) and (flags, shapes) == self.arguments[1:]
        except (AttributeError, IndexError):        # an argument that is no tensor now
            return False

    def holds_apart_from_arguments(self, count_moved=False):
        """Does the step reach what the trace found? The modules are compared only if
        ``changes.count`` moved since they last were (or if ``count_moved``)."""
        try:
            lengths, entries, flags = self._found_now()
        except ValueError:                          # a closure cell emptied
            return False
        if not (lengths == self.lengths and _same(entries, self.entries) and flags == self.flags
                and not any(map(_filled, self.empty_cells))):
            return False
        if changes.count == self.modules_seen_at and not count_moved:
            return True
        lengths, entries = self._modules_now()
        if lengths != self.modules[0] or not _same(entries, self.modules[1]):
            return False
        self.modules_seen_at = changes.count
        return True

    # ---- what the trace needs to know ---------------------------------------------
    def watched(self):
        """ids of the tensors the snapshot holds as themselves."""
        return {id(tensor) for tensor in self.tensors}

    def state_tensors(self, args):
        """Tensors whose .grad, data or version a step may change: every tensor found and
        the arguments."""
        tensors = {id(tensor): tensor for tensor in self.tensors}
        tensors.update((id(args[i]), args[i]) for i in self.tensor_args)
        return tensors

    def named_tensors(self):
        """id(tensor) -> a readable name ("model.0.weight", "x") for the program's inputs."""
        names = {}
        for name, obj in self.roots:
            if isinstance(obj, Tensor):
                names.setdefault(id(obj), name)
            elif isinstance(obj, Module):
                for key, param in obj.named_parameters():
                    names.setdefault(id(param), f"{name}.{key}")
                for key, buffer in obj.named_buffers():
                    names.setdefault(id(buffer), f"{name}.{key}")
        return names


def _filled(cell):
    try:
        cell.cell_contents
    except ValueError:
        return False
    return True


def _global_names(code):
    """The names ``code`` (and the comprehensions and lambdas inside it) reads as globals."""
    names = [i.argval for i in dis.get_instructions(code) if i.opname == "LOAD_GLOBAL"]
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            names += _global_names(constant)
    return list(dict.fromkeys(names))


def _tensor_flags(tensors):
    return [*map(FLAGS, tensors), *map(operator.is_, map(GRAD, tensors), repeat(None))]


def _same(entries, snapshot):
    """The same objects, or equal plain values where another object took a place (the
    common case, all the same, is one pass in C)."""
    if len(entries) != len(snapshot):
        return False
    if all(map(operator.is_, entries, snapshot)):
        return True
    return all(now is then or (type(now) is type(then) and _plain(now) and _plain(then)
                               and now == then) for now, then in zip(entries, snapshot))


def _plain(value):
    """A number, string, None, or a tuple of them."""
    return isinstance(value, PLAIN) or (type(value) is tuple and all(map(_plain, value)))
