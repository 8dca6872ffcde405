"""teachgrad.printing must print exactly what PyTorch prints.

The first tests hold strings worked out by hand, so the module is checked even where
torch is not installed. The rest build a torch tensor, print it with torch, and print
its numpy values with ``format_tensor``; the two must match once "torch." reads
"teachgrad.".
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from teachgrad.printing import (
    dtype_is_shown,
    format_parameter,
    format_tensor,
    set_printoptions,
)


@pytest.fixture(autouse=True)
def default_printoptions():
    """Every test starts, and leaves, with the default options in both libraries."""
    set_printoptions(profile="default")
    yield
    set_printoptions(profile="default")
    try:
        import torch
    except ImportError:
        return
    torch.set_printoptions(profile="default")


# --- expected strings worked out by hand -------------------------------------------


def test_whole_floats_are_padded_to_a_common_width():
    data = np.array([10.0, 5.0, 2.0, 3.0], dtype=np.float32)
    text = format_tensor(data, dtype_name="teachgrad.float32", requires_grad=True)
    assert text == "tensor([10.,  5.,  2.,  3.], requires_grad=True)"


def test_rows_of_a_matrix_line_up_under_the_first():
    data = np.full((2, 2), 1 / (1 + math.exp(-1)), dtype=np.float32)
    text = format_tensor(
        data, dtype_name="teachgrad.float32", grad_fn_name="SigmoidBackward0"
    )
    assert text == (
        "tensor([[0.7311, 0.7311],\n"
        "        [0.7311, 0.7311]], grad_fn=<SigmoidBackward0>)"
    )


@pytest.mark.parametrize(
    "data, expected",
    [
        (np.float32(40.0), "tensor(40.)"),
        (np.float32(math.exp(2)), "tensor(7.3891)"),
        (np.float32(0.1), "tensor(0.1000)"),
        (np.int64(3), "tensor(3)"),
        (np.bool_(True), "tensor(True)"),
        (np.float64(2.0), "tensor(2., dtype=teachgrad.float64)"),
    ],
)
def test_zero_dimensional_tensors(data, expected):
    dtype_name = f"teachgrad.{np.asarray(data).dtype}"
    assert format_tensor(np.asarray(data), dtype_name=dtype_name) == expected


def test_wide_range_switches_to_scientific_notation():
    data = np.array([1e-5, 1.0], dtype=np.float32)
    text = format_tensor(data, dtype_name="teachgrad.float32")
    assert text == "tensor([1.0000e-05, 1.0000e+00])"


def test_empty_tensors_name_their_size_and_non_float_dtype():
    empty_matrix = np.zeros((0, 3), dtype=np.float32)
    empty_ints = np.zeros(0, dtype=np.int64)
    matrix_text = format_tensor(empty_matrix, dtype_name="teachgrad.float32")
    ints_text = format_tensor(empty_ints, dtype_name="teachgrad.int64")
    assert matrix_text == "tensor([], size=(0, 3))"
    assert ints_text == "tensor([], dtype=teachgrad.int64)"


def test_long_tensors_are_summarised():
    data = np.arange(1001, dtype=np.float32)
    text = format_tensor(data, dtype_name="teachgrad.float32")
    assert text == "tensor([   0.,    1.,    2.,  ...,  998.,  999., 1000.])"


def test_suffixes_move_to_a_new_line_when_the_row_is_long():
    data = np.arange(8, dtype=np.float64) / 3
    text = format_tensor(
        data, dtype_name="teachgrad.float64", grad_fn_name="MulBackward0"
    )
    assert text == (
        "tensor([0.0000, 0.3333, 0.6667, 1.0000, 1.3333, 1.6667, 2.0000, 2.3333],\n"
        "       dtype=teachgrad.float64, grad_fn=<MulBackward0>)"
    )


def test_parameter_has_a_heading_and_requires_grad():
    text = format_parameter(np.ones(2, dtype=np.float32), dtype_name="teachgrad.float32")
    assert text == "Parameter containing:\ntensor([1., 1.], requires_grad=True)"


def test_explicit_show_dtype_overrides_the_rule():
    data = np.array([1.5], dtype=np.float64)
    hidden = format_tensor(data, dtype_name="teachgrad.float64", show_dtype=False)
    shown = format_tensor(data, dtype_name="teachgrad.float32", show_dtype=True)
    assert hidden == "tensor([1.5000])"
    assert shown == "tensor([1.5000], dtype=teachgrad.float32)"


@pytest.mark.parametrize(
    "dtype, numel, shown",
    [
        (np.float32, 2, False),
        (np.int64, 2, False),
        (np.bool_, 2, False),
        (np.float64, 2, True),
        (np.int32, 2, True),
        (np.float32, 0, False),
        (np.int64, 0, True),
        (np.bool_, 0, True),
    ],
)
def test_dtype_is_shown(dtype, numel, shown):
    assert dtype_is_shown(dtype, numel) is shown


def test_set_printoptions_precision_and_reset():
    data = np.array([1.23456], dtype=np.float32)
    set_printoptions(precision=2)
    assert format_tensor(data, dtype_name="teachgrad.float32") == "tensor([1.23])"
    set_printoptions(profile="default")
    assert format_tensor(data, dtype_name="teachgrad.float32") == "tensor([1.2346])"


def test_complex_data_is_refused():
    with pytest.raises(TypeError):
        format_tensor(np.array([1j]), dtype_name="teachgrad.complex128")


# --- comparison with torch ---------------------------------------------------------


def teachgrad_repr(tensor) -> str:
    """Print a torch tensor's values and flags with teachgrad.printing."""
    grad_fn = tensor.grad_fn
    return format_tensor(
        tensor.detach().numpy(),
        dtype_name=str(tensor.dtype).replace("torch.", "teachgrad."),
        requires_grad=tensor.requires_grad,
        grad_fn_name=None if grad_fn is None else type(grad_fn).__name__,
    )


