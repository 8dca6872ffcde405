"""Margin ranking, hinge and cosine embedding, soft margin, triplet margin, Poisson and
Gaussian NLL, multilabel soft margin and multi margin losses, compared with torch: values
and gradients (float32 and float64), node names and next_functions, second derivatives,
the reductions, errors, the modules and torch's top-level functions (reduction given as a
number)."""
import numpy as np
import pytest

try:
    from . import differential as D
except ImportError:
    import differential as D

torch = pytest.importorskip("torch")
run = D.run_both

REDUCTIONS = ["mean", "sum", "none"]
DTYPES = ["float32", "float64"]


def F(tg):
    return tg.nn.functional


def leaf(tg, shape=(3, 4), seed=1, dtype="float32", lo=-2.0, hi=2.0, away_from=None):
    return tg.tensor(D.data(shape, seed, lo, hi, away_from=away_from), requires_grad=True,
                     dtype=getattr(tg, dtype))


def labels(tg, shape=(3, 4), seed=5, dtype="float32"):
    """A target of 1 and -1."""
    signs = np.where(np.array(D.data(shape, seed)) > 0, 1.0, -1.0)
    return tg.tensor(signs.tolist(), dtype=getattr(tg, dtype))


def derivatives(tg, y, inputs, gradient_graphs=False, second=True):
    """y, its graph, the first derivatives and the second derivatives of a weighted sum of
    them, also with respect to the upstream gradient (``gradient_graphs``: the graph of each
    first derivative too, one level deep)."""
    upstream = tg.tensor(D.data(tuple(y.shape), 9), requires_grad=True, dtype=y.dtype)
    firsts = tg.autograd.grad(y, inputs, upstream, create_graph=True)
    if not second:
        return {"y": y, "graph": D.graph(y), "firsts": D.loose(list(firsts))}
    total = sum((g * tg.tensor(D.data(tuple(g.shape), 7 + i), dtype=y.dtype)).sum()
                for i, g in enumerate(firsts))
    seconds = tg.autograd.grad(total, (upstream, *inputs), allow_unused=True)
    report = {"y": y, "graph": D.graph(y), "firsts": D.loose(list(firsts)),
              "seconds": D.loose(list(seconds))}
    if gradient_graphs:
        report["first_graphs"] = [D.graph(g, 1) for g in firsts]
    return report


# ---- margin ranking, hinge and cosine embedding -------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("margin", [0, 0.5])
def test_margin_ranking_loss(margin, reduction, dtype):
    def prog(tg):
        x1, x2 = leaf(tg, dtype=dtype), leaf(tg, seed=2, dtype=dtype)
        y = F(tg).margin_ranking_loss(x1, x2, labels(tg, dtype=dtype), margin,
                                      reduction=reduction)
        return derivatives(tg, y, (x1, x2))
    run(prog)


def test_margin_ranking_loss_with_a_target_that_requires_grad():
    def prog(tg):
        x1, x2, t = leaf(tg), leaf(tg, seed=2), leaf(tg, seed=3)
        return derivatives(tg, F(tg).margin_ranking_loss(x1, x2, t, 0.2), (x1, x2, t))
    run(prog)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("margin", [1.0, 0.5])
def test_hinge_embedding_loss(margin, reduction, dtype):
    def prog(tg):
        x = leaf(tg, dtype=dtype, lo=0.0, hi=2.0, away_from=margin)
        y = F(tg).hinge_embedding_loss(x, labels(tg, dtype=dtype), margin, reduction=reduction)
        return derivatives(tg, y, (x,))
    run(prog)


def test_hinge_embedding_loss_keeps_an_integer_input_integer():
    """(the margin is filled into a tensor of the input's dtype, as C++'s margin - input)"""
    def prog(tg):
        return F(tg).hinge_embedding_loss(tg.tensor([1, 2, 0]), tg.tensor([1, -1, -1]), 2.5,
                                          reduction="none")
    run(prog)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("margin", [0, 0.3])
