"""Anomaly detection: remember where each node was created, and check for nan.

With ``set_detect_anomaly(True)`` (or inside ``detect_anomaly()``) every node
keeps the traceback of the forward line that created it, so an error in
backward can say which forward operation is to blame.
"""
import traceback
import warnings

_state = {"enabled": False, "check_nan": True}


def is_anomaly_enabled():
    return _state["enabled"]


def forward_trace():
    """The current call stack as text when anomaly mode is on, else None (cheap)."""
    if not _state["enabled"]:
        return None
    return "".join(traceback.format_stack()[:-3])


class set_detect_anomaly:
    """Turns anomaly detection on or off; also usable as a context manager."""

    def __init__(self, mode, check_nan=True):
        self.previous = dict(_state)
        _state["enabled"] = bool(mode)
        _state["check_nan"] = bool(check_nan)

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        _state.update(self.previous)
        return False


class detect_anomaly(set_detect_anomaly):
    """Context manager: anomaly detection on inside the block."""

    def __init__(self, check_nan=True):
        super().__init__(True, check_nan)


def report_failed_node(node):
    """Warn, as PyTorch does, with the forward traceback of the node that failed."""
    if node._forward_trace is None:
        return
    warnings.warn(f"Error detected in {node.name()}. Traceback of forward call that caused "
                  f"the error:\n{node._forward_trace}", UserWarning, stacklevel=3)


def check_for_nan(node, grads):
    if not _state["check_nan"]:
        return
    for i, grad in enumerate(grads):
        if grad is not None and grad._data.dtype.kind == "f" and (grad._data != grad._data).any():
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th output.")
