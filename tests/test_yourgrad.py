"""The build checks (teachgrad.course.build) against the reference yourgrad, its stubs, and
deliberately broken copies of it: every check passes on the reference, a stub is reported
"not attempted yet", and each broken copy is caught by the check that should catch it."""
import importlib.util
import itertools
import re
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

import teachgrad
from teachgrad.course import build, check
from teachgrad.course.build import stage_03, stage_04
from teachgrad.course.make_exercises import stub_module

REFERENCE = Path(__file__).resolve().parent.parent / "solutions" / "yourgrad"
ALL = build.STAGES
_names = itertools.count()
CHAPTER = re.compile(r"### BEGIN SOLUTION chapter (\d\d):")


def load(folder):
    """Import the package in `folder` under a name of its own (relative imports inside)."""
    name = f"yourgrad_under_test_{next(_names)}"
    spec = importlib.util.spec_from_file_location(name, folder / "__init__.py",
                                                  submodule_search_locations=[str(folder)])
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def copy_reference(tmp_path, name="yourgrad"):
    target = tmp_path / name
    shutil.copytree(REFERENCE, target, ignore=shutil.ignore_patterns("__pycache__"))
    return target


def stubbed_copy(tmp_path, after=0):
    """A copy of the reference whose blocks of the chapters after `after` are stubs, as
    make_exercises makes them (after=0: the student's starting package)."""
    target = copy_reference(tmp_path, f"stubbed_after_{after:02d}")
    for path in target.glob("*.py"):
        lines = path.read_text().split("\n")
        keep = []                      # filled blocks of chapters <= after lose their markers
        inside_kept = False
        for line in lines:
            found = CHAPTER.search(line)
            if found and int(found.group(1)) <= after:
                inside_kept = True
                continue
            if inside_kept and "### END SOLUTION" in line:
                inside_kept = False
                continue
            keep.append(line)
        path.write_text(stub_module("\n".join(keep), where=str(path)))
    return target


def broken_copy(tmp_path, file, *patches):
    """A copy of the reference with, in one module, each (old, new) of `patches` applied."""
    target = copy_reference(tmp_path, f"broken_{next(_names)}")
    path = target / file
    text = path.read_text()
    for old, new in patches:
        assert text.count(old) == 1, f"the patch does not fit {file}: {old!r}"
        text = text.replace(old, new)
    path.write_text(text)
    return load(target)


def run_quietly(capsys, stage, package):
    result = build.run(stage, package)
    lines = capsys.readouterr().out.splitlines()
    return result, lines


def line_of(lines, title):
    found = [line for line in lines if title in line]
    assert len(found) == 1, f"no single line for {title!r} in:\n" + "\n".join(lines)
    return found[0]


@pytest.fixture(autouse=True)
def shallow_chain(request, monkeypatch):
    """A 5,000-deep chain (still five times Python's recursion limit) except where the
    reference itself is checked at the lecture's 100,000: the tests run faster."""
    if "passes_on_the_reference" not in request.node.name:
        monkeypatch.setattr(stage_03, "DEEP", 5_000)


# ---------------------------------------------------------------- the reference passes

@pytest.fixture(scope="module")
def reference():
    return load(REFERENCE)


@pytest.mark.parametrize("stage", ALL)
def test_every_check_passes_on_the_reference(reference, capsys, stage):
    result, lines = run_quietly(capsys, stage, reference)
    assert result, "\n".join(lines)
    assert result.status == check.CORRECT
    count = sum(len(build.checks_of(s)) for s in build.STAGES[:build.STAGES.index(stage) + 1])
    assert len(lines) == count and all(line.startswith("✔ ") for line in lines)


def test_check_build_is_the_notebooks_entry_point(reference, capsys):
    assert check.build("1", package=reference)
    assert capsys.readouterr().out.startswith("✔ 01 ")


def test_an_unknown_stage_is_refused():
    with pytest.raises(ValueError, match="no build stage"):
        build.run("11")


def test_every_check_has_a_distinct_name_and_a_hint():
    checks = [c for stage in ALL for c in build.checks_of(stage)]
    assert len({(c.stage, c.name) for c in checks}) == len(checks)
    assert all(c.hint for c in checks)


# ---------------------------------------------------------------- stubs

def test_the_stubbed_package_imports_and_reports_not_attempted(tmp_path, capsys):
    package = load(stubbed_copy(tmp_path))
    result, lines = run_quietly(capsys, ALL[-1], package)
    assert result.status == check.NOT_ATTEMPTED
    assert not result
    assert lines and all(line.startswith("… ") for line in lines), "\n".join(lines)
    assert "not attempted yet (chapter 01: " in lines[0]