def test_cosine_embedding_loss(margin, reduction, dtype):
    def prog(tg):
        x1, x2 = leaf(tg, (4, 3), dtype=dtype), leaf(tg, (4, 3), seed=2, dtype=dtype)
        t = tg.tensor([1.0, -1.0, 1.0, -1.0], dtype=getattr(tg, dtype))
        y = F(tg).cosine_embedding_loss(x1, x2, t, margin, reduction=reduction)
        return derivatives(tg, y, (x1, x2))
    run(prog)


@pytest.mark.parametrize("target", [1.0, -1.0])
def test_cosine_embedding_loss_of_one_pair(target):
    def prog(tg):
        x1, x2 = leaf(tg, (5,)), leaf(tg, (5,), seed=2)
        y = F(tg).cosine_embedding_loss(x1, x2, tg.tensor(target), -0.5, reduction="none")
        return derivatives(tg, y, (x1, x2))
    run(prog)


# ---- soft margin ----------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_soft_margin_loss(reduction, dtype):
    def prog(tg):
        x = leaf(tg, dtype=dtype)
        y = F(tg).soft_margin_loss(x, labels(tg, dtype=dtype), reduction=reduction)
        report = derivatives(tg, y, (x,), gradient_graphs=True)
        (gx,) = tg.autograd.grad(y, x, tg.ones_like(y), create_graph=True)
        node = gx.grad_fn
        report["saved"] = {"self": y.grad_fn._saved_self, "target": y.grad_fn._saved_target,
                           "grad_output": node._saved_grad_output,
                           "gradient_target": node._saved_target}
        return report
    run(prog)


def test_soft_margin_loss_broadcasts_an_integer_target_into_the_input():
    def prog(tg):
        x = leaf(tg, dtype="float64")
        return derivatives(tg, F(tg).soft_margin_loss(x, tg.tensor([[1, -1, -1, 1]])), (x,))
    run(prog)


def test_soft_margin_loss_takes_a_target_that_requires_grad_under_no_grad():
    def prog(tg):
        with tg.no_grad():
            return F(tg).soft_margin_loss(leaf(tg), leaf(tg, seed=2))
    run(prog)


# ---- triplet margin -------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("p, swap", [(2, False), (1, False), (2, True), (3.0, True)])
def test_triplet_margin_loss(p, swap, reduction, dtype):
    """(torch's second derivative of the 1-norm is a zero tensor that numpy cannot read)"""
    def prog(tg):
        anchor, positive, negative = (leaf(tg, seed=seed, dtype=dtype) for seed in (1, 2, 3))
        y = F(tg).triplet_margin_loss(anchor, positive, negative, margin=1.5, p=p, swap=swap,
                                      reduction=reduction)
        return derivatives(tg, y, (anchor, positive, negative), second=p != 1)
    run(prog)


# ---- Poisson and Gaussian negative log-likelihood --------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("log_input", [True, False])
@pytest.mark.parametrize("full", [False, True])
def test_poisson_nll_loss(full, log_input, reduction, dtype):
    def prog(tg):
        x = leaf(tg, dtype=dtype, lo=-1.0 if log_input else 0.2, hi=2.0)
        t = leaf(tg, seed=2, dtype=dtype, lo=0.1, hi=4.0, away_from=1.0)
        y = F(tg).poisson_nll_loss(x, t, log_input, full, reduction=reduction)
        return derivatives(tg, y, (x, t))
    run(prog)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("full", [False, True])
@pytest.mark.parametrize("var_shape", [(3, 4), (3,), (3, 1), (1, 4)])
def test_gaussian_nll_loss(var_shape, full, reduction, dtype):
    def prog(tg):
        x, t = leaf(tg, dtype=dtype), leaf(tg, seed=2, dtype=dtype)
        var = leaf(tg, var_shape, seed=3, dtype=dtype, lo=0.0, hi=2.0)
        y = F(tg).gaussian_nll_loss(x, t, var, full, reduction=reduction)
        report = derivatives(tg, y, (x, t))
        report["var_grad"] = tg.autograd.grad(y.sum(), var)[0]
        return report
    run(prog)


