"""Chapter 07 — grad mode: a switch that says whether operations are recorded.

`ops.apply` records an operation only while grad mode is on; the engine turns it off while it
runs the backward formulas, unless create_graph=True. `no_grad()`, `enable_grad()` and
`set_grad_enabled(flag)` set the switch for a `with` block or, as decorators, for a function,
and put it back afterwards — even when the block raises.
"""
import functools

_enabled = True


def is_grad_enabled():
    return _enabled


def set_enabled(flag):
    global _enabled
    _enabled = bool(flag)


class GradMode:
    """A context manager and decorator that sets grad mode to `self.mode` and restores it."""
    mode = True

    def __new__(cls, function=None):
        """`@no_grad()` and `@no_grad` (without parentheses) both decorate a function."""
        switch = super().__new__(cls)
        return switch if function is None else switch(function)

    def __enter__(self):
        ### BEGIN SOLUTION chapter 07: remember the current mode, then switch to self.mode
        self.previous = is_grad_enabled()
        set_enabled(self.mode)
        ### END SOLUTION

    def __exit__(self, *error):
        ### BEGIN SOLUTION chapter 07: put the mode back as it was before the block
        set_enabled(self.previous)
        ### END SOLUTION

    def __call__(self, function):
        """Decorate `function`: each call runs inside a fresh copy of this switch."""
        ### BEGIN SOLUTION chapter 07: return a wrapper that runs function inside the switch
        @functools.wraps(function)
        def switched(*args, **kwargs):
            with self.copy():
                return function(*args, **kwargs)
        return switched
        ### END SOLUTION

    def copy(self):
        return type(self)()


class no_grad(GradMode):
    mode = False


class enable_grad(GradMode):
    mode = True


class set_grad_enabled(GradMode):
    """set_grad_enabled(flag) sets the mode at once (it works as a plain call too)."""

    def __new__(cls, mode):
        switch = object.__new__(cls)
        switch.mode = bool(mode)
        switch.__enter__()
        return switch

    def __enter__(self):
        if not hasattr(self, "previous"):
            super().__enter__()

    def __call__(self, function):
        set_enabled(self.previous)          # as a decorator, it changes nothing until called
        return super().__call__(function)

    def copy(self):
        return set_grad_enabled(self.mode)
