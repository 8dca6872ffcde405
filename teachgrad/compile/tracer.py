"""Tracing: run a step eagerly while every numpy call it makes is written down.

teachgrad computes with numpy, so a training step -- forward, ``backward()`` and the
optimiser's updates -- is, underneath, a sequence of numpy calls. While a trace runs,
every tensor's array is a ``Traced`` array: a numpy array whose ufuncs, array functions,
methods and indexing report to the active ``Recorder`` before they compute. The eager code
runs unchanged and gives its usual result; the recorder keeps the calls as a ``Program``.

What the recorder cannot follow -- a hook (Python code in the middle of the graph), a
value read into Python (``.item()``, ``float()``), an error -- makes it give up: the eager
result stands, and the reason is kept for the warning.
"""
import contextlib
import os
import random as python_random
import sys
import sysconfig

import numpy as np

import teachgrad as teachgrad_package

from teachgrad.compile.program import Instruction, Program, Ref, Value, _collect_refs
from teachgrad.tensor import Tensor

_DATA_SLOT = Tensor.__dict__["_data"]     # the member descriptor of Tensor._data
_recorder = None                          # the active Recorder, while a trace runs


class GiveUp(Exception):
    """Raised inside the recorder only; caught there (the eager step goes on)."""


_NDARRAY_SHAPE = np.ndarray.shape


def set_shape(array, shape):
    """``array.shape = shape``, as an instruction (it changes a view, never the data)."""
    array.shape = shape


