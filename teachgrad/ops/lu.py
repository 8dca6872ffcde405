"""Determinants, inverses and linear solves, all from one LU factorization.

``lu_factor`` writes each square matrix as ``P A = L U``, as LAPACK's ``getrf`` does:
partial pivoting, that is, at each column the row with the largest entry is swapped up.
From it:

* the determinant is the product of U's diagonal, negated for an odd number of swaps;
* a zero on U's diagonal means the matrix is singular: ``inverse`` and ``solve`` refuse it,
  with PyTorch's error (``torch.linalg.LinAlgError``).

PyTorch keeps the factorization on the nodes (``_saved_LU``, ``_saved_pivots``), and so do
these. The gradients are all ``A^-T`` in one form or another; they are written with
``solve``, so that under ``create_graph=True`` they are graphs too, as in PyTorch.
"""
import math
from collections import namedtuple

import numpy as np

from teachgrad import creation
from teachgrad.autograd.graph import SavedTensor
from teachgrad.autograd.operation import Operation, broadcast_error_message
from teachgrad.ops.pointwise import where


class _LinAlgError(RuntimeError):
    """PyTorch's error for a singular matrix: ``torch.linalg.LinAlgError``, a RuntimeError
    whose class is named ``_LinAlgError``."""


def lu_factor(a):
    """The LU factorization of each matrix of ``a`` (..., n, n): ``(LU, pivots)``, laid out
    as LAPACK lays them out. ``LU`` holds U on and above the diagonal and L below it (L's
    diagonal of ones is left out); at step k, row k was swapped with row ``pivots[k] - 1``."""
    lu = column_major(a)        # (the copy that is factored in place)
    pivots = np.empty(a.shape[:-1], dtype=np.int32)
    for index in np.ndindex(a.shape[:-2]):
        pivots[index] = _factor_in_place(lu[index])
    return lu, pivots


def column_major(a):
    """A copy of ``a`` with each matrix stored column by column, as LAPACK stores them (and
    PyTorch the results it gets from LAPACK: LU, inverses, solutions): strides (..., 1, rows)."""
    copy = np.empty(a.shape[:-2] + a.shape[:-3:-1], dtype=a.dtype).swapaxes(-1, -2)
    copy[...] = a
    return copy


def _factor_in_place(matrix):
    """Gaussian elimination with partial pivoting, written into ``matrix``; the pivots."""
    n = len(matrix)
    pivots = np.empty(n, dtype=np.int32)
    for k in range(n):
        pivot = k + int(np.argmax(np.abs(matrix[k:, k])))
        pivots[k] = pivot + 1
        matrix[[k, pivot]] = matrix[[pivot, k]]
        if matrix[k, k] != 0:       # (a zero column: nothing to eliminate, the matrix is singular)
            matrix[k + 1:, k] /= matrix[k, k]
        matrix[k + 1:, k + 1:] -= np.outer(matrix[k + 1:, k], matrix[k, k + 1:])
    return pivots


def _factor_for_det(a):
    """PyTorch factors A^T when A is stored row by row (A^T is then stored column by column,
    as LAPACK wants; det A^T = det A). So does this, so that _saved_LU is PyTorch's."""
    return lu_factor(np.swapaxes(a, -1, -2) if a.flags.c_contiguous else a)


def _odd_permutation(pivots):
    """True where the row swaps of ``pivots`` are odd in number (they flip the sign of det)."""
    swaps = (pivots != np.arange(1, pivots.shape[-1] + 1)).sum(-1)
    return swaps % 2 == 1


def _first_singular(lu):
    """Where the first singular matrix of ``lu`` is, as PyTorch's errors say it:
    ``("(Batch element 2): ", k)`` for a zero at U's k-th diagonal element (from 1), or
    ``("", k)`` for a single matrix; None when every matrix is invertible."""
    batch = lu.shape[:-2]
    diagonal = np.diagonal(lu, axis1=-2, axis2=-1)
    for index in np.ndindex(batch):
        zeros = np.flatnonzero(diagonal[index] == 0)
        if zeros.size:
            where_in_batch = f"(Batch element {np.ravel_multi_index(index, batch)}): " \
                if batch else ""
            return where_in_batch, int(zeros[0]) + 1
    return None


class KeepsAnOutput(Operation):
    """A node that keeps one of its outputs for backward under PyTorch's name for it
    (``_saved_inverse``, ``_saved_sign``), as ``save("result")`` keeps output 0 as
    ``_saved_result``. The name is in ``kept_names`` too, so the class has the attribute."""
    kept_output = None      # (name, output number)

    def _connect(self, inputs, outputs):
        super()._connect(inputs, outputs)
        name, number = self.kept_output
        self._saved[name] = SavedTensor(outputs[number], self, is_output=True)


