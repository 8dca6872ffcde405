"""The grader, python -m teachgrad.course.grade, on a class of mixed and hostile submissions.

One run grades the reference (the positive control), a broken copy, the stubs ("not
attempted") and packages that loop forever, hoard memory, crash the interpreter, exit at import,
patch the checks or numpy, write outside their copy, flood the output, rewrite their printed
verdicts, or import teachgrad — plus an empty folder and zips that hold no package. Each must
get its cell; the reference, the broken copy and the stubs exactly the lines check.build prints
beside them; and the run must end.
"""
import csv
import ctypes
import fcntl
import html
import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

import teachgrad
from teachgrad.course import build
from teachgrad.course.build import snapshot
from teachgrad.course.build.compare import Raised
from teachgrad.course.check import CORRECT, NOT_ATTEMPTED, WRONG
from teachgrad.course.grade import confine, report, sandbox, submissions

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the sandbox is POSIX/Linux")

ROOT = Path(__file__).resolve().parent.parent
REFERENCE, STUBS = ROOT / "solutions" / "yourgrad", ROOT / "exercises" / "yourgrad"
WRITTEN_IN_REPOSITORY = ROOT / "tests" / "written_by_a_submission.txt"
WRITTEN_IN_GRADES = "written_by_a_submission.txt"
LIMITS = ["--cpu-seconds", "10", "--timeout", "180", "--memory-mb", "768", "--output-kb", "256"]

SUM_TWICE = """
_sum_once = Tensor.sum
def _sum_twice(self, *args, **kwargs):          # a plausible slip: the sum counted twice
    total = _sum_once(self, *args, **kwargs)
    return total + total
Tensor.sum = _sum_twice
"""
LOOP = "while True:\n    pass\n"
HOARD = "_hoard = bytearray(4 << 30)\n"
EXIT = "import sys\nsys.exit(0)\n"
FLOOD = "print('x' * (4 << 20))\n"
SEGFAULT_IN_REPR = """
import ctypes as _ctypes
def _crash(self):
    _ctypes.string_at(0)
Tensor.__repr__ = _crash
"""
PATCH_THE_CHECKS = """
import gc, importlib, sys
import numpy
numpy.allclose = numpy.array_equal = lambda *args, **kwargs: True
for _name in ("teachgrad.course.build.compare", "torch"):
    try:
        importlib.import_module(_name).compare = lambda *args, **kwargs: None
    except ImportError:
        pass
for _module in [m for n, m in list(sys.modules.items()) if n.startswith("teachgrad")]:
    _module.run_check = lambda check, package: ("correct", "✔ " + check.name)
for _object in gc.get_objects():
    if type(_object).__name__ == "Check":
        _object.scenario = lambda torch: {}
"""
REWRITE_THE_OUTPUT = """
import sys
class _AllGreen:
    def __init__(self, stream):
        self.stream = stream
    def write(self, text):
        return self.stream.write(text.replace("✘", "✔").replace("…", "✔"))
    def flush(self):
        self.stream.flush()
sys.stdout = _AllGreen(sys.stdout)
print("✔ 01 every check passed")
"""
IMPORT_TEACHGRAD = "import teachgrad as _real\ntensor = _real.tensor\n"
REACH_FOR_TEACHGRAD = """
import importlib, importlib.util, sys
def _reach():
    yield lambda: sys.modules["teachgrad"]
    yield lambda: sys.modules["teachgrad.course.build.compare"]
    yield lambda: importlib.import_module("teachgrad")
    yield lambda: __import__("teachgrad.tensor")
    yield lambda: importlib.util.find_spec("teachgrad").loader
    yield lambda: importlib.import_module("torch")
    yield lambda: __import__("torch")
for _route in _reach():
    try:
        _route()
    except Exception:
        continue
    sys.exit(5)                     # a way to teachgrad or torch was open: the test sees "crashed"
"""


CELLS = {  # student -> the status the grader must give
    "reference": "graded", "stubs": NOT_ATTEMPTED, "broken_sum": "graded",
    "infinite_loop": "timed out",
    "large_allocation": "out of memory", "segfault": "crashed",
    "patches_the_checks": NOT_ATTEMPTED, "writes_outside": NOT_ATTEMPTED,
    "prints_megabytes": "crashed", "rewrites_its_output": NOT_ATTEMPTED,
    "imports_teachgrad": "does not import", "reaches_for_teachgrad": NOT_ATTEMPTED,
    "empty": "no package",
    "exits_at_import": "crashed", "zip_of_notes": "no package",
    "not_even_a_zip": "no package"}


