"""Case 5: the notebook part of ``make test``, timed.

Runs the Makefile's own targets (``test-notebooks`` for notebooks/ and solutions/,
``test-exercises`` for exercises/) as subprocesses, exactly as ``make test`` does, with
pytest's ``--durations`` switched on through ``PYTEST_ADDOPTS``; each notebook's time is the
sum of its cells' setup, call and teardown (the kernel's start-up included). The total is
the wall-clock time of the make commands. Skipped when there are no notebooks.
"""
import collections
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

from benchmarks import timing

ROOT = Path(__file__).resolve().parent.parent
TARGETS = {"test-notebooks": ("notebooks", "solutions"), "test-exercises": ("exercises",)}
DURATION = re.compile(r"^([\d.]+)s (?:setup|call|teardown)\s+(\S+\.ipynb)::", re.M)
OUTCOME = re.compile(r"(\d+) (passed|failed|errors?)")


def run_target(target):
    """(wall seconds, {notebook: seconds}, Counter of outcomes) for one make target."""
    env = dict(os.environ, PYTEST_ADDOPTS="--durations=0 --durations-min=0")
    start = time.perf_counter()
    done = subprocess.run(["make", "-s", "--no-print-directory", target], cwd=ROOT, env=env,
                          capture_output=True, text=True)
    wall = time.perf_counter() - start
    per_notebook = collections.defaultdict(float)
    for seconds, notebook in DURATION.findall(done.stdout):
        per_notebook[notebook] += float(seconds)
    summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
    outcomes = collections.Counter({kind.rstrip("s"): int(n)
                                    for n, kind in OUTCOME.findall(summary)})
    return wall, per_notebook, outcomes


def run(repeats=None):
    targets = [target for target, dirs in TARGETS.items()
               if any(any((ROOT / d).glob("*.ipynb")) for d in dirs)]
    if not targets:
        return [timing.skip_row("Notebooks", "no notebooks yet")]
    if shutil.which("make") is None:
        return [timing.skip_row("Notebooks", "make is not installed")]
    wall, per_notebook, outcomes = 0.0, {}, collections.Counter()
    for target in targets:
        seconds, times, counts = run_target(target)
        wall += seconds
        per_notebook.update(times)
        outcomes += counts
    tally = ", ".join(f"{n} {kind}" for kind, n in sorted(outcomes.items()))
    rows = [timing.info_row(f"Notebooks ({' + '.join(targets)}): wall time",
                            f"{wall:.1f} s ({len(per_notebook)} notebooks; {tally} cells)",
                            target="< 180 s", met="yes" if wall < 180 else "no")]
    if per_notebook:
        slowest = max(per_notebook, key=per_notebook.get)
        rows.append(timing.info_row(f"Slowest notebook: {slowest}",
                                    f"{per_notebook[slowest]:.1f} s", target="≤ 30 s",
                                    met="yes" if per_notebook[slowest] <= 30 else "no"))
        rows.append("Per-notebook seconds (2 pytest-xdist workers): " + ", ".join(
            f"{Path(nb).parent.name}/{Path(nb).stem} {seconds:.1f}"
            for nb, seconds in sorted(per_notebook.items())))
    return rows
