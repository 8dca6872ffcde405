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
import collections
import dis
import functools
import gc
import operator
import random
import sys
import types
from itertools import chain

import numpy as np

from teachgrad import dtypes
from teachgrad.autograd import anomaly, grad_mode, graph
from teachgrad.compile.tracer import is_user_file
from teachgrad.nn.changes import ModuleHooks, Registry, changes
from teachgrad.nn.module import Module
from teachgrad.optim.optimizer import Optimizer
from teachgrad.tensor import Tensor

_DATA_SLOT = Tensor.__dict__["_data"]     # (read without the tracer's property)

PLAIN = (bool, int, float, str, type(None))     # compared by value, everything else by identity
LARGE = 256         # a container with more entries: compared entry by entry, by identity only
BUDGET = 20_000     # more objects than this in reach: the step is not compiled
NOT_LOOKED_INTO = (type, types.ModuleType, types.BuiltinFunctionType)
GENERATORS = (random.Random, np.random.Generator, np.random.RandomState)


class CannotGuard(Exception):
    """The step reaches state the guards cannot check on every call (too many objects, an
    iterator whose position they cannot see)."""


class Snapshot:
    """What ``fn(*args)`` can reach, as the trace found it; ``holds(args)`` says whether a
    call now would find the same."""

    def __init__(self, fn, args, code_read=None):
        """``code_read``: for the user's code seen running in earlier traces (a helper, a
        module's ``forward``, at any depth), code -> its globals: they are looked into too,
        with the closures of the functions that hold that code."""
        self.roots = [(f"arg{i}", arg) for i, arg in enumerate(args)]    # (name, object)
        self.arity = len(args)
        self.tensor_args = [i for i, arg in enumerate(args) if isinstance(arg, Tensor)]
        self.array_args = [i for i, arg in enumerate(args) if isinstance(arg, np.ndarray)]
        self.other_args = [i for i, arg in enumerate(args)
                           if i not in self.tensor_args and i not in self.array_args]
        self.aliasing = _aliasing(args, self.tensor_args + self.array_args)
        self.argument_facts = {i: tensor_facts(args[i]) for i in self.tensor_args}
        self.settings = autograd_settings()
        self.cells, self.namespaces = [], []    # (name, closure cell); (globals, names) read
        self.empty_cells = []
        self.dicts, self.lists = [], []         # containers whose entries are compared
        self.sets = []                          # sets, compared with a copy
        self.slotted = []                       # (object, its __slots__ names)
        self.modules, self.module_dicts = [], []    # modules, and their dicts
        self.sized = []                         # LARGE containers: entries by identity
        self.tensors = []                       # tensors found (not arguments): by identity
        self.bases = []                         # the bases of the views among them
        self.arrays = []                        # numpy arrays found: read as inputs
        self.generators = []                    # random number generators found
        self.unguardable = None                    # why the guards cannot check it all, if so
        self._seen = set()
        try:
            for i in self.other_args:
                self._walk(args[i])
            self._walk_function(fn)
        except CannotGuard as problem:
            self.unguardable = str(problem)
        self._walk_code(code_read or {})
        self.modules_filled = [d for d in self.module_dicts if d]
        self.modules_seen_at = changes.count
        self.module_lengths, self.module_entries = self._modules_now()
        self._write_checks()

    def covers(self, code_read):
        """After a trace: had the walk before it already looked into all that the user's
        code seen running reads? If not (a helper, a method reached only as the step ran),
        the step is traced again, its snapshot taken before the trace from the start."""
        seen = len(self._seen)
        self._walk_code(code_read)
        return len(self._seen) == seen and self.unguardable is None

    def _walk_code(self, code_read):
        try:
            for code, (namespace, free_values) in code_read.items():
                self._walk_namespace(code, namespace, dict(zip(code.co_freevars,
                                                               free_values)))
                if code.co_freevars:
                    for function in _functions_of(code, free_values):
                        self._walk_function(function)
        except CannotGuard as problem:
            self.unguardable = str(problem)

    # ---- at trace time: finding what the step reaches --------------------------------
    def _walk(self, obj):
        if isinstance(obj, PLAIN) or id(obj) in self._seen:
            return
        self._seen.add(id(obj))
        if len(self._seen) > BUDGET:
            raise CannotGuard(f"the step reaches more than {BUDGET} objects, too many to "
                               "guard on every call")
        if isinstance(obj, Tensor):
            self.tensors.append(obj)
            if obj._base is not None:           # a view's requires_grad may be its base's
                self.bases.append(obj._base)
        elif isinstance(obj, np.ndarray):
            self.arrays.append(obj)
        elif isinstance(obj, GENERATORS):
            self.generators.append(obj)
        elif isinstance(obj, (dict, list, collections.deque)) and len(obj) > LARGE:
            self.sized.append(obj)
        elif isinstance(obj, dict):
            self.dicts.append(obj)
            for item in chain.from_iterable(obj.items()):
                self._walk(item)
        elif isinstance(obj, (list, tuple, collections.deque, frozenset)):
            if isinstance(obj, (list, collections.deque)):     # (the others cannot change)
                self.lists.append(obj)
            for item in obj:
                self._walk(item)
        elif isinstance(obj, set):
            self.sets.append(obj)
            for item in obj:
                self._walk(item)
        elif isinstance(obj, Module):
            self._walk_module(obj)
        elif isinstance(obj, Optimizer):
            self._walk(vars(obj))
        elif isinstance(obj, type):
            self._walk_class(obj)               # (a class of the user's, as a namespace)
        elif isinstance(obj, NOT_LOOKED_INTO):
            return
        elif isinstance(obj, types.FunctionType):
            self._walk_function(obj)
        elif isinstance(obj, types.MethodType):
            self._walk(obj.__self__)
            self._walk(obj.__func__)
        elif isinstance(obj, functools.partial):
            self._walk((obj.func, obj.args, obj.keywords))
        elif hasattr(type(obj), "__next__") and not hasattr(obj, "__dict__"):
            raise CannotGuard(f"the step reaches an iterator ({type(obj).__name__}) whose "
                              "position the guards cannot see")
        else:
            self._walk_attributes(obj)

    def _walk_attributes(self, obj):
        """An object's ``__dict__`` and ``__slots__``, whatever its depth, and its class's
        attributes if the class is the user's."""
        self._walk_class(type(obj))
        if hasattr(obj, "__dict__"):
            self._walk(vars(obj))
        slots = [name for cls in type(obj).__mro__
                 for name in _slot_names(cls) if name not in ("__dict__", "__weakref__")]
        if slots:
            self.slotted.append((obj, slots))
            for name in slots:
                self._walk(getattr(obj, name, None))

    def _walk_class(self, cls):
        """The attributes and methods of the user's classes among ``cls`` and its bases
        (a class attribute read through ``self``; the globals a method reads)."""
        for base in cls.__mro__:
            if ("class", id(base)) in self._seen or not _users_module(
                    sys.modules.get(base.__module__)):
                continue
            self._seen.add(("class", id(base)))
            self.dicts.append(base.__dict__)
            for item in base.__dict__.values():
                self._walk(item)

    def _walk_module(self, module):
        """A module's attributes, and the registries and hook dicts among them: these
        count their changes (``nn.changes``), so they are compared only when it moved."""
        self._walk_class(type(module))
        self.modules.append(module)
        self.module_dicts.append(vars(module))
        for value in vars(module).values():
            if isinstance(value, (Registry, ModuleHooks)) and id(value) not in self._seen:
                self._seen.add(id(value))
                self.module_dicts.append(value)
                for item in value.values():
                    self._walk(item)
            else:
                self._walk(value)

    def _walk_function(self, fn):
        """A function's closure cells and the globals it names."""
        code = getattr(fn, "__code__", None)
        if code is None or ("function", id(fn)) in self._seen:
            return
        self._seen.add(("function", id(fn)))
        self._walk((fn.__defaults__, fn.__kwdefaults__))
        for name, cell in zip(code.co_freevars, fn.__closure__ or ()):
            try:
                value = cell.cell_contents
            except ValueError:                  # a cell not yet filled: it must stay so
                self.empty_cells.append(cell)
                continue
            self.cells.append((name, cell))
            self.roots.append((name, value))
            self._walk(value)
        self._walk_namespace(code, fn.__globals__, dict(zip(code.co_freevars, map(
            _contents, fn.__closure__ or ()))))

    def _walk_namespace(self, code, namespace, free=None):
        """The globals ``code`` names (a module among them is not looked into, but the
        attributes ``code`` reads of the user's own modules are; ``free``: the values of
        its closure variables, to find those modules there too)."""
        if ("code", id(code), id(namespace)) in self._seen:
            return
        self._seen.add(("code", id(code), id(namespace)))
        names = [name for name in _global_names(code) if name in namespace
                 and not isinstance(namespace[name], types.ModuleType)]
        self.namespaces.append((namespace, names))
        for name in names:
            self.roots.append((name, namespace[name]))
            self._walk(namespace[name])
        for module, attributes in _user_module_attributes(code, {**namespace, **(free or {})}):
            self.namespaces.append((vars(module), attributes))
            for name in attributes:
                self.roots.append((f"{module.__name__}.{name}", vars(module)[name]))
                self._walk(vars(module)[name])

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
        for container in self.dicts + self.lists:
            writer.entries(container)
        for container in self.sized:
            writer.line(f"if not _same_entries({writer.constant(container)}, "
                        f"{writer.constant(_entries(container))}): return False")
        for container in self.sets:
            writer.line(f"if {writer.constant(container)} != "
                        f"{writer.constant(frozenset(container))}: return False")
        for obj, slots in self.slotted:
            for name in slots:
                writer.same(f"getattr({writer.constant(obj)}, {name!r}, _MISSING)",
                            getattr(obj, name, writer.namespace["_MISSING"]))
        for tensor in self.tensors + self.bases:
            writer.tensor(writer.constant(tensor), tensor_facts(tensor),
                          writer.names.get(id(tensor)))
        writer.line(f"if {SETTINGS} != {writer.constant(self.settings)}: return False")
        found = writer.lines
        writer.lines = [f"if len(args) != {self.arity}: return False"]
        positions = self.tensor_args + self.array_args
        if len(positions) > 1:
            writer.line(f"if _aliasing(args, {positions!r}) != {self.aliasing!r}: return False")
        if positions:                       # an argument that is a tensor found elsewhere
            watched = frozenset(self.watched())
            found_again = [id(self.roots[i][1]) in watched for i in positions]
            writer.line(f"if [id(args[i]) in {writer.constant(watched)} for i in {positions!r}]"
                        f" != {found_again!r}: return False")
        for position, (_, arg) in enumerate(self.roots[:self.arity]):
            place = f"args[{position}]"
            if position in self.tensor_args:
                writer.line(f"if not isinstance({place}, Tensor): return False")
                writer.tensor(place, self.argument_facts[position], f"arg{position}")
            elif position in self.array_args:
                writer.line(f"if not isinstance({place}, ndarray): return False")
                writer.line(f"if {place}.shape != {arg.shape!r}: return False")
                writer.line(f"if {place}.strides != {arg.strides!r}: return False")
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
        """ids of the tensors and arrays the snapshot holds as themselves."""
        return {id(obj) for obj in self.tensors + self.arrays}

    def watched_arrays(self):
        """id -> each numpy array found: the program reads it anew on every call."""
        return {id(array): array for array in self.arrays}

    def random_states(self):
        """The state of Python's and numpy's global generators and of those found: a
        trace that moves one drew random numbers a replay would repeat."""
        return [random.getstate(), _numpy_state(np.random.get_state())] + [
            _numpy_state(g.get_state()) if isinstance(g, np.random.RandomState) else
            g.bit_generator.state if isinstance(g, np.random.Generator) else g.getstate()
            for g in self.generators]

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
                          "_aliasing": _aliasing, "_same_entries": _same_entries,
                          "grad_mode": grad_mode, "anomaly": anomaly, "dtypes": dtypes,
                          "graph": graph,
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

    def entries(self, container):
        name = self.constant(container)
        self.line(f"if len({name}) != {len(container)}: return False")
        keys = (container.keys() if isinstance(container, (dict, types.MappingProxyType))
                else range(len(container)))
        for key in keys:
            index = repr(key) if type(key) in (int, str) else self.constant(key)
            if hasattr(container, "__missing__"):       # a defaultdict: look, do not add
                self.same(f"{name}.get({index}, _MISSING)", container[key])
            else:
                self.same(f"{name}[{index}]", container[key])

    def tensor(self, place, facts, name=None):
        """Its shape, strides, dtype, requires_grad, hooks, and a .grad or none, as found
        (``facts``: ``tensor_facts`` of it)."""
        shape, strides, dtype, requires_grad, hooks, has_grad = facts
        self.line(f"t = {place}" + (f"  # {name}" if name else ""))
        self.line(f"if t._data.shape != {shape!r}: return False")
        self.line(f"if t._data.strides != {strides!r}: return False")
        self.same_dtype("t._data.dtype", dtype)
        self.line(f"if t._requires_grad is not {requires_grad}: return False")
        if hooks is None:
            self.line("if t._hooks is not None: return False")
        else:
            self.line(f"if t._hooks != {self.constant(hooks)}: return False")
        self.line(f"if t._grad is {'' if has_grad else 'not '}None: return False")

    def function(self, signature, lines):
        body = "".join(f"        {line}\n" for line in lines)
        return (f"def {signature}:\n    try:\n{body}"
                "    except (AttributeError, IndexError, KeyError, TypeError, ValueError):\n"
                "        return False     # a place that is gone, or holds another kind\n"
                "    return True\n")


