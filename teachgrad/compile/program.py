"""The static program a trace leaves: numbered values and one numpy call per instruction.

``str(program)`` reads like an FX graph::

    v0: f32[64, 784] = input x
    v7: f32[64, 256] = matmul(v0, v6)
    subtract(v1, v40, out=v1)                     # in place

``program.lower()`` turns it into one Python function (its source is ``program.source``)
that runs the calls on the input arrays, writing into buffers allocated once.
"""
import copy

import numpy as np

_ASARRAY, _ARRAY, _EMPTY = np.asarray, np.array, np.empty    # (not the tracer's stand-ins)
SHORT_DTYPES = {"float16": "f16", "float32": "f32", "float64": "f64", "int64": "i64",
                "int32": "i32", "uint8": "u8", "bool": "b8", "int8": "i8", "int16": "i16"}


class Ref:
    """An instruction's argument that is a value of the program."""
    __slots__ = ("id",)

    def __init__(self, value_id):
        self.id = value_id

    def __repr__(self):
        return f"v{self.id}"


class Value:
    """A numbered array of the program: an input (a tensor's data, read each call), a
    constant (kept from the trace), or the result of an instruction."""

    def __init__(self, number, shape, dtype, origin, tensor=None, arg=None, snapshot=None,
                 constant=None, scalar=False):
        self.id, self.shape, self.dtype, self.origin = number, tuple(shape), dtype, origin
        self.tensor, self.arg, self.snapshot, self.constant = tensor, arg, snapshot, constant
        self.scalar = scalar      # numpy returned a scalar, not an array
        self.root = number        # the value whose memory this one views (itself if fresh)
        self.fresh = True         # made new memory (not a view of another value)
        self.name = None          # for inputs: where the tensor was found ("0.weight")
        self.grad_of = None       # for an input that is a .grad: (argument position, owner)

    def type_string(self):
        dims = ", ".join(str(d) for d in self.shape)
        return f"{SHORT_DTYPES.get(self.dtype.name, self.dtype.name)}[{dims}]"


class Instruction:
    """``outputs = func(*args, **kwargs)``; ``mutates``: values written in place (``out=``,
    ``a[i] = b``); ``reshapes``: the value whose shape it sets (a view's metadata only);
    ``expect``: for a branch, the truth value the trace saw."""

    def __init__(self, func, args, kwargs, mutates=(), reshapes=None, expect=None):
        self.func, self.args, self.kwargs = func, args, kwargs
        self.mutates, self.reshapes, self.expect = tuple(mutates), reshapes, expect
        self.outputs = []
        self.fresh_out = False    # its one result is new memory and func takes out=
        self.buffer = None        # index of the buffer it writes into, once planned
        self.scalar_result = False    # numpy returned a scalar: replay makes it an array

    @property
    def name(self):
        return function_name(self.func)

    def run(self, arrays):
        """Run it alone: ``arrays`` maps the ids of the values it reads to arrays."""
        return self.func(*_resolve(self.args, arrays), **_resolve(self.kwargs, arrays))

    @property
    def is_its_buffer(self):
        """An ``empty_like`` given a buffer: the buffer is its result, no call is made."""
        return self.buffer is not None and self.func is np.empty_like

    def uses(self):
        """Ids of the values it reads or writes."""
        found = []
        _collect_refs((self.args, self.kwargs), found)
        return found


def function_name(func):
    name = getattr(func, "__name__", repr(func))
    owner = getattr(func, "__self__", None)
    if isinstance(owner, np.ufunc):              # add.reduce
        return f"{owner.__name__}.{name}"
    return name


def _resolve(obj, arrays):
    if isinstance(obj, Ref):
        return arrays[obj.id]
    if isinstance(obj, (tuple, list)):
        return type(obj)(_resolve(item, arrays) for item in obj)
    if isinstance(obj, dict):
        return {key: _resolve(item, arrays) for key, item in obj.items()}
    return obj