def test_gaussian_nll_loss_with_a_float_variance_and_a_tiny_one():
    def prog(tg):
        x, t = leaf(tg), leaf(tg, seed=2)
        var = tg.tensor([[0.5], [1e-9], [0.0]], requires_grad=True)
        tiny = F(tg).gaussian_nll_loss(x, t, var, eps=1e-3)
        return {"float": derivatives(tg, F(tg).gaussian_nll_loss(x, t, 0.7), (x, t)),
                "tiny": tiny, "var_grad": tg.autograd.grad(tiny, var)[0]}
    run(prog)


# ---- multilabel soft margin -------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
def test_multilabel_soft_margin_loss(weighted, reduction, dtype):
    def prog(tg):
        x, t = leaf(tg, dtype=dtype), leaf(tg, seed=2, dtype=dtype, lo=0.0, hi=1.0)
        weight = leaf(tg, (4,), seed=3, dtype=dtype, lo=0.0) if weighted else None
        y = F(tg).multilabel_soft_margin_loss(x, t, weight, reduction=reduction)
        return derivatives(tg, y, (x, t))
    run(prog)


# ---- multi margin ---------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("p, margin, weighted", [(1, 1.0, False), (2, 0.5, False),
                                                 (1, 2, True), (2, 1.0, True)])
def test_multi_margin_loss(p, margin, weighted, reduction, dtype):
    def prog(tg):
        x = leaf(tg, (5, 4), dtype=dtype)
        weight = leaf(tg, (4,), seed=3, dtype=dtype, lo=0.0).detach() if weighted else None
        y = F(tg).multi_margin_loss(x, tg.tensor([0, 3, 1, 1, 2]), p, margin, weight,
                                    reduction=reduction)
        node = y.grad_fn
        return {"y": derivatives(tg, y, (x,), second=False), "p": node._saved_p,
                "margin": node._saved_margin, "target": node._saved_target,
                "weight": node._saved_weight, "self": node._saved_self}
    run(prog)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shapes", [((4,), ()), ((4,), (1,)), ((), ())])
def test_multi_margin_loss_of_one_sample(shapes, reduction):
    def prog(tg):
        x = leaf(tg, shapes[0])
        y = F(tg).multi_margin_loss(x, tg.zeros(shapes[1], dtype=tg.int64) + 0,
                                    reduction=reduction)
        return derivatives(tg, y, (x,), second=False)
    run(prog)


def _multi_margin_gradient(tg, upstream_requires_grad):
    x = leaf(tg, (3, 4))
    upstream = tg.tensor(1.0, requires_grad=upstream_requires_grad)
    y = F(tg).multi_margin_loss(x, tg.tensor([0, 3, 1]))
    return x, tg.autograd.grad(y, x, upstream, create_graph=True)[0]


def test_multi_margin_loss_gradient_is_a_not_implemented_node():
    """(linked to grad_output and self where they require grad, as PyTorch's)"""
    def prog(tg):
        return [D.graph(_multi_margin_gradient(tg, flag)[1]) for flag in (True, False)]
    run(prog)


def test_multi_margin_loss_has_no_second_derivative():
    def prog(tg):
        x, g = _multi_margin_gradient(tg, False)
        return tg.autograd.grad(g.sum(), x)
    run(prog, raises="RuntimeError")


# ---- errors ---------------------------------------------------------------------------------
def _margin_ranking(tg, target_shape=(3, 4), reduction="mean"):
    return F(tg).margin_ranking_loss(leaf(tg), leaf(tg), labels(tg, target_shape),
                                     reduction=reduction)


def _cosine(tg, shape, target_shape):
    return F(tg).cosine_embedding_loss(leaf(tg, shape), leaf(tg, shape),
                                       labels(tg, target_shape))


def _triplet(tg, negative_shape=(3, 4), margin=1.0, reduction="mean"):
    return F(tg).triplet_margin_loss(leaf(tg), leaf(tg), leaf(tg, negative_shape), margin,
                                     reduction=reduction)


def _gaussian(tg, var, reduction="mean"):
    return F(tg).gaussian_nll_loss(leaf(tg), leaf(tg), var, reduction=reduction)


def _multi_margin(tg, shape=(3, 4), target=(0, 3, 1), **options):
    return F(tg).multi_margin_loss(leaf(tg, shape), tg.tensor(list(target)), **options)


