"""``teachgrad.profiler``: PyTorch's newer profiler API over ``autograd.profiler``
(``profile(activities=[ProfilerActivity.CPU])``, ``record_function``)."""
import enum

from teachgrad.autograd.profiler import profile as _autograd_profile
from teachgrad.autograd.profiler import record_function

__all__ = ["ProfilerActivity", "profile", "record_function"]


class ProfilerActivity(enum.Enum):
    CPU = 0
    CUDA = 2


class profile(_autograd_profile):
    """Accepts PyTorch's options (``activities``, ``schedule``, ``on_trace_ready``...);
    ``step()`` marks nothing (teachgrad times record_function blocks only)."""

    def __init__(self, *, activities=None, **options):
        super().__init__(enabled=True)

    def step(self):
        """Marks the end of a training step in PyTorch's schedules: nothing to do here."""
