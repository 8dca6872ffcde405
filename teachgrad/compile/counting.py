"""Counts that say what compiling saves, without timing anything (the same on every machine).

* ``python_calls(fn)``: Python functions entered during one call of ``fn`` (``sys.setprofile``);
* ``numpy_work(program)``: numpy calls in a program, and how many of them allocate a new
  array. Of a trace without passes this is what the eager step did; of the compiled
  program, what its replay does (a result written into a planned buffer allocates nothing).
"""
import sys


def python_calls(fn, *args):
    """How many Python-level function calls one ``fn(*args)`` makes."""
    count = 0

    def profile(frame, event, arg):
        nonlocal count
        if event == "call":
            count += 1
    sys.setprofile(profile)
    try:
        fn(*args)
    finally:
        sys.setprofile(None)
    return count - 1                   # fn's own call is not counted


def numpy_work(program):
    """``(numpy calls, array allocations)`` of one run of ``program``."""
    calls = allocations = 0
    for instruction in program.instructions:
        if instruction.expect is not None:
            calls += 1
            continue
        if instruction.is_its_buffer:   # no call, no allocation: the planned buffer itself
            continue
        calls += getattr(instruction.func, "numpy_calls", 1)
        values = [program.values[i] for i in instruction.outputs]
        if instruction.buffer is None and any(v.root == v.id for v in values):
            allocations += 1
    written = program.written_roots()
    allocations += sum(1 for v in program.constants() if v.id in written)
    return calls, allocations
