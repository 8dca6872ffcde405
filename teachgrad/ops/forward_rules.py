"""Forward derivatives (JVP rules): how each operation moves a tangent.

Backward answers "how much did each input contribute to this output's gradient?" (a row of the
Jacobian per pass). Forward mode answers "if the inputs move along their tangents, how fast does
the output move?" (a column per pass). Each rule below takes the op's inputs, their tangents (an
input without one moves with speed zero; an integer input has None) and its outputs, and returns
the output's tangent: ``J @ v``, written with teachgrad operations, so that a tangent can itself
be differentiated (``jacfwd(jacrev(f))``).

Three kinds are enough for most of the course:

* linear ops (views, sums, ``cat``, ``x * 2``): the tangent goes through the same op;
* bilinear ops (``a * b``, ``a @ b``): the product rule, ``op(da, b) + op(a, db)``;
* the others: the derivative written out (``exp``: ``dx * exp(x)``).

An op without a rule here gets one from its backward: ``transposed_backward`` (the
"double-vjp trick"). Its backward is linear in the incoming gradient ``u``, ``u -> J^T u``;
differentiating ``<J^T u, v>`` with respect to ``u`` gives ``J v``. It costs two backward
passes per op instead of one formula, but covers every op that has a differentiable backward
(convolutions, pooling, losses, norms...). An op PyTorch cannot differentiate gets PyTorch's
"Trying to use forward AD with ..." error.
"""
import contextlib

from teachgrad import creation
from teachgrad.autograd import forward_ad, grad_mode
from teachgrad.autograd.functional import grad as autograd_grad
from teachgrad.ops import indexing, linalg, pointwise, reduction, shape
from teachgrad.ops.reduction import NotDifferentiable
from teachgrad.tensor import Tensor


def through_same_op(cls):
    """A linear op: the tangent takes the path the input took (an integer input, such as an
    index, is passed as it is)."""
    def rule(inputs, tangents, outputs, **params):
        moved = [x if tangent is None else tangent for x, tangent in zip(inputs, tangents)]
        return cls.apply(*moved, **params)
    return rule


def product_rule(cls):
    """A bilinear op: ``d op(a, b) = op(da, b) + op(a, db)``."""
    def rule(inputs, tangents, outputs, **params):
        (a, b), (da, db) = inputs, tangents
        return cls.apply(da, b, **params) + cls.apply(a, db, **params)
    return rule


def unchanged(inputs, tangents, outputs, **params):
    """``x + 3``: the output moves as its tensor input does."""
    return tangents[0]


def negated(inputs, tangents, outputs, **params):
    """``3 - x``."""
    return -tangents[0]


def chain(derivative):
    """A function of one tensor: ``dy = f'(x) * dx``, with ``derivative(x, y)`` giving f'(x)."""
    def rule(inputs, tangents, outputs, **params):
        return tangents[0] * derivative(inputs[0], outputs[0])
    return rule


def quotient_rule(inputs, tangents, outputs):
    """``y = a / b``: ``dy = (da - y * db) / b``."""
    (a, b), (da, db), (y,) = inputs, tangents, outputs
    return (da - y * db) / b


def power_rule(inputs, tangents, outputs, exponent):
    """``y = x ** n`` for a number n: ``dy = n * x ** (n - 1) * dx``."""
    x, dx = inputs[0], tangents[0]
    if exponent == 0:
        return dx * 0
    return dx * x.pow(exponent - 1) * exponent


def addmm_rule(inputs, tangents, outputs, alpha=1, beta=1):
    """``y = beta * bias + alpha * (a @ b)``."""
    (bias, a, b), (dbias, da, db) = inputs, tangents
    return dbias * beta + (da.mm(b) + a.mm(db)) * alpha


def softmax_rule(inputs, tangents, outputs, dim, given):
    """``dy = y * (dx - sum(y * dx))`` along ``dim``."""
    y, dx = outputs[0], tangents[0]
    return y * (dx - (y * dx).sum(dim, keepdim=True))


def log_softmax_rule(inputs, tangents, outputs, dim, given):
    """``dy = dx - sum(softmax(x) * dx)`` along ``dim``."""
    y, dx = outputs[0], tangents[0]
    return dx - (y.exp() * dx).sum(dim, keepdim=True)


def relu_rule(inputs, tangents, outputs):
    """The tangent where the output is positive, 0 elsewhere."""
    return pointwise.where(outputs[0] > 0, tangents[0], 0.0)


