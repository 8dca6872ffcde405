"""Modules that hold other modules: ``Sequential`` (a pipeline) and ``ModuleList`` (a list)."""
import operator
from collections import OrderedDict

from teachgrad.nn.module import Module, _indent


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