def _collect_refs(obj, found):
    if isinstance(obj, Ref):
        found.append(obj.id)
    elif isinstance(obj, (tuple, list)):
        for item in obj:
            _collect_refs(item, found)
    elif isinstance(obj, dict):
        for item in obj.values():
            _collect_refs(item, found)
    elif isinstance(obj, slice):
        _collect_refs((obj.start, obj.stop, obj.step), found)


class GuardFailed(Exception):
    """A branch the trace took is not taken on this call: replay is abandoned before it
    changed anything, and the step runs eagerly."""


class Program:
    def __init__(self):
        self.values = []
        self.instructions = []
        self.outputs = []         # value ids the replay returns (they escape into tensors)
        self.buffers = []         # (offset, shape, dtype) of each buffer in the arena
        self.arena_size = 0       # bytes of the one arena the buffers are views of

    def add_value(self, value):
        self.values.append(value)
        return value

    def add(self, instruction):
        self.instructions.append(instruction)
        return instruction

    def copy(self):
        """The same program, with instructions and values of its own (for passes to rewrite)."""
        twin = Program()
        twin.values = [copy.copy(v) for v in self.values]
        twin.outputs, twin.buffers, twin.arena_size = list(self.outputs), [], 0
        twin.instructions = [copy.copy(i) for i in self.instructions]
        return twin

    def written_roots(self):
        """The values whose memory some instruction writes into (a constant among them is
        copied afresh on every run)."""
        return {self.values[m].root for i in self.instructions for m in i.mutates}

    def inputs(self):
        return [v for v in self.values if v.origin == "input"]

    def constants(self):
        return [v for v in self.values if v.origin == "constant"]

    # ---- reading it ----------------------------------------------------------------
    def __str__(self):
        lines = [f"v{v.id}: {v.type_string()} = input {v.name or ''}".rstrip()
                 for v in self.inputs()]
        lines += [f"v{v.id}: {v.type_string()} = constant" for v in self.constants()
                  if self.is_used(v.id)]
        lines += [self.describe(instruction) for instruction in self.instructions]
        lines.append("return " + ", ".join(f"v{i}" for i in self.outputs))
        return "\n".join(lines)

    __repr__ = __str__

    def describe(self, instruction):
        """One line of the listing."""
        if instruction.expect is not None and instruction.func is np.ndarray.__bool__:
            return f"check bool({_show(instruction.args[0])}) is {instruction.expect}"
        if instruction.expect is not None:
            return f"check {_show_call(instruction)} is {instruction.expect}"
        call = _show_call(instruction)
        if (instruction.mutates or instruction.reshapes is not None) and not instruction.outputs:
            return f"{call}  # in place"
        targets = ", ".join(f"v{i}: {self.values[i].type_string()}" for i in instruction.outputs)
        return f"{targets} = {call}"

    def is_used(self, value_id):
        return any(value_id in i.uses() for i in self.instructions) or value_id in self.outputs

    # ---- running it ----------------------------------------------------------------
    def lower(self):
        """One Python function ``replay(inputs, buffers, checked=None)`` returning the output
        arrays. ``checked()``, if given, is called once every branch check has passed: from
        there on the replay cannot hand the call back to eager."""
        namespace = {"asarray": _ASARRAY, "GuardFailed": GuardFailed, "array": _ARRAY}
        lines = []
        inputs = self.inputs()
        if inputs:
            lines.append(", ".join(f"v{v.id}" for v in inputs) + ", = inputs")
        used = set(self.outputs)
        for instruction in self.instructions:
            used.update(instruction.uses())
        written = self.written_roots()
        for value in self.constants():
            if value.id in used:
                namespace[f"c{value.id}"] = value.constant
                lines.append(f"v{value.id} = array(c{value.id})" if value.id in written else
                             f"v{value.id} = c{value.id}")
        calls = [_code_line(instruction, number, namespace)
                 for number, instruction in enumerate(self.instructions)]
        last_check = max((n for n, i in enumerate(self.instructions) if i.expect is not None),
                         default=-1)
        calls.insert(last_check + 1, "if checked is not None: checked()")
        lines += calls
        lines.append("return (" + "".join(f"v{i}, " for i in self.outputs) + ")")
        source = ("def replay(inputs, buffers, checked=None):\n"
                  + "".join(f"    {line}\n" for line in lines))
        exec(compile(source, "<teachgrad.compile program>", "exec"), namespace)
        self.source = source
        return namespace["replay"]

    def allocate(self):
        """The arena, allocated once, and each buffer as a view of its bytes."""
        arena = _EMPTY(self.arena_size, np.uint8)
        return [arena[offset:].view(dtype)[:_count(shape)].reshape(shape)
                for offset, shape, dtype in self.buffers]


