"""numpy without its warnings for IEEE special values.

PyTorch computes inf and nan without a word; numpy warns. The operations (and the
engine's sums of gradients) switch numpy's warnings off where those values can arise.
"""
import contextvars
import threading

import numpy as np


# numpy's warnings are switched off around the operations that produce special values (overflowing exp, x / 0, 0 ** -1, (-1) ** 0.5,
# inf * 0, inf - inf, sin(inf)...). ``with quiet():`` does it for a block of numpy code;
# ``quiet_numpy.run(np.multiply, a, b)`` for one call, at a fraction of the cost: the ops
# of every training step (+, *, @, sum) use it.
def quiet():
    return np.errstate(over="ignore", divide="ignore", invalid="ignore")


def cast(array, numpy_dtype):
    """``array.astype(numpy_dtype)`` without numpy's warnings, as PyTorch converts: a float
    beyond the new type's range becomes inf, and an integer type takes nan or inf silently."""
    with quiet():
        return np.asarray(array).astype(numpy_dtype)


class QuietNumpy(threading.local):
    """``quiet_numpy.run(function, *args, **kwargs)`` calls ``function`` without numpy's
    warnings. numpy 2 keeps its error state in a context variable: ``run`` calls in a copy
    of the context (one per thread) where the warnings are off, which costs about as much
    as a function call; entering ``np.errstate`` costs a microsecond or two, too much for
    the ``a * b`` of every training step."""

    def __init__(self):
        if int(np.__version__.split(".")[0]) < 2:    # numpy 1: an error state per thread
            self.run = _run_in_quiet_errstate
            return
        context = contextvars.copy_context()
        context.run(np.seterr, over="ignore", divide="ignore", invalid="ignore")
        self.run = context.run


def _run_in_quiet_errstate(function, *args, **kwargs):
    with quiet():
        return function(*args, **kwargs)


quiet_numpy = QuietNumpy()
