"""What the convolution and max-pool nodes save, compared with torch: the same ``_saved_``
attributes, and so the same in-place errors — among them the classic one of changing a
layer's weight (an optimizer step) between forward and backward."""
import numpy as np
import pytest

try:
    from . import differential as D
except ImportError:
    import differential as D

torch = pytest.importorskip("torch")
run = D.run_both

VERSION_MSG = "one of the variables needed for gradient computation has been modified by an inplace operation"


def _images(tg, requires_grad=False):
    values = np.linspace(-1, 1, 2 * 3 * 4 * 4, dtype=np.float32).reshape(2, 3, 4, 4)
    return tg.tensor(values, requires_grad=requires_grad)


def _saved(node):
    """Each ``_saved_`` attribute: a tensor by its shape, anything else as it is."""
    return {name: tuple(value.shape) if D.is_tensor(value) else value
            for name, value in ((n, getattr(node, n)) for n in dir(node) if n.startswith("_saved_"))}


@pytest.mark.parametrize("input_needs_grad", [False, True])
@pytest.mark.parametrize("with_bias", [False, True])
def test_convolution_saves_like_torch(input_needs_grad, with_bias):
    def prog(tg):
        tg.manual_seed(0)
        conv = tg.nn.Conv2d(3, 2, 2, stride=2, padding=1, bias=with_bias)
        return _saved(conv(_images(tg, input_needs_grad)).grad_fn)
    run(prog)


def test_max_pool_saves_like_torch():
    def prog(tg):
        node = tg.nn.functional.max_pool2d(_images(tg, True), 2, stride=2).grad_fn
        return _saved(node)
    run(prog)


def test_changing_the_weight_before_backward_is_caught():
    """An optimizer step between forward and backward: the convolution saved its weight."""
    def prog(tg):
        tg.manual_seed(0)
        conv = tg.nn.Conv2d(3, 2, 2)
        out = conv(_images(tg))
        with tg.no_grad():
            conv.weight.mul_(0.5)
        out.sum().backward()
    run(prog, raises="RuntimeError", msg=VERSION_MSG, contains=("expected version 1 instead",))


def test_changing_the_input_of_max_pool_before_backward_is_caught():
    def prog(tg):
        hidden = _images(tg, True) * 1
        pooled = tg.nn.functional.max_pool2d(hidden, 2)
        hidden.add_(1)
        pooled.sum().backward()
    run(prog, raises="RuntimeError", msg=VERSION_MSG)
