"""The deterministic side of compiling: what one step does, counted, eager against compiled.

Python-level calls (``sys.setprofile``), numpy calls and array allocations (of the traced
program as the eager step made it, and of the compiled program after its passes). Counts,
not times: the same on every machine, so chapter 10 can print them.
"""
import teachgrad
from teachgrad.compile import counting


def compiled_twin(make_step):
    """``make_step()`` twice: an eager step and a compiled one, called in step until the
    compiled one replays (so both have taken the same steps)."""
    eager, compiled = make_step(), teachgrad.compile(make_step())
    while compiled.program is None and compiled.fallback_reason is None:
        eager(), compiled()
    return eager, compiled


def per_step(eager, compiled):
    """{"eager": (python calls, numpy calls, allocations), "compiled": (...)}."""
    return {"eager": (counting.python_calls(eager), *counting.numpy_work(compiled.trace)),
            "compiled": (counting.python_calls(compiled), *counting.numpy_work(compiled.program))}


def describe(counts):
    calls, numpy_calls, allocations = counts
    return f"{calls} Python calls, {numpy_calls} numpy calls, {allocations} allocations"


def row(case, eager, compiled, timing):
    """A results row: eager's counts, compiled's, and how many times fewer."""
    counts = per_step(eager, compiled)
    fewer = [e / max(c, 1) for e, c in zip(counts["eager"], counts["compiled"])]
    return timing.info_row(f"{case}, per step: eager / compiled (counts)",
                           describe(counts["eager"]), describe(counts["compiled"]),
                           f"{fewer[0]:.0f}× fewer calls, {fewer[2]:.1f}× fewer allocations")
