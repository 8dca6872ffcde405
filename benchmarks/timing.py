"""Timing helpers: medians of interleaved repetitions, thread counts, the machine summary.

Interleaving (A B C, C A B, ...) exposes every contender to the same drift of a noisy
machine (other jobs, CPU frequency), so the ratio of two medians stays meaningful even
when the absolute times wander; shuffling each round's order spreads the cost of running
right after another contender (cold caches, a busy allocator) over all of them.
"""
import cProfile
import ctypes
import glob
import os
import platform
import pstats
import random
import statistics
import time

import numpy as np

try:
    import torch
except ImportError:         # torch's columns are skipped
    torch = None


class Timings(dict):
    """``name -> median seconds per call``, keeping every round's times in ``samples``."""

    def __init__(self, samples):
        super().__init__({name: statistics.median(times) for name, times in samples.items()})
        self.samples = samples

    def ratio_spread(self, ours, reference):
        """The quartiles of the per-round ratios ours / reference: how much the ratio
        moved with the machine's load during the run."""
        ratios = [a / b for a, b in zip(self.samples[ours], self.samples[reference])]
        low, _, high = statistics.quantiles(ratios, n=4)
        return low, high


def interleaved(contenders, repeats, warmup=2, number=1):
    """Median seconds per call of each ``name -> fn`` in ``contenders`` (a ``Timings``).

    Each fn is first called ``warmup`` times; then, ``repeats`` times over, each
    contender in turn runs ``number`` calls under one clock reading. Each round takes the
    contenders in a new order (shuffled, seeded): a call runs slower after another
    contender has filled the caches and the allocator with its own arrays (by up to 6%
    here), so none may always follow the same one.
    """
    for fn in contenders.values():
        for _ in range(warmup):
            fn()
    samples = {name: [] for name in contenders}
    names, order = list(contenders), random.Random(0)
    for _ in range(repeats):
        order.shuffle(names)
        for name in names:
            fn = contenders[name]
            start = time.perf_counter()
            for _ in range(number):
                fn()
            samples[name].append((time.perf_counter() - start) / number)
    return Timings(samples)


def profile(fn, calls=20, top=12):
    """cProfile ``calls`` calls of fn: the ``top`` functions by own time, with their share."""
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(calls):
        fn()
    profiler.disable()
    stats = pstats.Stats(profiler).stats         # (file, line, name) -> (cc, nc, tt, ct, callers)
    total = sum(entry[2] for entry in stats.values())
    lines = [f"{total / calls * 1e3:.2f} ms per call under cProfile; own time of each function:",
             " share  ms/call  calls/call  function"]
    for (file, line, name), (_, ncalls, own, cumulative, _) in sorted(
            stats.items(), key=lambda item: -item[1][2])[:top]:
        where = os.path.relpath(file) if file.startswith("/") else file
        lines.append(f"{own / total:6.1%}  {own / calls * 1e3:7.3f}  {ncalls / calls:10.0f}  "
                     f"{where}:{line}({name})  [cumulative {cumulative / total:.0%}]")
    return "\n".join(lines)


# ---- threads: numpy's BLAS and torch use the same number ----------------------------
def _openblas():
    """numpy's bundled OpenBLAS (scipy-openblas), or None if numpy links another BLAS."""
    libs = os.path.join(os.path.dirname(np.__file__), os.pardir, "numpy.libs")
    for path in glob.glob(os.path.join(libs, "*openblas*.so*")):
        lib = ctypes.CDLL(path)
        for prefix in ("scipy_openblas", "openblas"):
            get = getattr(lib, f"{prefix}_get_num_threads64_", None) or \
                getattr(lib, f"{prefix}_get_num_threads", None)
            set_ = getattr(lib, f"{prefix}_set_num_threads64_", None) or \
                getattr(lib, f"{prefix}_set_num_threads", None)
            if get is not None and set_ is not None:
                return get, set_
    return None


def blas_threads():
    blas = _openblas()
    return blas[0]() if blas else None


def set_threads(count):
    """Run numpy's BLAS and torch's intra-op pool with ``count`` threads each."""
    blas = _openblas()
    if blas:
        blas[1](ctypes.c_int(count))
    if torch is not None:
        torch.set_num_threads(count)


def keep_freed_memory():
    """Ask glibc's malloc to keep freed memory for reuse instead of returning it to the
    system. Otherwise whether a large temporary array (the numpy floor makes many) comes
    back as memory already mapped or as fresh pages to fault in depends on the allocator's
    history, and the same step measured 2.7 ms in one run and 3.7 ms in the next. Every
    contender gets warm memory; True if the setting took (glibc only)."""
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:
        return False
    mmap_threshold, trim_threshold = -3, -1             # mallopt's M_MMAP_THRESHOLD, M_TRIM_...
    return bool(libc.mallopt(mmap_threshold, 1 << 28) and libc.mallopt(trim_threshold, 1 << 30))


def machine_summary():
    torch_part = (f"torch {torch.__version__} ({torch.get_num_threads()} threads)"
                  if torch is not None else "torch absent")
    blas = blas_threads()
    return (f"{os.cpu_count()} CPUs ({platform.processor() or platform.machine()}), "
            f"Python {platform.python_version()}, numpy {np.__version__} "
            f"(BLAS threads: {blas if blas is not None else 'unknown'}), {torch_part}")


def fmt_time(seconds):
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds * 1e6:.1f} µs"


# ---- the rows of the results table ---------------------------------------------------
COLUMNS = ("Case", "teachgrad", "reference", "ratio", "target", "met")


def ratio_row(case, ours, reference, limit, spread=None):
    """A row comparing two median times; the target is a ratio, never an absolute time.
    ``spread``: the quartiles of the per-round ratios, shown beside the ratio."""
    ratio = ours / reference
    shown = f"{ratio:.2f}×" if spread is None else f"{ratio:.2f}× ({spread[0]:.2f}–{spread[1]:.2f})"
    return (case, fmt_time(ours), fmt_time(reference), shown, f"≤ {limit}×",
            "yes" if ratio <= limit else "no")


def info_row(case, ours, reference="", ratio="", target="", met=""):
    return (case, ours, reference, ratio, target, met)


def skip_row(case, reason):
    return (case, f"skipped: {reason}", "", "", "", "")


def missing(lib, *names):
    """The dotted names (``"nn.Conv2d"``) that ``lib`` lacks, e.g. while teachgrad.nn grows."""
    absent = []
    for name in names:
        obj = lib
        for part in name.split("."):
            obj = getattr(obj, part, None)
        if obj is None:
            absent.append(f"{lib.__name__}.{name}")
    return absent
