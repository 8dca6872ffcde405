"""Read a backward graph through what PyTorch exposes, whichever library built it.

The drawings work on teachgrad's graphs, on the student's ``yourgrad`` and on torch's own,
because they read only the attributes the three share, PyTorch's public ones:

- a tensor: ``grad_fn``, ``requires_grad``, ``is_leaf``, ``shape``, ``dtype``, ``grad``,
  ``_version`` (and ``output_nr``, ``retains_grad``, ``tolist()`` where it has them);
- a node: ``name()``, ``next_functions``, ``variable`` (an ``AccumulateGrad``), the saved
  tensors ``_saved_<slot>`` (reading one raises once backward has freed it).

No class is checked: an ``AccumulateGrad`` is the node with a ``variable``. Where a library
records more, it is used when present: teachgrad's ``SavedTensor`` records (``_raw_saved_*``)
know the version a tensor was saved at, teachgrad's nodes the shape of each input
(``_input_metadata``, one ``(shape, dtype)`` per input) and torch's the shape of each output
(``_input_metadata``, one entry with ``.shape`` per output).
"""
import math
import re
from dataclasses import dataclass

import numpy as np

CONVENTIONAL_SLOTS = ("self", "other", "result")   # tried when a node does not list its own
INPUT_SLOTS = ("self", "other")                    # PyTorch's names of inputs 0 and 1


def is_tensor(value):
    """A tensor of any of the three libraries (a class, or anything else, is not)."""
    if isinstance(value, type):
        return False
    try:
        return all(hasattr(value, name) for name in ("grad_fn", "requires_grad", "shape"))
    except Exception:       # an object whose attributes raise is no tensor of ours
        return False


def is_accumulate(node):
    """An ``AccumulateGrad``: the node where a leaf receives its gradient."""
    return hasattr(node, "variable")


def node_title(node):
    """``MulBackward0``, ``AccumulateGrad``: ``name()`` without a C++ namespace
    (PyTorch's ``torch::autograd::AccumulateGrad``)."""
    return node.name().rpartition("::")[2]


def output_nr(tensor):
    return getattr(tensor, "output_nr", 0)


class LeafStandIn:
    """An ``AccumulateGrad`` for a leaf drawn on its own, when its library does not hand out
    the real one (PyTorch makes it only when an operation uses the leaf)."""

    def __init__(self, variable):
        self.variable = variable
        self.next_functions = ()

    def name(self):
        return "AccumulateGrad"


def gradient_edge(tensor):
    """Where the gradient of ``tensor`` goes: ``(node, output_nr)``, or ``(None, 0)``."""
    own = getattr(tensor, "_gradient_edge", None)     # teachgrad's, exact for views too
    if callable(own):
        return own()
    if tensor.grad_fn is not None:
        return tensor.grad_fn, output_nr(tensor)
    return (LeafStandIn(tensor), 0) if tensor.requires_grad else (None, 0)


def sequence_nr(node):
    """The node's creation number, when its library records one (PyTorch's ``_sequence_nr()``)."""
    number = getattr(node, "_sequence_nr", None)
    return number() if callable(number) else None


def _metadata(node):
    return tuple(getattr(node, "_input_metadata", ()) or ())


def input_shapes(node):
    """The shape of each input (one per ``next_functions`` entry), where recorded, else None."""
    shapes = [entry[0] if isinstance(entry, tuple) else None for entry in _metadata(node)]
    count = len(node.next_functions)
    return (shapes + [None] * count)[:count] if any(s is not None for s in shapes) \
        else [None] * count


def output_shapes(node):
    """The shape of each output of the node, where its library records them (torch)."""
    return [entry.shape for entry in _metadata(node) if hasattr(entry, "shape")]


def num_outputs(node):
    """How many tensors the node made (split makes several)."""
    return getattr(node, "_num_outputs", None) or len(output_shapes(node)) or 1


def numel(tensor):
    return math.prod(tensor.shape)


def values(tensor):
    """The tensor's numbers as nested Python lists."""
    if hasattr(tensor, "tolist"):
        return tensor.tolist()
    return np.asarray(tensor.data).tolist()


def dtype_name(dtype):
    """``float32`` for teachgrad's, numpy's and torch's (``torch.float32``) dtypes alike."""
    name = getattr(dtype, "name", None)
    return name if isinstance(name, str) else str(dtype).rpartition(".")[2]


def retains_grad(tensor):
    return bool(getattr(tensor, "retains_grad", False))


# ---- saved tensors --------------------------------------------------------------

@dataclass(eq=False)
class Saved:
    """One tensor a node saved for its backward, as far as it can be known.

    ``state`` is ``saved``, ``stale`` (changed in place since) or ``freed`` (by backward);
    ``tensor`` is the saved tensor when it can be read, else None; ``record`` is teachgrad's
    ``SavedTensor`` behind it, if any.
    """
    slot: str
    shape: tuple
    state: str
    status: str
    tensor: object
    is_output: bool
    record: object = None


