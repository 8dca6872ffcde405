"""Chapter 07 — grad mode: a switch that says whether operations are recorded.

`apply` (ops.py) records an operation only while grad mode is enabled; the engine turns it
off during backward unless create_graph=True.
"""
_enabled = True


def is_grad_enabled():
    return _enabled


def set_enabled(flag):
    global _enabled
    _enabled = bool(flag)