def torch_repr(tensor) -> str:
    return repr(tensor).replace("torch.", "teachgrad.")


def _leaf(values, **kwargs):
    import torch

    return torch.tensor(values, requires_grad=True, **kwargs)


nan, inf = math.nan, math.inf

# Each case builds a tensor from the torch module it is given.
CASES = {
    # 0-d
    "scalar_whole": lambda t: t.tensor(40.0),
    "scalar_exp": lambda t: t.tensor(2.0).exp(),
    "scalar_tenth": lambda t: t.tensor(0.1),
    "scalar_int": lambda t: t.tensor(3),
    "scalar_true": lambda t: t.tensor(True),
    "scalar_negative_zero": lambda t: t.tensor(-0.0),
    "scalar_nan": lambda t: t.tensor(nan),
    "scalar_inf": lambda t: t.tensor(-inf),
    "scalar_tiny": lambda t: t.tensor(1e-5),
    "scalar_huge": lambda t: t.tensor(1e10),
    "scalar_float64": lambda t: t.tensor(2.0, dtype=t.float64),
    "scalar_int32": lambda t: t.tensor(3, dtype=t.int32),
    "scalar_leaf": lambda t: _leaf(2.0),
    "scalar_grad_fn": lambda t: _leaf(2.0) * 3,
    "scalar_sum": lambda t: (_leaf([1.0, 2.0]) ** 2).sum(),
    # 1-d
    "whole_padded": lambda t: _leaf([10.0, 5.0, 2.0, 3.0]),
    "tenths": lambda t: t.tensor([0.1, 0.2, 0.3]),
    "negative": lambda t: t.tensor([-1.5, 2.25, -300.125]),
    "negative_zeros": lambda t: t.tensor([-0.0, 0.0, 1.0, 10.0]),
    "nan_and_whole": lambda t: t.tensor([nan, 1.0]),
    "nonfinite_only": lambda t: t.tensor([inf, -inf, nan]),
    "nonfinite_and_fraction": lambda t: t.tensor([inf, 0.5, nan]),
    "all_zeros": lambda t: t.zeros(4),
    "ratio_just_over_1000": lambda t: t.tensor([1.0, 1001.0]),
    "ratio_1000": lambda t: t.tensor([1.0, 1000.0]),
    "ratio_fraction": lambda t: t.tensor([0.5, 600.5]),
    "max_over_1e8": lambda t: t.tensor([1e9, 2e9]),
    "min_under_1e-4": lambda t: t.tensor([5e-5, 6e-5]),
    "sci_with_nan": lambda t: t.tensor([1e-5, nan, 1.0, -inf]),
    "bools": lambda t: t.tensor([True, False, True]),
    "ints_wrapping": lambda t: t.arange(100),
    "negative_ints": lambda t: t.tensor([-5, 12, -300]),
    "big_ints": lambda t: t.tensor([2**62, -(2**62), 1]),
    "at_threshold": lambda t: t.arange(1000.0),
    "over_threshold": lambda t: t.arange(1001.0),
    "over_threshold_ints": lambda t: t.arange(5000),
    "random_wrapping": lambda t: t.randn(50, generator=t.Generator().manual_seed(0)),
    "float64_row": lambda t: t.arange(30, dtype=t.float64) / 7,
    "int8": lambda t: t.tensor([-128, 0, 127], dtype=t.int8),
    "uint8": lambda t: t.tensor([0, 7, 255], dtype=t.uint8),
    "int16": lambda t: t.tensor([1, -2], dtype=t.int16),
    "float16": lambda t: t.tensor([0.1, 1e4, -2.0], dtype=t.float16),
    "float16_whole": lambda t: t.tensor([1.0, 2.0], dtype=t.float16),
    "suffix_wrap": lambda t: _leaf([1.0] * 8, dtype=t.float64) * t.arange(8) / 3,
    "suffix_fits": lambda t: _leaf([1.0, 2.0], dtype=t.float64) * 2,
    "long_grad_fn_row": lambda t: _leaf([0.5] * 11).sigmoid(),
    # n-d
    "sigmoid_2x2": lambda t: t.full((2, 2), 1.0, requires_grad=True).sigmoid(),
    "matrix": lambda t: t.randn(3, 4, generator=t.Generator().manual_seed(1)),
    "cube": lambda t: t.randn(2, 3, 4, generator=t.Generator().manual_seed(2)),
    "four_d": lambda t: t.randn(2, 2, 2, 2, generator=t.Generator().manual_seed(3)),
    "int_matrix": lambda t: t.zeros(2, 3, dtype=t.int64),
    "eye": lambda t: t.eye(3),
    "bool_matrix": lambda t: t.eye(2, dtype=t.bool),
    "summarised_matrix": lambda t: t.randn(40, 40, generator=t.Generator().manual_seed(4)),
    "summarised_cube": lambda t: t.arange(3000.0).reshape(10, 10, 30),
    "summarised_wide": lambda t: t.arange(2002).reshape(2, 1001),
    "summarised_tall": lambda t: t.arange(2002.0).reshape(1001, 2) / 3,
    "wide_matrix_wrapping": lambda t: t.arange(60.0).reshape(2, 30) * 1.5,
    "matrix_float64_grad": lambda t: _leaf([[1.0, 2.0], [3.0, 4.0]], dtype=t.float64) * 1,
    "matrix_sci": lambda t: t.tensor([[1e-8, 1.0], [2.0, 3e5]]),
    "matrix_column": lambda t: t.arange(5.0).reshape(5, 1),
    # empty
    "empty": lambda t: t.tensor([]),
    "empty_matrix": lambda t: t.zeros(0, 3),
    "empty_int": lambda t: t.zeros(0, dtype=t.int64),
    "empty_bool_matrix": lambda t: t.zeros(0, 3, dtype=t.bool),
    "empty_float64": lambda t: t.zeros(2, 0, dtype=t.float64),
    "empty_leaf": lambda t: t.zeros(3, 0, 2, requires_grad=True),
}


