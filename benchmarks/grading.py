"""``python -m benchmarks.grading [--copies 30] [--baseline-runs 5]``: the grader's speed.

Issue 31's target: grading 30 copies of the reference (``python -m teachgrad.course.grade``,
each in its sandboxed process, over a pool of the machine's cores) takes at most about twice
the time of 30 sequential ``check.build("10")`` runs divided by the number of cores. The
sequential time is measured on ``--baseline-runs`` runs in this process and scaled to the
number of copies. The result goes to ``benchmarks/grading_results.md`` (``python -m benchmarks``
rewrites ``results.md`` whole, so the grader keeps a file of its own).
"""
import argparse
import contextlib
import datetime
import importlib
import io
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from teachgrad.course import build
from teachgrad.course.grade import grading

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "solutions" / "yourgrad"
RESULTS = Path(__file__).with_name("grading_results.md")
SECTION = "## Grading a class (issue 31)"
TARGET = 2.0


def seconds_per_build(runs):
    """Mean seconds of check.build("10") on the reference, in this process, output discarded."""
    sys.path.insert(0, str(REFERENCE.parent))
    yourgrad = importlib.import_module("yourgrad")
    started = time.perf_counter()
    for _ in range(runs):
        with contextlib.redirect_stdout(io.StringIO()):
            build.run("10", yourgrad)
    return (time.perf_counter() - started) / runs


def seconds_to_grade(copies, jobs):
    """Wall seconds of grading `copies` copies of the reference; and their statuses."""
    with tempfile.TemporaryDirectory() as folder:
        for number in range(copies):
            shutil.copytree(REFERENCE, Path(folder) / f"student_{number:02d}" / "yourgrad",
                            ignore=shutil.ignore_patterns("__pycache__"))
        started = time.perf_counter()
        graded = grading.grade_class(folder, jobs=jobs)
        return time.perf_counter() - started, {g.status for g in graded}


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.grading", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--copies", type=int, default=30)
    parser.add_argument("--baseline-runs", type=int, default=5)
    args = parser.parse_args(argv)
    cores = os.cpu_count() or 1
    load_before = os.getloadavg()[0]
    per_build = seconds_per_build(args.baseline_runs)
    graded_in, statuses = seconds_to_grade(args.copies, cores)
    loads = (load_before, os.getloadavg()[0])
    load = f"{min(loads):.1f}–{max(loads):.1f}"
    budget = args.copies * per_build / cores
    ratio = graded_in / budget
    text = (f"{SECTION}\n\nCommand: `python -m benchmarks.grading --copies {args.copies} "
            f"--baseline-runs {args.baseline_runs}` ({datetime.date.today()}), {cores} cores, "
            f"load average {load} (other jobs share the machine: absolute times grow with it, "
            "the ratio is the figure).\n\n"
            "| Case | grader | sequential check.build / cores | ratio | target | met |\n"
            "|---|---|---|---|---|---|\n"
            f"| {args.copies} copies of the reference | {graded_in:.1f} s | "
            f"{args.copies} × {per_build:.2f} s / {cores} = {budget:.1f} s | {ratio:.2f}× | "
            f"≤ {TARGET:.1f}× | {'yes' if ratio <= TARGET else 'no'} |\n\n"
            f"Statuses of the copies: {', '.join(sorted(statuses))}. The grader's time includes "
            "teachgrad's side of every check (computed once, while children run), "
            "one process a copy (Python, numpy and teachgrad started afresh) and the "
            "comparisons; check.build runs teachgrad's side again for every copy.\n")
    print(text)
    RESULTS.write_text(text)


if __name__ == "__main__":
    main()
