"""The exercise notebooks' "Build it" sections, run as a student would run them.

A copy of exercises/ gets either the reference package (solutions/yourgrad: a student who
filled in every stub) or the stubs (exercises/yourgrad: a student who has not begun), and the
Build-it cells of every chapter (with each chapter's set-up cell) run in a kernel started in
that folder, so `import yourgrad` finds the copy beside the notebooks. With the reference every
build line is ✔ and the student's graph is drawn exactly as teachgrad's; with the stubs every
line says "not attempted yet", the graph's frame says which stub stopped it, and no cell fails.
"""
import ast
import re
import shutil
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from nbformat.v4 import new_notebook

from teachgrad.course import build

ROOT = Path(__file__).resolve().parents[1]
EXERCISES = ROOT / "exercises"
TAG = "build-it"
FREED = re.compile(r"(saved \S+): .*, freed$", re.MULTILINE)


def build_chapters():
    """{chapter number: the Build-it cells of exercises/NN_*.ipynb, its set-up cell first}."""
    chapters = {}
    for path in sorted(EXERCISES.glob("[0-9][0-9]_*.ipynb")):
        cells = nbformat.read(path, as_version=4).cells
        section = [c for c in cells if TAG in c.metadata.get("tags", [])]
        if section:
            setup = next(c for c in cells if c.cell_type == "code")
            chapters[path.name[:2]] = [setup] + section
    return chapters


CHAPTERS = build_chapters()


def run_build_sections(folder, package):
    """Run every chapter's Build-it cells in ``folder`` beside a copy of ``package``; return
    {chapter: {"check": printed lines of check.build, "beside": text of viz.draw_beside}}."""
    shutil.copytree(package, folder / "yourgrad", ignore=shutil.ignore_patterns("__pycache__"))
    cells, where = [], {}
    for chapter, section in CHAPTERS.items():
        for cell in section:
            if cell.cell_type == "code":
                if cell.source.startswith("check.build("):
                    where[chapter, "check"] = len(cells)
                elif "viz.draw_beside(" in cell.source:
                    where[chapter, "beside"] = len(cells)
            cells.append(nbformat.from_dict(cell))
    nb = new_notebook(cells=cells)
    nbformat.write(nb, folder / "build_sections.ipynb", version=4)
    NotebookClient(nb, timeout=600, kernel_name="python3", allow_errors=False,
                   resources={"metadata": {"path": str(folder)}}).execute()
    seen = {}
    for (chapter, kind), index in where.items():
        outputs = nb.cells[index].outputs
        text = "".join(o.get("text", "") for o in outputs if o.output_type == "stream") \
            if kind == "check" else outputs[0]["data"]["text/plain"]
        seen.setdefault(chapter, {})[kind] = text.splitlines() if kind == "check" else text
    return seen


def expected_checks(chapter):
    """How many lines check.build(chapter) prints: its checks and every earlier chapter's."""
    stages = build.STAGES[:build.STAGES.index(chapter) + 1]
    return sum(len(build.checks_of(stage)) for stage in stages)


def frames(text):
    """The text form of draw_beside, as {library: its tree}."""
    parts = [part.split(":\n", 1) for part in text.split("\n\n")]
    return {library: tree for library, tree in parts}


@pytest.fixture(scope="module")
def with_the_reference(tmp_path_factory):
    return run_build_sections(tmp_path_factory.mktemp("exercises"),
                              ROOT / "solutions" / "yourgrad")


@pytest.fixture(scope="module")
def with_the_stubs(tmp_path_factory):
    return run_build_sections(tmp_path_factory.mktemp("exercises"), EXERCISES / "yourgrad")


def functions_to_write(package):
    """{chapter: {(file name, innermost function's qualified name)}} of the package's blocks."""
    found = {}
    for path in sorted(package.glob("*.py")):
        source = path.read_text(encoding="utf-8")
        functions = []                          # (first line, last line, qualified name)
        todo = [(node, "") for node in ast.parse(source).body]
        while todo:
            node, prefix = todo.pop()
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                if isinstance(node, ast.FunctionDef):
                    functions.append((node.lineno, node.end_lineno, prefix + node.name))
                todo += [(child, prefix + node.name + ".") for child in node.body]
        for number, line in enumerate(source.splitlines(), start=1):
            marker = re.search(r"### BEGIN SOLUTION chapter (\d\d):", line)
            if marker:
                inner = min((f for f in functions if f[0] <= number <= f[1]),
                            key=lambda f: f[1] - f[0])
                found.setdefault(marker.group(1), set()).add((path.name, inner[2]))
    return found


def test_each_build_it_section_names_the_functions_to_write():
    """The list in a section's first cell follows the package: each file with a block of the
    chapter, and each function holding one (an operation's backward by its class name)."""
    to_write = functions_to_write(ROOT / "solutions" / "yourgrad")
    for chapter, section in CHAPTERS.items():
        intro = section[1].source
        listed = dict(re.findall(r"^- `yourgrad/(\w+\.py)`: (.*)$", intro, re.MULTILINE))
        assert set(listed) == {name for name, _ in to_write[chapter]}, chapter
        for name, function in to_write[chapter]:
            shown = function.removesuffix(".backward") if name == "ops.py" else function
            assert f"`{shown}`" in listed[name], (chapter, name, function)


def test_chapters_have_a_build_it_section():
    assert set(CHAPTERS) == {f"{n:02d}" for n in range(1, 11)}
    for chapter, section in CHAPTERS.items():
        sources = [c.source for c in section]
        assert f'check.build("{chapter}")' in sources, chapter
        assert sources[0].startswith("%load_ext autoreload\n%autoreload 2\n"), chapter


@pytest.mark.parametrize("chapter", sorted(CHAPTERS))
def test_the_reference_package_passes_every_check(with_the_reference, chapter):
    lines = with_the_reference[chapter]["check"]
    assert len(lines) == expected_checks(chapter)
    assert [line for line in lines if not line.startswith("✔ ")] == []


@pytest.mark.parametrize("chapter", sorted(CHAPTERS))
def test_the_reference_package_draws_teachgrads_graph(with_the_reference, chapter):
    if "beside" not in with_the_reference[chapter]:
        pytest.skip(f"chapter {chapter} draws no graph (its stage records none yet)")
    drawn = frames(with_the_reference[chapter]["beside"])
    assert list(drawn) == ["teachgrad", "yourgrad"]
    # a freed saved tensor: teachgrad keeps a record of its shape, yourgrad only raises
    assert FREED.sub(r"\1: freed", drawn["yourgrad"]) == FREED.sub(r"\1: freed",
                                                                  drawn["teachgrad"])


@pytest.mark.parametrize("chapter", sorted(CHAPTERS))
def test_the_stubs_are_not_attempted_yet_and_nothing_crashes(with_the_stubs, chapter):
    lines = with_the_stubs[chapter]["check"]
    assert len(lines) == expected_checks(chapter)
    assert [line for line in lines
            if not (line.startswith("… ") and "not attempted yet (chapter 01: " in line)] == []
    if "beside" in with_the_stubs[chapter]:
        assert frames(with_the_stubs[chapter]["beside"])["yourgrad"].startswith(
            "not built yet (chapter 01: ")