class Traced(np.ndarray):
    """A numpy array the tracer follows: every numpy call on it is recorded."""

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        func = ufunc if method == "__call__" else getattr(ufunc, method)
        return _call(func, inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        return _call(func, args, kwargs)

    @property
    def T(self):
        return _call(np.ndarray.transpose, (self,), {})

    @property
    def mT(self):
        return _call(np.matrix_transpose, (self,), {})

    @property
    def shape(self):
        return _NDARRAY_SHAPE.__get__(self)

    @shape.setter
    def shape(self, shape):             # ``a.shape = s``: a view reshaped in place
        _NDARRAY_SHAPE.__set__(self, shape)
        if _recorder is not None and not _recorder.stopped:
            _recorder.set_shape(self, shape)

    def __bool__(self):
        return _escape(self, "bool()", np.ndarray.__bool__)

    def __float__(self):
        return _escape(self, "float()", np.ndarray.__float__)

    def __int__(self):
        return _escape(self, "int()", np.ndarray.__int__)

    def __index__(self):
        return _escape(self, "an index", np.ndarray.__index__)

    def item(self, *args):
        return _escape(self, ".item()", np.ndarray.item, *args)

    def tolist(self):
        return _escape(self, ".tolist()", np.ndarray.tolist)


def _method(name):
    unbound = getattr(np.ndarray, name)

    def method(self, *args, **kwargs):
        return _call(unbound, (self, *args), kwargs)
    method.__name__ = name
    return method


# ndarray methods that neither a ufunc nor an array function dispatch for us
for _name in ("__getitem__", "__setitem__", "reshape", "transpose", "view", "astype", "copy",
              "ravel", "flatten", "squeeze", "swapaxes", "fill", "argmax", "argmin", "argsort",
              "take", "repeat", "nonzero", "dot", "cumsum", "cumprod", "round", "diagonal",
              "sort", "put", "conj", "clip", "__copy__", "__deepcopy__", "tobytes"):
    setattr(Traced, _name, _method(_name))


def _memory_owner(array):
    """The object that owns ``array``'s memory (through ``as_strided``'s go-between too)."""
    owner = array
    while getattr(owner, "base", None) is not None:
        owner = owner.base
    return owner


def _plain(array):
    return np.ndarray.view(array, np.ndarray)


def _unwrap(obj):
    """``obj`` with every Traced array replaced by a plain view of it."""
    if isinstance(obj, Traced):
        return _plain(obj)
    if isinstance(obj, (tuple, list)):
        return type(obj)(_unwrap(item) for item in obj)
    if isinstance(obj, dict):
        return {key: _unwrap(item) for key, item in obj.items()}
    return obj


def _call(func, args, kwargs):
    if _recorder is None or _recorder.stopped:
        result = func(*_unwrap(args), **_unwrap(kwargs))
        return _plain(result) if isinstance(result, Traced) else result
    return _recorder.call(func, args, kwargs)


def _escape(array, what, read, *args):
    """A value leaves numpy for Python: control flow may depend on it."""
    if _recorder is not None and not _recorder.stopped:
        _recorder.read_into_python(array, what)
    return read(_plain(array), *args)


# ---- where the user's code is -----------------------------------------------------------
_NOT_USER = tuple(os.path.dirname(os.path.abspath(m.__file__)) + os.sep
                  for m in (np, teachgrad_package)) + tuple(
    sysconfig.get_paths()[key] + os.sep for key in ("stdlib", "purelib", "platlib")) + (
    "<frozen", "<teachgrad")


def is_user_file(filename):
    """Is it the user's (neither teachgrad's, numpy's nor Python's own library)?"""
    return not filename.startswith(_NOT_USER) and filename != "<built-in>"


def is_user_code(code):
    return is_user_file(code.co_filename)


def _user_line():
    """`` (at file:line)`` of the innermost frame of the user's code now running."""
    frame = sys._getframe(1)
    while frame is not None and not is_user_code(frame.f_code):
        frame = frame.f_back
    if frame is None:
        return ""
    return f" (at {os.path.basename(frame.f_code.co_filename)}:{frame.f_lineno})"


# ---- numpy functions that make arrays from nothing (or from Python values) -------------
_CREATORS = ("zeros", "ones", "empty", "full", "arange", "eye", "array", "asarray",
             "ascontiguousarray", "asanyarray", "frombuffer")
_ORIGINAL = {name: getattr(np, name) for name in _CREATORS}


_AS_STRIDED = np.lib.stride_tricks.as_strided


def as_strided(x, *args, **kwargs):
    """numpy's ``as_strided``, recorded when it views a traced array (numpy makes the view
    through an object of its own, which no ufunc or array function dispatch sees)."""
    if _recorder is None or _recorder.stopped or _recorder.busy or not isinstance(x, Traced):
        return _AS_STRIDED(_unwrap(x), *args, **kwargs)
    return _recorder.call(_AS_STRIDED, (x, *args), kwargs)


def _creator(name):
    original = _ORIGINAL[name]

    def create(*args, **kwargs):
        if _recorder is None or _recorder.stopped or _recorder.busy:
            return original(*_unwrap(args), **_unwrap(kwargs))   # (numpy's own inner calls)
        return _recorder.create(original, name, args, kwargs)
    create.__name__ = name
    return create


# ---- the recorder --------------------------------------------------------------------
# numpy calls whose fresh result can be written into a buffer allocated once (out=), or,
# for np.empty_like, can be that buffer itself
def takes_out(func):
    return isinstance(func, np.ufunc) or getattr(func, "__self__", None).__class__ is np.ufunc \
        or func in (np.sum, np.prod, np.amax, np.amin, np.max, np.min, np.mean, np.dot,
                    np.cumsum, np.clip, np.empty_like)


def _contains(obj, kind):
    if isinstance(obj, kind):
        return True
    if isinstance(obj, (tuple, list)):
        return any(_contains(item, kind) for item in obj)
    if isinstance(obj, dict):
        return any(_contains(item, kind) for item in obj.values())
    return False


_SHAPED_BY_DATA = {getattr(owner, name) for owner, names in (
    (np, ("nonzero", "argwhere", "flatnonzero", "unique", "unique_values", "unique_counts",
          "unique_inverse", "unique_all", "compress", "extract", "repeat", "bincount",
          "delete", "insert", "trim_zeros", "histogram")),
    (np.ndarray, ("nonzero", "compress", "repeat"))) for name in names if hasattr(owner, name)}


def has_shape(array, shape):
    """A check of the replay: a result whose shape follows the data has the traced one."""
    return _NDARRAY_SHAPE.__get__(array) == shape


class Recorder:
    """Writes down the numpy calls of one eager run, as a ``Program``."""

    def __init__(self, args, watched_arrays=None):
        self.program = Program()
        self.by_array = {}            # id(traced array) -> Value
        self.owners = {}              # id(memory owner) -> root Value, to recognise views
        self.arrays = {}              # value id -> its traced array (kept: ids stay unique)
        self.keep = []                # the memory owners, kept for the same reason
        self.tensors = {}             # id(tensor) -> tensor, every tensor whose data we touched
        self.inputs = {}              # id(tensor) -> its input Value
        self.arg_positions = {id(arg): i for i, arg in enumerate(args)}
        self.watched_arrays = watched_arrays or {}  # id -> numpy array the guards watch
        self.consumed = set()         # graph roots a backward (without retain_graph) used
        self.stopped = False
        self.busy = False             # inside a numpy call: its inner calls are its own
        self.reason = None

    def wrap_args(self, args):
        """numpy arrays passed to the step are inputs too."""
        return [self._new_value(arg, "input", arg=i, snapshot=arg.copy())[0]
                if isinstance(arg, np.ndarray) else arg for i, arg in enumerate(args)]

    def keep_of(self, value_id):
        return self.arrays[value_id]

    # -- values --
    def _new_value(self, array, origin, **info):
        traced = array.view(Traced) if not isinstance(array, Traced) else array
        value = self.program.add_value(Value(len(self.program.values), array.shape, array.dtype,
                                             origin, **info))
        self.by_array[id(traced)] = value
        self.arrays[value.id] = traced
        owner = _memory_owner(array)
        value.root = self.owners.setdefault(id(owner), value).id
        if value.root == value.id:
            self.keep.append(owner)
        return traced, value

    def value_of(self, array):
        """The Value an array holds. Every array the program reads must have a known
        origin: an argument, a tensor or array the guards watch (read anew on every call),
        or the result of a recorded call. Any other array was made where the tracer could
        not see (a numpy function it does not follow): replaying it as a constant could
        give another result, so the trace gives up."""
        value = self.by_array.get(id(array))
        if value is not None:
            return value
        if id(array) in self.watched_arrays:    # read anew on every call
            traced, value = self._new_value(array, "input", tensor=array,
                                            snapshot=array.copy())
            self.by_array[id(array)] = value
            return value
        raise GiveUp("an array made outside the numpy calls the tracer records "
                     f"({type(array).__name__} {array.dtype}{list(array.shape)})")

    def _template(self, obj):
        if isinstance(obj, np.ndarray):
            return Ref(self.value_of(obj).id)
        if isinstance(obj, (tuple, list)):
            return type(obj)(self._template(item) for item in obj)
        if isinstance(obj, dict):
            return {key: self._template(item) for key, item in obj.items()}
        if isinstance(obj, np.generic):
            return obj                    # a numpy scalar: a constant
        return obj

    @contextlib.contextmanager
    def aside(self):
        """numpy calls in the block are not the step's: they are not written down."""
        busy, self.busy = self.busy, True
        try:
            yield
        finally:
            self.busy = busy

    # -- the eager code's numpy calls --
    def call(self, func, args, kwargs):
        self.busy = True
        try:
            result = func(*_unwrap(args), **_unwrap(kwargs))
        finally:
            self.busy = False
        try:
            return self._record(func, args, kwargs, result)
        except GiveUp as problem:
            self.give_up(str(problem))
            return result

    def _record(self, func, args, kwargs, result):
        template = (self._template(args), self._template(kwargs))
        out = kwargs.get("out")
        targets = ()
        if out is not None:
            targets = tuple(self.value_of(a).id for a in (out if isinstance(out, tuple) else (out,))
                            if a is not None)
        elif func is np.ndarray.__setitem__ or func in (np.copyto, np.put, np.place,
                                                         np.ndarray.fill, np.ndarray.sort,
                                                         np.ndarray.put):
            targets = (self.value_of(args[0]).id,)
        elif getattr(func, "__name__", "") == "at":
            targets = (self.value_of(args[0]).id,)
        instruction = Instruction(func, *template, mutates=targets)
        if targets:                         # written into an existing array
            self.program.add(instruction)
            if out is not None:
                outs = out if isinstance(out, tuple) else (out,)
                return outs[0] if len(outs) == 1 else outs
            return result
        results = result if isinstance(result, tuple) else (result,)
        traced = []
        for item in results:
            if not isinstance(item, (np.ndarray, np.generic)):
                if _contains(args, Traced) or _contains(kwargs, Traced):
                    if func not in (np.shape, np.ndim, np.size, np.result_type,
                                    np.may_share_memory, np.shares_memory):
                        raise GiveUp(f"numpy.{func.__name__} returned a Python value")
                return result
            array = _ORIGINAL["asarray"](item) if isinstance(item, np.generic) else item
            if isinstance(array, Traced):
                array = _plain(array)
            known = self.owners.get(id(_memory_owner(array)))
            arr, value = self._new_value(array, "op", scalar=isinstance(item, np.generic))
            instruction.outputs.append(value.id)
            value.fresh = known is None
            traced.append(arr)
        instruction.scalar_result = any(self.program.values[i].scalar for i in instruction.outputs)
        if self._shape_follows_data(func, template[0]):
            self.program.add(instruction)
            for value_id in instruction.outputs:    # checked on every replay, as a branch
                self.program.add(Instruction(has_shape, (Ref(value_id), self.program.values[
                    value_id].shape), {}, expect=True))
            return tuple(traced) if isinstance(result, tuple) else traced[0]
        instruction.fresh_out = (len(traced) == 1 and traced and
                                 self.program.values[instruction.outputs[0]].fresh and
                                 takes_out(func))
        self.program.add(instruction)
        return tuple(traced) if isinstance(result, tuple) else traced[0]

    def _shape_follows_data(self, func, args):
        """Does the result's shape depend on the values (a boolean mask, nonzero)?"""
        if func in _SHAPED_BY_DATA:
            return True
        if func is np.ndarray.__getitem__:
            refs = []
            _collect_refs(args[1], refs)
            return any(self.program.values[r].dtype == np.bool_ for r in refs)
        return False

    def create(self, original, name, args, kwargs):
        if name in ("asarray", "asanyarray", "ascontiguousarray") and isinstance(args[0], Traced):
            dtype = kwargs.get("dtype", args[1] if len(args) > 1 else None)
            if (dtype is None or np.dtype(dtype) == args[0].dtype) and (
                    name != "ascontiguousarray" or args[0].flags.c_contiguous):
                return args[0]
        if _contains(args, Traced) or _contains(kwargs, Traced):
            return self.call(original, args, kwargs)
        self.busy = True
        try:
            result = original(*args, **kwargs)
        finally:
            self.busy = False
        if not isinstance(result, np.ndarray) or self.stopped:
            return result
        try:
            instruction = Instruction(original, self._template(args), self._template(kwargs))
            traced, value = self._new_value(result, "op")
            value.fresh = True
            instruction.outputs.append(value.id)
            self.program.add(instruction)
            return traced
        except GiveUp as problem:
            self.give_up(str(problem))
            return result

    # -- tensors --
    def read_tensor(self, tensor, array):
        if self.stopped:
            return array
        if isinstance(array, Traced):
            if id(array) in self.by_array:
                return array
            self.give_up("a tensor holds an array from an earlier trace")
            return array
        self.tensors.setdefault(id(tensor), tensor)
        if id(array) in self.watched_arrays:    # a tensor made on a watched numpy array
            traced = self.arrays[self.value_of(array).id]
            _DATA_SLOT.__set__(tensor, traced)
            return traced
        position = self.arg_positions.get(id(tensor))
        traced, value = self._new_value(array, "input", tensor=tensor, arg=position,
                                        snapshot=array.copy())
        self.inputs[id(tensor)] = value
        _DATA_SLOT.__set__(tensor, traced)
        return traced

    def write_tensor(self, tensor, array):
        self.tensors.setdefault(id(tensor), tensor)
        if not self.stopped and isinstance(array, np.ndarray) and not isinstance(array, Traced):
            if array.size:                  # a plain array put into a tensor: known?
                try:
                    self.value_of(array)
                except GiveUp as problem:
                    self.give_up(str(problem))

    def set_shape(self, array, shape):
        value = self.value_of(array)
        self.program.add(Instruction(set_shape, (Ref(value.id), shape), {}, reshapes=value.id))
        value.shape = _NDARRAY_SHAPE.__get__(array)

    def read_into_python(self, array, what):
        value = self.by_array.get(id(array))
        if value is None:
            return
        if what == "bool()":                # a branch: checked again on every replay
            self.program.add(Instruction(np.ndarray.__bool__, (Ref(value.id),), {},
                                         expect=bool(_plain(array))))
            return
        self.give_up(f"{what} reads a value the step computes into Python, where it may "
                     "steer control flow")

    def hook_ran(self, what):
        self.give_up(f"a {what} runs Python code in the middle of the step")

    def give_up(self, reason):
        if not self.stopped:
            self.stopped, self.reason = True, reason + _user_line()

    def detach_arrays(self):
        """After the trace: every tensor holds a plain numpy array again."""
        for tensor in self.tensors.values():
            array = _DATA_SLOT.__get__(tensor, Tensor)
            if isinstance(array, Traced):
                _DATA_SLOT.__set__(tensor, _plain(array))
            grad = tensor.__dict__.get("_grad") if hasattr(tensor, "__dict__") else None
            if grad is not None:
                array = _DATA_SLOT.__get__(grad, Tensor)
                if isinstance(array, Traced):
                    _DATA_SLOT.__set__(grad, _plain(array))


@contextlib.contextmanager
def observing_user_code():
    """Within the block, note each piece of the user's code that runs: code -> (its
    globals, the values of its closure variables on its first call). The guards then look
    into what it reads."""
    seen, code_read = set(), {}
    previous = sys.getprofile()

    def profile(frame, event, arg):
        code = frame.f_code
        if event == "call" and code not in seen:
            seen.add(code)
            if is_user_code(code):
                free = frame.f_locals if code.co_freevars else {}
                code_read[code] = (frame.f_globals,
                                   tuple(free.get(name) for name in code.co_freevars))
    sys.setprofile(profile)
    try:
        yield code_read
    finally:
        sys.setprofile(previous)


# ---- switching tracing on and off ------------------------------------------------------
def _read_data(tensor):
    array = _DATA_SLOT.__get__(tensor, Tensor)
    return _recorder.read_tensor(tensor, array) if _recorder is not None else array


def _write_data(tensor, array):
    if _recorder is not None:
        _recorder.write_tensor(tensor, array)
    _DATA_SLOT.__set__(tensor, array)


def _watch_hooks(hook_dict_class, engine):
    """Patches that tell the recorder when a hook runs; returns the undo list."""
    def seen(method):
        def watched(self):
            if len(self) and _recorder is not None:
                _recorder.hook_ran("hook")
            return method(self)
        return watched
    original_pre_hooks = engine.call_tensor_pre_hooks

    def tensor_hooks(node, grads):
        _recorder.hook_ran("tensor hook or retain_grad()")
        return original_pre_hooks(node, grads)
    undo = [(hook_dict_class, "values", None), (hook_dict_class, "items", None),
            (engine, "call_tensor_pre_hooks", original_pre_hooks)]
    hook_dict_class.values, hook_dict_class.items = seen(dict.values), seen(dict.items)
    engine.call_tensor_pre_hooks = tensor_hooks
    return undo


def _watch_backward(engine):
    """A patch that tells the recorder which graphs a backward consumed; returns the undo
    list."""
    original = engine.run_backward

    def run_backward(task, *args, **kwargs):
        if _recorder is not None and not task.retain_graph:
            _recorder.consumed.update(node for node, _ in task.root_edges)
        return original(task, *args, **kwargs)
    engine.run_backward = run_backward
    return [(engine, "run_backward", original)]


def _watch_random(generator_class):
    """Patches that tell the recorder when the step draws random numbers from teachgrad's
    generators, or makes a generator of Python's or numpy's (seeded afresh, unseen by the
    guards): a replay would repeat the same numbers. Returns the undo list."""
    def drawing(method, what):
        def draw(*args, **kwargs):
            if _recorder is not None:
                _recorder.give_up(f"the step {what}: a replay would repeat the same numbers")
            return method(*args, **kwargs)
        return draw
    undo = [(generator_class, name, generator_class.__dict__[name], "draws random numbers")
            for name in ("words32", "words64")]
    undo += [(python_random.Random, "seed", python_random.Random.seed,
              "seeds a generator of Python's random"),
             (np.random, "default_rng", np.random.default_rng, "makes a numpy generator")]
    for owner, name, method, what in undo:
        setattr(owner, name, drawing(method, what))
    return [(owner, name, method) for owner, name, method, _ in undo]


@contextlib.contextmanager
def tracing(recorder):
    """Run the body with ``recorder`` active: tensors hand out Traced arrays."""
    from teachgrad import random
    from teachgrad.autograd import engine
    from teachgrad.autograd.graph import HookDict
    global _recorder
    if _recorder is not None:
        raise RuntimeError("teachgrad.compile: a compiled function called another while tracing")
    undo = [(Tensor, "_data", _DATA_SLOT)]
    Tensor._data = property(_read_data, _write_data)
    for name in _CREATORS:
        undo.append((np, name, _ORIGINAL[name]))
        setattr(np, name, _creator(name))
    undo.append((np.lib.stride_tricks, "as_strided", _AS_STRIDED))
    np.lib.stride_tricks.as_strided = as_strided
    undo += _watch_hooks(HookDict, engine)
    undo += _watch_backward(engine)
    undo += _watch_random(random._Generator)
    _recorder = recorder
    try:
        yield recorder
    finally:
        _recorder = None
        for owner, name, original in reversed(undo):
            if original is None:
                delattr(owner, name)
            else:
                setattr(owner, name, original)
        recorder.detach_arrays()
