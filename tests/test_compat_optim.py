"""optim.LBFGS against PyTorch 2.13 (issue 20): the same iterates, closure calls and
state, with and without the strong-Wolfe line search."""
import numpy as np
import pytest

import teachgrad

torch = pytest.importorskip("torch")


def rosenbrock_run(t, line_search_fn, max_iter):
    point = t.tensor([-1.5, 2.0], requires_grad=True, dtype=t.float64)
    optimizer = t.optim.LBFGS([point], line_search_fn=line_search_fn, max_iter=max_iter)
    losses = []

    def closure():
        optimizer.zero_grad()
        loss = (1 - point[0]) ** 2 + 100 * (point[1] - point[0] ** 2) ** 2
        loss.backward()
        losses.append(loss.item())
        return loss
    first = optimizer.step(closure)
    state = optimizer.state[point]
    return first.item(), point.tolist(), losses, state["func_evals"], state["n_iter"]


@pytest.mark.parametrize("line_search_fn, max_iter", [("strong_wolfe", 100), (None, 12),
                                                      ("strong_wolfe", 7)])
def test_rosenbrock_iterates_match_torch(line_search_fn, max_iter):
    got = rosenbrock_run(teachgrad, line_search_fn, max_iter)
    expected = rosenbrock_run(torch, line_search_fn, max_iter)
    assert got[0] == expected[0] and got[3:] == expected[3:]
    np.testing.assert_allclose(got[1], expected[1], rtol=1e-9)
    # the losses near the minimum (1e-10) are differences of nearly equal numbers, whose last
    # bits follow the CPU's summation order in torch's float64 kernels: an absolute bound too
    np.testing.assert_allclose(got[2], expected[2], rtol=1e-9, atol=1e-15)


def network_run(t, line_search_fn):
    """A small float64 network fitted for one step of 20 iterations, as a tutorial would."""
    t.manual_seed(0)
    x = t.linspace(-1, 1, 50, dtype=t.float64).unsqueeze(1)
    y = t.sin(3 * x)
    model = t.nn.Sequential(t.nn.Linear(1, 8), t.nn.Tanh(), t.nn.Linear(8, 1)).double()
    optimizer = t.optim.LBFGS(model.parameters(), history_size=5, line_search_fn=line_search_fn)

    def closure():
        optimizer.zero_grad()
        loss = t.nn.functional.mse_loss(model(x), y)
        loss.backward()
        return loss
    optimizer.step(closure)
    state = optimizer.state[model[0].weight]
    return (closure().item(), model[0].weight.flatten().tolist(), state["func_evals"],
            len(state["old_dirs"]))


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_network_step_matches_torch(line_search_fn):
    got, expected = network_run(teachgrad, line_search_fn), network_run(torch, line_search_fn)
    assert got[2:] == expected[2:]
    np.testing.assert_allclose(got[:2][0], expected[0], rtol=1e-7)
    np.testing.assert_allclose(got[1], expected[1], rtol=1e-6)


@pytest.mark.parametrize("make", [
    lambda t, p: t.optim.LBFGS([p], lr=-1),
    lambda t, p: t.optim.LBFGS([{"params": [p]}, {"params": [p * 1]}]),
    lambda t, p: t.optim.LBFGS([p], line_search_fn="armijo").step(lambda: (p ** 2).sum()),
    lambda t, p: t.optim.LBFGS([p]).defaults,
])
def test_options_and_errors(make):
    def outcome(t):
        p = t.ones(2, requires_grad=True)
        p.grad = t.ones(2)
        try:
            return make(t, p)
        except (ValueError, RuntimeError) as error:
            return type(error).__name__, str(error)
    assert outcome(teachgrad) == outcome(torch)
