"""Generate ``exercises/`` from ``solutions/``: the solutions are the single source.

    python -m teachgrad.course.make_exercises solutions exercises          # (re)write
    python -m teachgrad.course.make_exercises --check solutions exercises  # exit 1 on drift

For every ``solutions/NN_slug.ipynb`` this writes ``exercises/NN_slug.ipynb`` where

- in code cells, the lines from ``### BEGIN SOLUTION`` to ``### END SOLUTION`` become one
  ``raise NotImplementedError()`` at the marker's indentation, and the cell gets the
  ``raises-exception`` tag (nbval and nbclient then accept the stub's error; solutions/ keep no
  such tag, so there an exception is still a failure);
- in markdown cells, the same block becomes ``YOUR ANSWER HERE``;
- the lines from ``### BEGIN HIDDEN TESTS`` to ``### END HIDDEN TESTS`` are removed;
- outputs and execution counts are cleared; everything else — markdown, tags, cell ids,
  metadata — is kept.

Each folder of ``solutions/`` (the student's package, ``solutions/yourgrad/``) becomes the
same folder of ``exercises/``: in its ``.py`` files each block

    ### BEGIN SOLUTION chapter 03: <one sentence saying what to write>
    ...
    ### END SOLUTION

becomes ``raise NotImplementedError("chapter 03: <that sentence>")`` at the marker's
indentation, and hidden tests are removed as in notebooks. A block must sit inside a function,
so that the stubbed package still imports (checked). Other files are copied as they are;
``__pycache__`` and ``.ipynb_checkpoints`` are left out.

The output is deterministic (same input, same bytes): nbformat writes version 4 with sorted
keys, and nothing depends on time or randomness. Exercise notebooks and package files whose
solution is gone are deleted. Never edit ``exercises/`` by hand: ``make test`` checks that it
is exactly what this script makes.

Why not nbgrader? The markers are nbgrader's, so an instructor can run nbgrader on
``solutions/`` (``generate_assignment --no-db --no-metadata``). But it wants its own course
layout (``source/<assignment>/`` to ``release/<assignment>/``), does not tag the stub cells
for nbval, and brings a database, a Jupyter server extension and many dependencies into every
student's environment — for what is, here, a text substitution of a few lines. This script is
that substitution, with nbformat only.
"""
import argparse
import ast
import io
import json
import re
import sys
from pathlib import Path

import nbformat

BEGIN_SOLUTION, END_SOLUTION = "### BEGIN SOLUTION", "### END SOLUTION"
BEGIN_HIDDEN, END_HIDDEN = "### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS"
CODE_STUB = "raise NotImplementedError()"
MARKDOWN_STUB = "YOUR ANSWER HERE"
STUB_TAG = "raises-exception"
# What a package's marker says after BEGIN SOLUTION: "chapter 03: write the engine's loop."
PACKAGE_TASK = re.compile(r"chapter \d\d: \S.*")
SKIPPED_NAMES = {"__pycache__", ".ipynb_checkpoints"}


class MarkerError(ValueError):
    """A BEGIN marker without its END (or the other way round), or a package block that does
    not say its chapter or would stop the stubbed package from importing."""


def _blocks(lines, begin, end, where):
    """Yield (start, stop) line indices of each block, markers included."""
    start = None
    for i, line in enumerate(lines):
        if begin in line:
            if start is not None:
                raise MarkerError(f"{where}: {begin} inside another one (line {i + 1})")
            start = i
        elif end in line:
            if start is None:
                raise MarkerError(f"{where}: {end} without {begin} (line {i + 1})")
            yield start, i
            start = None
    if start is not None:
        raise MarkerError(f"{where}: {begin} without {end} (line {start + 1})")


