"""Anomaly detection: remember where each node was created, and check for nan.

With ``set_detect_anomaly(True)`` (or inside ``detect_anomaly()``) every node
keeps the traceback of the forward line that created it, so an error in
backward can say which forward operation is to blame.
"""
import os
import traceback
import warnings

_state = {"enabled": False, "check_nan": True}
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def is_anomaly_enabled():
    return _state["enabled"]


def in_teachgrad(filename):
    """Is this source file part of teachgrad? (Traces and warnings point past its frames.)"""
    return filename.startswith(_PACKAGE)


def is_anomaly_check_nan_enabled():
    return _state["check_nan"]


def forward_trace():
    """The current call stack as text when anomaly mode is on, else None (cheap). It ends
    at the caller's line: teachgrad's own frames on top of it are left out."""
    if not _state["enabled"]:
        return None
    frames = traceback.extract_stack()
    while frames and in_teachgrad(frames[-1].filename):
        frames.pop()
    return "".join(traceback.format_list(frames))


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


class detect_anomaly:
    """Context manager: anomaly detection on inside the block (PyTorch warns when it is made)."""

    def __init__(self, check_nan=True):
        self.check_nan = check_nan
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime "
                      "and should only be enabled for debugging.", UserWarning, stacklevel=2)

    def __enter__(self):
        self.previous = dict(_state)
        _state.update(enabled=True, check_nan=self.check_nan)

    def __exit__(self, *exc):
        _state.update(self.previous)
        return False


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
