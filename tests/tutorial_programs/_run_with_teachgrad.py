"""Run a tutorial program with teachgrad standing in for torch.

usage: python _run_with_teachgrad.py PROGRAM.py

Every ``import torch`` or ``import torch.X.Y`` (``from torch.utils.data import
DataLoader``, ``torch.optim.lr_scheduler``, ``torch.autograd.profiler``...) in PROGRAM
gets ``teachgrad`` or ``teachgrad.X.Y``; a submodule teachgrad lacks fails with
ModuleNotFoundError, as a missing piece should.
"""
import importlib
import importlib.abc
import importlib.util
import os
import runpy
import sys

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)


class TorchIsTeachgrad(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``torch`` and ``torch.*`` as the matching teachgrad modules."""

    def find_spec(self, fullname, path, target=None):
        if fullname == "torch" or fullname.startswith("torch."):
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        return importlib.import_module("teachgrad" + spec.name[len("torch"):])

    def exec_module(self, module):
        """The teachgrad module is already executed."""


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.meta_path.insert(0, TorchIsTeachgrad())
    program = os.path.abspath(sys.argv[1])
    sys.argv = [program]
    sys.path.insert(0, os.path.dirname(program))
    runpy.run_path(program, run_name="__main__")