# ---- the determinant ---------------------------------------------------------------------
class LinalgDetBackward0(Operation):
    """The determinant: the product of U's diagonal, with the sign of the row swaps.

    Its gradient is the matrix of cofactors, ``det * A^-T``. At a singular matrix PyTorch's
    gradient is 0 (even where the cofactors are not, at a matrix of rank n-1), and so is this.
    """
    input_names = ("A",)
    kept_names = ("LU", "pivots")

    def forward(self, a):
        lu, pivots = _factor_for_det(a)
        self.save("A")
        self.keep("LU", lu)
        self.keep("pivots", pivots)
        self.save("result")
        product = np.diagonal(lu, axis1=-2, axis2=-1).prod(-1)
        return np.asarray(np.where(_odd_permutation(pivots), -product, product))

    def backward(self, grad):
        A, det = self._saved_A, self._saved_result
        if A.shape[-1] == 1:        # the determinant of a 1x1 matrix is its entry
            return grad.unsqueeze(-1).unsqueeze(-1).expand(A.shape)
        if (det._data == 0).any():
            # grad * det is 0 there, so the gradient is 0 whatever it is solved with: the
            # identity takes the place of the singular matrix, which solve would refuse
            singular = (det == 0).unsqueeze(-1).unsqueeze(-1)
            A = where(singular, creation.eye(A.shape[-1], dtype=A.dtype), A)
        return _scaled_inverse_transposed(A, grad * det)


def _scaled_inverse_transposed(A, scale):
    """``scale * A^-T`` for each matrix of A (the gradient of det and of slogdet), as PyTorch
    computes it: ``solve(A^T, D)`` for D the diagonal matrix of ``scale``. (A diagonal matrix
    is its own transpose; PyTorch transposes D for LAPACK's memory order, and so does this,
    so that the graphs agree.)"""
    diagonal = scale.unsqueeze(-1).expand(*scale.shape, A.shape[-1]).diag_embed()
    return solve(A.mT, diagonal.mT)


class LinalgSlogdetBackward0(KeepsAnOutput):
    """``(sign, log|det|)``: the sign of det and the sum of the logs of |U's diagonal|, which
    stays finite where the product of the diagonal would overflow or underflow.

    The sign is flat (no gradient); log|det| has the gradient ``A^-T``. At a singular matrix
    (log|det| = -inf) PyTorch's gradient is made of infs; here solve refuses the matrix.
    """
    input_names = ("A",)
    kept_names = ("LU", "pivots", "sign")
    kept_output = ("sign", 0)

    def forward(self, a):
        lu, pivots = _factor_for_det(a)
        self.save("A")
        self.keep("LU", lu)
        self.keep("pivots", pivots)
        diagonal = np.diagonal(lu, axis1=-2, axis2=-1)
        sign = np.sign(diagonal).prod(-1)
        with np.errstate(divide="ignore"):           # log 0 is -inf, as in PyTorch
            logabsdet = np.log(np.abs(diagonal)).sum(-1)
        return np.asarray(np.where(_odd_permutation(pivots), -sign, sign)), np.asarray(logabsdet)

    def backward(self, grad_sign, grad_logabsdet):
        if grad_logabsdet is None:
            return None
        return _scaled_inverse_transposed(self._saved_A, grad_logabsdet)


class SignAndLogAbsDet(namedtuple("SignAndLogAbsDet", ["sign", "logabsdet"])):
    """What ``torch.slogdet`` returns: ``(sign, logabsdet)``, printed as PyTorch prints it."""
    name = "slogdet"

    def __repr__(self):
        return (f"teachgrad.return_types.{self.name}(\nsign={self.sign!r},\n"
                f"logabsdet={self.logabsdet!r})")


class LinalgSignAndLogAbsDet(SignAndLogAbsDet):
    """What ``torch.linalg.slogdet`` returns."""
    name = "linalg_slogdet"


def det(input):
    _check_square_matrices(input, "linalg.det")
    return LinalgDetBackward0.apply(input)


def slogdet(input):
    _check_square_matrices(input, "linalg.slogdet")
    return SignAndLogAbsDet(*LinalgSlogdetBackward0.apply(input))


def linalg_slogdet(A):
    """``torch.linalg.slogdet``: ``torch.slogdet`` with another name for its result."""
    _check_square_matrices(A, "linalg.slogdet")
    return LinalgSignAndLogAbsDet(*LinalgSlogdetBackward0.apply(A))


def logdet(input):
    """log(det), from slogdet: nan where det < 0, -inf where det = 0."""
    _check_square_matrices(input, "logdet")
    sign, logabsdet = LinalgSlogdetBackward0.apply(input)
    return where(sign == -1, math.nan, logabsdet)


