"""A count of the changes made to modules, so that a reader can tell cheaply that none was.

A ``Module`` keeps its state in its attributes and in a few dicts: its parameters, buffers,
submodules and hooks. Assigning or deleting an attribute, and writing into one of those
dicts, adds one to ``changes.count``. ``teachgrad.compile``'s guards compare the modules a
step reaches only when the count has moved since they last did, as dynamo's guards skip a
dict whose version tag has not moved. (Writing into ``module.__dict__`` directly is not
counted.)
"""
from collections import OrderedDict

from teachgrad.autograd.graph import HookDict

WRITES = ("__setitem__", "__delitem__", "__ior__", "pop", "popitem", "clear", "setdefault",
          "update", "move_to_end")


class Changes:
    __slots__ = ("count",)

    def __init__(self):
        self.count = 0


changes = Changes()


def _counted(write):
    def counted_write(self, *args, **kwargs):
        changes.count += 1
        return write(self, *args, **kwargs)
    counted_write.__name__ = write.__name__
    return counted_write


def counting_writes(cls):
    """``cls``, a dict type, with every method that writes counting one change."""
    for name in WRITES:
        setattr(cls, name, _counted(getattr(cls, name)))
    return cls


@counting_writes
class Registry(OrderedDict):
    """A module's parameters, buffers or submodules, by name."""


@counting_writes
class ModuleHooks(HookDict):
    """A module's forward or backward hooks, by handle id."""
