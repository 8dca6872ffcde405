"""Build checks: the student's own autograd (``yourgrad``) against teachgrad, stage by stage.

    from teachgrad.course import check
    check.build("03")

runs the checks of chapters 01, 02 and 03 against the ``yourgrad`` package beside the notebook
and prints one line a check::

    ✔ 03 backward through the lecture's four-weight graph
    ✘ 03 gradients of broadcast inputs ...: b.grad: shape (2, 3) differs from teachgrad's — hint: …
    … 03 a 100,000-deep chain runs backward: not attempted yet (chapter 03: walk the graph ...)

Each check is one of the lecture's own examples, written once as a function of the module
(``torch``): it runs on teachgrad and on the student's package, and what both saw — values,
gradients, node names, ``next_functions``, flags, versions, errors and warnings — is compared.
Nothing expected is copied into a check: teachgrad computes it. A line says *what* differs and
gives a hint, never the answer. Checks live in ``stage_NN.py``, one module per chapter.
"""
import importlib
import types
from pathlib import Path

from teachgrad.course.build.compare import Check, Differ, run_check

STAGES = ["01", "02", "03", "04", "05", "06", "07", "08", "09", "10"]

__all__ = ["run", "checks_of", "STAGES", "Check", "Differ"]


def checks_of(stage):
    """The checks of one chapter, in the order they run."""
    return importlib.import_module(f"teachgrad.course.build.stage_{stage}").CHECKS


def run(stage, package=None):
    """Run the checks of `stage` and of every earlier chapter against the student's package.

    `package` is a module, a module name, or None for ``import yourgrad`` (the package beside
    the notebook). Returns a :class:`teachgrad.course.check.Result`: true when all passed."""
    from teachgrad.course import check

    stage = f"{int(stage):02d}"
    if stage not in STAGES:
        raise ValueError(f"no build stage {stage!r}: the stages are {', '.join(STAGES)}")
    if not isinstance(package, types.ModuleType):
        try:
            package = importlib.import_module(package or "yourgrad")
        except Exception as error:          # noqa: BLE001 — a broken package is one line too
            where = f" ({Path(error.filename).name}, line {error.lineno})" if isinstance(
                error, SyntaxError) else ""
            line = (f"✘ your package does not import: {type(error).__name__}: "
                    f"{str(error).splitlines()[0] if str(error) else ''}{where} — hint: fix "
                    "that line first; every check needs the package")
            print(line)
            return check.Result(check.WRONG, line)
    lines, statuses = [], []
    for number in STAGES[:STAGES.index(stage) + 1]:
        for one_check in checks_of(number):
            status, line = run_check(one_check, package)
            print(line)
            lines.append(line)
            statuses.append(status)
    if all(s == check.CORRECT for s in statuses):
        overall = check.CORRECT
    elif check.WRONG in statuses:
        overall = check.WRONG
    else:
        overall = check.NOT_ATTEMPTED
    return check.Result(overall, "\n".join(lines))
