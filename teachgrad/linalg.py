"""``torch.linalg``: the linear-algebra functions under PyTorch's newer names.

The operations themselves are in ``teachgrad/ops`` (``linalg.py``, ``lu.py``); this module
gives them these names. A vector norm is one node, LinalgVectorNormBackward0, for every
order. The matrix norms are composed from other nodes exactly as PyTorch composes them,
so that their graphs are PyTorch's: 'fro' is the vector 2-norm of the entries; 1 and inf
a vector 1-norm of the columns (of the rows), then amax (amin for -1 and -inf); 'nuc',
2 and -2 the sum, amax or amin of the singular values (``svdvals``, the one node this
module defines).
"""
import math

import numpy as np

from teachgrad.autograd.graph import SavedTensor
from teachgrad.autograd.operation import Operation
from teachgrad.creation import eye, zeros
from teachgrad.ops.linalg import linalg_cross as cross, matmul  # noqa: F401
from teachgrad.ops.lu import _LinAlgError as LinAlgError  # noqa: F401
from teachgrad.ops.lu import _check_floating, column_major
from teachgrad.ops.lu import det, inverse as inv, linalg_slogdet as slogdet, solve  # noqa: F401
from teachgrad.ops.reduction import check_norm_dtype, normalize_dims
from teachgrad.ops.reduction import vector_norm  # noqa: F401


# ---- singular values ------------------------------------------------------------------------
class LinalgSvdBackward0(Operation):
    """The singular values of each matrix (..., m, n), largest first. PyTorch's node has
    three outputs, U, S and Vh (``svdvals`` gives S, output 1); the gradient of S alone is
    U diag(grad_S) Vh, as dS_i = u_i^T dA v_i. It keeps its three outputs for backward:
    that gradient, a graph under ``create_graph=True``, leads back to U and Vh, so a second
    derivative comes here again with gradients for them (``_singular_vectors_gradient``)."""
    input_names = ("A",)
    kept_names = ("U", "S", "Vh")

    def forward(self, a):
        u, s, vh = np.linalg.svd(a, full_matrices=False)
        self._saved_full_matrices, self._saved_S_sym_argsize_minus_1 = False, s.shape[-1]
        return column_major(u), s, column_major(vh)         # laid out as PyTorch's are

    def _connect(self, inputs, outputs):
        super()._connect(inputs, outputs)
        for name, output in zip(self.kept_names, outputs):
            self._saved[name] = SavedTensor(output, self, is_output=True)

    def backward(self, grad_U, grad_S, grad_Vh):
        U, S, Vh = self._saved_U, self._saved_S, self._saved_Vh
        if grad_U is None and grad_Vh is None:      # U diag(grad_S) Vh, as PyTorch groups it
            if U.shape[-2] >= Vh.shape[-1]:
                return U @ (grad_S.unsqueeze(-1) * Vh)
            return (U * grad_S.unsqueeze(-2)) @ Vh
        return _singular_vectors_gradient(U, S, Vh, grad_U, grad_S, grad_Vh)


def _singular_vectors_gradient(U, S, Vh, grad_U, grad_S, grad_Vh):
    """PyTorch's svd_backward when U or Vh has a gradient (any of the three may be None), for
    real matrices with distinct singular values: in the basis of the singular vectors,
    the skew parts of U^T grad_U and Vh grad_Vh^T divided by E_ij = S_j^2 - S_i^2, and grad_S
    on the diagonal; for a tall (wide) matrix, the part of grad_U (grad_Vh) outside the span
    of U (of V) too."""
    m, n = U.shape[-2], Vh.shape[-1]
    squares = S * S
    E = squares.unsqueeze(-2) - squares.unsqueeze(-1)
    E = E + eye(S.shape[-1], dtype=S.dtype)     # its diagonal 0 made 1: it only divides zeros
    if grad_U is not None:
        UtgU = U.mT @ grad_U
        UtgU = UtgU - UtgU.mT
    if grad_Vh is not None:
        VhgV = Vh @ grad_Vh.mT
        VhgV = VhgV - VhgV.mT
    if grad_U is not None and grad_Vh is not None:
        inner = (UtgU * S.unsqueeze(-2) + S.unsqueeze(-1) * VhgV) / E
    elif grad_U is None:
        inner = S.unsqueeze(-1) * (VhgV / E)
    else:
        inner = (UtgU / E) * S.unsqueeze(-2)
    if grad_S is not None:
        inner = inner + grad_S.diag_embed()
    if m > n and grad_U is not None:
        grad_U_over_S = grad_U / S.unsqueeze(-2)
        return (U @ inner + grad_U_over_S - U @ (U.mT @ grad_U_over_S)) @ Vh
    if m < n and grad_Vh is not None:
        grad_Vh_over_S = grad_Vh / S.unsqueeze(-1)
        return U @ (inner @ Vh + grad_Vh_over_S - (grad_Vh_over_S @ Vh.mT) @ Vh)
    return U @ (inner @ Vh) if m >= n else (U @ inner) @ Vh


