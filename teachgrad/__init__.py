"""teachgrad: a small, readable autograd on numpy that behaves like PyTorch.

    import teachgrad as torch

runs a student's PyTorch code unchanged and shows the same values, node names,
flags and errors. Every mechanism can be opened and read: start with
``teachgrad/tensor.py`` and ``teachgrad/autograd/``.
"""
from teachgrad import ops as _ops  # attaches the operations to Tensor
from teachgrad import autograd
from teachgrad.autograd.anomaly import is_anomaly_check_nan_enabled, is_anomaly_enabled
from teachgrad.autograd.grad_mode import (enable_grad, inference_mode, is_grad_enabled,
                                          is_inference_mode_enabled, no_grad, set_grad_enabled)
from teachgrad.creation import (arange, as_tensor, empty, empty_like, eye, from_numpy, full,
                                full_like, get_rng_state, initial_seed, linspace, manual_seed,
                               logspace, multinomial,
                                ones, ones_like, rand, rand_like, randint, randint_like, randn,
                                randn_like, randperm, seed, set_rng_state, tensor, zeros,
                                zeros_like)
from teachgrad.random import Generator
from teachgrad.dtypes import (bool_ as bool, dtype, finfo, float16, float32, float64,
                              get_default_dtype, iinfo, int32, int64, set_default_dtype, uint8)
from teachgrad.ops.indexing import (gather, index as _index, index_add, index_select,
                                    masked_scatter, masked_select, nonzero, scatter, scatter_add,
                                    put, take, take_along_dim)
from teachgrad.ops.inplace import (bernoulli, clamp_, clone, exp_, fill_, neg_, normal, relu_,
                                  sigmoid_, tanh_, zero_)
from teachgrad.ops.linalg import (addmm, bmm, cdist, cross, det, dist, dot, einsum, inverse,
                                  kron, logdet, matmul, mm, mv, outer, slogdet, tensordot)
from teachgrad import linalg  # torch.linalg
from teachgrad.ops.pointwise import (abs, acos, add, addcdiv, addcmul, allclose, asin, atan,
                                     atan2, ceil, clamp, clamp_max, clamp_min, cos,
                                     cosh, div, eq, equal, erf,
                                     exp, expm1, floor, floor_divide, ge, gt, isclose,
                                     isfinite, isinf, isnan, le, lerp, log, log10, log1p, log2,
                                     fmod, nan_to_num, remainder, sinh, tan, trunc,
                                     asin as arcsin, acos as arccos,
                                     atan as arctan, atan2 as arctan2, trunc as fix,
                                     logical_and, logical_not, logical_or, lt, masked_fill,
                                     maximum, minimum, mul, ne, neg, pow, reciprocal, relu,
                                     round, rsqrt, sigmoid, sign, sin, sqrt, square, sub, tanh,
                                     where)
from teachgrad.ops.pointwise import (
    abs as absolute, abs_, acosh, acosh as arccosh, acosh_, acosh_ as arccosh_, asinh,
    asinh as arcsinh, asinh_, asinh_ as arcsinh_, atanh, atanh as arctanh, atanh_,
    atanh_ as arctanh_, copysign, deg2rad, deg2rad_, div as divide, div as true_divide, erfc,
    erfc_, erfinv, exp2, exp2_, float_power, fmax, fmin, frac, frac_, heaviside, hypot, isin,
    isneginf, isposinf, isreal, ldexp, ldexp_, logaddexp, logaddexp2, logical_xor, logit,
    logit_, mul as multiply, ne as not_equal, neg as negative, nextafter, positive, rad2deg,
    rad2deg_, sgn, signbit, sinc, sinc_, sub as subtract, xlogy, xlogy_)
from teachgrad.ops.inplace import neg_ as negative_
from teachgrad.ops.inplace import clamp_ as clip_, clamp_max_, clamp_min_
from teachgrad.ops.histogram import histc, histogram
from teachgrad.ops.unary_inplace import (  # (the methods' function forms: torch.cos_(x)...)
    acos_, acos_ as arccos_, asin_, asin_ as arcsin_, atan_, atan_ as arctan_, ceil_, cos_,
    cosh_, erf_, expm1_, floor_, log_, log10_, log1p_, log2_, nan_to_num_, reciprocal_, round_,
    rsqrt_, sin_, sinh_, sqrt_, square_, tan_, trunc_, trunc_ as fix_)
