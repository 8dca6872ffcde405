"""Values that must agree with PyTorch 2.13 to the last bit (issue 20)."""
import numpy as np
import pytest

import teachgrad

torch = pytest.importorskip("torch")

ARANGES = [(-8.0, 8.0, 0.1), (0.0, 1.0, 0.01), (-3.0, 3.0, 0.07), (0, 10, 0.3), (-1, 1, 0.013),
           (2.5, 100.0, 0.37), (-5, 5, 0.001), (0, 1e4, 0.7), (1.0, 2.0, 1 / 3), (10.0, 0.0, -0.3)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("start, end, step", ARANGES)
def test_arange_equals_torch_bit_for_bit(start, end, step, dtype):
    expected = torch.arange(start, end, step, dtype=getattr(torch, dtype)).numpy()
    got = teachgrad.arange(start, end, step, dtype=getattr(teachgrad, dtype)).numpy()
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)


def test_arange_random_ranges_equal_torch():
    rng = np.random.default_rng(20)
    for _ in range(100):
        start, step = float(rng.uniform(-100, 100)), float(rng.uniform(1e-3, 2))
        end = start + int(rng.integers(1, 2000)) * step
        np.testing.assert_array_equal(teachgrad.arange(start, end, step).numpy(),
                                      torch.arange(start, end, step).numpy())


def test_relu_gradient_at_the_arange_point_near_zero():
    """arange(-8, 8, 0.1)[80] is 2**-51 in PyTorch, not 0: ReLU's gradient there is 1."""
    def relu_grad(t):
        x = t.arange(-8.0, 8.0, 0.1, requires_grad=True)
        t.relu(x).sum().backward()
        return x.grad.numpy()
    np.testing.assert_array_equal(relu_grad(teachgrad), relu_grad(torch))
    assert teachgrad.arange(-8.0, 8.0, 0.1)[80].item() == 2.0 ** -51


def test_gradgradcheck_draws_grad_outputs_from_the_global_generator_as_torch():
    """The random numbers drawn after a gradgradcheck are torch's: it drew the same."""
    def after_check(t):
        t.manual_seed(0)
        x = t.randn(3, 2, dtype=t.float64, requires_grad=True)
        w = t.randn(2, dtype=t.float64, requires_grad=True)
        results = [t.autograd.gradgradcheck(lambda a, b: (a * b).sin().sum(1), (x, w))]
        drawn = t.rand(4).tolist()
        results.append(t.autograd.gradgradcheck(lambda a: (a.exp(), a.pow(3)), (x,)))
        return results, drawn, t.randn(3).tolist()
    assert after_check(teachgrad) == after_check(torch)


def test_gradgradcheck_with_given_grad_outputs_draws_nothing():
    def after_check(t):
        t.manual_seed(1)
        x = t.randn(2, dtype=t.float64, requires_grad=True)
        ok = t.autograd.gradgradcheck(lambda a: a.pow(3), (x,), (t.ones(2, dtype=t.float64),))
        return ok, t.rand(2).tolist()
    assert after_check(teachgrad) == after_check(torch)
