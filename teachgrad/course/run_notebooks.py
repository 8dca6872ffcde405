"""Re-execute notebooks in place, each in a fresh kernel, so their stored outputs are honest.

    python -m teachgrad.course.run_notebooks notebooks solutions     # folders or .ipynb files

For authors after a change to teachgrad or to a chapter (``make notebooks``). Each notebook
runs top to bottom in a new ``python3`` kernel (this environment's Python), with its own
folder as the working directory and a time limit per cell. A cell may raise only if it carries
the ``raises-exception`` tag; any other error stops with the cell's traceback and leaves the
file untouched. Execution counts then run 1, 2, 3, ... and no timing metadata is recorded, so
running twice gives the same file. The exercises of the solution notebooks that ran are
regenerated afterwards in ``exercises/`` beside them (``make_exercises``): all of them when the
whole ``solutions/`` folder was given, only that chapter's for one ``solutions/NN_*.ipynb``;
the student's package (``exercises/yourgrad/``) is regenerated in both cases. In a lecture or
an appendix, the cells that answer "predict, then run" prompts are folded again
(``predict_cells``), so a new prompt's answer is folded too.

The working directory matters: a notebook imports the ``yourgrad`` beside it, so
``solutions/NN_*.ipynb`` runs on the reference package and ``exercises/NN_*.ipynb`` on the
student's (nbval starts its kernels in the notebook's folder too).
"""
import argparse
import os
import re
import sys
from pathlib import Path

import nbformat
from jupyter_client.kernelspec import KernelSpecManager
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

from teachgrad.course import make_exercises, predict_cells

KERNEL = "python3"
KERNELSPEC = {"name": KERNEL, "display_name": "Python 3 (ipykernel)", "language": "python"}


def check_kernel():
    """Fail early unless the ``python3`` kernel starts this very Python (the project's .venv).

    jupyter_client replaces a kernelspec's ``python`` / ``python3`` with ``sys.executable``,
    which is what ipykernel's own spec inside the venv says.
    """
    spec = KernelSpecManager().get_kernel_spec(KERNEL)
    program = spec.argv[0]
    if program in ("python", "python3", f"python{sys.version_info[0]}.{sys.version_info[1]}"):
        return
    if os.path.realpath(program) != os.path.realpath(sys.executable):
        raise SystemExit(
            f"The '{KERNEL}' kernel runs {program}, not this environment's {sys.executable}.\n"
            f"Fix it with: {sys.executable} -m ipykernel install --sys-prefix")


def run_notebook(path, timeout=600):
    """Execute one notebook in place in a fresh kernel."""
    path = Path(path)
    nb = nbformat.read(path, as_version=4)
    nb.metadata["kernelspec"] = dict(KERNELSPEC)
    client = NotebookClient(nb, timeout=timeout, kernel_name=KERNEL, allow_errors=False,
                            record_timing=False,
                            resources={"metadata": {"path": str(path.parent.resolve())}})
    client.execute()
    # language_info.version changes from machine to machine: keep the rest of it.
    nb.metadata.get("language_info", {}).pop("version", None)
    shorten_tracebacks(nb)
    drop_cell_file_names(nb)
    merge_streams(nb)
    if path.parent.name not in ("solutions", "exercises"):
        predict_cells.apply(nb)         # a lecture's answers to its prompts stay folded
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        nbformat.write(nb, f, version=4)


def shorten_tracebacks(nb):
    """Store only the last line of an error (``RuntimeError: ...``): the frames above it name
    this machine's paths and teachgrad's line numbers, which differ from a student's."""
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error" and output.get("traceback"):
                output["traceback"] = output["traceback"][-1:]


# How Python's warnings name the cell they come from: the kernel's temporary file for it.
CELL_FILE = re.compile(r"\S*/ipykernel_\d+/\d+\.py:\d+: ")


def drop_cell_file_names(nb):
    """A warning from a cell starts with the kernel's file for that cell
    (``/tmp/ipykernel_4242/1473806898.py:1: UserWarning: ...``), a path that changes at
    every run: the stored warning starts at its category (``UserWarning: ...``)."""
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            if output.get("output_type") == "stream" and output.get("name") == "stderr":
                output["text"] = CELL_FILE.sub("", output["text"])


def merge_streams(nb):
    """One output per run of printed text: the kernel splits a cell's stdout into pieces
    depending on timing, and the stored file should not change from run to run."""
    for cell in nb.cells:
        merged = []
        for output in cell.get("outputs", []):
            previous = merged[-1] if merged else None
            if (previous is not None and output.get("output_type") == "stream"
                    and previous.get("output_type") == "stream"
                    and previous.get("name") == output.get("name")):
                previous["text"] += output["text"]
            else:
                merged.append(output)
        if "outputs" in cell:
            cell.outputs = merged


def notebooks_in(targets):
    for target in map(Path, targets):
        if target.is_dir():
            yield from sorted(target.glob("*.ipynb"))
        elif target.suffix == ".ipynb":
            yield target
        else:
            raise SystemExit(f"not a folder or notebook: {target}")


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m teachgrad.course.run_notebooks",
                                     description="Re-execute notebooks in place.")
    parser.add_argument("targets", nargs="+", help="folders of notebooks, or .ipynb files")
    parser.add_argument("--timeout", type=int, default=600, help="seconds per cell")
    args = parser.parse_args(argv)
    check_kernel()
    solutions_run = {}      # solutions folder -> names of the notebooks that ran there
    for path in notebooks_in(args.targets):
        print(f"running {path}", flush=True)
        try:
            run_notebook(path, timeout=args.timeout)
        except CellExecutionError as error:
            print(f"{path}: a cell failed (file left unchanged)\n{error}", file=sys.stderr)
            return 1
        if path.parent.name == "solutions":
            solutions_run.setdefault(path.parent, set()).add(path.name)
    whole_folders = {Path(target) for target in args.targets if Path(target).is_dir()}
    for solutions, names in sorted(solutions_run.items()):
        only = None if solutions in whole_folders else names
        make_exercises.write_exercises(solutions, solutions.parent / "exercises", names=only)
    return 0


if __name__ == "__main__":
    sys.exit(main())
