"""Helpers for the tests that compare teachgrad.nn, optim and utils.data with torch.

Inputs are made with numpy and given to both libraries, so nothing depends on
either random generator unless a test says so.
"""
import numpy as np

import teachgrad as tg


def arrays(seed, *shapes, dtype=np.float32):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype(dtype) for s in shapes]


def pair(array, torch, requires_grad=False):
    """The same numbers as a teachgrad tensor and a torch tensor."""
    ours = tg.tensor(array, requires_grad=requires_grad)
    theirs = torch.tensor(array, requires_grad=requires_grad)
    return ours, theirs


def numpy_of(tensor):
    return np.asarray(tensor.detach().numpy())


def assert_close(ours, theirs, rtol=1e-5, atol=1e-6):
    if theirs is None:
        assert ours is None
        return
    assert ours is not None
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    np.testing.assert_allclose(numpy_of(ours), numpy_of(theirs), rtol=rtol, atol=atol)


def copy_state(module, torch_module):
    """Load torch's parameters and buffers into the teachgrad module (through numpy)."""
    state = {key: tg.tensor(value.detach().numpy().copy())
             for key, value in torch_module.state_dict().items()}
    module.load_state_dict(state)


def graph(node, depth=12):
    """The backward graph below ``node`` as nested (name, [children]) tuples."""
    if node is None:
        return None
    if depth == 0:
        return type(node).__name__
    return (type(node).__name__,
            [(graph(child, depth - 1), nr) for child, nr in node.next_functions])


def assert_same_graph(ours, theirs):
    assert graph(ours.grad_fn) == graph(theirs.grad_fn)


def first_line_error(call):
    """(exception type name, message) of what ``call()`` raises."""
    try:
        call()
    except Exception as error:   # noqa: BLE001 -- any error is compared
        return type(error).__name__, str(error)
    raise AssertionError("no error raised")


def assert_same_error(ours, theirs):
    """Same exception type; teachgrad's message starts with torch's first line
    (with "torch" written "teachgrad")."""
    our_type, our_message = first_line_error(ours)
    their_type, their_message = first_line_error(theirs)
    assert our_type == their_type, (our_message, their_message)
    expected = their_message.split("\n")[0].replace("torch.", "teachgrad.")
    assert our_message.startswith(expected), (our_message, their_message)


def snapshot(module, optimizer=None):
    """Copies of everything a failed call must leave unchanged."""
    params = {name: (numpy_of(p).copy(), None if p.grad is None else numpy_of(p.grad).copy(),
                     p._version) for name, p in module.named_parameters()}
    buffers = {name: numpy_of(b).copy() for name, b in module.named_buffers()}
    state = None
    if optimizer is not None:
        state = repr(optimizer.state_dict())
    return params, buffers, state


def assert_unchanged(before, after):
    params_before, buffers_before, state_before = before
    params_after, buffers_after, state_after = after
    assert params_before.keys() == params_after.keys()
    for name in params_before:
        value, grad, version = params_before[name]
        value_after, grad_after, version_after = params_after[name]
        np.testing.assert_array_equal(value, value_after)
        assert (grad is None) == (grad_after is None)
        if grad is not None:
            np.testing.assert_array_equal(grad, grad_after)
        assert version == version_after
    for name in buffers_before:
        np.testing.assert_array_equal(buffers_before[name], buffers_after[name])
    assert state_before == state_after
