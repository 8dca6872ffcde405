"""Tests of the course's tooling: exercises generated from solutions, honest notebooks, the nbval
set-up, and the feedback helpers of teachgrad.course.check.

The checks on the real folders (exercises/ up to date, no solution leaked, notebooks executed
in order) run on whatever notebooks exist; the tests after them show, on temporary copies,
that each kind of mistake makes those checks — and nbval — fail.
"""
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

import teachgrad as torch
from teachgrad.course import check, make_exercises, nbval_plugin, run_notebooks

ROOT = Path(__file__).resolve().parents[1]
SOLUTIONS, EXERCISES = ROOT / "solutions", ROOT / "exercises"
EXECUTED_DIRS = [ROOT / "notebooks", SOLUTIONS]
STUB_TAG = make_exercises.STUB_TAG


# ---------------------------------------------------------------- the checks themselves

def execution_problems(path):
    """Why a notebook was not run top to bottom in a fresh kernel (empty list: it was)."""
    nb = nbformat.read(path, as_version=4)
    problems, expected = [], 1
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        where = f"{path.name}, cell {index}"
        if not cell.source.strip():
            if cell.execution_count is not None or cell.outputs:
                problems.append(f"{where}: an empty cell with an execution count or output")
            continue
        if cell.execution_count != expected:
            problems.append(f"{where}: execution count {cell.execution_count}, expected "
                            f"{expected} — run `make notebooks`")
            return problems
        expected += 1
        allowed = STUB_TAG in cell.metadata.get("tags", [])
        for output in cell.outputs:
            if output.output_type == "error" and not allowed:
                problems.append(f"{where}: a stored {output.ename} in a cell without the "
                                f"{STUB_TAG} tag")
            if output.output_type == "execute_result" and \
                    output.execution_count != cell.execution_count:
                problems.append(f"{where}: an output from another run")
    return problems


def _block_lines(source):
    """(lines inside solution/hidden-test blocks, lines outside them), stripped, non-blank."""
    lines = source.split("\n")
    inside = set()
    for begin, end in [(make_exercises.BEGIN_SOLUTION, make_exercises.END_SOLUTION),
                       (make_exercises.BEGIN_HIDDEN, make_exercises.END_HIDDEN)]:
        for start, stop in make_exercises._blocks(lines, begin, end, "cell"):
            inside.update(range(start, stop + 1))
    hidden = {lines[i].strip() for i in inside} - {""}
    shown = {line.strip() for i, line in enumerate(lines) if i not in inside} - {""}
    return hidden, shown


def leak_problems(solutions_dir, exercises_dir):
    """Lines of solution (or hidden-test) blocks that appear anywhere in an exercise notebook,
    and lines of a package's blocks that appear in the exercise package.

    Lines that the solution also shows outside its blocks are not secrets.
    """
    problems = []
    for solution_path in sorted(Path(solutions_dir).glob("*.ipynb")):
        exercise_path = Path(exercises_dir) / solution_path.name
        if not exercise_path.exists():
            continue
        hidden, shown = set(), set()
        for cell in nbformat.read(solution_path, as_version=4).cells:
            h, s = _block_lines(cell.source)
            hidden |= h
            shown |= s
        secrets = hidden - shown
        for index, cell in enumerate(nbformat.read(exercise_path, as_version=4).cells):
            text = cell.source + "".join(str(o.get("text", "")) + str(o.get("data", ""))
                                         for o in cell.get("outputs", []))
            for line in sorted({line.strip() for line in text.split("\n")} & secrets):
                problems.append(f"{exercise_path.name}, cell {index}: solution line {line!r}")
    return problems + package_leak_problems(Path(solutions_dir), Path(exercises_dir))


def package_leak_problems(solutions_dir, exercises_dir):
    """Lines of the packages' solution blocks that appear in an exercise package's .py file
    (lines that some solution module shows outside its blocks are not secrets)."""
    hidden, shown = set(), set()
    for relative in make_exercises.package_files(solutions_dir):
        if relative.suffix == ".py":
            h, s = _block_lines((solutions_dir / relative).read_text(encoding="utf-8"))
            hidden |= h
            shown |= s
    secrets = hidden - shown
    problems = []
    for relative in make_exercises.package_files(exercises_dir):
        if relative.suffix == ".py":
            lines = (exercises_dir / relative).read_text(encoding="utf-8").split("\n")
            problems += [f"{relative.as_posix()}, line {number}: solution line {line.strip()!r}"
                         for number, line in enumerate(lines, start=1)
                         if line.strip() in secrets]
    return problems


def executed_notebooks():
    return [p for d in EXECUTED_DIRS for p in sorted(d.glob("*.ipynb"))]


def test_exercises_are_generated_from_solutions():
    assert make_exercises.differences(SOLUTIONS, EXERCISES) == [], \
        "exercises/ drifted from solutions/: run `make exercises`"


def test_no_solution_line_in_exercises():
    assert leak_problems(SOLUTIONS, EXERCISES) == []


