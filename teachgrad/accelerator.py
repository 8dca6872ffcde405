"""``teachgrad.accelerator``: PyTorch's device-neutral questions about a GPU (or other
accelerator), answered as on a machine without one. Recent tutorials pick their device
with ``accelerator.current_accelerator().type if accelerator.is_available() else "cpu"``.
"""


def is_available():
    return False


def device_count():
    return 0


def current_accelerator(check_available=False):
    """None: there is no accelerator."""
    return None


def _no_accelerator(*args, **kwargs):
    raise RuntimeError("Cannot access accelerator device when none is available.")


current_device_index = current_device_idx = synchronize = _no_accelerator
