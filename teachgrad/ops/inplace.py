"""In-place operations: ``add_``, ``mul_``, ``zero_``, ``copy_``, ``+=``...

Each one computes like its out-of-place twin, then ``Operation.apply_inplace``
writes the result into the tensor's own memory, bumps ``_version`` and makes
the op the tensor's new ``grad_fn``. The checks that keep autograd correct
(a leaf that requires grad may not be changed in place) live in
``autograd/views.py``.

``t_``, ``transpose_``, ``squeeze_`` and ``unsqueeze_`` change no value, only the
tensor's shape and strides: the tensor becomes its own view (``reshape_inplace``).
"""
import numpy as np

from teachgrad import dtypes, random
from teachgrad.autograd import grad_mode, views
from teachgrad.autograd.operation import Operation
from teachgrad.ieee import cast, quiet
from teachgrad.ops import linalg, pointwise, shape
from teachgrad.ops.pointwise import as_tensor_like
from teachgrad.tensor import Tensor


class OverwriteOperation(Operation):
    """An in-place op that replaces the values: the old values get no gradient."""
    promote = "none"

    def forward(self, a, values):
        return np.broadcast_to(cast(values, a.dtype), a.shape)

    def backward(self, grad):
        return grad * 0


class ZeroBackward0(OverwriteOperation):
    pass


class FillBackward2(OverwriteOperation):
    """``fill_`` with a number."""


class FillBackward3(Operation):
    """``fill_`` with a 0-d tensor (also ``t[:] = 5``): the gradient flows to the value."""
    input_names = ("self", "value")
    promote = "none"

    def forward(self, a, value):
        return np.broadcast_to(value.astype(a.dtype), a.shape)

    def backward(self, grad):
        return grad * 0, grad.sum()


class UniformBackward0(OverwriteOperation):
    pass


class NormalBackward0(OverwriteOperation):
    pass


class BernoulliBackward0(OverwriteOperation):
    """``torch.bernoulli(p)``: a new tensor of 0s and 1s, 1 with probability p."""

    def forward(self, a, values):
        return np.array(values, dtype=a.dtype)


class BernoulliBackward1(OverwriteOperation):
    """``x.bernoulli_(p)`` with a tensor of probabilities."""


class BernoulliBackward2(OverwriteOperation):
    """``x.bernoulli_(p)`` with one probability."""


class NormalSample(Operation):
    """``torch.normal`` with a tensor mean and / or std. PyTorch defines its gradient as 0
    (the sample is not reparameterised): use ``mean + std * torch.randn(...)`` for one."""
    promote = "none"

    def forward(self, *parameters, values):
        self._parameter_sizes = [p.shape for p in parameters]
        return values

    def backward(self, grad):
        from teachgrad import creation
        zeros = tuple(creation.zeros(size, dtype=grad.dtype) for size in self._parameter_sizes)
        return zeros if len(zeros) > 1 else zeros[0]


class NormalBackward1(NormalSample):
    """A tensor of means, one std."""
    input_names = ("mean",)


class NormalBackward2(NormalSample):
    """One mean, a tensor of stds."""
    input_names = ("std",)


class NormalBackward3(NormalSample):
    """Tensors of means and of stds."""
    input_names = ("mean", "std")


class CopyBackwards(Operation):
    """``dst.copy_(src)``: dst's old values are gone, the gradient flows to src."""
    input_names = ("self", "src")
    promote = "none"

    def name(self):
        return "teachgrad::autograd::CopyBackwards"     # PyTorch: torch::autograd::CopyBackwards

    def forward(self, dst, src):
        with quiet():       # as PyTorch: what float16 cannot hold becomes inf, silently
            return np.broadcast_to(src, dst.shape).astype(dst.dtype, copy=False)

    def backward(self, grad):
        return grad * 0, grad


def add_(self, other, *, alpha=1):
    other = as_tensor_like(other, self)
    return pointwise.AddBackward0.apply_inplace(self, other,
                                                **pointwise.alpha_params(self, other, alpha))


def sub_(self, other, *, alpha=1):
    other = as_tensor_like(other, self)
    pointwise.check_subtraction(self, other)
    return pointwise.SubBackward0.apply_inplace(self, other,
                                                **pointwise.alpha_params(self, other, alpha))


def mul_(self, other):
    return pointwise.MulBackward0.apply_inplace(self, as_tensor_like(other, self))


def div_(self, other):
    return pointwise.DivBackward0.apply_inplace(self, as_tensor_like(other, self))


def pow_(self, exponent):
    if isinstance(exponent, Tensor):
        return pointwise.PowBackward1.apply_inplace(self, as_tensor_like(exponent, self))
    return pointwise.PowBackward0.apply_inplace(self, exponent=exponent)


