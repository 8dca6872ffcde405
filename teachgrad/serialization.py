"""``save`` and ``load``: objects to a file and back, with Python's pickle.

A tensor is stored as its values and its ``requires_grad`` flag (see
``Tensor.__reduce_ex__``), so what comes back is a fresh leaf with no graph. The
files are teachgrad's own (PyTorch writes a zip archive that only PyTorch reads).

As in PyTorch 2.6 and later, ``load`` defaults to ``weights_only=True``: it
rebuilds only tensors, numbers, strings and the usual containers (not numpy arrays,
unless allowed with ``add_safe_globals``), because unpickling anything else can run
arbitrary code.
"""
import _compat_pickle
import contextlib
import pickle

import numpy as np

from teachgrad import dtypes

# What a weights-only load may rebuild, as (module, name), besides teachgrad's dtypes
# (``float32`` pickles as ``teachgrad.dtypes.float32``) and numpy's dtype classes.
_SAFE_GLOBALS = {
    ("teachgrad.tensor", "_rebuild_tensor"), ("teachgrad", "Tensor"),
    ("teachgrad.nn.parameter", "Parameter"),
    # a whole module: the dicts that hold its parameters, buffers, submodules and hooks
    ("teachgrad.nn.changes", "Registry"), ("teachgrad.nn.changes", "ModuleHooks"),
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
    "\x1b[1mdo those steps only if you trust the source of the checkpoint\x1b[0m. \n"
    "\t(1) In PyTorch 2.6, we changed the default value of the `weights_only` argument in "
    "`torch.load` from `False` to `True`. Re-running `torch.load` with `weights_only` set to "
    "`False` will likely succeed, but it can result in arbitrary code execution. Do it only if "
    "you got the file from a trusted source.\n"
    "\t(2) Alternatively, to load with `weights_only=True` please check the recommended steps "
    "in the following error message.\n"
    "\tWeightsUnpickler error: Unsupported global: GLOBAL {0} was not an allowed global by "
    "default. Please use `torch.serialization.add_safe_globals([{0}])` or the "
    "`torch.serialization.safe_globals([{0}])` context manager to allowlist this global if you "
    "trust this class/function.\n\n"
    "Check the documentation of torch.load to learn more about types accepted by default with "
    "weights_only https://pytorch.org/docs/stable/generated/torch.load.html.")
_user_safe_globals = set()      # (module, name) pairs allowed by add_safe_globals


def add_safe_globals(safe_globals):
    """Allow a weights-only load to rebuild these classes or functions too."""
    _user_safe_globals.update((g.__module__, g.__name__) for g in safe_globals)


def get_safe_globals():
    return list(_user_safe_globals)


@contextlib.contextmanager
def safe_globals(safe_globals):
    """``add_safe_globals`` for the duration of a ``with`` block."""
    before = set(_user_safe_globals)
    add_safe_globals(safe_globals)
    try:
        yield
    finally:
        _user_safe_globals.intersection_update(before)


def _refuse(module, name):
    raise pickle.UnpicklingError(_WEIGHTS_ONLY_ERROR.format(f"{module}.{name}"))


class _WeightsOnlyUnpickler(pickle.Unpickler):
    def find_class(self, module, name):
        # protocol 2 writes Python 2's names (__builtin__.set); Python 3's, as pickle reads them
        module, name = _compat_pickle.NAME_MAPPING.get((module, name), (module, name))
        module = _compat_pickle.IMPORT_MAPPING.get(module, module)
        if _is_safe(module, name) or (module, name) in _user_safe_globals:
            return super().find_class(module, name)
        _refuse(module, name)


def _refuse_numpy_values(obj):
    """A weights-only load takes numpy arrays and scalars inside tensors only (teachgrad
    pickles a tensor's values as an array); one found on its own is refused with
    PyTorch's error, which names the numpy function that rebuilds it."""
    if isinstance(obj, (np.ndarray, np.generic)):
        rebuild = obj.__reduce__()[0]
        if (rebuild.__module__, rebuild.__name__) not in _user_safe_globals:
            _refuse(rebuild.__module__, rebuild.__name__)
    elif isinstance(obj, dict):
        for key, value in obj.items():
            _refuse_numpy_values(key)
            _refuse_numpy_values(value)
    elif isinstance(obj, (list, tuple, set, frozenset)):
        for item in obj:
            _refuse_numpy_values(item)


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
        loaded = _WeightsOnlyUnpickler(file).load()
    _refuse_numpy_values(loaded)
    return loaded


def _opened(f, mode):
    if isinstance(f, (str, bytes)) or hasattr(f, "__fspath__"):
        return open(f, mode)
    return contextlib.nullcontext(f)
