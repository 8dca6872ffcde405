"""Chapter 07 — grad mode: the switch ops.apply reads before recording, for a block or a call."""
import functools

_enabled = True

def is_grad_enabled(): return _enabled

def set_enabled(flag):
    global _enabled
    _enabled = bool(flag)

class set_grad_enabled:
    """with set_grad_enabled(flag): ... and @set_grad_enabled(flag)."""
    def __init__(self, mode): self.mode = bool(mode)

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
        """Decorate `function`: each call runs inside a new set_grad_enabled(self.mode)."""
        ### BEGIN SOLUTION chapter 07: return a wrapper that runs function inside the switch
        @functools.wraps(function)
        def switched(*args, **kwargs):
            with set_grad_enabled(self.mode):
                return function(*args, **kwargs)
        return switched
        ### END SOLUTION

class no_grad(set_grad_enabled):
    """with no_grad(): ..., @no_grad() and @no_grad (without parentheses)."""
    mode = False

    def __new__(cls, function=None):
        switch = super().__new__(cls)
        return switch if function is None else switch(function)

    def __init__(self): pass                # the mode is the class's

class enable_grad(no_grad):
    mode = True