def package_stub(marker, where, line_number):
    """``raise NotImplementedError("chapter 03: ...")`` from a package's BEGIN SOLUTION line."""
    task = marker.split(BEGIN_SOLUTION, 1)[1].strip()
    if not PACKAGE_TASK.fullmatch(task):
        raise MarkerError(f"{where}: line {line_number}: a package's solution block says its "
                          f"chapter and what to write: '{BEGIN_SOLUTION} chapter 03: <one "
                          f"sentence>'")
    return f"raise NotImplementedError({json.dumps(task, ensure_ascii=False)})"


def stub_for(kind, marker, where, line_number):
    """What replaces a solution block in a code cell, a markdown cell or a package's module."""
    if kind == "module":
        return package_stub(marker, where, line_number)
    return CODE_STUB if kind == "code" else MARKDOWN_STUB


def strip_source(source, cell_type, where="cell"):
    """The exercise version of a source, and how many stubs it received. ``cell_type`` is
    ``"code"`` or ``"markdown"`` for a notebook cell, ``"module"`` for a package's .py file."""
    lines = source.split("\n")
    out, stubs, cursor = [], 0, 0
    solution = list(_blocks(lines, BEGIN_SOLUTION, END_SOLUTION, where))
    hidden = [] if cell_type == "markdown" else list(_blocks(lines, BEGIN_HIDDEN, END_HIDDEN,
                                                             where))
    for start, stop, kind in sorted([(a, b, "solution") for a, b in solution]
                                    + [(a, b, "hidden") for a, b in hidden]):
        if start < cursor:
            raise MarkerError(f"{where}: solution and hidden-test blocks overlap")
        out.extend(lines[cursor:start])
        if kind == "solution":
            marker = lines[start]
            indent = marker[:len(marker) - len(marker.lstrip())]
            out.append(indent + stub_for(cell_type, marker, where, start + 1))
            stubs += 1
        cursor = stop + 1
    out.extend(lines[cursor:])
    return "\n".join(out), stubs


def make_exercise(nb, name="notebook"):
    """A new notebook: ``nb`` with solutions stubbed, hidden tests removed, outputs cleared."""
    nb = nbformat.from_dict(nb)          # a deep copy
    for index, cell in enumerate(nb.cells):
        where = f"{name}, cell {index}"
        if cell.cell_type in ("code", "markdown"):
            cell.source, stubs = strip_source(cell.source, cell.cell_type, where)
        else:
            stubs = 0
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
            if stubs:
                tags = cell.metadata.setdefault("tags", [])
                if STUB_TAG not in tags:
                    tags.append(STUB_TAG)
    return nb


def render(nb):
    """The exact text written for a notebook: nbformat version 4, trailing newline."""
    buffer = io.StringIO()
    nbformat.write(nb, buffer, version=4)
    return buffer.getvalue()


def stub_module(source, where="module"):
    """The exercise version of one of the package's .py files: solution blocks stubbed,
    hidden tests removed. Every stub must sit inside a function: a stub at module or class
    level would raise as soon as the package is imported."""
    text, stubs = strip_source(source, "module", where)
    if stubs:
        try:
            tree = ast.parse(text)
        except SyntaxError as error:
            raise MarkerError(f"{where}: the stubbed module is not valid Python "
                              f"(line {error.lineno}: {error.msg})") from None
        in_functions = {id(node) for function in ast.walk(tree)
                        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef))
                        for node in ast.walk(function)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Raise) and id(node) not in in_functions \
                    and ast.unparse(node).startswith("raise NotImplementedError("):
                raise MarkerError(f"{where}: line {node.lineno}: a solution block outside any "
                                  f"function would stop the stubbed package from importing")
    return text


def package_files(solutions_dir):
    """The files of the packages in ``solutions_dir`` (its folders), as paths relative to it."""
    solutions_dir = Path(solutions_dir)
    found = []
    for folder in sorted(p for p in solutions_dir.iterdir() if p.is_dir()):
        if folder.name in SKIPPED_NAMES or folder.name.startswith("."):
            continue
        for path in sorted(folder.rglob("*")):
            relative = path.relative_to(solutions_dir)
            if path.is_file() and not SKIPPED_NAMES & set(relative.parts) \
                    and path.suffix != ".pyc":
                found.append(relative)
    return found