# ---- the inverse and solve ---------------------------------------------------------------
class LinalgInvExBackward0(KeepsAnOutput):
    """The inverse. Its gradient: d(A^-1) = -A^-1 dA A^-1, so grad_A = -A^-T grad A^-T."""
    input_names = ("A",)
    kept_names = ("inverse",)
    kept_output = ("inverse", 0)

    def forward(self, a):
        singular = _first_singular(lu_factor(a)[0])
        if singular:
            where_in_batch, element = singular
            raise _LinAlgError(f"linalg.inv: {where_in_batch}The diagonal element {element} is "
                               f"zero, the inversion could not be completed because the input "
                               f"matrix is singular.")
        # (A^-T)^T, column by column as in PyTorch, without a copy
        return np.swapaxes(np.linalg.inv(np.swapaxes(a, -1, -2)), -1, -2)

    def backward(self, grad):
        inverse = self._saved_inverse
        return -(inverse.mT @ (grad @ inverse.mT))


class LinalgSolveExBackward0(Operation):
    """X with A X = B, or, for ``left=False``, with X A = B (that is, A^T X^T = B^T). Its
    gradients: grad_B = A^-T grad (a solve with A^T, on the same side), and, as
    dX = -A^-1 dA X, grad_A = -grad_B X^T (for X A = B, dX = -X dA A^-1 and
    grad_A = -X^T grad_B). A vector B (``vector``) is solved as a column."""
    input_names = ("A", "B")
    kept_names = ("LU", "pivots")

    def forward(self, a, b, vector, left):
        lu, pivots = lu_factor(a)
        singular = _first_singular(lu)
        if singular:
            raise _LinAlgError(f"torch.linalg.solve: {singular[0]}The solver failed because the "
                               f"input matrix is singular.")
        self.save("A")
        self.keep("LU", lu)
        self.keep("pivots", pivots)
        self.save("result")
        self._saved_left, self._vector = left, vector
        if not left:
            transposed = np.linalg.solve(np.swapaxes(a, -1, -2), np.swapaxes(b, -1, -2))
            return np.ascontiguousarray(np.swapaxes(transposed, -1, -2))
        x = np.linalg.solve(a, b[..., None])[..., 0] if vector else np.linalg.solve(a, b)
        # laid out as PyTorch lays it out: column by column, even a batch of vectors
        return column_major(x) if x.ndim > 1 else x

    def backward(self, grad):
        A, X, left = self._saved_A, self._saved_result, self._saved_left
        if self._vector:
            grad, X = grad.unsqueeze(-1), X.unsqueeze(-1)
        grad_B = solve(A.mT, grad, left=left)
        if not self.needs_input_grad[0]:
            grad_A = None
        else:
            grad_A = -(grad_B @ X.mT) if left else -(X.mT @ grad_B)
        return grad_A, grad_B.squeeze(-1) if self._vector else grad_B


def inverse(input):
    _check_square_matrices(input, "linalg.inv")
    return LinalgInvExBackward0.apply(input)


def solve(A, B, *, left=True):
    """``torch.linalg.solve``: X with A X = B (X A = B for ``left=False``), for each matrix
    of A (batches broadcast). B is a vector (or a batch of them) when it is 1-D or has A's
    shape without its last dimension (only for ``left=True``); otherwise a matrix."""
    _check_solve_inputs(A, B, left)
    return LinalgSolveExBackward0.apply(A, B, vector=_is_vector(A, B), left=left)


def _is_vector(A, B):
    return B.ndim == 1 or (B.ndim == A.ndim - 1 and B.shape == A.shape[:-1])


# ---- PyTorch's checks, in its order ----------------------------------------------------
def _check_square_matrices(A, name):
    if A.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")
    _check_floating(A, name)


def _check_floating(A, name):
    if not A.dtype.is_floating_point:
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. "
                           f"Got {A.dtype.short_name}")


def _check_solve_inputs(A, B, left):
    if A.ndim < 2:
        raise RuntimeError("linalg.solve: The input tensor A must have at least 2 dimensions.")
    if B.ndim < 1:
        raise RuntimeError("linalg.solve: The input tensor B must have at least 2 dimensions.")
    _check_floating(A, "linalg.solve")
    if A.dtype != B.dtype:
        raise RuntimeError(f"linalg.solve: Expected A and B to have the same dtype, but found "
                           f"A of type {A.dtype.short_name} and B of type {B.dtype.short_name} "
                           f"instead")
    _check_square_matrices(A, "linalg.solve")
    columns = B.shape + (1,) if _is_vector(A, B) else B.shape     # B as a (batch of) matrix
    if columns[-2 if left else -1] != A.shape[-1]:
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation "
                           f"{'AX' if left else 'XA'} = B ({A.shape[-2]}x{A.shape[-1]} and "
                           f"{columns[-2]}x{columns[-1]})")
    if not left and _is_vector(A, B):
        raise RuntimeError("linalg.solve: Vector broadcasting of the left hand side is not "
                           "supported for left=False. In this case linalg.solve is equivalent "
                           "to B / A.squeeze(-1)")
    try:
        np.broadcast_shapes(columns[:-2], A.shape[:-2])
    except ValueError:
        raise RuntimeError(broadcast_error_message([columns[:-2], A.shape[:-2]])) from None