@pytest.mark.parametrize("done", ALL)
def test_a_stage_needs_only_its_own_and_earlier_blocks(tmp_path, capsys, done):
    """With the chapters up to `done` filled in and the later ones stubbed, stage `done`
    passes: no check of a chapter reaches a later chapter's block."""
    package = load(stubbed_copy(tmp_path, after=int(done)))
    result, lines = run_quietly(capsys, done, package)
    assert result, "\n".join(lines)


def test_each_chapter_has_blocks_for_the_student(tmp_path):
    chapters = set()
    for path in REFERENCE.glob("*.py"):
        chapters |= set(CHAPTER.findall(path.read_text()))
    assert set(ALL) <= chapters


# ---------------------------------------------------------------- what a wrong line shows
# (the broken copies themselves: tests/test_yourgrad_broken.py)

def block(file, words):
    """The code of the reference's solution block whose marker contains `words`."""
    text = (REFERENCE / file).read_text()
    start = text.index("\n", text.index(words)) + 1
    return text[start:text.index("### END SOLUTION", start)].rstrip(" ")


def test_a_wrong_line_never_shows_teachgrad_s_numbers(tmp_path, capsys):
    """The line says what differs, not what it should be: none of the gradients the check
    expects appears in the line of a broken AccumulateGrad."""
    package = broken_copy(tmp_path, "graph.py", ("            leaf._grad = leaf._grad + grad\n",
                                                 "            leaf._grad = grad\n"))
    expected = stage_04.accumulation(teachgrad)
    line = line_of(run_quietly(capsys, "04", package)[1], "accumulate in .grad")
    what_differs = line.split(" — hint: ")[0].split(": ", 1)[1]
    for value in expected.values():
        for number in np.atleast_1d(value.detach().numpy()).tolist():
            assert f"{number:g}" not in what_differs, line


def test_a_package_that_does_not_import_gets_one_line(tmp_path, capsys, monkeypatch):
    folder = copy_reference(tmp_path, "unimportable")
    (folder / "engine.py").write_text("def backward(:\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    result = build.run("01", "unimportable")
    lines = capsys.readouterr().out.splitlines()
    assert not result and len(lines) == 1
    assert lines[0].startswith("✘ your package does not import: SyntaxError") \
        and "engine.py, line 1" in lines[0], lines


# ---------------------------------------------------------------- the stage map

def test_the_stage_map_names_every_function_to_write_and_is_copied_beside_the_stubs():
    """solutions/yourgrad/README.md has a row per stage naming each function of that stage's
    blocks (an operation's backward by its class), no stage asks for more than 8, and
    make_exercises copies the map into exercises/yourgrad/ unchanged."""
    from test_yourgrad_exercises import functions_to_write
    stage_map = (REFERENCE / "README.md").read_text()
    rows = {line.split("|")[1].strip(): line for line in stage_map.splitlines()
            if re.match(r"\| \d\d \|", line)}
    assert set(rows) == set(ALL)
    for stage, functions in functions_to_write(REFERENCE).items():
        assert len(functions) <= 8, (stage, sorted(functions))
        for file, function in functions:
            shown = function.removesuffix(".backward") if file == "ops.py" else function
            written = {f"`{shown}`", f"`{file.removesuffix('.py')}.{shown}`"}
            assert any(name in rows[stage] for name in written), (stage, file, function)
    copied = REFERENCE.parent.parent / "exercises" / "yourgrad" / "README.md"
    assert copied.read_text() == stage_map


# ---------------------------------------------------------------- two reference bugs, fixed

def test_a_float64_reduction_of_everything_stays_float64(reference):
    """numpy's sum of everything is a numpy number, not an array: it must keep float64, or
    gradcheck fails a correct (t * t).sum() in float64."""
    t = reference.tensor([0.5, -1.0, 2.0], dtype=reference.float64, requires_grad=True)
    assert str(t.sum().dtype) == str(t.mean().dtype) == "float64"
    assert reference.autograd.gradcheck(lambda u: (u * u).sum(), (t,))
    assert reference.autograd.gradcheck(lambda u: (u * u).mean(), (t,))


@pytest.mark.parametrize("program", ["i / 2", "i * 2.5", "i.exp()", "i * 2", "i + f", "f / i"])
def test_type_promotion_follows_pytorch(reference, program):
    """An int tensor / 2 is float32 in PyTorch (its default float), not numpy's float64."""
    def dtype(torch):
        i, f = torch.tensor([1, 2]), torch.tensor([1.5, 2.5], dtype=torch.float64)
        return str(eval(program, {"i": i, "f": f}).dtype).split(".")[-1]
    torch = pytest.importorskip("torch")
    assert dtype(reference) == dtype(teachgrad) == dtype(torch)