def neg_(self):
    return pointwise.NegBackward0.apply_inplace(self)


def exp_(self):
    return pointwise.ExpBackward0.apply_inplace(self)


def sigmoid_(self):
    return pointwise.SigmoidBackward0.apply_inplace(self)


def tanh_(self):
    return pointwise.TanhBackward0.apply_inplace(self)


def relu_(self):
    return pointwise.ReluBackward0.apply_inplace(self)


def clamp_(self, min=None, max=None):
    _refuse_wider_bounds(self, min, max)
    return pointwise.ClampBackward1.apply_inplace(self, min=min, max=max)


def clamp_min_(self, min):
    if isinstance(min, Tensor):
        return pointwise.ClampMinBackward1.apply_inplace(self, min)
    _refuse_wider_bounds(self, min)
    return pointwise.ClampMinBackward0.apply_inplace(self, min=min)


def clamp_max_(self, max):
    if isinstance(max, Tensor):
        return pointwise.ClampMaxBackward1.apply_inplace(self, max)
    _refuse_wider_bounds(self, max)
    return pointwise.ClampMaxBackward0.apply_inplace(self, max=max)


def _refuse_wider_bounds(self, *bounds):
    """An integer tensor clamped in place by a float number (a bool one by an int): the
    result would need a wider type than the tensor has, which PyTorch refuses."""
    numbers = [b for b in bounds if b is not None and not isinstance(b, Tensor)]
    category = max(map(dtypes.scalar_category, numbers), default=0)
    if category > self.dtype.category:
        wider = dtypes.default_dtype_for_category(category)
        raise RuntimeError(f"result type {wider.short_name} can't be cast to the desired "
                           f"output type {dtypes.C_NAMES[self.dtype.name]}")


def zero_(self):
    return ZeroBackward0.apply_inplace(self, values=0)


def fill_(self, value):
    if isinstance(value, Tensor):
        if value.ndim:
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor "
                               f"with {value.ndim} dimensions.")
        return FillBackward3.apply_inplace(self, value)
    dtypes.check_fits(value, self.dtype, self.numel())
    return FillBackward2.apply_inplace(self, values=value)


def copy_(self, src):
    return CopyBackwards.apply_inplace(self, as_tensor_like(src, self))


def clone(input):
    """``input.clone()``: a copy in memory of its own, recorded as ``CloneBackward0``.

    PyTorch's clone makes an empty tensor and writes it with ``copy_``. Outside
    inference_mode, autograd does not see the clone of an inference tensor, but it does see
    that ``copy_`` into a normal tensor: the clone is at version 1, and the clone of a leaf
    that requires grad has a ``CopyBackwards`` node. (Here, in the same layout: a clone of a
    transposed tensor is transposed too.)
    """
    if input.is_inference() and not grad_mode.is_inference_mode_enabled():
        return copy_(Tensor._make(np.empty_like(input._data)), input)
    return pointwise.clone(input)


def addmm_(self, mat1, mat2, *, beta=1, alpha=1):
    """``self`` becomes ``beta * self + alpha * (mat1 @ mat2)``, recorded as ``AddmmBackward0``.
    PyTorch checks in this order: autograd's rules, the dtypes, the factors, the shape of
    ``self`` (which must be the product's: no broadcasting in place)."""
    views.check_inplace_allowed(self, (mat1, mat2), linalg.AddmmBackward0.refused_overlaps)
    linalg._check_same_dtype("addmm", self, mat1, mat2)
    linalg.check_factors(mat1, mat2)
    product_size = [mat1.shape[0], mat2.shape[1]]
    if list(self.shape) != product_size:
        raise RuntimeError(f"Bad in-place call: input tensor size {list(self.shape)} and output "
                           f"tensor size {product_size} should match")
    return linalg.AddmmBackward0.apply_inplace(self, mat1, mat2, alpha=alpha, beta=beta)


def uniform_(self, a=0.0, b=1.0):
    values = random.uniform(self.shape, a, b, dtype=self._data.dtype)
    return UniformBackward0.apply_inplace(self, values=values)


def normal_(self, mean=0.0, std=1.0):
    values = random.normal(self.shape, mean, std, dtype=self._data.dtype)
    return NormalBackward0.apply_inplace(self, values=values)


def _bernoulli_draws(probabilities, shape, dtype):
    """PyTorch's draws: for a tensor of probabilities, a uniform in the tensor's dtype per
    element; for one probability, a float64 uniform per element."""
    if isinstance(probabilities, Tensor):
        p = probabilities._data
        if ((p < 0) | (p > 1)).any():
            raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  "
                               "(Could this error message be improved?  If so, please report "
                               "an enhancement request to PyTorch.)")
        return random.rand(shape, dtype=dtype) < p
    return random.bernoulli(shape, probabilities, dtype=dtype)