@pytest.mark.parametrize("name", CASES)
def test_matches_torch(name):
    torch = pytest.importorskip("torch")
    tensor = CASES[name](torch)
    assert teachgrad_repr(tensor) == torch_repr(tensor)


def test_suffix_wrap_case_really_wraps():
    torch = pytest.importorskip("torch")
    text = torch_repr(CASES["suffix_wrap"](torch))
    assert "],\n       dtype=teachgrad.float64" in text
    assert teachgrad_repr(CASES["suffix_wrap"](torch)) == text


OPTION_CASES = [
    ({"precision": 2}, "tenths"),
    ({"precision": 6}, "random_wrapping"),
    ({"precision": 0}, "negative"),
    ({"threshold": 5}, "ints_wrapping"),
    ({"threshold": 5}, "cube"),
    ({"threshold": 5, "edgeitems": 1}, "summarised_cube"),
    ({"edgeitems": 0}, "over_threshold"),
    ({"edgeitems": 0}, "summarised_matrix"),
    ({"edgeitems": 0}, "tenths"),
    ({"linewidth": 40}, "float64_row"),
    ({"linewidth": 40}, "suffix_fits"),
    ({"linewidth": 10}, "ints_wrapping"),
    ({"profile": "short"}, "summarised_matrix"),
    ({"profile": "full"}, "over_threshold_ints"),
    ({"profile": "full", "precision": 2}, "summarised_tall"),
    ({"sci_mode": True}, "tenths"),
    ({"sci_mode": True}, "whole_padded"),
    ({"sci_mode": True}, "all_zeros"),
    ({"sci_mode": False}, "ratio_just_over_1000"),
    ({"sci_mode": False}, "min_under_1e-4"),
    ({"profile": "unknown"}, "tenths"),
]