from teachgrad.ops.reduction import (aminmax, cummax, cummin, logcumsumexp, std_mean,
                                     var_mean)
from teachgrad.ops.reduction import (all, amax, amin, any, argmax, argmin, argsort, cumprod,
                                     cumsum,
                                     log_softmax, logsumexp, max, mean, min, norm, prod, softmax,
                                     sort, std, sum, topk, trace, var,
                                     bucketize, count_nonzero, kthvalue, median, mode, nanmean,
                                     nanmedian, nanquantile, nansum, quantile, searchsorted,
                                     unique, unique_consecutive)
from teachgrad.ops.shape import (broadcast_tensors, broadcast_to, cat, chunk, diag, diag_embed,
                                 diagonal, diff, expand, flatten, flip, hstack, vstack,
                                 meshgrid, movedim, narrow, permute, reshape, roll, select,
                                 split, squeeze, stack, t, tile, transpose, tril, triu, unbind,
                                 unsafe_chunk, unsafe_split, unsqueeze,
                                 transpose as swapaxes, transpose as swapdims,
                                 repeat_interleave)
from teachgrad.ops.shape import (as_strided, atleast_1d, atleast_2d, atleast_3d, block_diag,
                                 broadcast_shapes, cartesian_prod, column_stack, combinations,
                                 diagflat, dsplit, dstack, fliplr, flipud, hsplit, narrow_copy,
                                 ravel, rot90, tensor_split, unflatten, vsplit,
                                 movedim as moveaxis)
from teachgrad.ops.indexing import (diagonal_scatter, index_copy, index_fill, select_scatter,
                                    slice_scatter, tril_indices, triu_indices)
from teachgrad.devices import device, get_default_device, set_default_device
from teachgrad import accelerator, backends, cuda  # no GPU: cuda.is_available() is False
from teachgrad import profiler
from teachgrad.legacy import (BoolTensor, ByteTensor, DoubleTensor, FloatTensor, HalfTensor,
                              IntTensor, LongTensor)
from teachgrad.printing import set_printoptions
from teachgrad.tensor import Size, Tensor
from teachgrad import nn, optim, utils  # noqa: E402  (they build on everything above)
from teachgrad import func  # noqa: E402  (torch.func: grad, vmap, jacfwd... on nn too)
from teachgrad import amp, distributed, onnx  # noqa: E402  (import-time names programs use)
from teachgrad.amp import autocast  # noqa: E402
from teachgrad.nn.functional import (  # noqa: E402
    adaptive_avg_pool1d, adaptive_max_pool1d_with_indices as adaptive_max_pool1d, avg_pool1d,
    celu, celu_, conv1d, conv_transpose1d, conv_transpose2d, cosine_similarity, group_norm,
    hardshrink, aten_instance_norm as instance_norm, max_pool1d,
    max_pool1d_with_indices, pairwise_distance, prelu)
from teachgrad.nn.functional import native_losses  # noqa: E402
cosine_embedding_loss = native_losses.cosine_embedding_loss
hinge_embedding_loss = native_losses.hinge_embedding_loss
margin_ranking_loss = native_losses.margin_ranking_loss
poisson_nll_loss = native_losses.poisson_nll_loss
triplet_margin_loss = native_losses.triplet_margin_loss
from teachgrad.serialization import load, save  # noqa: E402  (it pickles nn.Parameter)
from teachgrad.compile import compile  # noqa: E402  (traces nn and optim steps)

half, double, long, int, float = float16, float64, int64, int32, float32
clip = clamp
concat = concatenate = cat
__version__ = "0.1.0"


def is_autocast_enabled(device_type=None):
    """False: teachgrad never runs a block in lower precision (see ``amp.autocast``)."""
    return False


def is_tensor(obj):
    return isinstance(obj, Tensor)


def numel(input):
    return input.numel()
