"""The submission's process: run every build check on one student's package, report data only.

Started by the grader as ``python -I -B -m teachgrad.course.grade.child SETTINGS`` in the
submission's temporary copy. In order, it

1. confines itself (:mod:`teachgrad.course.grade.confine`): CPU, memory and file-size limits,
   and no writes outside the copy;
2. loads the checks (they need teachgrad to prepare some inputs, such as lecture 09's data);
3. hides teachgrad from the student: every ``teachgrad`` and ``torch`` module leaves
   ``sys.modules``, and importing either fails for any code but teachgrad's own
   (:class:`ImportGuard`);
4. imports ``yourgrad`` from the copy, runs the checks from number ``start`` on, and writes one
   JSON line per check to the grader's pipe: what the check saw, encoded by
   :mod:`teachgrad.course.build.snapshot`. No verdict is formed here: the grader compares.
"""
import builtins
import errno
import hashlib
import importlib
import json
import os
import sys
import warnings

from teachgrad.course import build
from teachgrad.course.build import snapshot
from teachgrad.course.grade import confine

FORBIDDEN = ("teachgrad", "torch")
REFUSAL = ("No module named {name!r} (while your package is graded, teachgrad and torch "
           "cannot be imported: yourgrad is built on numpy alone)")


def root(name):
    return name.partition(".")[0]


class ImportGuard:
    """Imports of teachgrad and torch fail, except teachgrad's imports of its own modules."""

    def __init__(self):
        self.hidden, self.revealing = {}, 0     # revealing: depth of nested own imports
        self.hide()
        self.original_import, self.original_import_module = (builtins.__import__,
                                                              importlib.import_module)
        builtins.__import__ = self.guarded_import
        importlib.import_module = self.guarded_import_module
        sys.meta_path.insert(0, self)

    def hide(self):
        for name in [n for n in sys.modules if root(n) in FORBIDDEN]:
            self.hidden[name] = sys.modules.pop(name)

    def find_spec(self, name, path=None, target=None):
        """The meta-path finder: nothing named teachgrad or torch is found from disk."""
        if root(name) == "torch" or (root(name) == "teachgrad" and not self.revealing):
            raise ModuleNotFoundError(REFUSAL.format(name=name), name=name)
        return None

    def guarded_import(self, name, globals=None, locals=None, fromlist=(), level=0):
        importer = (globals or {}).get("__name__") or ""
        if root(importer) != "teachgrad":
            if level == 0 and root(name) in FORBIDDEN:
                raise ModuleNotFoundError(REFUSAL.format(name=name), name=name)
            return self.original_import(name, globals, locals, fromlist, level)
        if level == 0 and name in self.hidden and all(
                hasattr(self.hidden[name], item) for item in fromlist or () if item != "*"):
            return self.hidden[name] if fromlist else self.hidden[root(name)]
        return self.revealed(self.original_import, name, globals, locals, fromlist, level)

    def guarded_import_module(self, name, package=None):
        importer = sys._getframe(1).f_globals.get("__name__") or ""
        if root(importer) == "teachgrad":
            return self.revealed(self.original_import_module, name, package)
        if root(name) in FORBIDDEN:
            raise ModuleNotFoundError(REFUSAL.format(name=name), name=name)
        return self.original_import_module(name, package)

    def revealed(self, do_import, *args):
        """Run one of teachgrad's own imports with its modules back in place, then hide them
        (once the outermost of nested imports is done)."""
        sys.modules.update(self.hidden)
        self.revealing += 1
        try:
            return do_import(*args)
        finally:
            self.revealing -= 1
            if not self.revealing:
                self.hide()


class Reporter:
    """One JSON line per event on the grader's pipe (a file descriptor of the child's own)."""

    def __init__(self, fd):
        self.fd = fd

    def send(self, **event):
        data = (json.dumps(event) + "\n").encode()
        while data:
            data = data[os.write(self.fd, data):]


def trouble_of(error):
    """The output flood: past the file-size limit, a write fails with EFBIG (Python ignores
    SIGXFSZ)."""
    if isinstance(error, OSError) and error.errno == errno.EFBIG:
        return {"flooded": True}
    return None


def outcome_of(scenario, package):
    """What running a check's scenario on the student's package gave, as data."""
    try:
        seen = scenario(package)
    except NotImplementedError as stub:
        return {"todo": str(stub).strip()}
    except RecursionError:
        return {"recursion": True}
    except MemoryError:
        return {"out_of_memory": True}
    except BaseException as error:          # noqa: BLE001 — sys.exit in a check is ✘ too
        return trouble_of(error) or {"raised": type(error).__name__, "message": str(error)}
    if not isinstance(seen, dict):
        return {"raised": "TypeError", "message": f"the check saw {type(seen).__name__}"}
    return {"seen": {str(label): snapshot.encode(value) for label, value in seen.items()}}


def import_package():
    """Import ``yourgrad``; None, or what went wrong as data."""
    try:
        importlib.import_module("yourgrad")
    except MemoryError:
        return {"out_of_memory": True}
    except BaseException as error:          # noqa: BLE001 — SystemExit at import is noted too
        if trouble_of(error):
            return trouble_of(error)
        where = {}
        if isinstance(error, SyntaxError):
            where = {"file": os.path.basename(error.filename or ""), "line": error.lineno}
        return {"raised": type(error).__name__, "message": str(error), **where}
    return None


def digest(checks):
    """A fingerprint of the checks' names and order: the grader's and the child's must agree."""
    return hashlib.sha256("\n".join(f"{c.stage} {c.name}" for c in checks).encode()).hexdigest()


def main(settings):
    reporter = Reporter(settings["fd"])
    confine.set_limits(settings["cpu_seconds"], settings["memory_bytes"], settings["file_bytes"])
    confined = confine.restrict_writes(settings["writable_root"])
    checks = [check for stage in build.STAGES for check in build.checks_of(stage)]
    scenarios = [c.scenario for c in checks[settings["start"]:]]   # before the package can edit
    reporter.send(event="ready", confined=confined, checks=digest(checks))
    ImportGuard()
    sys.path[:0] = [settings["package_parent"]]
    failure = import_package()
    if failure is not None:
        reporter.send(event="import_failed", **failure)
        return
    package = sys.modules["yourgrad"]
    reporter.send(event="imported")
    for number, scenario in enumerate(scenarios, settings["start"]):
        confine.allow_cpu(settings["cpu_seconds"])
        with warnings.catch_warnings():
            reporter.send(event="result", index=number, **outcome_of(scenario, package))
    reporter.send(event="done")


if __name__ == "__main__":
    main(json.loads(sys.argv[1]))