def write_outside(targets):
    """A package that tries to write each of `targets` (and notes nothing: it cannot report)."""
    lines = ["import os"]
    for target in targets:
        lines.append(f"try:\n    open({str(target)!r}, 'a').write('written by a submission\\n')"
                     "\nexcept OSError:\n    pass")
    return "\n".join(lines) + "\n"


def package(folder, source, append="", file="__init__.py"):
    """A copy of `source` as folder/yourgrad, with `append` added to one of its modules."""
    target = folder / "yourgrad"
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
    with open(target / file, "a") as module:
        module.write("\n" + append)
    return folder


def zipped(path, files):
    with zipfile.ZipFile(path, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)


def make_class(folder, out):
    """The class of :data:`CELLS`, a folder or zip file a student."""
    folder.mkdir()
    package(folder / "reference", REFERENCE)
    package(folder / "stubs", STUBS)
    package(folder / "broken_sum", REFERENCE, SUM_TWICE, file="tensor.py")
    package(folder / "infinite_loop", STUBS, LOOP)
    package(folder / "large_allocation", STUBS, HOARD)
    package(folder / "segfault", REFERENCE, SEGFAULT_IN_REPR, file="tensor.py")
    package(folder / "patches_the_checks", STUBS, PATCH_THE_CHECKS)
    package(folder / "writes_outside", STUBS, write_outside(
        [WRITTEN_IN_REPOSITORY, out / WRITTEN_IN_GRADES, folder / "stubs" / "yourgrad" /
         "__init__.py"]))
    package(folder / "prints_megabytes", STUBS, FLOOD)
    package(folder / "rewrites_its_output", STUBS, REWRITE_THE_OUTPUT)
    package(folder / "imports_teachgrad", STUBS, IMPORT_TEACHGRAD)
    package(folder / "reaches_for_teachgrad", STUBS, REACH_FOR_TEACHGRAD)
    (folder / "empty").mkdir()
    zipped(folder / "exits_at_import.zip", {"yourgrad/__init__.py": EXIT})
    zipped(folder / "zip_of_notes.zip", {"README.txt": "my notes", "notes/ideas.py": "x = 1\n"})
    (folder / "not_even_a_zip.zip").write_text("hello")



def grade(submissions_folder, out, *options):
    return subprocess.run([sys.executable, "-m", "teachgrad.course.grade",
                           str(submissions_folder), "--out", str(out), *LIMITS, *options],
                          capture_output=True, text=True, timeout=900, cwd=out.parent)


def grade_the_class(base):
    """Grade the class once; what the tests read is left in base/facts.json and base/grades."""
    folder, out = base / "submissions", base / "grades"
    out.mkdir(parents=True)
    make_class(folder, out)
    stubs_init = (folder / "stubs" / "yourgrad" / "__init__.py").read_text()
    WRITTEN_IN_REPOSITORY.unlink(missing_ok=True)
    try:
        run = grade(folder, out)
        written = [str(p) for p in (WRITTEN_IN_REPOSITORY, out / WRITTEN_IN_GRADES) if p.exists()]
    finally:
        WRITTEN_IN_REPOSITORY.unlink(missing_ok=True)
    facts = {"returncode": run.returncode, "stdout": run.stdout, "stderr": run.stderr,
             "written": written,
             "stubs_unchanged": stubs_init == (folder / "stubs" / "yourgrad" /
                                               "__init__.py").read_text()}
    (base / "facts.json").write_text(json.dumps(facts))