def _from_record(slot, record):
    """A Saved from teachgrad's SavedTensor, which knows the version it was saved at."""
    if record.freed:
        state, status = "freed", "freed"
    elif record.is_stale:
        state = "stale"
        status = f"saved v{record.saved_version}, now v{record.current_version} (stale)"
    else:
        state, status = "saved", f"v{record.saved_version}"
    tensor = record.tensor if state == "saved" else None
    return Saved(slot, record.shape, state, status, tensor, record.is_output, record)


def _is_record(value):
    return hasattr(value, "saved_version")


# PyTorch's in-place error names the tensor and both versions:
# "... modified by an inplace operation: [torch.FloatTensor [2, 3]], which is output 0 of
# ExpBackward0, is at version 1; expected version 0 instead. ..."
INPLACE_ERROR = re.compile(r"inplace operation: \[\S+ \[([\d, ]*)\]\].*? is at version (\d+); "
                           r"expected version (\d+)")


def _unreadable(slot, error):
    """A Saved for a slot whose reading raised: freed by backward, or changed in place (then
    PyTorch's message gives its shape and versions). By PyTorch's convention the slot
    ``result`` holds the node's own output."""
    is_output = slot == "result"
    match = INPLACE_ERROR.search(str(error))
    if match is None:
        state = "stale" if "inplace" in str(error) else "freed"
        return Saved(slot, None, state, state, None, is_output)
    shape = tuple(int(size) for size in match.group(1).split(",") if size.strip())
    now, then = match.group(2), match.group(3)
    return Saved(slot, shape, "stale", f"saved v{then}, now v{now} (stale)", None, is_output)


def _read_saved(node, slot, attribute=None):
    """Saved entries for ``node._saved_<slot>`` (or ``node.<attribute>``): none when it holds
    no tensor."""
    try:
        value = getattr(node, attribute or "_saved_" + slot)
    except AttributeError:
        return []
    except RuntimeError as error:       # PyTorch's errors for a freed or a modified tensor
        return [_unreadable(slot, error)]
    if isinstance(value, (tuple, list)):
        return [entry for i, item in enumerate(value) if is_tensor(item)
                for entry in _tensor_entry(node, f"{slot}[{i}]", item)]
    return _tensor_entry(node, slot, value) if is_tensor(value) else []


def _tensor_entry(node, slot, tensor):
    version = getattr(tensor, "_version", None)
    status = f"v{version}" if version is not None else "saved"
    return [Saved(slot, tuple(tensor.shape), "saved", status, tensor, tensor.grad_fn is node)]


def _quiet_getattr(node, attribute):
    """``node.<attribute>``, or None when reading it raises (torch's freed records do)."""
    try:
        return getattr(node, attribute, None)
    except RuntimeError:
        return None


def _slots(node, prefix):
    return [attr[len(prefix):] for attr in dir(node) if attr.startswith(prefix)]


def saved_tensors(node):
    """The tensors ``node`` saved, as ``Saved`` entries: by name, inputs first in input order
    (``self``, ``other``, then the rest); a custom Function's (``ctx.save_for_backward``) by
    position, as ``saved_tensors[i]``."""
    custom = _quiet_getattr(node, "_raw_saved_tensors")
    if isinstance(custom, tuple) and all(_is_record(s) for s in custom if s is not None):
        return [_from_record(f"saved_tensors[{i}]", saved) for i, saved in enumerate(custom)
                if saved is not None]
    inputs = list(getattr(node, "input_names", INPUT_SLOTS))
    records = {slot: _quiet_getattr(node, "_raw_saved_" + slot)
               for slot in _slots(node, "_raw_saved_")}
    flat = [r for value in records.values() for r in (value if isinstance(value, tuple) else
                                                      (value,)) if r is not None]
    if flat and all(_is_record(r) for r in flat):        # teachgrad's records
        found = []
        for slot in sorted(records, key=lambda s: inputs.index(s) if s in inputs else len(inputs)):
            value = records[slot]
            if isinstance(value, tuple):            # a list of tensors, such as an index's
                found += [_from_record(f"{slot}[{i}]", s) for i, s in enumerate(value)
                          if s is not None]
            else:
                found.append(_from_record(slot, value))
        return found
    if "saved_tensors" in dir(node):                     # a custom Function's ctx
        return _read_saved(node, "saved_tensors", attribute="saved_tensors")
    slots = set(_slots(node, "_saved_")) | set(CONVENTIONAL_SLOTS)
    order = sorted(slots, key=lambda s: (inputs.index(s) if s in inputs else len(inputs), s))
    return [entry for slot in order for entry in _read_saved(node, slot)]


def saved_input(node, position):
    """The tensor given to ``node`` as input ``position``, if the node saved it intact
    (under the input's name: ``self`` for input 0, ``other`` for input 1...)."""
    slots = list(getattr(node, "input_names", INPUT_SLOTS))
    if position >= len(slots):
        return None
    for saved in saved_tensors(node):
        if saved.slot == slots[position] and saved.state == "saved" and not saved.is_output:
            return saved.tensor
    return None