def _numpy_state(state):
    """numpy's legacy state tuple, comparable with ``==``."""
    return (state[0], state[1].tobytes(), *state[2:])


def _equal_plain(now, then):
    """Another object in the place of a plain value: the same type and an equal value?"""
    return type(now) is type(then) and _plain(now) and now == then


def tensor_facts(tensor):
    """What the guards check of a tensor besides its identity."""
    data = _DATA_SLOT.__get__(tensor, Tensor)
    return (data.shape, data.strides, data.dtype, tensor._requires_grad,
            None if tensor._hooks is None else dict(tensor._hooks), tensor._grad is not None)


# The global switches a step's numpy calls depend on: grad mode, inference mode, anomaly
# mode, the default dtype and the saved-tensor hooks in force (an expression, so that the
# guards read them without a call)
SETTINGS = ('(grad_mode._state["enabled"], grad_mode._state["inference"], '
            'anomaly._state["enabled"], anomaly._state["check_nan"], '
            'dtypes._DEFAULT_FLOAT[0], *graph._saved_tensors_hooks_in_force)')


def autograd_settings():
    return eval(SETTINGS)


def _aliasing(args, positions):
    """Which arguments are the same object, and which share memory: for each, the first
    position of an argument that is it, and of one whose memory has the same owner."""
    first = {}
    pattern = []
    for i in positions:
        arg = args[i]
        array = _DATA_SLOT.__get__(arg, Tensor) if isinstance(arg, Tensor) else arg
        owner = array.base if array.base is not None else array
        pattern.append((first.setdefault(id(arg), i), first.setdefault(id(owner), i)))
    return pattern