def _count(shape):
    return int(np.prod(shape, dtype=np.int64))


def _code_line(instruction, number, namespace):
    if instruction.is_its_buffer:
        return f"v{instruction.outputs[0]} = buffers[{instruction.buffer}]"
    namespace[f"f{number}"] = instruction.func
    constants = []

    def code(obj):
        if isinstance(obj, Ref):
            return f"v{obj.id}"
        if isinstance(obj, tuple):
            return "(" + "".join(f"{code(item)}, " for item in obj) + ")"
        if isinstance(obj, list):
            return "[" + ", ".join(code(item) for item in obj) + "]"
        if isinstance(obj, slice) and _has_ref(obj):
            return f"slice({code(obj.start)}, {code(obj.stop)}, {code(obj.step)})"
        name = f"k{number}_{len(constants)}"
        constants.append(name)
        namespace[name] = obj
        return name
    arguments = [code(arg) for arg in instruction.args]
    arguments += [f"{key}={code(value)}" for key, value in instruction.kwargs.items()]
    if instruction.buffer is not None:
        arguments.append(f"out=buffers[{instruction.buffer}]")
    call = f"f{number}({', '.join(arguments)})"
    if instruction.expect is not None:
        return f"if bool({call}) is not {instruction.expect}: raise GuardFailed({number})"
    if not instruction.outputs:
        return call
    if len(instruction.outputs) > 1:
        return ", ".join(f"v{i}" for i in instruction.outputs) + f" = {call}"
    scalar = instruction.buffer is None and instruction.scalar_result
    return f"v{instruction.outputs[0]} = " + (f"asarray({call})" if scalar else call)


def _has_ref(obj):
    found = []
    _collect_refs(obj, found)
    return bool(found)


# ---- the listing ---------------------------------------------------------------------
def _show(obj):
    if isinstance(obj, Ref):
        return repr(obj)
    if isinstance(obj, slice):
        parts = ["" if p is None else _show(p) for p in (obj.start, obj.stop, obj.step)]
        return ":".join(parts[:2]) + (f":{parts[2]}" if obj.step is not None else "")
    if obj is Ellipsis:
        return "..."
    if isinstance(obj, tuple):
        return "(" + ", ".join(_show(item) for item in obj) + ("," if len(obj) == 1 else "") + ")"
    if isinstance(obj, list):
        return "[" + ", ".join(_show(item) for item in obj) + "]"
    if isinstance(obj, np.dtype) or (isinstance(obj, type) and issubclass(obj, np.generic)):
        return np.dtype(obj).name
    if isinstance(obj, (float, np.floating)):
        return f"{float(obj):.6g}"
    if isinstance(obj, np.ndarray):
        return f"array{list(obj.shape)}"
    return repr(obj)


def _show_call(instruction):
    name, args, kwargs = instruction.name, instruction.args, instruction.kwargs
    if name == "__getitem__":
        key = args[1] if isinstance(args[1], tuple) else (args[1],)
        return f"{_show(args[0])}[{', '.join(_show(k) for k in key)}]"
    if name == "__setitem__":
        key = args[1] if isinstance(args[1], tuple) else (args[1],)
        return f"{_show(args[0])}[{', '.join(_show(k) for k in key)}] = {_show(args[2])}"
    shown = [_show(a) for a in args] + [f"{k}={_show(v)}" for k, v in kwargs.items()]
    return f"{name}({', '.join(shown)})"
