"""The in-place forms of the unary functions (issue 30), against torch 2.13: the values,
the node recorded (the out-of-place form's), the version, the gradient through them, and
the errors on a leaf that requires grad and on an integer tensor."""
import numpy as np
import pytest

import program_compare
import teachgrad
from program_compare import outcome

torch = pytest.importorskip("torch")

NAMES = ["acos_", "asin_", "atan_", "ceil_", "cos_", "cosh_", "erf_", "expm1_", "floor_",
         "log_", "log10_", "log1p_", "log2_", "reciprocal_", "round_", "rsqrt_", "sign_",
         "sin_", "sinh_", "sqrt_", "tan_", "trunc_", "arccos_", "arcsin_", "arctan_", "fix_",
         "square_", "nan_to_num_"]
FUNCTIONS = [name for name in NAMES if name != "sign_"] + ["clip_", "clamp_min_",
                                                           "clamp_max_"]


def run_both(program):
    return program_compare.run_both(program, torch, teachgrad)


@pytest.mark.parametrize("name", NAMES)
def test_method_in_place(name):
    def program(t):
        leaf = t.tensor([0.25, 0.5, 0.75], requires_grad=True)
        x = leaf * 1
        result = getattr(x, name)()
        (result * t.tensor([1.0, 2.0, 3.0])).sum().backward()
        ints = t.tensor([1, 2, 3])
        return (result is x, x._version, result.grad_fn.name(),
                result.detach().numpy().astype(np.float64), leaf.grad.numpy().astype(np.float64),
                outcome(lambda: getattr(t.tensor([0.5], requires_grad=True), name)())[0],
                outcome(lambda: getattr(ints, name)().tolist()))
    record = run_both(program)
    assert record[0] is True and record[1] == 1


@pytest.mark.parametrize("name", FUNCTIONS)
def test_function_in_place(name):
    def program(t):
        x = t.tensor([0.25, 0.5, 4.0])
        bound = (0.4,) if name.startswith("cl") else ()
        result = getattr(t, name)(x, *bound)
        return result is x, x._version, x.tolist()
    run_both(program)