ERRORS = {
    "margin ranking dimensions": (lambda tg: _margin_ranking(tg, (4,)), "RuntimeError"),
    "margin ranking reduction": (lambda tg: _margin_ranking(tg, (4,), "avg"), "ValueError"),
    "hinge reduction": (lambda tg: F(tg).hinge_embedding_loss(leaf(tg), labels(tg),
                                                               reduction="avg"), "ValueError"),
    "hinge integers": (lambda tg: F(tg).hinge_embedding_loss(
        tg.tensor([1, 2, 0]), tg.tensor([1, -1, -1]), margin=1.5), "RuntimeError"),
    "cosine 2-d target": (lambda tg: _cosine(tg, (3, 4), (3, 1)), "RuntimeError"),
    "cosine 0-d target": (lambda tg: _cosine(tg, (3, 4), ()), "RuntimeError"),
    "cosine 1-d target": (lambda tg: _cosine(tg, (4,), (4,)), "RuntimeError"),
    "cosine reduction": (lambda tg: F(tg).cosine_embedding_loss(
        leaf(tg), leaf(tg), labels(tg, (3,)), reduction="avg"), "ValueError"),
    "soft margin target requires grad": (
        lambda tg: F(tg).soft_margin_loss(leaf(tg), leaf(tg)), "RuntimeError"),
    "soft margin larger target": (
        lambda tg: F(tg).soft_margin_loss(leaf(tg, (4,)), labels(tg)), "RuntimeError"),
    "soft margin target shape": (
        lambda tg: F(tg).soft_margin_loss(leaf(tg), labels(tg, (2, 4))), "RuntimeError"),
    "soft margin reduction": (
        lambda tg: F(tg).soft_margin_loss(leaf(tg), labels(tg), reduction="avg"), "ValueError"),
    "triplet margin": (lambda tg: _triplet(tg, margin=0), "ValueError"),
    "triplet reduction first": (lambda tg: _triplet(tg, margin=0, reduction="avg"),
                                "ValueError"),
    "triplet dimensions": (lambda tg: _triplet(tg, (4,)), "RuntimeError"),
    "poisson reduction": (lambda tg: F(tg).poisson_nll_loss(leaf(tg), leaf(tg),
                                                             reduction="avg"), "ValueError"),
    "gaussian negative var": (lambda tg: _gaussian(tg, leaf(tg) - 3), "ValueError"),
    "gaussian negative float var": (lambda tg: _gaussian(tg, -1.0), "ValueError"),
    "gaussian var size": (lambda tg: _gaussian(tg, leaf(tg, (4,), lo=0.0)), "ValueError"),
    "gaussian var size, two dimensions": (lambda tg: _gaussian(tg, leaf(tg, (1, 1), lo=0.0)),
                                          "ValueError"),
    "gaussian reduction": (lambda tg: _gaussian(tg, 1.0, "avg"), "ValueError"),
    "multilabel reduction": (lambda tg: F(tg).multilabel_soft_margin_loss(
        leaf(tg), leaf(tg), reduction="avg"), "ValueError"),
    "multi margin reduction": (lambda tg: _multi_margin(tg, reduction="avg"), "ValueError"),
    "multi margin p": (lambda tg: _multi_margin(tg, p=3), "ValueError"),
    "multi margin weight dimensions": (
        lambda tg: _multi_margin(tg, weight=tg.ones(2, 2)), "ValueError"),
    "multi margin weight requires grad": (
        lambda tg: _multi_margin(tg, weight=leaf(tg, (4,))), "RuntimeError"),
    "multi margin weight size": (lambda tg: _multi_margin(tg, weight=tg.ones(3)),
                                 "RuntimeError"),
    "multi margin weight dtype": (
        lambda tg: _multi_margin(tg, weight=tg.ones(4, dtype=tg.float64)), "RuntimeError"),
    "multi margin 3-d input": (lambda tg: _multi_margin(tg, (1, 3, 4)), "RuntimeError"),
    "multi margin target size": (lambda tg: _multi_margin(tg, target=[0, 1]), "RuntimeError"),
    "multi margin 2-d target": (lambda tg: _multi_margin(tg, target=[[0], [1], [2]]),
                                "RuntimeError"),
    "multi margin target out of range": (lambda tg: _multi_margin(tg, target=[0, 4, 1]),
                                         "RuntimeError"),
    "multi margin negative target": (lambda tg: _multi_margin(tg, target=[0, -1, 1]),
                                     "RuntimeError"),
    "multi margin float target": (lambda tg: _multi_margin(tg, target=[0.0, 1.0, 2.0]),
                                  "RuntimeError"),
    "multi margin integer input": (lambda tg: F(tg).multi_margin_loss(
        tg.ones(3, 4, dtype=tg.int64), tg.tensor([0, 1, 2])), "NotImplementedError"),
    "multi margin module p": (lambda tg: tg.nn.MultiMarginLoss(p=3), "ValueError"),
    "multi margin module weight": (lambda tg: tg.nn.MultiMarginLoss(weight=tg.ones(2, 2)),
                                   "ValueError"),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors(case):
    prog, error = ERRORS[case]
    run(prog, raises=error)


# ---- modules and torch's top-level functions ----------------------------------------------
def test_the_loss_modules():
    def prog(tg):
        nn = tg.nn
        x, x2, x3, t = leaf(tg), leaf(tg, seed=2), leaf(tg, seed=3), labels(tg)
        positive = leaf(tg, seed=4, lo=0.1)
        losses = {
            "margin": (nn.MarginRankingLoss(0.5, reduction="sum"), (x, x2, t)),
            "hinge": (nn.HingeEmbeddingLoss(0.7), (x, t)),
            "cosine": (nn.CosineEmbeddingLoss(reduction="none"), (x, x2, labels(tg, (3,)))),
            "soft": (nn.SoftMarginLoss(), (x, t)),
            "triplet": (nn.TripletMarginLoss(2, p=1, swap=True), (x, x2, x3)),
            "gaussian": (nn.GaussianNLLLoss(full=True, eps=0.1), (x, x2, positive)),
            "poisson": (nn.PoissonNLLLoss(log_input=False, full=True), (positive, positive)),
            "multilabel": (nn.MultiLabelSoftMarginLoss(reduction="sum"), (x, positive)),
            "weighted": (nn.MultiLabelSoftMarginLoss(leaf(tg, (4,), lo=0.0)), (x, positive)),
            "multi margin": (nn.MultiMarginLoss(2, 0.5, leaf(tg, (4,), lo=0.0).detach(),
                                                reduction="sum"), (x, tg.tensor([0, 3, 1]))),
            "multi margin default": (nn.MultiMarginLoss(), (x, tg.tensor([0, 3, 1]))),
        }
        report = {}
        for name, (module, inputs) in losses.items():
            options = {key: value for key, value in vars(module).items()
                       if not key.startswith("_") and key != "training"}
            report[name] = {"repr": repr(module), "options": options,
                            "state": sorted(module.state_dict()), "loss": module(*inputs)}
        return report
    run(prog)


def test_torch_top_level_functions_take_the_reduction_as_a_number():
    def prog(tg):
        x1, x2, x3, t = leaf(tg), leaf(tg, seed=2), leaf(tg, seed=3), labels(tg)
        report = {"margin default": tg.margin_ranking_loss(x1, x2, t),
                  "hinge default": tg.hinge_embedding_loss(x1, t),
                  "cosine default": tg.cosine_embedding_loss(x1, x2, labels(tg, (3,))),
                  "triplet default": tg.triplet_margin_loss(x1, x2, x3),
                  "triplet margin 0": tg.triplet_margin_loss(x1, x2, x3, 0.0),
                  "poisson": tg.poisson_nll_loss(x1, x2, True, True, 1e-8, 0)}
        for number in (0, 1, 2):
            report[number] = [tg.margin_ranking_loss(x1, x2, t, 0.3, number),
                              tg.hinge_embedding_loss(x1, t, 0.5, number),
                              tg.triplet_margin_loss(x1, x2, x3, 1.0, 2, 1e-6, True, number),
                              tg.poisson_nll_loss(x1, x2, False, False, 1e-8, number)]
        return report
    run(prog)


def test_torch_top_level_functions_refuse_a_reduction_name():
    run(lambda tg: tg.margin_ranking_loss(leaf(tg), leaf(tg), labels(tg), reduction="sum"),
        raises="TypeError")
