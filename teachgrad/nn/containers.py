"""Modules that hold other modules or parameters, so that the parent module sees them:
``Sequential`` (a pipeline), ``ModuleList`` and ``ModuleDict``; ``ParameterList`` and
``ParameterDict``."""
import operator
from collections import OrderedDict
from collections.abc import Iterable, Mapping

from teachgrad.nn.module import Module, _indent
from teachgrad.nn.parameter import Parameter
from teachgrad.tensor import Tensor


def _checked_index(idx, size):
    idx = operator.index(idx)
    if not -size <= idx < size:
        raise IndexError(f"index {idx} is out of range")
    return idx % size


class _ModuleSequence(Module):
    """What Sequential and ModuleList share: modules kept in order, indexed from 0."""

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __setitem__(self, idx, module):
        setattr(self, list(self._modules)[_checked_index(idx, len(self))], module)

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self


class Sequential(_ModuleSequence):
    """Applies its modules one after the other: ``Sequential(Linear(2, 3), ReLU())``.

    The modules are named "0", "1", ... unless given in an OrderedDict.
    Indexing gives a module; slicing gives a Sequential that keeps the names.
    """

    def __init__(self, *modules):
        super().__init__()
        if len(modules) == 1 and isinstance(modules[0], OrderedDict):
            for name, module in modules[0].items():
                self.add_module(name, module)
        else:
            for i, module in enumerate(modules):
                self.add_module(str(i), module)

    def forward(self, input):
        for module in self._modules.values():
            input = module(input)
        return input

    def __getitem__(self, idx):
        items = list(self._modules.items())
        if isinstance(idx, slice):
            return Sequential(OrderedDict(items[idx]))
        return items[_checked_index(idx, len(items))][1]

    def __delitem__(self, idx):
        names = list(self._modules)
        doomed = names[idx] if isinstance(idx, slice) else [names[_checked_index(idx, len(names))]]
        for name in doomed:
            delattr(self, name)


