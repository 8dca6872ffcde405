"""addmm and addmm_ refuse what torch refuses, with torch's errors and in its order: factors
that are not matrices, then factors that cannot be multiplied, then a bias (``self``) that
does not expand to the product's size (for addmm_: that is not the product's size)."""
import math

import pytest

try:
    from . import differential as D
except ImportError:
    import differential as D

torch = pytest.importorskip("torch")

SHAPES = {       # (bias, mat1, mat2)
    "vector_mat1": ((3,), (3,), (3, 3)),
    "vector_mat2": ((3,), (2, 3), (3,)),
    "three_d_bias": ((2, 2, 3), (2, 3), (3, 3)),
    "bias_too_long": ((4,), (2, 3), (3, 3)),
    "factors_do_not_fit": ((3,), (2, 3), (4, 3)),
    "factors_do_not_fit_nor_the_bias": ((4,), (2, 3), (4, 3)),
    "bias_column": ((2, 1), (2, 3), (3, 3)),
    "bias_number": ((1,), (2, 3), (3, 3)),
    "bias_matrix": ((2, 3), (2, 3), (3, 3)),
}


def _raises(bias, mat1, mat2, in_place):
    if len(mat1) != 2 or len(mat2) != 2 or mat1[1] != mat2[0]:
        return "RuntimeError"
    product = (mat1[0], mat2[1])
    if in_place:
        return None if bias == product else "RuntimeError"
    fits = len(bias) <= 2 and all(b in (1, p) for b, p in zip(bias[::-1], product[::-1]))
    return None if fits else "RuntimeError"


@pytest.mark.parametrize("in_place", [False, True])
@pytest.mark.parametrize("case", sorted(SHAPES))
def test_addmm_checks_shapes_as_torch_does(case, in_place):
    bias, mat1, mat2 = SHAPES[case]

    def prog(tg):
        b = tg.arange(float(math.prod(bias))).reshape(bias)
        m1, m2 = tg.ones(mat1, requires_grad=True), tg.full(mat2, 0.5, requires_grad=True)
        out = b.addmm_(m1, m2) if in_place else tg.addmm(b, m1, m2)
        out.sum().backward()
        return {"out": out, "grads": (m1.grad, m2.grad)}
    D.run_both(prog, raises=_raises(bias, mat1, mat2, in_place))


def test_the_method_addmm_is_the_function():
    def prog(tg):
        bias = tg.tensor([1.0, -1.0], requires_grad=True)
        a, b = tg.ones(3, 2, requires_grad=True), tg.eye(2, requires_grad=True)
        out = bias.addmm(a, b, beta=0.5, alpha=2)
        out.sum().backward()
        return {"out": out, "node": D.node_name(out.grad_fn), "grads": (bias.grad, a.grad, b.grad)}
    D.run_both(prog)