@pytest.fixture(scope="module")
def graded_class(tmp_path_factory, worker_id):
    """The class, graded once a session: pytest-xdist's workers share it under a lock."""
    shared = tmp_path_factory.getbasetemp()
    if worker_id != "master":
        shared = shared.parent
    base = shared / "graded_class"
    with open(shared / "graded_class.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (base / "facts.json").exists():
            grade_the_class(base)
    data = json.loads((base / "grades" / "grades.json").read_text())
    return SimpleNamespace(**json.loads((base / "facts.json").read_text()), out=base / "grades",
                           submissions=base / "submissions",
                           students={s["student"]: s for s in data["students"]})


def check_build_lines(folder):
    """What check.build("10") prints beside the package in `folder`, as in a notebook."""
    run = subprocess.run([sys.executable, "-c", "from teachgrad.course import check; "
                          f"check.build({build.STAGES[-1]!r})"], cwd=folder,
                         capture_output=True, text=True, timeout=900)
    return run.stdout.splitlines()


def lines_of(student):
    return [result[2] for result in student["results"]]


def total(student):
    return sum(result[1] == CORRECT for result in student["results"])


def test_the_run_finishes_with_a_progress_bar_and_a_summary(graded_class):
    count = len(CELLS)
    assert graded_class.returncode == 0, graded_class.stderr[-3000:]
    assert "grading [" in graded_class.stderr and f"{count}/{count}" in graded_class.stderr
    assert graded_class.stdout.startswith(f"graded {count} submissions in ")


@pytest.mark.parametrize("student", CELLS)
def test_each_submission_gets_its_cell(graded_class, student):
    assert graded_class.students[student]["status"] == CELLS[student], \
        graded_class.students[student]["detail"]


@pytest.mark.parametrize("student", ["reference", "stubs", "broken_sum"])
def test_the_controls_get_check_builds_own_lines(graded_class, student):
    lines = lines_of(graded_class.students[student])
    assert lines == check_build_lines(graded_class.submissions / student)


def test_the_reference_passes_checks_the_broken_copy_fewer_and_the_stubs_none(graded_class):
    reference, broken = (graded_class.students[name] for name in ("reference", "broken_sum"))
    assert total(reference) > len(lines_of(reference)) // 2
    assert 0 < total(broken) < total(reference)
    assert all(r[1] == NOT_ATTEMPTED for r in graded_class.students["stubs"]["results"])


@pytest.mark.parametrize("student", ["patches_the_checks", "rewrites_its_output",
                                     "imports_teachgrad", "reaches_for_teachgrad",
                                     "infinite_loop", "prints_megabytes"])
def test_hostile_packages_pass_nothing(graded_class, student):
    assert total(graded_class.students[student]) == 0


def test_a_crash_in_one_check_costs_that_check_only(graded_class):
    """The segfault is in Tensor.__repr__: the checks that print a tensor crash (each in a new
    process), every other check is graded as on the reference."""
    reference = graded_class.students["reference"]["results"]
    crashed = graded_class.students["segfault"]["results"]
    differing = [c for r, c in zip(reference, crashed) if r != c]
    assert 1 <= len(differing) <= sandbox.RESTARTS + 1
    assert differing[0][2].startswith("✘ 01 printing like PyTorch: crashed (killed by SIGSEGV)")
    assert all(c[3] == "crashed" and "crashed (killed by SIGSEGV)" in c[2] for c in differing)


@pytest.mark.skipif(confine.landlock_abi(ctypes.CDLL(None)) < 1,
                    reason="this kernel has no Landlock: writes cannot be confined")
def test_writes_outside_the_copy_change_nothing(graded_class):
    assert graded_class.written == []
    assert graded_class.stubs_unchanged
    assert graded_class.students["writes_outside"]["results"] == \
        graded_class.students["stubs"]["results"]
    rows = list(csv.reader(open(graded_class.out / "grades.csv")))
    assert "written by a submission" not in "".join(map(str, rows))


def test_the_csv_has_a_row_a_student_and_numbers_per_stage(graded_class):
    rows = list(csv.reader(open(graded_class.out / "grades.csv")))
    header, body = rows[0], rows[1:]
    sizes = [len(build.checks_of(stage)) for stage in build.STAGES]
    assert header == (["student"] + [f"stage {s} (of {n})" for s, n in zip(build.STAGES, sizes)]
                      + [f"total (of {sum(sizes)})", "status"])
    assert [row[0] for row in body] == sorted(CELLS)
    for row in body:
        student = graded_class.students[row[0]]
        per_stage = [sum(r[1] == CORRECT for r in student["results"] if r[0] == stage)
                     for stage in build.STAGES]
        assert [int(n) for n in row[1:-2]] == per_stage
        assert int(row[-2]) == sum(per_stage) and row[-1] == student["status"]


def test_the_report_shows_each_failing_line(graded_class):
    text = (graded_class.out / "report.html").read_text()
    crashed = [r[2] for r in graded_class.students["segfault"]["results"] if r[3]]
    wrong = [r[2] for r in graded_class.students["broken_sum"]["results"] if r[1] == WRONG]
    assert crashed and wrong and all(html.escape(line) in text for line in crashed + wrong)
    assert "does not import: ModuleNotFoundError: No module named &#x27;teachgrad&#x27;" in text


def test_shards_merge_into_the_whole_class(tmp_path):
    folder = tmp_path / "cheap"
    folder.mkdir()
    for name in ["ann", "bob", "cy", "dee", "eve"]:
        (folder / name).mkdir()
    (folder / "bob" / "notes.txt").write_text("no code yet")
    whole, shards = grade(folder, tmp_path / "whole"), [tmp_path / f"shard{i}" for i in (1, 2)]
    for number, out in enumerate(shards, 1):
        assert grade(folder, out, "--shard", f"{number}/2").returncode == 0
    assert whole.returncode == 0
    students = [[row[0] for row in csv.reader(open(out / "grades.csv"))][1:] for out in shards]
    assert students == [["ann", "cy", "eve"], ["bob", "dee"]]
    merged = subprocess.run([sys.executable, "-m", "teachgrad.course.grade", "merge",
                             *(str(out / "grades.csv") for out in shards),
                             "--out", str(tmp_path / "merged")], capture_output=True, text=True)
    assert merged.returncode == 0, merged.stderr
    for name in report.NAMES:
        assert (tmp_path / "merged" / name).read_text() == (tmp_path / "whole" / name).read_text()


# ------------------------------------------------------------- the pieces, one by one

def test_snapshots_keep_tensors_errors_and_tuples():
    seen = {"t": teachgrad.tensor([1.5, 2.0]), "error": Raised("RuntimeError", "boom"),
            "shape": (2, 3), "names": [("MulBackward0", 0)], "n": np.float32(0.5)}
    back = {k: snapshot.decode(json.loads(json.dumps(snapshot.encode(v, trusted=True))))
            for k, v in seen.items()}
    assert np.array_equal(back["t"].array, np.array([1.5, 2.0], dtype=np.float32))
    assert back["t"].array.dtype == np.float32 and back["t"].grad_fn is None
    assert (back["error"].kind, back["error"].message) == ("RuntimeError", "boom")
    assert back["shape"] == (2, 3) and type(back["shape"]) is tuple
    assert back["names"] == [("MulBackward0", 0)]
    assert back["n"] == np.float32(0.5) and back["n"].dtype == np.float32


def test_a_snapshot_keeps_no_lies_and_no_borrowed_tensors():
    class AlwaysEqual(str):
        def __eq__(self, other):
            return True

    class Liar:
        def __eq__(self, other):
            return True

    class Broken:
        shape, grad_fn = (1,), None

        @property
        def array(self):
            raise ValueError("no array here")

    def through(value):
        return snapshot.decode(json.loads(json.dumps(snapshot.encode(value))))
    assert through(AlwaysEqual("abc")) != "xyz"
    assert through(Liar()) != Liar()
    assert isinstance(through(teachgrad.tensor([1.0])), snapshot.Foreign)
    with pytest.raises(Exception, match="no array here"):
        through(Broken()).shape


def test_a_package_that_sleeps_is_stopped_by_the_wall_clock(tmp_path):
    package(tmp_path, STUBS, "import time\ntime.sleep(600)\n")
    run = sandbox.run_child(str(tmp_path), str(tmp_path), 0, sandbox.Limits(wall_seconds=3),
                            str(tmp_path / "output.txt"))
    assert run.ending == ("timed out", "still running after 3 s")


def test_a_folder_and_a_zip_of_one_name_are_two_students(tmp_path):
    (tmp_path / "ann").mkdir()
    zipped(tmp_path / "ann.zip", {"yourgrad/__init__.py": ""})
    zipped(tmp_path / "bob.zip", {"yourgrad/__init__.py": ""})
    assert [name for name, _ in submissions.find(tmp_path)] == ["ann", "ann.zip", "bob"]


def test_a_zip_may_not_leave_its_folder(tmp_path):
    zipped(tmp_path / "sly.zip", {"../escaped.py": "x = 1\n", "yourgrad/__init__.py": ""})
    with pytest.raises(submissions.NoPackage, match="outside"):
        submissions.unpack(tmp_path / "sly.zip", tmp_path / "copy")
    assert not (tmp_path / "escaped.py").exists()