@pytest.mark.parametrize("options, name", OPTION_CASES)
def test_printoptions_match_torch(options, name):
    torch = pytest.importorskip("torch")
    torch.set_printoptions(**options)
    set_printoptions(**options)
    tensor = CASES[name](torch)
    assert teachgrad_repr(tensor) == torch_repr(tensor)


@pytest.mark.parametrize("requires_grad", [True, False])
def test_parameter_matches_torch(requires_grad):
    torch = pytest.importorskip("torch")
    parameter = torch.nn.Parameter(torch.arange(6.0).reshape(2, 3) / 4, requires_grad)
    text = format_parameter(
        parameter.detach().numpy(),
        dtype_name="teachgrad.float32",
        requires_grad=requires_grad,
    )
    assert text == repr(parameter)


# --- random tensors ----------------------------------------------------------------

DTYPES = ["float32", "float64", "float16", "int64", "int32", "uint8", "bool"]
SCALES = [1e-6, 1e-3, 1.0, 100.0, 1e5, 1e9]


@st.composite
def random_arrays(draw):
    """Arrays of assorted shape, dtype and magnitude, some with zeros, infs and nans."""
    shape = draw(
        st.one_of(
            hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=5),
            st.tuples(st.integers(0, 1500)),
            st.tuples(st.integers(1, 40), st.integers(1, 60)),
        )
    )
    dtype = np.dtype(draw(st.sampled_from(DTYPES)))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        high = min(draw(st.sampled_from([10, 1000, int(info.max)])), int(info.max))
        low = max(int(info.min), -high)
        return rng.integers(low, high, size=shape, dtype=dtype, endpoint=True)
    values = rng.standard_normal(shape) * draw(st.sampled_from(SCALES))
    if draw(st.booleans()):
        values = np.round(values)
    if draw(st.booleans()):
        specials = rng.choice([0.0, -0.0, nan, inf, -inf], size=shape)
        values = np.where(rng.random(shape) < 0.2, specials, values)
    with np.errstate(over="ignore"):
        return values.astype(dtype)


@settings(max_examples=300, deadline=None)
@given(data=random_arrays(), autograd=st.sampled_from(["none", "leaf", "grad_fn"]))
def test_random_tensors_match_torch(data, autograd):
    torch = pytest.importorskip("torch")
    tensor = torch.from_numpy(np.array(data))
    if autograd != "none" and tensor.is_floating_point():
        tensor = tensor.requires_grad_()
        if autograd == "grad_fn":
            tensor = tensor * 1
    assert teachgrad_repr(tensor) == torch_repr(tensor)
