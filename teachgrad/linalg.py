"""``torch.linalg``: the linear-algebra functions under PyTorch's newer names.

The operations themselves are in ``teachgrad/ops`` (``linalg.py``, ``lu.py``); this module
only gives them these names. The norms are built on ``Tensor.norm``: the 2-norm of all the
elements records PyTorch's node (LinalgVectorNormBackward0); a norm over some dimensions,
or of another order, is computed from sums and powers, with the same values and gradients
but other nodes than PyTorch's.
"""
import math

from teachgrad.ops.linalg import linalg_cross as cross, matmul  # noqa: F401
from teachgrad.ops.lu import _LinAlgError as LinAlgError  # noqa: F401
from teachgrad.ops.lu import _check_floating
from teachgrad.ops.lu import det, inverse as inv, linalg_slogdet as slogdet, solve  # noqa: F401
from teachgrad.ops.reduction import norm as _tensor_norm, normalize_dims


def vector_norm(x, ord=2, dim=None, keepdim=False):
    """The ``ord``-norm of the entries of x (along ``dim``: an int, a tuple, or None for all)."""
    if isinstance(ord, str):
        raise TypeError(f"linalg_vector_norm(): argument 'ord' (position 2) must be Number, "
                        f"not str")
    if ord == 0 or math.isinf(ord):
        raise NotImplementedError(f"teachgrad: linalg.vector_norm of order {ord} is not "
                                  f"implemented (the other orders are)")
    _check_floating(x, "linalg.vector_norm")
    dims = normalize_dims(dim, x.ndim)
    if ord == 2 and dims == tuple(range(x.ndim)):
        return _tensor_norm(x, keepdim=keepdim)     # PyTorch's node, LinalgVectorNormBackward0
    return _tensor_norm(x, ord, dims, keepdim)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False):
    """The Frobenius norm of each matrix of A (the 2-norm of its entries)."""
    if A.ndim < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 "
                           "dimensions.")
    _check_floating(A, "linalg.matrix_norm")
    if ord != "fro":
        raise NotImplementedError(f"teachgrad: linalg.matrix_norm of order {ord!r} is not "
                                  f"implemented (only 'fro' is)")
    return vector_norm(A, 2, dim, keepdim)


def norm(A, ord=None, dim=None, keepdim=False):
    """A vector norm or a matrix norm, as PyTorch chooses: with neither ``ord`` nor ``dim``,
    the 2-norm of all the entries; a matrix norm for a string ``ord``, for two dims, or,
    with no ``dim``, for a matrix; otherwise a vector norm."""
    if dim is None and ord is not None and A.ndim not in (1, 2):
        raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input "
                           f"must be 1D or 2D. Got {A.ndim}D.")
    two_dims = isinstance(dim, (tuple, list)) and len(dim) == 2
    if isinstance(ord, str) or two_dims or (dim is None and ord is not None and A.ndim == 2):
        return matrix_norm(A, "fro" if ord is None else ord, (-2, -1) if dim is None else dim,
                           keepdim)
    return vector_norm(A, 2 if ord is None else ord, dim, keepdim)
