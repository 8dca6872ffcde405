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

The output is deterministic (same input, same bytes): nbformat writes version 4 with sorted
keys, and nothing depends on time or randomness. Exercise notebooks whose solution is gone are
deleted. Never edit ``exercises/`` by hand: ``make test`` checks that it is exactly what this
script makes.

Why not nbgrader? The markers are nbgrader's, so an instructor can run nbgrader on
``solutions/`` (``generate_assignment --no-db --no-metadata``). But it wants its own course
layout (``source/<assignment>/`` to ``release/<assignment>/``), does not tag the stub cells
for nbval, and brings a database, a Jupyter server extension and many dependencies into every
student's environment — for what is, here, a text substitution of a few lines. This script is
that substitution, with nbformat only.
"""
import argparse
import io
import sys
from pathlib import Path

import nbformat

BEGIN_SOLUTION, END_SOLUTION = "### BEGIN SOLUTION", "### END SOLUTION"
BEGIN_HIDDEN, END_HIDDEN = "### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS"
CODE_STUB = "raise NotImplementedError()"
MARKDOWN_STUB = "YOUR ANSWER HERE"
STUB_TAG = "raises-exception"


class MarkerError(ValueError):
    """A BEGIN marker without its END (or the other way round)."""


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


def strip_source(source, cell_type, where="cell"):
    """The exercise version of one cell's source, and how many stubs it received."""
    lines = source.split("\n")
    out, stubs, cursor = [], 0, 0
    solution = list(_blocks(lines, BEGIN_SOLUTION, END_SOLUTION, where))
    hidden = list(_blocks(lines, BEGIN_HIDDEN, END_HIDDEN, where)) if cell_type == "code" else []
    for start, stop, kind in sorted([(a, b, "solution") for a, b in solution]
                                    + [(a, b, "hidden") for a, b in hidden]):
        if start < cursor:
            raise MarkerError(f"{where}: solution and hidden-test blocks overlap")
        out.extend(lines[cursor:start])
        if kind == "solution":
            marker = lines[start]
            indent = marker[:len(marker) - len(marker.lstrip())]
            out.append(indent + (CODE_STUB if cell_type == "code" else MARKDOWN_STUB))
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


def differences(solutions_dir, exercises_dir):
    """What differs between ``exercises_dir`` and what ``solutions_dir`` generates (empty: none)."""
    expected = expected_exercises(solutions_dir)
    exercises_dir = Path(exercises_dir)
    on_disk = {p.name for p in exercises_dir.glob("*.ipynb")} if exercises_dir.is_dir() else set()
    problems = []
    for name, text in expected.items():
        path = exercises_dir / name
        if name not in on_disk:
            problems.append(f"{path}: missing")
        elif path.read_bytes() != text.encode("utf-8"):
            problems.append(f"{path}: differs from what {Path(solutions_dir) / name} generates")
    problems += [f"{exercises_dir / name}: has no solution notebook"
                 for name in sorted(on_disk - set(expected))]
    return problems


def write_exercises(solutions_dir, exercises_dir, log=print, names=None):
    """Write the exercise notebooks (all, or only those called ``names``, so that authors
    working on different chapters do not rewrite each other's); when writing all, delete
    those whose solution notebook is gone."""
    exercises_dir = Path(exercises_dir)
    exercises_dir.mkdir(parents=True, exist_ok=True)
    expected = expected_exercises(solutions_dir, names)
    for name, text in expected.items():
        path = exercises_dir / name
        if not path.exists() or path.read_bytes() != text.encode("utf-8"):
            with open(path, "w", encoding="utf-8", newline="\n") as f:
                f.write(text)
            log(f"wrote {path}")
    if names is not None:
        return
    for path in sorted(exercises_dir.glob("*.ipynb")):
        if path.name not in expected:
            path.unlink()
            log(f"deleted {path} (no solution notebook)")


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