def bernoulli(input, p=None, *, generator=None):
    """0 or 1 for each element: 1 with probability ``input`` (or with probability ``p``).
    Its gradient is 0, as in PyTorch."""
    with random.drawing_from(generator):
        draws = _bernoulli_draws(input if p is None else p, input.shape, input._data.dtype)
    if p is not None:
        return Tensor._make(draws.astype(input._data.dtype))
    return BernoulliBackward0.apply(input, values=draws)


def bernoulli_(self, p=0.5, *, generator=None):
    with random.drawing_from(generator):
        draws = _bernoulli_draws(p, self.shape, self._data.dtype)
    node = BernoulliBackward1 if isinstance(p, Tensor) else BernoulliBackward2
    return node.apply_inplace(self, values=draws)


def normal(mean, std=1.0, size=None, *, generator=None, dtype=None, requires_grad=False):
    """Normal samples: with numbers and a ``size``, or element by element for tensors of
    means and / or stds (drawn as ``randn * std + mean``, as PyTorch does)."""
    from teachgrad import creation
    tensors = [t for t in (mean, std) if isinstance(t, Tensor)]
    if not tensors:
        if size is None:
            raise TypeError("normal() received an invalid combination of arguments - got "
                            "(float, float), but expected one of: (Tensor mean, Tensor std) "
                            "(Tensor mean, float std) (float mean, Tensor std) "
                            "(float mean, float std, tuple of ints size)")
        return creation.normal_sample(mean, std, size, generator, dtype, requires_grad)
    if isinstance(std, Tensor) and (std._data < 0).any():
        raise RuntimeError("normal expects all elements of std >= 0.0")
    arrays = [t._data if isinstance(t, Tensor) else t for t in (mean, std)]
    shape = np.broadcast_shapes(*(t.shape for t in tensors))
    dtype = tensors[0]._data.dtype
    with random.drawing_from(generator):
        draws = random.normal(shape, 0.0, 1.0, dtype=dtype)
    values = (draws * np.asarray(arrays[1], dtype=dtype) + np.asarray(arrays[0], dtype=dtype))
    node = NormalBackward3 if len(tensors) == 2 else \
        NormalBackward1 if isinstance(mean, Tensor) else NormalBackward2
    return node.apply(*tensors, values=values)


# ---- in-place changes of shape: the same memory seen another way ----------
class TBackward1(shape.TBackward0):
    """``x.t_()``."""

    def forward(self, a):
        if a.ndim > 2:
            raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is {a.ndim}D")
        return a.T


class SqueezeBackward3(shape.SqueezeBackward0):
    """``x.squeeze_()``: every dimension of size 1."""


class SqueezeBackward4(shape.SqueezeBackward1):
    """``x.squeeze_(dim)``."""


def reshape_inplace(target, node_class, replay, **params):
    """Give ``target`` the shape and strides of its view ``replay(target)``, in place.

    The values stay where they are, yet PyTorch counts it as an in-place op: the same
    checks, a version bump, and a new ``grad_fn`` (``TBackward1``...) whose input is the
    tensor's old history. A view stays a view of its base, one more step away from it.
    """
    views.check_inplace_allowed(target)
    reshaped = node_class.apply(target, **params)     # checks the arguments, records the node
    target._data = reshaped._data
    target._version_counter.bump()
    if target._base is not None:
        earlier_replay = target._view_replay
        target._view_replay = lambda t: replay(earlier_replay(t))
        target._view_version = target._version_counter.version
    if reshaped._grad_fn is not None:
        # (unlike add_ and friends, PyTorch leaves a retain_grad() behind on the old node:
        # .grad then has the tensor's old shape)
        target._grad_fn, target._output_nr = reshaped._grad_fn, 0
    return target


def t_(self):
    return reshape_inplace(self, TBackward1, lambda t: t.t())


def transpose_(self, dim0, dim1):
    dim0, dim1 = shape._check_dim(dim0, self.ndim), shape._check_dim(dim1, self.ndim)
    return reshape_inplace(self, shape.TransposeBackward1, lambda t: t.transpose(dim0, dim1),
                           dim0=dim0, dim1=dim1)


def unsqueeze_(self, dim):
    shape._check_dim(dim, self.ndim + 1)
    return reshape_inplace(self, shape.UnsqueezeBackward1, lambda t: t.unsqueeze(dim), dim=dim)


def squeeze_(self, dim=None):
    if dim is None:
        return reshape_inplace(self, SqueezeBackward3, lambda t: t.squeeze())
    shape._check_dim(dim, self.ndim)
    return reshape_inplace(self, SqueezeBackward4, lambda t: t.squeeze(dim), dim=dim)