def expected_package_files(solutions_dir):
    """{relative path: bytes} of the exercise version of every package file."""
    result = {}
    for relative in package_files(solutions_dir):
        data = (Path(solutions_dir) / relative).read_bytes()
        if relative.suffix == ".py":
            text = stub_module(data.decode("utf-8"), where=str(Path(solutions_dir) / relative))
            data = text.encode("utf-8")
        result[relative] = data
    return result


def expected_exercises(solutions_dir, names=None):
    """{file name: text} of the exercise notebooks that ``solutions_dir`` generates
    (all of them, or only those called ``names``)."""
    result = {}
    for path in sorted(Path(solutions_dir).glob("*.ipynb")):
        if names is not None and path.name not in names:
            continue
        nb = nbformat.read(path, as_version=4)
        result[path.name] = render(make_exercise(nb, name=str(path)))
    return result


def expected_files(solutions_dir, names=None):
    """{path relative to exercises/: bytes}: the notebooks (all, or those called ``names``)
    and every package file."""
    files = {Path(name): text.encode("utf-8")
             for name, text in expected_exercises(solutions_dir, names).items()}
    files.update(expected_package_files(solutions_dir))
    return files


def files_on_disk(exercises_dir):
    """The generated-looking files of ``exercises_dir``: its notebooks and its packages' files."""
    exercises_dir = Path(exercises_dir)
    if not exercises_dir.is_dir():
        return set()
    return ({p.relative_to(exercises_dir) for p in exercises_dir.glob("*.ipynb")}
            | set(package_files(exercises_dir)))


def differences(solutions_dir, exercises_dir):
    """What differs between ``exercises_dir`` and what ``solutions_dir`` generates (empty: none)."""
    expected = expected_files(solutions_dir)
    exercises_dir = Path(exercises_dir)
    on_disk = files_on_disk(exercises_dir)
    problems = []
    for relative, data in expected.items():
        path = exercises_dir / relative
        if relative not in on_disk:
            problems.append(f"{path}: missing")
        elif path.read_bytes() != data:
            problems.append(f"{path}: differs from what {Path(solutions_dir) / relative} "
                            f"generates")
    problems += [f"{exercises_dir / relative}: has no solution "
                 f"{'notebook' if relative.suffix == '.ipynb' else 'file'}"
                 for relative in sorted(on_disk - set(expected))]
    return problems


def write_exercises(solutions_dir, exercises_dir, log=print, names=None):
    """Write the exercise notebooks (all, or only those called ``names``, so that authors
    working on different chapters do not rewrite each other's) and the packages (always:
    every chapter's notebook imports them); delete the package files whose solution file is
    gone and, when writing all notebooks, the notebooks whose solution notebook is gone."""
    exercises_dir = Path(exercises_dir)
    exercises_dir.mkdir(parents=True, exist_ok=True)
    expected = expected_files(solutions_dir, names)
    for relative, data in expected.items():
        path = exercises_dir / relative
        if not path.exists() or path.read_bytes() != data:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            log(f"wrote {path}")
    for relative in sorted(files_on_disk(exercises_dir) - set(expected)):
        if relative.suffix == ".ipynb" and names is not None:
            continue
        (exercises_dir / relative).unlink()
        log(f"deleted {exercises_dir / relative} (no solution "
            f"{'notebook' if relative.suffix == '.ipynb' else 'file'})")


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m teachgrad.course.make_exercises",
                                     description="Generate exercises/ from solutions/.")
    parser.add_argument("solutions", type=Path)
    parser.add_argument("exercises", type=Path)
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 if exercises/ is not what solutions/ makes")
    args = parser.parse_args(argv)
    try:
        if args.check:
            problems = differences(args.solutions, args.exercises)
            for problem in problems:
                print(problem)
            if problems:
                print("Run `make exercises` to regenerate exercises/ from solutions/.")
            return 1 if problems else 0
        write_exercises(args.solutions, args.exercises)
    except MarkerError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
