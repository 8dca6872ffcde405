"""Grad mode: one global switch that decides whether operations record a graph.

``no_grad``, ``enable_grad`` and ``set_grad_enabled`` flip it for a block of
code (as context managers) or for a whole function (as decorators).
``inference_mode`` turns recording off whatever grad mode says.
"""
import functools
import inspect

_state = {"enabled": True, "inference": False, "recording": True}


def _switch(enabled, inference=None):
    """Set grad mode (and inference mode, if given). Operations record only with grad mode
    on outside inference_mode: inside it, even ``enable_grad()`` records nothing."""
    if inference is not None:
        _state["inference"] = inference
    _state["enabled"] = enabled
    _state["recording"] = enabled and not _state["inference"]


def _decorate(function, new_block):
    """``function`` run inside ``with new_block():``. A generator function's body runs in
    the block's mode each time it resumes, and the caller's mode is back at each ``yield``
    (as in PyTorch: ``@no_grad()`` on a generator of batches)."""
    if not inspect.isgeneratorfunction(function):
        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            with new_block():
                return function(*args, **kwargs)
        return wrapper

    @functools.wraps(function)
    def generator(*args, **kwargs):
        inner = function(*args, **kwargs)
        request = None
        while True:
            try:
                with new_block():
                    response = inner.send(request)
            except StopIteration as stop:
                return stop.value
            try:
                request = yield response
            except GeneratorExit:
                with new_block():
                    inner.close()
                raise
    return generator


def is_grad_enabled():
    return _state["enabled"]


def is_inference_mode_enabled():
    return _state["inference"]


def is_recording():
    """Do operations record a graph now? (Grad mode is on, outside inference_mode.)"""
    return _state["recording"]


def autograd_sees(tensors):
    """Is one of an op's tensors a normal tensor (not an inference tensor)? PyTorch's
    autograd does not see an op on inference tensors only: it records nothing, even when
    one requires grad, and checks nothing before an in-place change."""
    for t in tensors:
        if not t._version_counter.inference:
            return True
    return False


class InferenceCounter:
    """What a tensor made inside ``inference_mode`` has instead of a version counter.

    PyTorch's *inference tensors* track no version, so autograd cannot check them: they may
    not be saved for backward, nor changed in place outside the mode. One shared instance
    (``INFERENCE``) marks them; their views share it, as they would share a counter.
    """
    __slots__ = ()
    version = 0
    inference = True     # (a VersionCounter's is False)

    def bump(self):
        pass


INFERENCE = InferenceCounter()


class set_grad_enabled:
    """Sets grad mode on or off. Works at once, as a context manager, or as a decorator."""

    def __init__(self, mode):
        self.previous = _state["enabled"]
        self.mode = bool(mode)
        _switch(self.mode)

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        _switch(self.previous)
        return False

    def __call__(self, function):
        mode = self.mode
        _switch(self.previous)              # used as a decorator: undo the switch
        return _decorate(function, lambda: set_grad_enabled(mode))

    def __repr__(self):
        return f"teachgrad.autograd.grad_mode.set_grad_enabled(mode={self.mode})"


class _GradModeBlock:
    """Base of no_grad and enable_grad: a context manager that is also a decorator,
    with or without parentheses (``@no_grad()`` and ``@no_grad``)."""
    mode = True

    def __new__(cls, function=None):
        block = super().__new__(cls)
        return block if function is None else block(function)

    def __enter__(self):
        self.previous = _state["enabled"]
        _switch(self.mode)

    def __exit__(self, *exc):
        _switch(self.previous)
        return False

    def __call__(self, function):
        return _decorate(function, self._new_block)

    def _new_block(self):
        return type(self)()


class no_grad(_GradModeBlock):
    """Inside this block, operations compute values but record no graph."""
    mode = False


class enable_grad(_GradModeBlock):
    """Switches graph recording back on, e.g. inside a ``no_grad`` block."""
    mode = True


class inference_mode(_GradModeBlock):
    """Like no_grad, and the tensors made inside are inference tensors (``INFERENCE``);
    ``inference_mode(False)`` switches recording on, like enable_grad."""
    switched_on = True

    def __new__(cls, mode=True):
        if callable(mode):                 # used bare as a decorator: @inference_mode
            return super().__new__(cls, mode)
        block = super().__new__(cls)
        block.switched_on = bool(mode)
        return block

    def __enter__(self):
        self.previous, self.previous_inference = _state["enabled"], _state["inference"]
        _switch(not self.switched_on, self.switched_on)

    def __exit__(self, *exc):
        _switch(self.previous, self.previous_inference)
        return False

    def _new_block(self):
        return inference_mode(self.switched_on)