def _entries(container):
    return (list(container.items()) if isinstance(container, dict) else list(container))


def _same_entries(container, then):
    """A LARGE container holds the same objects as it did (compared by identity)."""
    now = _entries(container)
    return len(now) == len(then) and all(map(operator.is_, chain.from_iterable(now) if
                                             isinstance(container, dict) else now,
                                             chain.from_iterable(then) if
                                             isinstance(container, dict) else then))


def _slot_names(cls):
    slots = cls.__dict__.get("__slots__", ())
    return (slots,) if isinstance(slots, str) else slots


def _functions_of(code, free_values):
    """The live functions whose code is ``code`` and whose closure held ``free_values``
    (the one that ran, to find its closure cells)."""
    return [f for f in gc.get_referrers(code)
            if isinstance(f, types.FunctionType) and f.__code__ is code
            and all(map(operator.is_, map(_contents, f.__closure__ or ()), free_values))]


def _contents(cell):
    try:
        return cell.cell_contents
    except ValueError:
        return None


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


def _users_module(module):
    """Is ``module`` the user's: a script or notebook (``__main__``), or a file of theirs?"""
    if module is None:
        return False
    if module.__name__ == "__main__":
        return True
    return is_user_file(getattr(module, "__file__", None) or "<built-in>")


def _user_module_attributes(code, namespace):
    """``[(module, [attribute names])]``: the attributes ``code`` reads of the user's own
    modules (``config.lr``, where ``config`` is a global naming a module of the user's)."""
    found = {}
    instructions = list(dis.get_instructions(code))
    for first, second in zip(instructions, instructions[1:]):
        module = (namespace.get(first.argval) if first.opname in ("LOAD_GLOBAL", "LOAD_DEREF")
                  else None)
        if (isinstance(module, types.ModuleType) and second.opname in ("LOAD_ATTR",
                                                                       "LOAD_METHOD")
                and _users_module(module)
                and second.argval in vars(module)):
            found.setdefault(module, []).append(second.argval)
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            for module, names in _user_module_attributes(constant, namespace):
                found.setdefault(module, []).extend(names)
    return [(module, list(dict.fromkeys(names))) for module, names in found.items()]


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
