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

The check runs before every replay, so it is written out at trace time as one straight-line
Python function, ``holds(args)`` (``snapshot.source``): ``if k3.cell_contents is not k4:
return False``, one line per place, as dynamo compiles its guards. Modules count their own
changes (``nn.changes``): their attributes, parameters, submodules and hooks are compared
only when that count has moved.
"""
import dis
import operator
import types
from itertools import chain

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
        self.cells, self.namespaces = [], []    # (name, closure cell); (globals, names) read
        self.empty_cells = []
        self.dicts, self.lists = [], []         # containers whose entries are compared
        self.modules, self.module_dicts = [], []    # modules, and their dicts
        self.sized = []                         # LARGE containers: only their length is
        self.tensors = []                       # tensors found (not arguments): by identity
        self.bases = []                         # the bases of the views among them
        self._seen = set()
        for i in self.other_args:
            self._walk(args[i], DEPTH)
        self._walk_function(fn, DEPTH)
        del self._seen
        self.modules_filled = [d for d in self.module_dicts if d]
        self.modules_seen_at = changes.count
        self.module_lengths, self.module_entries = self._modules_now()
        self._write_checks()

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
        self.modules.append(module)
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
            self.cells.append((name, cell))
            self.roots.append((name, value))
            self._walk(value, depth - 1)
        names = [name for name in _global_names(code) if name in fn.__globals__
                 and not isinstance(fn.__globals__[name], types.ModuleType)]
        self.namespaces.append((fn.__globals__, names))
        for name in names:
            self.roots.append((name, fn.__globals__[name]))
            self._walk(fn.__globals__[name], depth - 1)

    # ---- on every call: the checks, written out as Python -------------------------
    def _write_checks(self):
        """Compile ``holds(args)`` and ``found_holds()`` from one straight-line list of
        checks, each a comparison with what the trace found (``self.source`` shows it)."""
        writer = _Writer(self.named_tensors())
        for name, cell in self.cells:
            writer.same(f"{writer.constant(cell)}.cell_contents", cell.cell_contents, name)
        for cell in self.empty_cells:
            writer.line(f"if _filled({writer.constant(cell)}): return False")
        for namespace, names in self.namespaces:
            for name in names:
                writer.same(f"{writer.constant(namespace)}[{name!r}]", namespace[name])
        for container in self.dicts + self.lists + self.sized:
            writer.entries(container, looked_into=container not in self.sized)
        for tensor in self.tensors + self.bases:
            writer.tensor(writer.constant(tensor), tensor)
        found = writer.lines
        writer.lines = [f"if len(args) != {self.arity}: return False"]
        for position, (_, arg) in enumerate(self.roots[:self.arity]):
            place = f"args[{position}]"
            if position in self.tensor_args:
                writer.line(f"if not isinstance({place}, Tensor): return False")
                writer.tensor(place, arg)
            elif position in self.array_args:
                writer.line(f"if not isinstance({place}, ndarray): return False")
                writer.line(f"if {place}.shape != {arg.shape!r}: return False")
                writer.same_dtype(f"{place}.dtype", arg.dtype)
            else:
                writer.same(place, arg)
        arguments = writer.lines
        self.source = writer.function("holds(args)", arguments + found + [
            "if changes.count != snapshot.modules_seen_at and not snapshot.modules_hold():",
            "    return False"])
        source = writer.function("found_holds()", found + [
            "if not snapshot.modules_hold(): return False"])
        namespace = {**writer.namespace, "snapshot": self}
        exec(compile(self.source + source, "<teachgrad.compile guards>", "exec"), namespace)
        self.holds, self.found_holds = namespace["holds"], namespace["found_holds"]

    def modules_hold(self):
        """Do the modules hold what the trace found? (Compared only when
        ``changes.count`` has moved; then remembered as seen at the new count.)"""
        lengths, entries = self._modules_now()
        if lengths != self.module_lengths or not _same(entries, self.module_entries):
            return False
        self.modules_seen_at = changes.count
        return True

    def _modules_now(self):
        """The modules' classes and their dicts' lengths; then every entry of the dicts."""
        return ([*map(type, self.modules), *map(len, self.module_dicts)],
                list(chain.from_iterable(map(dict.values, self.modules_filled))))

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


class _Writer:
    """Writes the lines of a guard function: each compares a place the step reads (a
    closure cell, a global, a dict's entry, a tensor's flag) with what the trace found
    there, which the function holds as a constant (``k0``, ``k1``...)."""

    def __init__(self, names):
        self.names = names                  # id(tensor) -> "model.0.weight"
        self.namespace = {"Tensor": Tensor, "ndarray": np.ndarray, "changes": changes,
                          "_filled": _filled, "_equal_plain": _equal_plain,
                          "_MISSING": object()}
        self.numbers = {}                   # id(constant) -> its number
        self.lines = []

    def line(self, text):
        self.lines.append(text)

    def constant(self, obj):
        """The name under which the functions hold ``obj`` (one name per object)."""
        if id(obj) not in self.numbers:
            self.numbers[id(obj)] = len(self.numbers)
            self.namespace[f"k{len(self.numbers) - 1}"] = obj
        return f"k{self.numbers[id(obj)]}"

    def same(self, place, found, note=None):
        """``place`` must hold ``found`` itself, or a plain value equal to it."""
        comment = f"  # {note}" if note else ""
        if _plain(found) and not (found is None or found is True or found is False):
            value = self.constant(found)
            self.line(f"if {place} is not {value} and not _equal_plain({place}, {value}): "
                      f"return False{comment}")
        else:
            self.line(f"if {place} is not {self.constant(found)}: return False{comment}")

    def same_dtype(self, place, dtype):
        value = self.constant(dtype)
        self.line(f"if {place} is not {value} and {place} != {value}: return False")

    def entries(self, container, looked_into=True):
        name = self.constant(container)
        self.line(f"if len({name}) != {len(container)}: return False")
        if not looked_into:
            return
        keys = container.keys() if isinstance(container, dict) else range(len(container))
        for key in keys:
            index = repr(key) if type(key) in (int, str) else self.constant(key)
            if hasattr(container, "__missing__"):       # a defaultdict: look, do not add
                self.same(f"{name}.get({index}, _MISSING)", container[key])
            else:
                self.same(f"{name}[{index}]", container[key])

    def tensor(self, place, tensor):
        """Its shape, dtype, requires_grad, hooks, and a .grad or none, as found."""
        name = self.names.get(id(tensor))
        self.line(f"t = {place}" + (f"  # {name}" if name else ""))
        self.line(f"if t._data.shape != {tensor._data.shape!r}: return False")
        self.same_dtype("t._data.dtype", tensor._data.dtype)
        self.line(f"if t._requires_grad is not {tensor._requires_grad}: return False")
        if tensor._hooks is None:
            self.line("if t._hooks is not None: return False")
        else:
            self.line(f"if t._hooks != {self.constant(dict(tensor._hooks))}: return False")
        self.line(f"if t._grad is {'not ' if tensor._grad is None else ''}None: return False")

    def function(self, signature, lines):
        body = "".join(f"        {line}\n" for line in lines)
        return (f"def {signature}:\n    try:\n{body}"
                "    except (AttributeError, IndexError, KeyError, TypeError, ValueError):\n"
                "        return False     # a place that is gone, or holds another kind\n"
                "    return True\n")


def _equal_plain(now, then):
    """Another object in the place of a plain value: the same type and an equal value?"""
    return type(now) is type(then) and _plain(now) and now == then


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


def _same(entries, snapshot):
    """The same objects, or equal plain values where another object took a place (the
    common case, all the same, is one pass in C)."""
    if len(entries) != len(snapshot):
        return False
    if all(map(operator.is_, entries, snapshot)):
        return True
    return all(now is then or _equal_plain(now, then) for now, then in zip(entries, snapshot))


def _plain(value):
    """A number, string, None, or a tuple of them."""
    return isinstance(value, PLAIN) or (type(value) is tuple and all(map(_plain, value)))