def svdvals(A):
    """The singular values of each matrix of A, largest first."""
    if A.ndim < 2:
        raise RuntimeError("linalg.svd: The input tensor A must have at least 2 dimensions.")
    _check_floating(A, "linalg.svd")
    return LinalgSvdBackward0.apply(A)[1]


# ---- norms ----------------------------------------------------------------------------------
def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    """The ``ord``-norm of each matrix of A (whose rows and columns are ``dim``)."""
    if not (ord in ("fro", "nuc") if isinstance(ord, str) else abs(ord) in (1, 2, math.inf)):
        order = ord if isinstance(ord, str) else f"{float(ord):g}"   # as C++ prints a double
        raise RuntimeError(f"linalg.matrix_norm: Order {order} not supported.")
    rows, columns = _check_matrix_norm(A, ord in ("nuc", 2, -2), dim, dtype)
    if ord == "fro":
        return vector_norm(A, 2, (rows, columns), keepdim, dtype=dtype)
    if ord in ("nuc", 2, -2):
        return _singular_value_norm(A, ord, (rows, columns), keepdim, dtype)
    if abs(ord) == math.inf:        # the inf-norm is the 1-norm of the transposed matrix
        rows, columns = columns, rows
    if not keepdim and rows < columns:
        columns -= 1                # (the sums over rows took a dim away before it)
    sums = vector_norm(A, 1.0, (rows,), keepdim, dtype=dtype)
    return _largest_or_smallest(sums, ord, columns, keepdim)


def _singular_value_norm(A, ord, dims, keepdim, dtype):
    """'nuc', 2 or -2, from the singular values; PyTorch moves the matrix dims last (with a
    permute even when they are last already) and, for keepdim, back."""
    order = [d for d in range(A.ndim) if d not in dims] + list(dims)
    singular_values = svdvals((A if dtype is None else A.to(dtype)).permute(order))
    if ord == "nuc":
        result = singular_values.sum(-1, keepdim)
    else:
        result = _largest_or_smallest(singular_values, ord, -1, keepdim)
    if keepdim:
        result = result.unsqueeze(-1).permute(tuple(np.argsort(order)))
    return result


def _largest_or_smallest(t, ord, dim, keepdim):
    """amax along ``dim`` for a positive order, amin for a negative one. Along an empty dim
    PyTorch's matrix norms give 0 for a positive order, with no graph (amax would refuse)."""
    if ord < 0:
        return t.amin(dim, keepdim)
    if t.shape[dim] == 0:
        shape = list(t.shape)
        if keepdim:
            shape[dim] = 1
        else:
            del shape[dim]
        return zeros(shape, dtype=t.dtype)
    return t.amax(dim, keepdim)


def _check_matrix_norm(A, from_singular_values, dim, dtype):
    """PyTorch's checks of a matrix norm, in its order; the two dims, made positive."""
    if A.ndim < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 "
                           "dimensions.")
    _check_floating(A, "linalg.matrix_norm")
    if from_singular_values and A.dtype.numpy == np.float16:
        raise RuntimeError(f"linalg.matrix_norm: Low precision dtypes not supported. Got "
                           f"{A.dtype.short_name}")
    if len(dim) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got "
                           f"{' '.join(map(str, dim))}")
    rows, columns = (normalize_dims(d, A.ndim)[0] for d in dim)
    if rows == columns:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({rows}, "
                           f"{columns})")
    check_norm_dtype(dtype, A.dtype, "linalg.matrix_norm")
    return rows, columns


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    """A vector norm or a matrix norm, as PyTorch chooses: a matrix norm for a string
    ``ord``, or for an ``ord`` with two dims (or, with no ``dim``, a matrix); otherwise a
    vector norm (the 2-norm for no ``ord``)."""
    dims = [dim] if isinstance(dim, int) else dim
    if dims is not None and len(dims) not in (1, 2):
        raise RuntimeError(f"linalg.norm: If dim is specified, it must be of length 1 or 2. "
                           f"Got {list(dims)}")
    if dims is None and ord is not None and A.ndim not in (1, 2):
        raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input "
                           f"must be 1D or 2D. Got {A.ndim}D.")
    if isinstance(ord, str) or (ord is not None and len(dims or range(A.ndim)) == 2):
        return matrix_norm(A, ord, (0, 1) if dims is None else dims, keepdim, dtype=dtype)
    return vector_norm(A, 2.0 if ord is None else ord, dims, keepdim, dtype=dtype)
