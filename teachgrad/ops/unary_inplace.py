"""The in-place forms of the unary functions: ``x.cos_()`` writes cos(x) into ``x``.

Each runs its out-of-place operation through ``Operation.apply_inplace`` (which writes the
result into ``x``, bumps its version and rebases its history), so it records the very node
the out-of-place form records (``x.sqrt_()`` a ``SqrtBackward0``), as PyTorch's do.
``ops/__init__.py`` attaches them to Tensor; ``teachgrad/__init__.py`` exports the
functions (``torch.cos_(x)``).
"""
from teachgrad.ops import inplace, pointwise

NODES = {
    "acos_": pointwise.AcosBackward0, "asin_": pointwise.AsinBackward0,
    "atan_": pointwise.AtanBackward0, "ceil_": pointwise.CeilBackward0,
    "cos_": pointwise.CosBackward0, "cosh_": pointwise.CoshBackward0,
    "erf_": pointwise.ErfBackward0, "expm1_": pointwise.Expm1Backward0,
    "floor_": pointwise.FloorBackward0, "log_": pointwise.LogBackward0,
    "log10_": pointwise.Log10Backward0, "log1p_": pointwise.Log1PBackward0,
    "log2_": pointwise.Log2Backward0, "reciprocal_": pointwise.ReciprocalBackward0,
    "round_": pointwise.RoundBackward0, "rsqrt_": pointwise.RsqrtBackward0,
    "sign_": pointwise.SignBackward0, "sin_": pointwise.SinBackward0,
    "sinh_": pointwise.SinhBackward0, "sqrt_": pointwise.SqrtBackward0,
    "tan_": pointwise.TanBackward0, "trunc_": pointwise.TruncBackward0,
}
ALIASES = {"arccos_": "acos_", "arcsin_": "asin_", "arctan_": "atan_", "fix_": "trunc_"}


def _in_place(node, name):
    def unary_(input):
        return node.apply_inplace(input)
    unary_.__name__ = unary_.__qualname__ = name
    unary_.__doc__ = f"``x.{name}()``: ``x.{name[:-1]}()`` written into ``x`` ({node.__name__})."
    return unary_


def square_(input):
    """``x.square_()``: ``x.pow_(2)``, a PowBackward0 as in PyTorch."""
    return inplace.pow_(input, 2)


def nan_to_num_(input, nan=0.0, posinf=None, neginf=None):
    return pointwise.NanToNumBackward0.apply_inplace(input, nan=nan, posinf=posinf,
                                                     neginf=neginf)


FUNCTIONS = {name: _in_place(node, name) for name, node in NODES.items()}
FUNCTIONS.update({alias: FUNCTIONS[name] for alias, name in ALIASES.items()})
FUNCTIONS.update(square_=square_, nan_to_num_=nan_to_num_, clip_=inplace.clamp_)
globals().update(FUNCTIONS)           # importable by name: from ...unary_inplace import cos_