RULES = {
    pointwise.AddBackward1: unchanged, pointwise.SubBackward1: unchanged,
    pointwise.RsubBackward1: negated,
    pointwise.MulBackward0: product_rule(pointwise.MulBackward0),
    pointwise.DivBackward0: quotient_rule,
    pointwise.PowBackward0: power_rule,
    linalg.MmBackward0: product_rule(linalg.MmBackward0),
    linalg.BmmBackward0: product_rule(linalg.BmmBackward0),
    linalg.MvBackward0: product_rule(linalg.MvBackward0),
    linalg.DotBackward0: product_rule(linalg.DotBackward0),
    linalg.AddmmBackward0: addmm_rule,
    pointwise.ExpBackward0: chain(lambda x, y: y),
    pointwise.LogBackward0: chain(lambda x, y: x.reciprocal()),
    pointwise.SqrtBackward0: chain(lambda x, y: (y * 2).reciprocal()),
    pointwise.SinBackward0: chain(lambda x, y: x.cos()),
    pointwise.CosBackward0: chain(lambda x, y: -x.sin()),
    pointwise.TanhBackward0: chain(lambda x, y: 1 - y * y),
    pointwise.SigmoidBackward0: chain(lambda x, y: y * (1 - y)),
    pointwise.ReciprocalBackward0: chain(lambda x, y: -y * y),
    pointwise.AbsBackward0: chain(lambda x, y: x.sgn()),
    pointwise.Log1PBackward0: chain(lambda x, y: (x + 1).reciprocal()),
    pointwise.Expm1Backward0: chain(lambda x, y: y + 1),
    pointwise.ReluBackward0: relu_rule,
    reduction.SoftmaxBackward0: softmax_rule,
    reduction.LogSoftmaxBackward0: log_softmax_rule,
}

LINEAR = [
    pointwise.AddBackward0, pointwise.SubBackward0, pointwise.NegBackward0,
    pointwise.MulBackward1, pointwise.DivBackward1, pointwise.CloneBackward0,
    pointwise.ToCopyBackward0,
    reduction.SumBackward0, reduction.SumBackward1, reduction.MeanBackward0,
    reduction.MeanBackward1, reduction.CumsumBackward0, reduction.TraceBackward0,
    shape.ViewBackward0, shape.ReshapeAliasBackward0, shape.UnsafeViewBackward0,
    shape.AliasBackward0, shape.SqueezeBackward0, shape.SqueezeBackward1,
    shape.SqueezeBackward2, shape.UnsqueezeBackward0, shape.TransposeBackward0,
    shape.TBackward0, shape.PermuteBackward0, shape.ExpandBackward0, shape.CatBackward0,
    shape.StackBackward0, shape.SplitBackward0, shape.SplitWithSizesBackward0,
    shape.UnbindBackward0, shape.FlipBackward0, shape.RollBackward0, shape.RepeatBackward0,
    shape.TrilBackward0, shape.TriuBackward0, shape.DiagonalBackward0,
    indexing.SelectBackward0, indexing.SliceBackward0, indexing.IndexBackward0,
    indexing.GatherBackward0, indexing.IndexSelectBackward0,
]
RULES.update({cls: through_same_op(cls) for cls in LINEAR})


def transposed_backward(cls, inputs, tangents, outputs, params):
    """``J v`` for an op without a rule, from its backward ``u -> J^T u``: the op runs once
    more, recorded; ``<J^T u, v>`` is differentiated with respect to ``u``."""
    if issubclass(cls, NotDifferentiable):
        raise forward_ad.not_implemented(cls.function_name)
    outer_graph = any(t is not None and t.requires_grad for t in (*inputs, *tangents))
    with grad_mode.enable_grad():
        moving = [_differentiable_copy(x) if tangent is not None else x
                  for x, tangent in zip(inputs, tangents)]
        with _parameters_restored(params):
            again = cls.apply(*moving, **params)
        again = again if isinstance(again, tuple) else (again,)
        traced = [out for out in again if out.requires_grad]
        cotangents = [forward_ad.scratch_leaf(out.new_zeros(out.shape).requires_grad_())
                      for out in traced]
        pairs = [(x, v) for x, v in zip(moving, tangents) if v is not None]
        vjps = autograd_grad(traced, [x for x, v in pairs], cotangents, create_graph=True,
                             allow_unused=True)
        pairing = sum((vjp * v).sum() for vjp, (x, v) in zip(vjps, pairs) if vjp is not None)
        jvps = [None] * len(traced)
        if getattr(pairing, "requires_grad", False):
            jvps = autograd_grad(pairing, cotangents, create_graph=outer_graph,
                                 allow_unused=True)
    jvps = iter([u.new_zeros(u.shape) if jvp is None else jvp
                 for jvp, u in zip(jvps, cotangents)])
    return tuple(next(jvps) if out.requires_grad else None for out in again)


@contextlib.contextmanager
def _parameters_restored(params):
    """The op runs a second time: what it writes into its tensor parameters (batch norm's
    running statistics) is put back, and so is the random generator it may draw from, so
    that the first run's effects count once."""
    kept = [(t, t._data.copy()) for t in params.values() if isinstance(t, Tensor)]
    random_state = creation.get_rng_state()
    try:
        yield
    finally:
        for tensor, data in kept:
            tensor._data[...] = data
        creation.set_rng_state(random_state)


def _differentiable_copy(tensor):
    """``tensor`` as something autograd can differentiate with respect to, still attached to
    the graph it belongs to (if any), so that the tangent can be differentiated too."""
    if tensor.requires_grad:
        return tensor.view_as(tensor)
    return forward_ad.scratch_leaf(tensor.detach().requires_grad_())


forward_ad.register_rules(RULES, fallback=transposed_backward)
