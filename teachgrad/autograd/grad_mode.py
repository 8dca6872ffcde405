"""Grad mode: one global switch that decides whether operations record a graph.

``no_grad``, ``enable_grad`` and ``set_grad_enabled`` flip it for a block of
code (as context managers) or for a whole function (as decorators).
"""
import functools

_state = {"enabled": True}


def is_grad_enabled():
    return _state["enabled"]


class set_grad_enabled:
    """Sets grad mode on or off. Works at once, as a context manager, or as a decorator."""

    def __init__(self, mode):
        self.previous = _state["enabled"]
        self.mode = bool(mode)
        _state["enabled"] = self.mode

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        _state["enabled"] = self.previous
        return False

    def __call__(self, function):
        mode = self.mode
        _state["enabled"] = self.previous   # used as a decorator: undo the switch

        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            with set_grad_enabled(mode):
                return function(*args, **kwargs)
        return wrapper


class _GradModeBlock:
    """Base of no_grad and enable_grad: a context manager that is also a decorator,
    with or without parentheses (``@no_grad()`` and ``@no_grad``)."""
    mode = True

    def __new__(cls, function=None):
        block = super().__new__(cls)
        return block if function is None else block(function)

    def __enter__(self):
        self.previous = _state["enabled"]
        _state["enabled"] = self.mode

    def __exit__(self, *exc):
        _state["enabled"] = self.previous
        return False

    def __call__(self, function):
        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            with self._new_block():
                return function(*args, **kwargs)
        return wrapper

    def _new_block(self):
        return type(self)()


class no_grad(_GradModeBlock):
    """Inside this block, operations compute values but record no graph."""
    mode = False


class enable_grad(_GradModeBlock):
    """Switches graph recording back on, e.g. inside a ``no_grad`` block."""
    mode = True


class inference_mode(_GradModeBlock):
    """Like no_grad; ``inference_mode(False)`` switches recording on, like enable_grad.
    (teachgrad does not model PyTorch's inference tensors, which may not enter a graph
    even later.)"""
    switched_on = True

    def __new__(cls, mode=True):
        if callable(mode):                 # used bare as a decorator: @inference_mode
            return super().__new__(cls, mode)
        block = super().__new__(cls)
        block.switched_on = bool(mode)
        return block

    def __enter__(self):
        self.previous = _state["enabled"]
        _state["enabled"] = not self.switched_on

    def _new_block(self):
        return inference_mode(self.switched_on)
