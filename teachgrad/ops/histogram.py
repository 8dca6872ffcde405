"""``histc`` and ``histogram``: how many values fall in each bin.

The bins are equal-width between the ends of a range (the input's smallest and largest
values unless a range is given), or the spans between given edges; a value on an inner edge
counts in the bin to its right, one on the last edge in the last bin, and values outside the
range (and NaN) are not counted, as in PyTorch's CPU kernel. ``histc`` records no graph (its
result does not require grad); ``histogram``'s outputs hang from a NotImplemented node, as in
PyTorch, so a backward through them raises.
"""
from collections import namedtuple

import numpy as np

from teachgrad import creation
from teachgrad.autograd.operation import Operation
from teachgrad.tensor import Tensor


class HistogramResult(namedtuple("histogram", ["hist", "bin_edges"])):
    def __repr__(self):
        return (f"teachgrad.return_types.histogram(\nhist={self.hist!r},\n"
                f"bin_edges={self.bin_edges!r})")


HistogramResult.__name__ = HistogramResult.__qualname__ = "histogram"    # as torch's


def _check_floating(input, kernel):
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{input.dtype.short_name}'")


def _check_bins(bins):
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for "
                           "dimension 0")


def _counts(values, edges, weights=None):
    """The (weighted) count of ``values`` in each bin between consecutive ``edges``."""
    bins = len(edges) - 1
    inside = (values >= edges[0]) & (values <= edges[-1])        # (NaN is never inside)
    positions = np.searchsorted(edges, values[inside], side="right") - 1
    positions = np.minimum(positions, bins - 1)                  # the last edge: last bin
    counted = None if weights is None else weights[inside]
    return np.bincount(positions, weights=counted, minlength=bins)


def _equal_edges(input, bins, low, high):
    """``bins + 1`` evenly spaced edges from ``low`` to ``high``, in the input's dtype."""
    return creation.linspace(low, high, bins + 1, dtype=input.dtype)._data


def histc(input, bins=100, min=0, max=0):
    """Counts in ``bins`` equal bins from ``min`` to ``max`` (both 0: the data's range)."""
    _check_floating(input, "histogram_cpu")
    _check_bins(bins)
    values = input._data.reshape(-1)
    low, high = float(min), float(max)
    if low == high and values.size:
        low, high = float(values.min()), float(values.max())
    if low == high:
        low, high = low - 1, high + 1
    if low > high:
        raise RuntimeError("torch.histc: max must be larger than min")
    if not (np.isfinite(low) and np.isfinite(high)):
        raise RuntimeError(f"torch.histc: range of [{low}, {high}] is not finite")
    counts = _counts(values, _equal_edges(input, bins, low, high))
    return Tensor._make(counts.astype(input._data.dtype))


def histogram(input, bins, *, range=None, weight=None, density=False):
    """``(hist, bin_edges)``: counts (or weights summed, or a density) in ``bins`` equal
    bins over ``range`` (default: the data's), or between the edges in a tensor ``bins``."""
    _check_floating(input, "histogramdd")
    weights = None if weight is None else weight._data.reshape(-1)
    values = input._data.reshape(-1)
    if isinstance(bins, Tensor):
        edges = bins._data
    else:
        _check_bins(bins)
        low, high = (float(values.min()), float(values.max())) if range is None and \
            values.size else (0.0, 0.0) if range is None else map(float, range)
        if low == high:
            low, high = low - 0.5, high + 0.5
        edges = _equal_edges(input, bins, low, high)
    return HistogramResult(*HistogramBackward.apply(input, edges=edges, weights=weights,
                                                    density=density))


class HistogramBackward(Operation):
    """What PyTorch records for ``histogram``: a node with no derivative."""
    promote = None

    def forward(self, a, edges, weights, density):
        counts = _counts(a.reshape(-1), edges, weights).astype(a.dtype)
        if density:
            counts = counts / (counts.sum() * np.diff(edges))
        return counts.astype(a.dtype), edges.astype(a.dtype)

    def backward(self, *grads):
        raise RuntimeError("derivative for aten::histogram is not implemented")


HistogramBackward.__name__ = "NotImplemented"          # PyTorch's name for the node
