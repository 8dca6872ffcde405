"""How a tensor turns into text: the rules of PyTorch's ``repr``, on numpy arrays.

PyTorch prints every element of a tensor in one shared style and width:

* integers and booleans as Python prints them (``3``, ``True``);
* floats whose finite values are all whole numbers with a trailing dot (``10.``);
* other floats with ``precision`` digits after the point (``0.7311``);
* scientific notation (``1.0000e-05``) when the nonzero finite values span more than
  three orders of magnitude, or any exceeds 1e8, or any is below 1e-4.

Rows wrap at ``linewidth`` characters; above ``threshold`` elements only the first and
last ``edgeitems`` of each dimension are shown, around a ``...``. After the values come
the suffixes (``size=``, ``dtype=``, then ``grad_fn=`` or ``requires_grad=True``), which
move to a new line when the current one would grow too long.

The rules follow ``torch/_tensor_str.py`` (PyTorch 2.13), quirks included, so that
``import teachgrad as torch`` prints exactly what PyTorch prints. Complex tensors are
not covered.
"""

import dataclasses
import math

import numpy as np


@dataclasses.dataclass
class PrintOptions:
    """The knobs of ``set_printoptions``; the defaults are PyTorch's."""

    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None


PRINT_OPTS = PrintOptions()

_PROFILES = {
    "default": {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80},
    "short": {"precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 80},
    "full": {"precision": 4, "threshold": math.inf, "edgeitems": 3, "linewidth": 80},
}


def set_printoptions(
    precision=None,
    threshold=None,
    edgeitems=None,
    linewidth=None,
    profile=None,
    sci_mode=None,
):
    """Change how tensors print, like ``torch.set_printoptions``.

    A ``profile`` ("default", "short" or "full") sets the first four options at once;
    the other arguments then override it. ``sci_mode`` is always set, so leaving it out
    returns to choosing scientific notation automatically. As in PyTorch, an unknown
    profile name is ignored.
    """
    for name, value in _PROFILES.get(profile, {}).items():
        setattr(PRINT_OPTS, name, value)
    chosen = {
        "precision": precision,
        "threshold": threshold,
        "edgeitems": edgeitems,
        "linewidth": linewidth,
    }
    for name, value in chosen.items():
        if value is not None:
            setattr(PRINT_OPTS, name, value)
    PRINT_OPTS.sci_mode = sci_mode


def dtype_is_shown(dtype, numel: int, default_dtype=np.float32) -> bool:
    """Whether PyTorch adds ``dtype=...`` to the repr of a tensor.

    The default float dtype, int64 and bool can be told apart by their values
    (``1.``, ``1``, ``True``), so they are not named. An empty tensor has no values to
    tell by, so it names every dtype except the default float one.
    """
    dtype = np.dtype(dtype)
    if numel == 0:
        return dtype != default_dtype
    return dtype not in (np.dtype(default_dtype), np.dtype(np.int64), np.dtype(np.bool_))


def format_tensor(
    data: np.ndarray,
    *,
    dtype_name: str,
    show_dtype: bool | None = None,
    requires_grad: bool = False,
    grad_fn_name: str | None = None,
    prefix: str = "tensor(",
    tangent_text: str | None = None,
) -> str:
    """The text ``repr(tensor)`` shows for a tensor holding ``data``.

    ``dtype_name`` is how the dtype is named when shown (``"teachgrad.float64"``).
    ``show_dtype=None`` applies PyTorch's rule, ``dtype_is_shown``, with float32 as the
    default dtype. ``grad_fn_name`` (``"MulBackward0"``) wins over ``requires_grad``,
    as only one of the two is printed.
    """
    data = np.asarray(data)
    if data.dtype.kind == "c":
        raise TypeError("teachgrad prints real tensors only")
    if show_dtype is None:
        show_dtype = dtype_is_shown(data.dtype, data.size)
    indent = len(prefix)
    suffixes = []
    if data.size == 0:
        body = "[]"
        if data.ndim != 1:
            suffixes.append(f"size={data.shape}")
    else:
        body = _values_text(data, indent)
        if not PRINT_OPTS.edgeitems:
            suffixes.append(f"size={data.shape}")
    if show_dtype:
        suffixes.append(f"dtype={dtype_name}")
    if grad_fn_name is not None:
        suffixes.append(f"grad_fn=<{grad_fn_name}>")
    elif requires_grad:
        suffixes.append("requires_grad=True")
    if tangent_text is not None:            # a dual tensor (forward mode)
        suffixes.append(f"tangent={tangent_text}")
    return _close_with_suffixes(prefix + body, suffixes, indent)


def format_parameter(data: np.ndarray, *, requires_grad: bool = True, **options) -> str:
    """The text ``repr(nn.Parameter(...))`` shows; ``options`` as for ``format_tensor``."""
    tensor_text = format_tensor(data, requires_grad=requires_grad, **options)
    return "Parameter containing:\n" + tensor_text


class _ElementFormatter:
    """Formats single elements of one tensor in a shared style and width.

    ``visible`` holds the elements that will be printed; the style and the width are
    chosen from them alone.
    """

    def __init__(self, visible: np.ndarray):
        values = visible.ravel()
        self.is_float = values.dtype.kind == "f"
        self.whole_numbers = True
        self.scientific = False
        if not self.is_float:
            self.width = max([1] + [len(self._text(v)) for v in values.tolist()])
            return
        nonzero_finite = values[np.isfinite(values) & (values != 0)]
        if nonzero_finite.size == 0:
            # Only zeros, infs and nans: the defaults stand, even a forced sci_mode.
            self.width = 1
            return
        self.whole_numbers = bool(np.all(nonzero_finite == np.ceil(nonzero_finite)))
        self.scientific = _wants_scientific(nonzero_finite)
        # Zeros, infs and nans do not count towards the width.
        self.width = max(len(self._text(v)) for v in nonzero_finite.tolist())

    def __call__(self, value) -> str:
        """``value`` (a Python number) as text, padded on the left to the shared width."""
        return self._text(value).rjust(self.width)

    def _text(self, value) -> str:
        precision = PRINT_OPTS.precision
        if not self.is_float:
            return str(value)
        if self.scientific:
            return f"{value:.{precision}e}"
        if self.whole_numbers:
            dot = "" if math.isinf(value) or math.isnan(value) else "."
            return f"{value:.0f}" + dot
        return f"{value:.{precision}f}"


def _wants_scientific(nonzero_finite: np.ndarray) -> bool:
    """PyTorch's choice of notation, unless ``sci_mode`` forces one."""
    if PRINT_OPTS.sci_mode is not None:
        return PRINT_OPTS.sci_mode
    magnitudes = np.abs(nonzero_finite).astype(np.float64)
    smallest, largest = magnitudes.min(), magnitudes.max()
    return bool(largest / smallest > 1000.0 or largest > 1.0e8 or smallest < 1.0e-4)


def _values_text(data: np.ndarray, indent: int) -> str:
    """The bracketed values of a non-empty tensor, summarised when it is large."""
    summarize = data.size > PRINT_OPTS.threshold
    visible = _visible_elements(data) if summarize else data
    return _nested_text(data, indent, summarize, _ElementFormatter(visible))


def _visible_elements(data: np.ndarray) -> np.ndarray:
    """The elements a summarised print shows, flattened, for choosing style and width."""
    edge = PRINT_OPTS.edgeitems
    if data.ndim <= 1:
        if data.ndim == 1 and len(data) > 2 * edge:
            # With edge == 0, data[-0:] is all of data, and PyTorch measures it all.
            return np.concatenate([data[:edge], data[-edge:]])
        return data.ravel()
    if not edge:
        return data[:0].ravel()
    rows = _shown_rows(len(data), summarize=True)
    return np.concatenate([_visible_elements(data[i]) for i in rows])


def _shown_rows(length: int, summarize: bool) -> list[int]:
    """Indices printed along one dimension: all, or the first and last ``edgeitems``."""
    edge = PRINT_OPTS.edgeitems
    if summarize and length > 2 * edge:
        return list(range(edge)) + list(range(length - edge, length))
    return list(range(length))


def _nested_text(data, indent, summarize, formatter) -> str:
    """Brackets within brackets; inner blocks are split by one blank line per extra dim."""
    if data.ndim == 0:
        return formatter(data.item())
    if data.ndim == 1:
        return _row_text(data, indent, summarize, formatter)
    rows = _shown_rows(len(data), summarize)
    blocks = [_nested_text(data[i], indent + 1, summarize, formatter) for i in rows]
    if len(rows) < len(data):
        blocks.insert(len(rows) // 2, "...")
    separator = "," + "\n" * (data.ndim - 1) + " " * (indent + 1)
    return "[" + separator.join(blocks) + "]"


def _row_text(row, indent, summarize, formatter) -> str:
    """One 1-d row, wrapped so that each line holds as many elements as fit."""
    edge = PRINT_OPTS.edgeitems
    if summarize and not edge:
        items = ["..."]
    elif summarize and len(row) > 2 * edge:
        head = [formatter(v) for v in row[:edge].tolist()]
        tail = [formatter(v) for v in row[-edge:].tolist()]
        items = head + [" ..."] + tail
    else:
        items = [formatter(v) for v in row.tolist()]
    per_line = max(1, (PRINT_OPTS.linewidth - indent) // (formatter.width + 2))
    lines = [", ".join(items[i : i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _close_with_suffixes(text: str, suffixes: list[str], indent: int) -> str:
    """Append ``, suffix`` items and the closing parenthesis, wrapping long lines.

    PyTorch counts the current line as two characters longer than it is until the
    first suffix wraps; the count is kept the same here so lines break where PyTorch
    breaks them.
    """
    line_length = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        suffix_length = _length_in_torch(suffix)
        if line_length + suffix_length + 2 > PRINT_OPTS.linewidth:
            text += ",\n" + " " * indent + suffix
            line_length = indent + suffix_length
        else:
            text += ", " + suffix
            line_length += suffix_length + 2
    return text + ")"


def _length_in_torch(suffix: str) -> int:
    """The length of ``suffix`` as PyTorch spells it.

    ``dtype=teachgrad.float64`` counts as ``dtype=torch.float64``, so a tensor's text is
    laid out exactly as PyTorch lays it out, line breaks included, only with the
    package's own name (a line may thus run past ``linewidth`` by a few characters).
    """
    if suffix.startswith("dtype="):
        return len("dtype=torch.") + len(suffix.rpartition(".")[2])
    return len(suffix)
