"""``teachgrad.compile``: a training step traced once into a static numpy program.

    step = teachgrad.compile(step)
    step()              # traced: runs eagerly, writing down every numpy call
    step()              # replayed: the numpy calls alone, into buffers allocated once
    print(step.program)

The eager engine does not change for it: ``tracer`` follows the numpy calls the eager code
makes, ``program`` holds them, ``passes`` rewrite them, ``guards`` decide when to trace
again, ``compiled`` puts it together.
"""
from teachgrad.compile.compiled import CompiledFunction


def compile(fn=None):
    """``teachgrad.compile(fn)`` (or ``@teachgrad.compile``, or ``@teachgrad.compile()``):
    the step, traced on its first call and replayed afterwards. It leaves what ``fn`` would
    leave: parameters, ``.grad``, optimiser state, the returned value -- or runs ``fn``
    eagerly, with a warning naming what it could not capture."""
    if fn is None:
        return CompiledFunction
    return CompiledFunction(fn)
