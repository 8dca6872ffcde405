"""Fold the answers to "predict, then run" prompts, so a student predicts before seeing.

    python -m teachgrad.course.predict_cells notebooks            # tag and fold, in place
    python -m teachgrad.course.predict_cells --check notebooks    # only report; exit 1 if off

The lectures are stored with their outputs (nbval compares them), so without this the answer
to every prompt would be on the screen already. A markdown cell that asks for a prediction
(a bold ``**Predict, then run.**``, ``**Predict, then run:**`` or ``**Predict:**``) is answered
by the next code cell; ``check.predict(...)`` cells in between, where the student writes a
guess, are skipped. The answering cell gets the tag ``predict`` and
``metadata.jupyter.outputs_hidden = true``: JupyterLab then shows the cell with its output
collapsed until the student runs it or clicks the bar beside it. nbval still compares the
hidden output. Tags and folds found anywhere else are removed, so running twice changes
nothing, and ``run_notebooks`` applies it to every notebook it re-executes outside
``solutions/``.
"""
import argparse
import re
import sys
from pathlib import Path

import nbformat

TAG = "predict"
PROMPT = re.compile(r"\*\*Predict(?:,\s+then\s+run)?\s*[.:]?\*\*")
GUESS_CELL = "check.predict("


def asks_for_prediction(cell):
    return cell.cell_type == "markdown" and bool(PROMPT.search(cell.source))


def answer_cells(nb):
    """({index of an answering code cell: index of its prompt}, [prompts with no answer]).

    A prompt's answer is the first code cell after it that is not a ``check.predict`` cell,
    before the next markdown cell."""
    answers, unanswered = {}, []
    for i, cell in enumerate(nb.cells):
        if not asks_for_prediction(cell):
            continue
        for j in range(i + 1, len(nb.cells)):
            following = nb.cells[j]
            if following.cell_type == "markdown":
                break
            if following.cell_type == "code" and GUESS_CELL not in following.source:
                answers[j] = i
                break
        else:
            j = None
        if answers.get(j) != i:
            unanswered.append(i)
    return answers, unanswered


def is_folded(cell):
    return TAG in cell.metadata.get("tags", []) and \
        cell.metadata.get("jupyter", {}).get("outputs_hidden") is True


def fold(cell):
    tags = cell.metadata.setdefault("tags", [])
    if TAG not in tags:
        tags.append(TAG)
    cell.metadata.setdefault("jupyter", {})["outputs_hidden"] = True


def unfold(cell):
    tags = cell.metadata.get("tags", [])
    if TAG in tags:
        tags.remove(TAG)
        if not tags:
            del cell.metadata["tags"]
    jupyter = cell.metadata.get("jupyter", {})
    jupyter.pop("outputs_hidden", None)
    if "jupyter" in cell.metadata and not jupyter:
        del cell.metadata["jupyter"]


def problems(nb):
    """What is off in a notebook: prompts without an answer, answers not folded, folds that
    answer no prompt. Empty when the notebook is as `apply` leaves it."""
    answers, unanswered = answer_cells(nb)
    found = [f"cell {i}: a prediction prompt with no code cell before the next markdown cell"
             for i in unanswered]
    for j, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        if j in answers and not is_folded(cell):
            found.append(f"cell {j}: answers the prompt in cell {answers[j]} but is not "
                         "tagged 'predict' with its output folded")
        if j not in answers and (TAG in cell.metadata.get("tags", [])
                                 or cell.metadata.get("jupyter", {}).get("outputs_hidden")):
            found.append(f"cell {j}: folded or tagged 'predict' but answers no prompt")
    return found


def apply(nb):
    """Fold every answering cell and unfold every other code cell, in place."""
    answers, _ = answer_cells(nb)
    for j, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            (fold if j in answers else unfold)(cell)
    return nb


def notebooks_in(paths):
    for path in map(Path, paths):
        yield from sorted(path.rglob("*.ipynb")) if path.is_dir() else [path]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", help="notebooks or folders of notebooks")
    parser.add_argument("--check", action="store_true", help="report only; exit 1 if off")
    args = parser.parse_args(argv)
    failed = False
    for path in notebooks_in(args.paths):
        nb = nbformat.read(path, as_version=4)
        if args.check:
            for problem in problems(nb):
                print(f"{path}: {problem}")
                failed = True
            continue
        before = nbformat.writes(nb)
        apply(nb)
        for problem in problems(nb):
            print(f"{path}: {problem}")
            failed = True
        if nbformat.writes(nb) != before:
            with open(path, "w", encoding="utf-8", newline="\n") as f:
                nbformat.write(nb, f, version=4)
            print(f"{path}: answers folded")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