class ModuleList(_ModuleSequence):
    """A list of modules whose parameters the parent module sees. It has no forward."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __getitem__(self, idx):
        modules = list(self._modules.values())
        if isinstance(idx, slice):
            return ModuleList(modules[idx])
        return modules[_checked_index(idx, len(modules))]

    def extend(self, modules):
        for module in modules:
            self.append(module)
        return self

    def __iadd__(self, modules):
        return self.extend(modules)

    def __repr__(self):
        """Runs of identical modules are shown once: ``(0-2): 3 x Linear(...)``."""
        reprs = [repr(module) for module in self]
        if not reprs:
            return "ModuleList()"
        runs = []        # [first index, last index, repr]
        for i, text in enumerate(reprs):
            if runs and runs[-1][2] == text:
                runs[-1][1] = i
            else:
                runs.append([i, i, text])
        lines = [_indent(f"({first}): {text}" if first == last else
                         f"({first}-{last}): {last - first + 1} x {text}", 2)
                 for first, last, text in runs]
        return "ModuleList(\n  " + "\n  ".join(lines) + "\n)"


def _pairs(values, name, update_name, mappings):
    """The (key, value) pairs that ``update`` takes: the items of one of ``mappings``, or an
    iterable of pairs. ``name`` and ``update_name`` appear in the errors, spelled as PyTorch
    spells them."""
    if not isinstance(values, Iterable):
        raise TypeError(f"{update_name}.update should be called with an iterable of key/value "
                        f"pairs, but got {type(values).__name__}")
    if isinstance(values, mappings):
        yield from values.items()
        return
    for j, pair in enumerate(values):
        if not isinstance(pair, Iterable):
            # (sic: PyTorch's message has no space after "is")
            raise TypeError(f"{name} update sequence element #{j} should be Iterable; "
                            f"is{type(pair).__name__}")
        if len(pair) != 2:
            raise ValueError(f"{name} update sequence element #{j} has length {len(pair)}; "
                             "2 is required")
        yield pair[0], pair[1]


class ModuleDict(Module):
    """A dict of modules whose parameters the parent module sees: ``ModuleDict({"conv": ...})``.

    It keeps the order of insertion (and of the dict or pairs given). It has no forward.
    """

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key):
        return self._modules[key]

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __delitem__(self, key):
        del self._modules[key]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key):
        return key in self._modules

    def keys(self):
        return self._modules.keys()

    def values(self):
        return self._modules.values()

    def items(self):
        return self._modules.items()

    def pop(self, key):
        module = self[key]
        del self[key]
        return module

    def clear(self):
        self._modules.clear()

    def update(self, modules):
        for key, module in _pairs(modules, "ModuleDict", "ModuleDict", (Mapping, ModuleDict)):
            self[key] = module


def _as_parameter(value):
    """A tensor put in a ParameterList or ParameterDict becomes a Parameter (sharing its data)."""
    if isinstance(value, Tensor) and not isinstance(value, Parameter):
        return Parameter(value)
    return value


def _entries_repr(items, type_name):
    """The lines PyTorch prints for each entry of a ParameterList or ParameterDict: a tensor
    by its kind, ``type_name(tensor)`` and size, anything else by its type."""
    lines = []
    for key, value in items:
        if isinstance(value, Tensor):
            kind = "Parameter" if isinstance(value, Parameter) else "Tensor"
            size = "x".join(str(n) for n in value.shape)
            lines.append(f"  ({key}): {kind} containing: [{type_name(value)} of size {size}]")
        else:
            lines.append(f"  ({key}): Object of type: {type(value).__name__}")
    return "\n".join(lines)


class ParameterList(Module):
    """A list of parameters that the parent module sees: ``ParameterList([torch.ones(3)])``.

    Entry ``i`` is the attribute ``"i"``, so a Parameter is registered under that name
    (``"params.0"`` in the parent's ``state_dict``); other objects are kept as plain attributes.
    """

    def __init__(self, values=None):
        super().__init__()
        self._size = 0
        if values is not None:
            self.extend(values)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return ParameterList(self[i] for i in range(*idx.indices(len(self))))
        return getattr(self, str(_checked_index(idx, len(self))))

    def __setitem__(self, idx, value):
        setattr(self, str(_checked_index(idx, len(self))), _as_parameter(value))

    def __len__(self):
        return self._size

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def append(self, value):
        self._size += 1
        self[self._size - 1] = value
        return self

    def extend(self, values):
        if not isinstance(values, Iterable) or isinstance(values, Tensor):
            raise TypeError("ParameterList.extend should be called with an iterable, but got "
                            + type(values).__name__)
        for value in values:
            self.append(value)
        return self

    def __iadd__(self, values):
        return self.extend(values)

    def extra_repr(self):
        return _entries_repr(enumerate(self), lambda tensor: tensor.dtype)

    def __call__(self, *args, **kwargs):
        raise RuntimeError("ParameterList should not be called.")


def _checked_key(key):
    if not isinstance(key, str):
        raise TypeError("Index given to ParameterDict cannot be used as a key as it is not a "
                        f"string (type is '{type(key).__name__}'). Open an issue on github if "
                        "you need non-string keys.")
    return key


class ParameterDict(Module):
    """A dict of parameters that the parent module sees: ``ParameterDict({"scale": ...})``.

    Entry ``key`` is the attribute ``key`` (``"params.scale"`` in the parent's ``state_dict``).
    As in PyTorch, a plain dict is added in the order of its sorted keys; an OrderedDict, a
    ParameterDict or a list of pairs in its own order.
    """

    def __init__(self, parameters=None):
        super().__init__()
        self._keys = {}                 # the keys in order (a dict used as an ordered set)
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key):
        return getattr(self, _checked_key(key))

    def __setitem__(self, key, value):
        """Unlike PyTorch, a key that cannot be stored is not recorded either."""
        setattr(self, _checked_key(key), _as_parameter(value))
        self._keys[key] = None

    def __delitem__(self, key):
        del self._keys[key]
        delattr(self, key)

    def __len__(self):
        return len(self._keys)

    def __iter__(self):
        return iter(self._keys)

    def __reversed__(self):
        return reversed(self._keys)

    def __contains__(self, key):
        return key in self._keys

    def keys(self):
        return self._keys.keys()

    def values(self):
        return (self[key] for key in self._keys)

    def items(self):
        return ((key, self[key]) for key in self._keys)

    def get(self, key, default=None):
        return self[key] if key in self else default

    def setdefault(self, key, default=None):
        if key not in self:
            self[key] = default
        return self[key]

    def pop(self, key):
        value = self[key]
        del self[key]
        return value

    def popitem(self):
        """Remove the last key added; return it with its value."""
        key, _ = self._keys.popitem()
        value = getattr(self, key)
        delattr(self, key)
        return key, value

    def clear(self):
        for key in list(self._keys):
            del self[key]

    def copy(self):
        """A new ParameterDict holding the same parameters."""
        return ParameterDict(OrderedDict(self.items()))

    def fromkeys(self, keys, default=None):
        return ParameterDict((key, default) for key in keys)

    def update(self, parameters):
        if isinstance(parameters, Mapping) and not isinstance(parameters, OrderedDict):
            parameters = OrderedDict(sorted(parameters.items()))
        # (sic: "ParametersDict" is how PyTorch's message spells it)
        for key, value in _pairs(parameters, "ParameterDict", "ParametersDict",
                                 (OrderedDict, ParameterDict)):
            self[key] = value

    def __or__(self, other):
        merged = self.copy()
        merged.update(other)
        return merged

    def __ror__(self, other):
        merged = other.copy()
        merged.update(self)
        return merged

    def __ior__(self, other):
        self.update(other)
        return self

    def extra_repr(self):
        return _entries_repr(self.items(), lambda tensor: tensor.type())

    def __call__(self, *args, **kwargs):
        raise RuntimeError("ParameterDict should not be called.")