@pytest.mark.parametrize("path", executed_notebooks(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_notebook_executed_in_order(path):
    assert execution_problems(path) == []


ABSOLUTE_PATH = re.compile(r"(?<![\w.])/(?:[\w.-]+/)+[\w.-]+\.py\b")
ANSI_COLOUR = re.compile(r"\x1b\[[0-9;]*m")


def _output_texts(output):
    data = output.get("data", {})
    return [output.get("text", ""), *output.get("traceback", []), str(data.get("text/plain", ""))]


@pytest.mark.parametrize("path", executed_notebooks(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_stored_outputs_name_no_absolute_path(path):
    """Outputs must read the same on every machine: no path like /home/me/teachgrad/x.py,
    nor the kernel's temporary file for a cell (/tmp/ipykernel_4242/1473806898.py)."""
    texts = [ANSI_COLOUR.sub("", text) for cell in nbformat.read(path, as_version=4).cells
             for output in cell.get("outputs", []) for text in _output_texts(output)]
    found = [m for text in texts for m in ABSOLUTE_PATH.findall(text)]
    assert found == []


def test_printed_text_is_stored_as_one_output_per_stream():
    nb = new_notebook(cells=[new_code_cell("print(1); print(2)")])
    stream = nbformat.v4.new_output
    nb.cells[0].outputs = [stream("stream", name="stdout", text="1\n"),
                           stream("stream", name="stdout", text="2\n"),
                           stream("stream", name="stderr", text="careful\n"),
                           stream("stream", name="stdout", text="3\n")]
    run_notebooks.merge_streams(nb)
    assert [(o["name"], o["text"]) for o in nb.cells[0].outputs] == [
        ("stdout", "1\n2\n"), ("stderr", "careful\n"), ("stdout", "3\n")]


def test_warnings_are_stored_without_the_cell_file():
    nb = new_notebook(cells=[new_code_cell("warn()")])
    nb.cells[0].outputs = [nbformat.v4.new_output(
        "stream", name="stderr",
        text="/tmp/ipykernel_4242/1473806898.py:1: UserWarning: careful\n  warn()\n")]
    run_notebooks.drop_cell_file_names(nb)
    assert nb.cells[0].outputs[0]["text"] == "UserWarning: careful\n  warn()\n"


def test_shorten_tracebacks_keeps_only_the_error_line():
    nb = new_notebook(cells=[new_code_cell("1/0")])
    nb.cells[0].outputs = [nbformat.v4.new_output("error", ename="ZeroDivisionError",
                                                  evalue="division by zero",
                                                  traceback=["File /a/b/c.py:1", "ZeroDivisionError: x"])]
    run_notebooks.shorten_tracebacks(nb)
    assert nb.cells[0].outputs[0]["traceback"] == ["ZeroDivisionError: x"]


def test_solutions_carry_no_stub_tag():
    """raises-exception belongs to exercises only: in solutions/ every cell must run cleanly."""
    for path in sorted(SOLUTIONS.glob("*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            if make_exercises.BEGIN_SOLUTION in cell.source:
                assert STUB_TAG not in cell.metadata.get("tags", []), path.name


# ---------------------------------------------------------------- a sample chapter

SOLUTION_CELLS = [
    new_markdown_cell("# Sample\nTask: write `double`."),
    new_code_cell("from teachgrad.course import check"),
    new_code_cell("def double(x):\n    ### BEGIN SOLUTION\n    return x + x\n"
                  "    ### END SOLUTION", metadata={"tags": ["task"]}),
    new_code_cell("check.value(lambda: double(3), 6)\n### BEGIN HIDDEN TESTS\n"
                  "assert double(4) == 8\n### END HIDDEN TESTS"),
    new_code_cell("### BEGIN SOLUTION\nanswer = 41 + 1\n### END SOLUTION"),
    new_code_cell("check.value(lambda: answer, 42)"),
    new_markdown_cell("Why?\n### BEGIN SOLUTION\nBecause it doubles.\n### END SOLUTION"),
]


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    """solutions/ and exercises/ of a one-notebook course, the solution executed."""
    root = tmp_path_factory.mktemp("course")
    (root / "solutions").mkdir()
    path = root / "solutions" / "01_sample.ipynb"
    nbformat.write(new_notebook(cells=SOLUTION_CELLS), path, version=4)
    run_notebooks.run_notebook(path)
    make_exercises.write_exercises(root / "solutions", root / "exercises", log=lambda _: None)
    return root


def test_make_exercises_stubs_solutions_and_keeps_the_rest(sample):
    solution = nbformat.read(sample / "solutions" / "01_sample.ipynb", as_version=4)
    exercise = nbformat.read(sample / "exercises" / "01_sample.ipynb", as_version=4)
    sources = [c.source for c in exercise.cells]
    assert sources[2] == "def double(x):\n    raise NotImplementedError()"
    assert sources[3] == "check.value(lambda: double(3), 6)"
    assert sources[4] == "raise NotImplementedError()"
    assert sources[6] == "Why?\nYOUR ANSWER HERE"
    assert sources[0] == solution.cells[0].source
    assert exercise.cells[2].metadata["tags"] == ["task", STUB_TAG]
    assert exercise.cells[4].metadata["tags"] == [STUB_TAG]
    assert "tags" not in exercise.cells[5].metadata
    assert [c.id for c in exercise.cells] == [c.id for c in solution.cells]
    assert all(c.outputs == [] and c.execution_count is None
               for c in exercise.cells if c.cell_type == "code")
    assert all(STUB_TAG not in c.metadata.get("tags", []) for c in solution.cells)
    assert solution.cells[3].outputs[0].text == "✔ correct\n"


def test_make_exercises_is_deterministic(sample, tmp_path):
    make_exercises.write_exercises(sample / "solutions", tmp_path, log=lambda _: None)
    first = (tmp_path / "01_sample.ipynb").read_bytes()
    (tmp_path / "01_sample.ipynb").unlink()
    assert make_exercises.main([str(sample / "solutions"), str(tmp_path)]) == 0
    assert (tmp_path / "01_sample.ipynb").read_bytes() == first
    assert first == (sample / "exercises" / "01_sample.ipynb").read_bytes()
    assert make_exercises.main(["--check", str(sample / "solutions"), str(tmp_path)]) == 0


def test_unbalanced_markers_are_an_error():
    with pytest.raises(make_exercises.MarkerError, match="without"):
        make_exercises.strip_source("### BEGIN SOLUTION\nx = 1", "code")


def _copy(sample, tmp_path):
    for folder in ("solutions", "exercises"):
        (tmp_path / folder).mkdir()
        for path in (sample / folder).glob("*.ipynb"):
            (tmp_path / folder / path.name).write_bytes(path.read_bytes())
    return tmp_path


def test_an_exercise_edited_by_hand_is_caught(sample, tmp_path):
    course = _copy(sample, tmp_path)
    assert make_exercises.differences(course / "solutions", course / "exercises") == []
    path = course / "exercises" / "01_sample.ipynb"
    nb = nbformat.read(path, as_version=4)
    nb.cells[0].source += "\nA note added by hand."
    nbformat.write(nb, path, version=4)
    assert make_exercises.differences(course / "solutions", course / "exercises")
    assert make_exercises.main(["--check", str(course / "solutions"),
                                str(course / "exercises")]) == 1


def test_running_one_solution_regenerates_only_its_exercise(sample, tmp_path):
    course = _copy(sample, tmp_path)
    second = course / "solutions" / "02_other.ipynb"
    second.write_bytes((course / "solutions" / "01_sample.ipynb").read_bytes())
    stale = course / "exercises" / "02_other.ipynb"
    stale.write_text("another chapter's exercise, mid-edit")
    (course / "exercises" / "01_sample.ipynb").unlink()

    assert run_notebooks.main([str(course / "solutions" / "01_sample.ipynb")]) == 0
    assert stale.read_text() == "another chapter's exercise, mid-edit"
    assert make_exercises.differences(course / "solutions", course / "exercises") == \
        [f"{stale}: differs from what {second} generates"]

    assert run_notebooks.main([str(course / "solutions")]) == 0
    assert make_exercises.differences(course / "solutions", course / "exercises") == []


def test_a_solution_line_left_in_an_exercise_is_caught(sample, tmp_path):
    course = _copy(sample, tmp_path)
    assert leak_problems(course / "solutions", course / "exercises") == []
    path = course / "exercises" / "01_sample.ipynb"
    nb = nbformat.read(path, as_version=4)
    nb.cells[2].source = "def double(x):\n    return x + x"
    nbformat.write(nb, path, version=4)
    assert leak_problems(course / "solutions", course / "exercises") == \
        ["01_sample.ipynb, cell 2: solution line 'return x + x'"]


def test_a_notebook_saved_out_of_order_is_caught(sample, tmp_path):
    path = tmp_path / "01_sample.ipynb"
    path.write_bytes((sample / "solutions" / "01_sample.ipynb").read_bytes())
    assert execution_problems(path) == []
    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    code[1].execution_count, code[2].execution_count = 3, 2
    nbformat.write(nb, path, version=4)
    assert "execution count 3, expected 2" in execution_problems(path)[0]


def test_a_stored_error_is_caught(sample, tmp_path):
    path = tmp_path / "01_sample.ipynb"
    nb = nbformat.read(sample / "solutions" / "01_sample.ipynb", as_version=4)
    nb.cells[1].outputs = [nbformat.v4.new_output("error", ename="NameError", evalue="x",
                                                  traceback=[])]
    nbformat.write(nb, path, version=4)
    assert "NameError" in execution_problems(path)[0]


# ---------------------------------------------------------------- the student's package

MODULE = '''"""Two operations."""


def double(x):
    """Twice x."""
    ### BEGIN SOLUTION chapter 03: return x added to itself, as "x + x".
    y = x + x
    return y
    ### END SOLUTION


class Halver:
    def __call__(self, x):
        if x == 0:
            return 0
        ### BEGIN SOLUTION chapter 04: return half of x.
        return x / 2
        ### END SOLUTION


def halve(x):
    return Halver()(x)
### BEGIN HIDDEN TESTS
assert double(2) == 4
### END HIDDEN TESTS
'''

STUBBED_MODULE = '''"""Two operations."""


def double(x):
    """Twice x."""
    raise NotImplementedError("chapter 03: return x added to itself, as \\"x + x\\".")


class Halver:
    def __call__(self, x):
        if x == 0:
            return 0
        raise NotImplementedError("chapter 04: return half of x.")


def halve(x):
    return Halver()(x)
'''

PACKAGE_FILES = {
    "minigrad/__init__.py": "from minigrad.ops import double, halve\n",
    "minigrad/ops.py": MODULE,
    "minigrad/examples.json": '{"double": [[2, 4]]}\n',
    "minigrad/README.md": "| 04 | `ops.py` | `Halver.forward` |\n",    # a stage map, as yourgrad's
    "minigrad/nn/__init__.py": "LAYERS = []\n",
}


def write_package(solutions):
    for relative, text in PACKAGE_FILES.items():
        (solutions / relative).parent.mkdir(parents=True, exist_ok=True)
        (solutions / relative).write_text(text)
    (solutions / "minigrad" / "__pycache__").mkdir()
    (solutions / "minigrad" / "__pycache__" / "ops.cpython-312.pyc").write_bytes(b"\0compiled")


@pytest.fixture
def package_course(tmp_path):
    """solutions/ holding the minigrad package only, and the exercises made from it."""
    write_package(tmp_path / "solutions")
    make_exercises.write_exercises(tmp_path / "solutions", tmp_path / "exercises",
                                   log=lambda _: None)
    return tmp_path


def test_a_package_gets_stubs_and_its_other_files_are_copied(package_course):
    exercises = package_course / "exercises"
    assert (exercises / "minigrad" / "ops.py").read_text() == STUBBED_MODULE
    for relative, text in PACKAGE_FILES.items():
        if relative != "minigrad/ops.py":
            assert (exercises / relative).read_text() == text
    assert not (exercises / "minigrad" / "__pycache__").exists()
    assert make_exercises.differences(package_course / "solutions", exercises) == []
    assert leak_problems(package_course / "solutions", exercises) == []


def test_the_stubbed_package_imports_and_says_what_to_write(package_course):
    program = ("import minigrad\n"
               "assert minigrad.halve(0) == 0\n"
               "for task in (minigrad.double, minigrad.halve):\n"
               "    try:\n"
               "        print(task(8))\n"
               "    except NotImplementedError as error:\n"
               "        print(error)\n")
    stubs_say = 'chapter 03: return x added to itself, as "x + x".\nchapter 04: return half of x.\n'
    for folder, expected in [("solutions", "16\n4.0\n"), ("exercises", stubs_say)]:
        done = subprocess.run([sys.executable, "-c", program], cwd=package_course / folder,
                              capture_output=True, text=True, timeout=60)
        assert (done.returncode, done.stdout) == (0, expected), done.stderr


@pytest.mark.parametrize("source, complaint", [
    ("### BEGIN SOLUTION chapter 03: the constant.\nANSWER = 42\n### END SOLUTION\n",
     "line 1: a solution block outside any function"),
    ("class Tensor:\n    ### BEGIN SOLUTION chapter 01: the methods.\n    def f(self):\n"
     "        return 1\n    ### END SOLUTION\n", "line 2: a solution block outside any function"),
    ("def f():\n    ### BEGIN SOLUTION\n    return 1\n    ### END SOLUTION\n",
     "line 2: a package's solution block says its chapter"),
    ("def f():\n    ### BEGIN SOLUTION chapter 3: one.\n    return 1\n    ### END SOLUTION\n",
     "line 2: a package's solution block says its chapter"),
    ("def f():\n    ### BEGIN SOLUTION chapter 03: one.\n    return 1\n",
     "without ### END SOLUTION"),
])
def test_a_package_block_that_would_break_the_stubs_is_an_error(source, complaint, tmp_path):
    (tmp_path / "solutions" / "minigrad").mkdir(parents=True)
    (tmp_path / "solutions" / "minigrad" / "bad.py").write_text(source)
    with pytest.raises(make_exercises.MarkerError, match=re.escape(complaint)):
        make_exercises.write_exercises(tmp_path / "solutions", tmp_path / "exercises",
                                       log=lambda _: None)
    assert make_exercises.main([str(tmp_path / "solutions"), str(tmp_path / "exercises")]) == 2


def test_drift_in_a_package_is_caught_and_repaired(package_course):
    solutions, exercises = package_course / "solutions", package_course / "exercises"
    (exercises / "minigrad" / "ops.py").write_text(STUBBED_MODULE + "# a note\n")
    (exercises / "minigrad" / "nn" / "__init__.py").unlink()
    (exercises / "minigrad" / "extra.py").write_text("")
    (exercises / "minigrad" / "__pycache__").mkdir()      # a student's run leaves these
    (exercises / "minigrad" / "__pycache__" / "ops.cpython-312.pyc").write_bytes(b"\0")
    assert make_exercises.differences(solutions, exercises) == [
        f"{exercises / 'minigrad' / 'nn' / '__init__.py'}: missing",
        f"{exercises / 'minigrad' / 'ops.py'}: differs from what "
        f"{solutions / 'minigrad' / 'ops.py'} generates",
        f"{exercises / 'minigrad' / 'extra.py'}: has no solution file"]
    assert make_exercises.main(["--check", str(solutions), str(exercises)]) == 1
    make_exercises.write_exercises(solutions, exercises, log=lambda _: None,
                                   names={"01_other.ipynb"})     # one chapter: the package too
    assert make_exercises.differences(solutions, exercises) == []
    assert (exercises / "minigrad" / "__pycache__" / "ops.cpython-312.pyc").exists()


def test_a_solution_line_left_in_a_package_is_caught(package_course):
    path = package_course / "exercises" / "minigrad" / "ops.py"
    path.write_text(STUBBED_MODULE.replace('raise NotImplementedError("chapter 04: return '
                                           'half of x.")', "return x / 2"))
    assert package_leak_problems(package_course / "solutions", package_course / "exercises") \
        == ["minigrad/ops.py, line 13: solution line 'return x / 2'"]


WHERE_AM_I = ("import pathlib\nimport minigrad\n"
              "print(pathlib.Path(minigrad.__file__).parent.parent.name, "
              "pathlib.Path.cwd().name)")
EDIT_THE_PACKAGE = ("import pathlib\n"
                    "ops = pathlib.Path(minigrad.__file__).with_name('ops.py')\n"
                    "if 'def triple' not in ops.read_text():\n"
                    "    ops.write_text(ops.read_text() + 'def triple(x):\\n    return 3 * x\\n')")


def test_each_folders_notebooks_import_the_package_beside_them(package_course):
    """The kernel runs in the notebook's folder, under run_notebooks and under nbval, so
    solutions/ uses the reference package and exercises/ the stubs; autoreload picks up an
    edit of the package without a restart (the last cell fails without it)."""
    solutions, exercises = package_course / "solutions", package_course / "exercises"
    nb = new_notebook(cells=[new_code_cell("%load_ext autoreload\n%autoreload 2"),
                             new_code_cell(WHERE_AM_I), new_code_cell(EDIT_THE_PACKAGE),
                             new_code_cell("print(minigrad.ops.triple(2))")])
    nbformat.write(nb, solutions / "01_where.ipynb", version=4)
    assert run_notebooks.main([str(solutions / "01_where.ipynb")]) == 0

    def printed(path):
        return [c.outputs[0].text for c in nbformat.read(path, 4).cells if c.outputs]
    assert printed(solutions / "01_where.ipynb") == ["solutions solutions\n", "6\n"]
    assert "def triple" in (exercises / "minigrad" / "ops.py").read_text()   # regenerated
    run_notebooks.run_notebook(exercises / "01_where.ipynb")
    assert printed(exercises / "01_where.ipynb") == ["exercises exercises\n", "6\n"]

    moved = exercises / "01_moved.ipynb"             # the solution's outputs, in exercises/
    moved.write_bytes((solutions / "01_where.ipynb").read_bytes())
    assert _nbval("--nbval", package_course, package_course, by_folder=True) == {
        "solutions/01_where": True, "exercises/01_where": True, "exercises/01_moved": False}


# ---------------------------------------------------------------- nbval as `make test` runs it

def makefile_nbval_options():
    """NBVAL_OPTS from the Makefile, so this test checks the configuration `make test` uses."""
    text = (ROOT / "Makefile").read_text().replace("\\\n", " ")
    match = re.search(r"^NBVAL_OPTS\s*:=(.*)$", text, re.MULTILINE)
    assert match, "the Makefile defines NBVAL_OPTS"
    return match.group(1).split()


DRAWING_CELL = ("class Drawing:\n"
                "    def _repr_svg_(self):\n"
                "        return '<svg><!-- Generated by graphviz version 2.43.0 --></svg>'\n"
                "    def __repr__(self):\n"
                "        return 'MulBackward0 -> AccumulateGrad'\n"
                "Drawing()")


def _nbval(mode, folder, tmp_path, *extra_options, by_folder=False):
    """{notebook: passed} (``by_folder``: {"folder/notebook": passed}) from nbval on ``folder``."""
    report = tmp_path / f"{folder.name}.xml"
    subprocess.run([sys.executable, "-m", "pytest", mode, *makefile_nbval_options(), *extra_options,
                    "-p", "no:cacheprovider", "-q", f"--junitxml={report}", str(folder)],
                   cwd=ROOT, capture_output=True, text=True, timeout=300)
    outcomes = {}
    for case in ET.parse(report).iter("testcase"):
        failed = case.find("failure") is not None or case.find("error") is not None
        parts = re.split(r"[./]", case.get("classname", "").removesuffix(".ipynb"))
        notebook = "/".join(parts[-2:]) if by_folder else parts[-1]
        outcomes.setdefault(notebook, []).append(not failed)
    return {name: all(results) for name, results in outcomes.items()}


def test_nbval_compares_text_not_svg_and_runs_untouched_exercises(sample, tmp_path):
    strict = tmp_path / "strict"
    strict.mkdir()
    good = strict / "good.ipynb"
    nbformat.write(new_notebook(cells=[new_code_cell(DRAWING_CELL),
                                       new_code_cell("print(object())")]), good, version=4)
    run_notebooks.run_notebook(good)
    nb = nbformat.read(good, as_version=4)
    assert "0x" in nb.cells[1].outputs[0].text          # an address, sanitized by nbval

    def variant(name, change):
        copy = nbformat.read(good, as_version=4)
        change(copy.cells[0].outputs[0].data)
        nbformat.write(copy, strict / f"{name}.ipynb", version=4)

    variant("svg_changed", lambda data: data.update({"image/svg+xml": "<svg>other</svg>"}))
    variant("text_changed", lambda data: data.update({"text/plain": "AddBackward0"}))
    (strict / "solution.ipynb").write_bytes(
        (sample / "solutions" / "01_sample.ipynb").read_bytes())

    outcomes = _nbval("--nbval", strict, tmp_path)
    assert outcomes == {"good": True, "svg_changed": True, "text_changed": False,
                        "solution": True}
    assert _nbval("--nbval-lax", sample / "exercises", tmp_path) == {"01_sample": True}


FIRST_KERNEL_START_FAILS = """
import nbval.kernel
from pathlib import Path

FAILURES = Path(__file__).with_name("failed_starts.txt")
real_start = nbval.kernel.start_new_kernel

def fail_first_start(*args, **kwargs):
    if not getattr(fail_first_start, "failed", False):
        fail_first_start.failed = True
        with FAILURES.open("a") as log:
            log.write("failed\\n")
        raise RuntimeError("Kernel didn't respond in 60 seconds")
    return real_start(*args, **kwargs)

nbval.kernel.start_new_kernel = fail_first_start
"""


@pytest.mark.parametrize("attempts, passes", [("3", True), ("1", False)])
def test_a_kernel_that_does_not_answer_is_started_again(attempts, passes, tmp_path):
    """Each worker's first kernel start fails, as in a port clash; a second start runs the cells."""
    folder = tmp_path / "flaky"
    folder.mkdir()
    (folder / "conftest.py").write_text(FIRST_KERNEL_START_FAILS)
    notebook = folder / "notebook.ipynb"
    nbformat.write(new_notebook(cells=[new_code_cell("print(6 * 7)")]), notebook, version=4)
    run_notebooks.run_notebook(notebook)
    outcomes = _nbval("--nbval", folder, tmp_path, "--nbval-kernel-start-attempts", attempts)
    assert outcomes == {"notebook": passes}
    assert (folder / "failed_starts.txt").read_text().count("failed") >= 1


def test_retrying_gives_up_after_the_last_attempt():
    calls = []

    def start(*args, **kwargs):
        calls.append((args, kwargs))
        raise RuntimeError("Kernel didn't respond in 60 seconds")

    with pytest.raises(RuntimeError, match="didn't respond"):
        nbval_plugin.retrying(start, attempts=3)("kernel", startup_timeout=60)
    assert calls == [(("kernel",), {"startup_timeout": 60})] * 3


def test_retrying_passes_other_errors_through_at_once():
    calls = []

    def start():
        calls.append(1)
        raise KeyError("no such kernel")

    with pytest.raises(KeyError):
        nbval_plugin.retrying(start, attempts=3)()
    assert calls == [1]


# ---------------------------------------------------------------- teachgrad.course.check

def run(capsys, call):
    """Run a check; return (result, its one printed line)."""
    result = call()
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1, lines
    assert lines[0] == result.message
    return result, lines[0]


def stub(*args):
    raise NotImplementedError()


def test_value(capsys):
    result, line = run(capsys, lambda: check.value(torch.ones(3) * 2, torch.ones(3) * 2))
    assert result and result == True and line == "✔ correct"  # noqa: E712
    result, line = run(capsys, lambda: check.value(torch.ones(2, 3), torch.ones(3)))
    assert not result and line.startswith("✘ your answer: shape (2, 3), expected (3,)")
    assert "sum over the broadcast dim 0" in line
    result, line = run(capsys, lambda: check.value(5.0, 3.25, hint="add them"))
    assert line == "✘ your answer: wrong value — hint: add them" and "3.25" not in line
    result, line = run(capsys, lambda: check.value({"a": 1, "b": True}, {"a": 1, "b": False}))
    assert line == "✘ your answer['b']: not right"
    result, line = run(capsys, lambda: check.value(stub, 1))
    assert result.status == check.NOT_ATTEMPTED and line.startswith("… not attempted yet")
    assert not run(capsys, lambda: check.value(..., 1))[0]
    result, line = run(capsys, lambda: check.value({"a": ..., "b": [..., ...]}, {"a": 1, "b": [2, 3]}))
    assert result.status == check.NOT_ATTEMPTED
    result, line = run(capsys, lambda: check.value({"a": 1, "b": [2, ...]}, {"a": 1, "b": [2, 3]}))
    assert line == "✘ 1 of 3 entries of your answer are still ... — hint: replace each ... with your answer"
    result, line = run(capsys, lambda: check.value(lambda: undefined_answer, 1))  # noqa: F821
    assert "not defined yet" in line


def test_value_compares_nodes_by_name(capsys):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    assert run(capsys, lambda: check.value(lambda: y.grad_fn, "MulBackward0"))[0]
    result, line = run(capsys, lambda: check.value("AddBackward0", y.grad_fn, name="the name"))
    assert line == "✘ the name: not right" and "Mul" not in line


def test_leaf_flags(capsys):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    c = torch.tensor([3.0, 4.0])
    y = x * c
    tensors = {"x": x, "c": c, "y": y}
    right = {"x": {"is_leaf": True, "requires_grad": True},
             "c": {"is_leaf": True, "requires_grad": False},
             "y": {"is_leaf": False, "requires_grad": True}}
    result, line = run(capsys, lambda: check.leaf_flags(right, tensors))
    assert result and line == "✔ correct — all 6 predictions match teachgrad"
    wrong = {**right, "y": {"is_leaf": True, "requires_grad": True}}
    result, line = run(capsys, lambda: check.leaf_flags(lambda: wrong, tensors))
    assert line.startswith("✘ 1 of 6 predictions is off (look again at y) — hint: a tensor is "
                           "a leaf when")
    wrong = {**right, "c": {"is_leaf": True, "requires_grad": True}}
    assert "inputs does" in run(capsys, lambda: check.leaf_flags(wrong, tensors))[1]
    blank = {n: {"is_leaf": ..., "requires_grad": ...} for n in tensors}
    assert run(capsys, lambda: check.leaf_flags(blank, tensors))[0].status == check.NOT_ATTEMPTED
    assert run(capsys, lambda: check.leaf_flags(stub, tensors))[0].status == check.NOT_ATTEMPTED
    result, line = run(capsys, lambda: check.leaf_flags({"x": right["x"]}, tensors))
    assert line.startswith("✘ no prediction for c, y")
    result, line = run(capsys, lambda: check.leaf_flags({"x": True, "c": True, "y": False},
                                                        tensors, flags=("is_leaf",)))
    assert result
    result, line = run(capsys, lambda: check.leaf_flags({"y": "MulBackward0"}, {"y": y},
                                                        flags=("grad_fn",)))
    assert result


def sigmoid_layer(x, w):
    return (w * x).sigmoid().sum()


def right_grads(x, w):
    s = (w * x).sigmoid().detach()
    d = s * (1 - s)
    return (d * w).sum(0), (d * x).sum(1, keepdim=True)


def test_gradients(capsys):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = torch.tensor([[0.5], [-1.0]], requires_grad=True)
    result, line = run(capsys, lambda: check.gradients(sigmoid_layer, x, w, answer=right_grads))
    assert result and "finite differences" in line
    assert x.grad is None and w.grad is None

    def unsummed(x, w):
        gx, gw = right_grads(x, w)
        s = (w * x).sigmoid().detach()
        return gx, s * (1 - s) * x
    result, line = run(capsys, lambda: check.gradients(sigmoid_layer, x, w, answer=unsummed))
    assert line.startswith("✘ the gradient of w: shape (2, 3), expected (2, 1) — hint: the "
                           "tensor was broadcast") and "sum the gradient over dim 1" in line

    def flipped(x, w):
        gx, gw = right_grads(x, w)
        return gx, -gw
    assert "the sign is flipped" in run(
        capsys, lambda: check.gradients(sigmoid_layer, x, w, answer=flipped))[1]

    def doubled(x, w):
        gx, gw = right_grads(x, w)
        return 2 * gx, gw
    assert "factor of 2" in run(
        capsys, lambda: check.gradients(sigmoid_layer, x, w, answer=doubled))[1]
    result, line = run(capsys, lambda: check.gradients(sigmoid_layer, x, w, answer=stub))
    assert result.status == check.NOT_ATTEMPTED
    result, line = run(capsys, lambda: check.gradients(sigmoid_layer, x, w,
                                                       answer=lambda x, w: right_grads(x, w)[0]))
    assert line.startswith("✘ 1 gradients given, expected one per input that requires grad")


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        return grad * 3 * x ** 2


class WrongCube(Cube):
    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        return grad * 3 * x


class UnwrittenCube(Cube):
    @staticmethod
    def backward(ctx, grad):
        raise NotImplementedError()


def test_gradients_of_a_custom_backward(capsys):
    x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    result, line = run(capsys, lambda: check.gradients(Cube.apply, x))
    assert result and line == "✔ correct — backward agrees with finite differences"
    result, line = run(capsys, lambda: check.gradients(WrongCube.apply, x))
    assert line.startswith("✘ backward's gradient of input 0: wrong values at 3 of 3 entries "
                           "(compared with finite differences)")
    assert run(capsys, lambda: check.gradients(UnwrittenCube.apply, x))[0].status == \
        check.NOT_ATTEMPTED


def make_graph():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([3.0, 4.0], requires_grad=True)
    c = a * b
    return (c + a).sum()


def test_node_names(capsys):
    z = make_graph()
    names = ["SumBackward0", "AddBackward0", "MulBackward0", "AccumulateGrad", "AccumulateGrad"]
    result, line = run(capsys, lambda: check.node_names(names[::-1], z))
    assert result and line == "✔ correct — the same 5 nodes as teachgrad's graph"
    cpp = names[:3] + ["torch::autograd::AccumulateGrad"] * 2      # node.name()'s spelling
    assert run(capsys, lambda: check.node_names(cpp, z))[0]
    result, line = run(capsys, lambda: check.node_names(names[:-1], z))
    assert line == ("✘ your 4 nodes are not the graph's: 1 missing — hint: each leaf that "
                    "requires grad ends in one AccumulateGrad node")
    result, line = run(capsys, lambda: check.node_names(["Sum", "Add", "Mul"] + names[3:], z))
    assert "names look like 'MulBackward0'" in line
    assert run(capsys, lambda: check.node_names(stub, z))[0].status == check.NOT_ATTEMPTED


def test_node_names_hint_for_a_node_listed_twice(capsys):
    w = torch.tensor(2.0, requires_grad=True)
    y = w * w                              # both inputs lead to the same AccumulateGrad
    accumulate = y.grad_fn.next_functions[0][0]
    result, line = run(capsys, lambda: check.node_names([y.grad_fn, accumulate, accumulate], y))
    assert not result and "a node appears more than once" in line


def my_topological_order(root):
    """A student's topological sort (depth-first, post-order, reversed)."""
    order, seen = [], set()

    def visit(node):
        if node is None or node in seen:
            return
        seen.add(node)
        for child, _ in node.next_functions:
            visit(child)
        order.append(node)
    visit(root)
    return order[::-1]


def test_node_names_in_topological_order(capsys):
    z = make_graph()
    result, line = run(capsys, lambda: check.node_names(
        lambda: my_topological_order(z.grad_fn), z, order="topological"))
    assert result and line == "✔ correct — a valid topological order of all 5 nodes"
    result, line = run(capsys, lambda: check.node_names(
        lambda: my_topological_order(z.grad_fn)[::-1], z, order="topological"))
    assert "comes before" in line and "next_functions" in line
    result, line = run(capsys, lambda: check.node_names(
        lambda: my_topological_order(z.grad_fn)[:-1], z, order="topological"))
    assert line.startswith("✘ 1 of the graph's 5 nodes is missing")
    result, line = run(capsys, lambda: check.node_names(
        ["SumBackward0", "AddBackward0", "MulBackward0", "AccumulateGrad", "AccumulateGrad"],
        z, order="topological"))
    assert "list the node objects" in line


def test_raises(capsys):
    def backward_twice():
        y = (torch.tensor([1.0], requires_grad=True) * 2).sum()
        y.backward()
        y.backward()
    result, line = run(capsys, lambda: check.raises(backward_twice, RuntimeError, "second time"))
    assert result and line.startswith("✔ correct — it raised RuntimeError: Trying to backward")
    result, line = run(capsys, lambda: check.raises(lambda: None, RuntimeError,
                                                    hint="call backward twice"))
    assert line == "✘ no error was raised — hint: call backward twice"
    result, line = run(capsys, lambda: check.raises(lambda: 1 / 0, RuntimeError))
    assert line.startswith("✘ it raised ZeroDivisionError, not RuntimeError")
    result, line = run(capsys, lambda: check.raises(backward_twice, RuntimeError, "in-place"))
    assert "not the expected one" in line
    assert run(capsys, lambda: check.raises(stub, RuntimeError))[0].status == check.NOT_ATTEMPTED


def reference_accumulate(grad, new):
    return new.clone() if grad is None else grad + new


def test_behaves_like(capsys):
    g = torch.tensor([1.0, 2.0])
    cases = [(None, g), (g, g), (torch.ones(2, 2), g)]
    result, line = run(capsys, lambda: check.behaves_like(reference_accumulate,
                                                          reference_accumulate, cases))
    assert result and line == "✔ correct — the same results as teachgrad on all 3 cases"

    def multiplies(grad, new):
        return new if grad is None else grad * new
    result, line = run(capsys, lambda: check.behaves_like(multiplies, reference_accumulate,
                                                          cases, hint="gradients add up"))
    assert line == ("✘ for case 2 of 3 (a tensor of shape (2,), a tensor of shape (2,)): the "
                    "result: wrong values at 1 of 2 entries — hint: gradients add up")
    result = run(capsys, lambda: check.behaves_like(stub, reference_accumulate, cases))[0]
    assert result.status == check.NOT_ATTEMPTED


def test_an_authors_hint_comes_first_and_a_telling_guess_beside_it(capsys):
    hint = "each path contributes once"
    result, line = run(capsys, lambda: check.value(torch.tensor([2.0, 4.0]), torch.tensor([1.0, 2.0]),
                                                   hint=hint))
    assert line == ("✘ your answer: wrong values at 2 of 2 entries — hint: each path "
                    "contributes once (it is off by a constant factor of 2)")
    result, line = run(capsys, lambda: check.value(torch.tensor([1.0, 5.0]), torch.tensor([1.0, 2.0]),
                                                   hint=hint))
    assert line == "✘ your answer: wrong values at 1 of 2 entries — hint: each path contributes once"
    result, line = run(capsys, lambda: check.value(torch.ones(2, 3), torch.ones(3), hint=hint))
    assert "sum over the broadcast dim 0" in line and hint not in line

    def doubled(x, w):
        gx, gw = right_grads(x, w)
        return 2 * gx, gw
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = torch.tensor([[0.5], [-1.0]], requires_grad=True)
    result, line = run(capsys, lambda: check.gradients(sigmoid_layer, x, w, answer=doubled,
                                                       hint=hint))
    assert line.endswith("hint: each path contributes once (it is off by a constant factor of 2: "
                         "a factor missing or extra in the chain rule?)")

    def wrong(x, w):
        gx, gw = right_grads(x, w)
        return gx + torch.tensor([0.0, 1.0, 0.0]), gw
    result, line = run(capsys, lambda: check.gradients(sigmoid_layer, x, w, answer=wrong, hint=hint))
    assert line.endswith("hint: each path contributes once")      # the generic advice gives way


def test_a_dict_answer_of_the_wrong_form_gets_a_format_hint(capsys):
    expected = {"a": 1, "b": 2}
    assert run(capsys, lambda: check.value([1, 2], expected))[1] == (
        "✘ your answer: a list, expected a dict — hint: return a dict, as the exercise's "
        "template does")
    assert run(capsys, lambda: check.value({"a": 1}, expected))[1] == (
        "✘ your answer: no entry for 'b' — hint: keep the keys the exercise's dict starts with")
    assert run(capsys, lambda: check.value({"a": 1, "b": 2, "c": 3}, expected))[1] == (
        "✘ your answer: an unexpected entry 'c' — hint: keep the keys the exercise's dict "
        "starts with")
