"""``histc`` and ``histogram`` against torch 2.13 (issue 30): counts, edges, ranges, given
edges, weights and density, values on the edges and outside, the result type, the graph
(none for histc, a NotImplemented node for histogram) and the errors."""
import numpy as np
import pytest

import program_compare
import teachgrad
from program_compare import outcome

torch = pytest.importorskip("torch")


def run_both(program):
    return program_compare.run_both(program, torch, teachgrad)


def arrays(*tensors):
    return [t.detach().numpy().astype(np.float64) for t in tensors]


@pytest.mark.parametrize("options", [
    dict(bins=4), dict(bins=4, min=-1, max=1), dict(bins=7, min=-3, max=0.5), dict(),
], ids=["data-range", "given-range", "offset-range", "default-100"])
def test_histc(options):
    def program(t):
        t.manual_seed(0)
        x = t.randn(50, dtype=t.float64 if options.get("bins") == 7 else t.float32)
        counts = t.histc(x, **options)
        return arrays(counts, x.histc(**options)) + [str(counts.dtype).split(".")[1], counts.requires_grad]
    run_both(program)


def test_histc_edges_constant_input_and_nan():
    def program(t):
        return arrays(t.histc(t.linspace(0, 1, 11), 10), t.histc(t.tensor([1.0, 1.0, 1.0]), 3),
                      t.histc(t.tensor([0.0, 1.0, 2.0, float("nan"), 5.0, -1.0]), 2, 0, 2))
    run_both(program)


@pytest.mark.parametrize("options", [
    dict(bins=4), dict(bins=3, range=(-1.0, 1.0)), dict(bins=3, density=True),
    dict(bins=3, range=(-1.0, 1.0), weight="twos", density=True), dict(bins="edges"),
], ids=["int-bins", "range", "density", "weighted-density", "edges"])
def test_histogram(options):
    def program(t):
        t.manual_seed(0)
        x = t.randn(30, requires_grad=True)
        kwargs = dict(options)
        if kwargs.get("weight") == "twos":
            kwargs["weight"] = t.full((30,), 2.0)
        if kwargs["bins"] == "edges":
            kwargs["bins"] = t.tensor([-2.0, 0.0, 0.5, 2.0])
        result = t.histogram(x, **kwargs)
        return (type(result).__name__, repr(result).split("(")[0].replace("teachgrad", "torch"),
                arrays(result.hist, result.bin_edges), result.hist.requires_grad,
                type(result.hist.grad_fn).__name__,
                outcome(lambda: result.hist.sum().backward()))
    run_both(program)


@pytest.mark.parametrize("call", [
    lambda t: t.histc(t.randn(5), bins=0), lambda t: t.histc(t.randn(5), 3, min=2, max=1),
    lambda t: t.histc(t.arange(5), 3), lambda t: t.histogram(t.arange(5), 3),
    lambda t: t.histogram(t.randn(5), -1),
], ids=["no-bins", "min-above-max", "int-histc", "int-histogram", "negative-bins"])
def test_errors(call):
    run_both(lambda t: outcome(lambda: call(t)))
