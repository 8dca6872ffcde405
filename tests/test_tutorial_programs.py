"""Tutorial-style programs run unchanged under teachgrad (issue 20).

Each program in ``tests/tutorial_programs`` (our own, in the style of PyTorch's
tutorials: the two-layer network with tensors, with autograd, with a custom Function,
with nn and with optim; a polynomial fit; a state_dict saved and loaded; a tiny data
pipeline; and more) runs twice in a subprocess: with torch, and with teachgrad
answering every ``import torch...`` (``tutorial_programs/_run_with_teachgrad.py``).
The two stdouts must be equal once ``teachgrad.`` is read as ``torch.``.

Run:  .venv/bin/python -m pytest tests/test_tutorial_programs.py -q
"""
import difflib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
PROGRAM_DIR = HERE / "tutorial_programs"
LAUNCHER = PROGRAM_DIR / "_run_with_teachgrad.py"
PROGRAMS = sorted(PROGRAM_DIR.glob("t[0-9][0-9]_*.py"))


def normalise(text):
    """The one legitimate difference: the package's name before a qualified name."""
    return re.sub(r"\bteachgrad\.", "torch.", text)


def run(*args):
    env = dict(os.environ, PYTHONHASHSEED="0", PYTHONIOENCODING="utf-8")
    return subprocess.run([sys.executable, *map(str, args)], capture_output=True, text=True,
                          encoding="utf-8", timeout=300, env=env, cwd=str(PROGRAM_DIR))


def test_programs_found():
    assert len(PROGRAMS) >= 8
    names = " ".join(p.stem for p in PROGRAMS)
    for topic in ("tensors", "autograd", "custom_function", "nn_module", "optim",
                  "polynomial", "state_dict", "data_pipeline"):
        assert topic in names, topic


def test_normalise_changes_only_the_package_name():
    assert normalise("teachgrad.float32 <teachgrad.autograd.function.F>") == \
        "torch.float32 <torch.autograd.function.F>"
    assert normalise("myteachgrad.x teachgrad") == "myteachgrad.x teachgrad"


@pytest.mark.parametrize("program", PROGRAMS, ids=[p.stem for p in PROGRAMS])
def test_program_prints_what_torch_prints(program):
    pytest.importorskip("torch")
    expected = run(program)
    assert expected.returncode == 0, f"the program fails under torch:\n{expected.stderr}"
    got = run(LAUNCHER, program)
    if got.returncode != 0 or normalise(got.stdout) != expected.stdout:
        diff = "\n".join(difflib.unified_diff(expected.stdout.splitlines(),
                                              normalise(got.stdout).splitlines(),
                                              "torch", "teachgrad", lineterm=""))
        pytest.fail(f"{program.name} differs (exit {got.returncode}):\n{diff}\n"
                    f"{got.stderr[-2000:]}", pytrace=False)
