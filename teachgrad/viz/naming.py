"""Which variable name belongs to which tensor.

A drawing labels a tensor ``w1`` or ``loss`` when it knows the name: from the
``names=`` dict (name -> tensor) when one is given, otherwise from the variables
of the code that called the drawing function. PyTorch's graph does not store
names, so these are looked up when drawing, never stored on the tensors.
"""
import inspect

from teachgrad.viz import public


def caller_variables():
    """The tensors among the variables of the first caller outside ``teachgrad.viz``.

    Local names come before global ones; names starting with ``_`` (IPython's
    ``_``, ``_3``...) are skipped. A tensor with two names keeps the first.
    """
    frame = inspect.currentframe().f_back
    try:
        while frame is not None and frame.f_globals.get("__name__", "").startswith(__package__):
            frame = frame.f_back
        if frame is None:
            return {}
        found = {}
        for scope in (frame.f_locals, frame.f_globals):
            for name, value in scope.items():
                if not name.startswith("_") and public.is_tensor(value):
                    found.setdefault(name, value)
        return found
    finally:
        del frame


class Names:
    """Look up the name of a tensor, or of the tensor a node produced.

    ``named`` maps names to tensors; ``roots`` are the tensors being drawn, known
    even when unnamed (so their values can be shown).
    """

    def __init__(self, named, roots=()):
        self._named = dict(named)        # keeps the tensors alive while ids are in use
        self._by_tensor = {}             # id(tensor) -> name
        self._by_output = {}             # (grad_fn, output_nr) -> (name, tensor)
        for name, tensor in self._named.items():
            if not public.is_tensor(tensor):
                raise TypeError(f"names= maps names to tensors, but {name!r} is a "
                                f"{type(tensor).__name__}")
            self._by_tensor.setdefault(id(tensor), name)
            if tensor.grad_fn is not None:
                self._by_output.setdefault(public.gradient_edge(tensor), (name, tensor))
        self._roots = list(roots)
        for root in self._roots:
            if root.grad_fn is not None:
                self._by_output.setdefault(public.gradient_edge(root), (None, root))

    def of(self, tensor):
        """The name of this tensor object, or None."""
        return self._by_tensor.get(id(tensor))

    def output(self, node, output_nr=0):
        """``(name, tensor)`` for the tensor ``node`` produced; either may be None."""
        return self._by_output.get((node, output_nr), (None, None))


def resolve(names, roots):
    """``Names`` from the ``names=`` argument, or from the caller's variables."""
    return Names(caller_variables() if names is None else names, roots)
