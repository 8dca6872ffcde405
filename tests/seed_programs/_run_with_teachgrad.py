"""Run a seed program with teachgrad standing in for torch.

usage: python _run_with_teachgrad.py PROGRAM.py

`import torch` (and `torch.nn`, `torch.nn.functional`, `torch.autograd`,
`torch.optim`, `torch.utils`, `torch.utils.data`) in PROGRAM then gets the
matching teachgrad module.  Submodules that teachgrad does not have (yet)
are left unmapped, so a program that uses them fails with ImportError.
"""
import importlib
import os
import runpy
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
_ROOT = os.path.dirname(os.path.dirname(_HERE))
# make a source checkout importable without installation (repo root or src/)
for _p in (os.path.join(_ROOT, "src"), _ROOT):
    if os.path.isdir(_p) and _p not in sys.path:
        sys.path.insert(0, _p)

# TEACHGRAD_SELFTEST=1 (the project's self-test convention): leave the real
# torch in place, so the comparison checks the test machinery itself.
if os.environ.get("TEACHGRAD_SELFTEST") != "1":
    import teachgrad

    sys.modules["torch"] = teachgrad
    for _sub in ("nn", "nn.functional", "autograd", "optim", "utils", "utils.data"):
        try:
            _mod = importlib.import_module("teachgrad." + _sub)
        except ImportError:
            continue
        sys.modules["torch." + _sub] = _mod

if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    program = os.path.abspath(sys.argv[1])
    sys.argv = [program]
    sys.path.insert(0, os.path.dirname(program))
    runpy.run_path(program, run_name="__main__")
