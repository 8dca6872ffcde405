"""``save`` and ``load``: objects to a file and back, with Python's pickle.

A tensor is stored as its values and its ``requires_grad`` flag (see
``Tensor.__reduce_ex__``), so what comes back is a fresh leaf with no graph. The
files are teachgrad's own (PyTorch writes a zip archive that only PyTorch reads).

As in PyTorch 2.6 and later, ``load`` defaults to ``weights_only=True``: it
rebuilds only tensors, numbers, strings and the usual containers, because
unpickling anything else can run arbitrary code.
"""
import contextlib
import pickle

from teachgrad import dtypes

# What a weights-only load may rebuild, as (module, name), besides teachgrad's dtypes
# (``float32`` pickles as ``teachgrad.dtypes.float32``) and numpy's dtype classes.
_SAFE_GLOBALS = {
    ("teachgrad.tensor", "_rebuild_tensor"), ("teachgrad.tensor", "Tensor"),
    ("teachgrad.nn.parameter", "Parameter"),
    ("collections", "OrderedDict"), ("builtins", "set"), ("builtins", "frozenset"),
    ("builtins", "slice"), ("builtins", "complex"), ("_codecs", "encode"),
    ("numpy", "ndarray"), ("numpy", "dtype"),
    ("numpy.core.multiarray", "_reconstruct"), ("numpy._core.multiarray", "_reconstruct"),
    ("numpy.core.multiarray", "scalar"), ("numpy._core.multiarray", "scalar"),
}


def _is_safe(module, name):
    if (module, name) in _SAFE_GLOBALS:
        return True
    if module == "teachgrad.dtypes":
        return isinstance(getattr(dtypes, name, None), dtypes.dtype)
    return module == "numpy.dtypes" and name.endswith("DType")


_WEIGHTS_ONLY_ERROR = (
    "Weights only load failed. This file can still be loaded, to do so you have two options, "
    "do those steps only if you trust the source of the checkpoint.\n"
    "\t(1) Re-running `torch.load` with `weights_only` set to `False` will likely succeed, "
    "but it can result in arbitrary code execution. Do it only if you got the file from a "
    "trusted source.\n"
    "\t(2) Only tensors, numbers, strings and lists, tuples, dicts of them can be loaded "
    "with `weights_only=True`.\n"
    "WeightsUnpickler error: Unsupported global: GLOBAL {}")


class _WeightsOnlyUnpickler(pickle.Unpickler):
    def find_class(self, module, name):
        if _is_safe(module, name):
            return super().find_class(module, name)
        raise pickle.UnpicklingError(_WEIGHTS_ONLY_ERROR.format(f"{module}.{name}"))


def save(obj, f, pickle_module=pickle, pickle_protocol=2):
    """Write ``obj`` to ``f``: a path, or a file object opened for writing bytes."""
    with _opened(f, "wb") as file:
        pickle_module.dump(obj, file, protocol=pickle_protocol)


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, **kwargs):
    """Read back what ``save`` wrote. ``weights_only`` is True unless it is False;
    ``map_location`` is accepted and changes nothing (everything is on the CPU)."""
    with _opened(f, "rb") as file:
        if weights_only is False:
            return pickle.load(file)
        return _WeightsOnlyUnpickler(file).load()


def _opened(f, mode):
    if isinstance(f, (str, bytes)) or hasattr(f, "__fspath__"):
        return open(f, mode)
    return contextlib.nullcontext(f)
