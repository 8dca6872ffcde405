"""What a build check saw, as plain data: the bridge between a sandboxed submission and the grader.

A check's scenario returns a dict of what it observed (tensors, errors, numbers, names, flags).
The grader runs the student's side in a process of its own, so those observations must cross a
pipe as JSON. :func:`encode` turns them into tagged JSON values and :func:`decode` turns those
back into objects that :func:`teachgrad.course.build.compare.compare` accepts: a tensor becomes
a :class:`TensorData` (its array, no graph), an error a ``Raised``, a tuple stays a tuple.

Nothing survives the trip but data: an ``__eq__`` that always says yes, or a "tensor" that is
really teachgrad's, cannot. Encoding the *student's* values (``trusted=False``) marks objects of
teachgrad's or torch's classes as :class:`Foreign`, so a package that hands back teachgrad's work
is not graded as its own; and any error the student's code raises while being read
(``.array``, ``tolist()``) becomes an :class:`Unreadable` that raises it again when compared.
"""
import base64

import numpy as np

from teachgrad.course.build.compare import Raised, as_numpy, is_tensor

FOREIGN_PACKAGES = ("teachgrad", "torch")
PLAIN = (bool, int, float, str, type(None))
NUMBER_KINDS = "biufc"          # bool, int, unsigned, float, complex: nothing else is an array here
REPR_LENGTH = 200


def encode(value, trusted=False):
    """`value` as a JSON-ready structure; student code that raises while being read is noted."""
    try:
        return encode_value(value, trusted)
    except Exception as error:              # noqa: BLE001 — the student's error is data too
        return {"t": "unreadable", "kind": type(error).__name__, "message": str(error)[:500]}


def encode_value(value, trusted):
    if type(value) is Raised:               # the check's own note of an error
        return {"t": "raised", "kind": None if value.kind is None else str(value.kind),
                "message": str(value.message)}
    if not trusted and type(value).__module__.partition(".")[0] in FOREIGN_PACKAGES:
        return {"t": "foreign", "type": type(value).__qualname__}
    if isinstance(value, PLAIN):
        return encode_plain(value)
    if is_tensor(value):
        return {"t": "tensor", **encode_array(as_numpy(value))}
    if isinstance(value, np.ndarray):
        return {"t": "array", **encode_array(value)}
    if isinstance(value, np.generic):
        return {"t": "scalar", **encode_array(np.asarray(value))}
    if isinstance(value, (tuple, list, set, frozenset)):
        kind = next(k for k in (list, tuple, frozenset, set) if isinstance(value, k)).__name__
        return {"t": kind, "items": [encode(item, trusted) for item in value]}
    if isinstance(value, dict):
        return {"t": "dict", "items": [[encode(k, trusted), encode(v, trusted)]
                                       for k, v in value.items()]}
    return {"t": "opaque", "type": type(value).__qualname__, "repr": repr(value)[:REPR_LENGTH]}


def encode_plain(value):
    """bool, int, float, str and None as themselves (a subclass as its plain base value)."""
    for base in PLAIN[:-1]:
        if isinstance(value, base):
            return base(value) if type(value) is not base else value
    return None


def encode_array(array):
    array = np.asarray(array)
    if array.dtype.kind not in NUMBER_KINDS:
        raise TypeError(f"an array of {array.dtype} is not numbers")
    return {"dtype": array.dtype.str, "shape": list(array.shape),
            "bytes": base64.b64encode(np.ascontiguousarray(array).tobytes()).decode("ascii")}


class TensorData:
    """A tensor as the comparison sees it: its array, and no graph (``grad_fn`` is None)."""

    grad_fn = None

    def __init__(self, array):
        self.array, self.shape, self.dtype = array, array.shape, array.dtype


class Foreign:
    """An object of teachgrad's or torch's classes where the student's package had to answer."""

    def __init__(self, type_name):
        self.type_name = type_name

    def __repr__(self):
        return f"a {self.type_name} of teachgrad's or torch's, not of your package"

    def __eq__(self, other):
        return False

    __hash__ = object.__hash__


class Opaque:
    """Some other object: known by its type and repr, and equal to nothing."""

    def __init__(self, type_name, text):
        self.type_name, self.text = type_name, text

    def __repr__(self):
        return self.text

    def __eq__(self, other):
        return False

    __hash__ = object.__hash__


def error_class(kind):
    """An exception class named like the student's (the comparison prints only its name)."""
    return type(str(kind)[:80] or "Exception", (Exception,), {})


class Unreadable:
    """A value the student's code failed to hand over: touching it raises that error again."""

    def __init__(self, kind, message):
        object.__setattr__(self, "error", (error_class(kind), message))

    def fail(self, *args):
        kind, message = object.__getattribute__(self, "error")
        raise kind(message)

    __getattr__ = __eq__ = __ne__ = __repr__ = __str__ = __bool__ = __float__ = fail
    __hash__ = object.__hash__


def decode(data):
    """The objects :func:`encode` described; anything malformed raises ValueError."""
    if not isinstance(data, dict):
        if isinstance(data, PLAIN):
            return data
        raise ValueError(f"not an encoded value: {type(data).__name__}")
    tag = data.get("t")
    if tag in DECODERS:
        return DECODERS[tag](data)
    raise ValueError(f"unknown tag {tag!r}")


def decode_array(data):
    dtype = np.dtype(str(data["dtype"]))
    if dtype.kind not in NUMBER_KINDS:
        raise ValueError(f"dtype {dtype} is not numbers")
    shape = tuple(int(n) for n in data["shape"])
    return np.frombuffer(base64.b64decode(data["bytes"]), dtype=dtype).reshape(shape).copy()


DECODERS = {
    "raised": lambda d: Raised(d["kind"] if d["kind"] is None else str(d["kind"]),
                               str(d["message"])),
    "tensor": lambda d: TensorData(decode_array(d)),
    "array": decode_array,
    "scalar": lambda d: decode_array(d)[()],
    "list": lambda d: [decode(item) for item in d["items"]],
    "tuple": lambda d: tuple(decode(item) for item in d["items"]),
    "set": lambda d: {decode(item) for item in d["items"]},
    "frozenset": lambda d: frozenset(decode(item) for item in d["items"]),
    "dict": lambda d: {decode(k): decode(v) for k, v in d["items"]},
    "foreign": lambda d: Foreign(str(d["type"])),
    "opaque": lambda d: Opaque(str(d["type"]), str(d["repr"])),
    "unreadable": lambda d: Unreadable(d["kind"], str(d["message"])),
}
