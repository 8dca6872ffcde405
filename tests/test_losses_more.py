"""Smooth L1, Huber and KL divergence losses, normalize, cosine similarity and pairwise
distance, compared with torch: values and gradients (float32 and float64), node names and
next_functions, the gradient's own node and the second derivative, saved fields,
reductions, broadcasting warnings and errors."""
import pytest

try:
    from . import differential as D
except ImportError:
    import differential as D

torch = pytest.importorskip("torch")
run = D.run_both

REDUCTIONS = ["mean", "sum", "none"]
BROADCAST = ("UserWarning", "Using a target size")
KL_MEAN = ("UserWarning", "reduction: 'mean' divides the total loss")


def F(tg):
    return tg.nn.functional


def leaf(tg, shape=(3, 4), seed=1, dtype="float32", lo=-2.0, hi=2.0):
    return tg.tensor(D.data(shape, seed, lo, hi), requires_grad=True, dtype=getattr(tg, dtype))


def longs(tg, shape=(3, 4), seed=1):
    return tg.tensor(D.int_data(shape, seed), dtype=tg.int64)


def derivatives(tg, y, inputs, gradient_graphs=False):
    """y, its graph, the first derivatives and the second derivatives of a weighted sum of
    them, also with respect to the upstream gradient. ``gradient_graphs``: the graph of each
    first derivative too, one level deep (for losses that are one node: the graphs of the
    gradients of composed ones depend on how teachgrad writes each op's formula)."""
    upstream = tg.tensor(D.data(tuple(y.shape), 9), requires_grad=True, dtype=y.dtype)
    firsts = tg.autograd.grad(y, inputs, upstream, create_graph=True)
    weights = tg.tensor(D.data(tuple(inputs[0].shape), 7), dtype=y.dtype)
    total = sum((g * weights * (i + 1)).sum() for i, g in enumerate(firsts))
    seconds = tg.autograd.grad(total, (upstream, *inputs), allow_unused=True)
    report = {"y": y, "graph": D.graph(y), "firsts": D.loose(list(firsts)),
              "seconds": D.loose(list(seconds))}
    if gradient_graphs:
        report["first_graphs"] = [D.graph(g, 1) for g in firsts]
    return report


# ---- smooth L1 and Huber ---------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("width", [0.5, 1.0, 2.5])
@pytest.mark.parametrize("loss", ["smooth_l1_loss", "huber_loss"])
def test_smooth_l1_and_huber_match_torch(loss, width, reduction, dtype):
    def prog(tg):
        x, t = leaf(tg, dtype=dtype), leaf(tg, seed=2, dtype=dtype)
        option = {"beta" if loss == "smooth_l1_loss" else "delta": width}
        y = getattr(F(tg), loss)(x, t, reduction=reduction, **option)
        return derivatives(tg, y, (x, t), gradient_graphs=True)
    run(prog)


@pytest.mark.parametrize("loss", ["smooth_l1_loss", "huber_loss"])
def test_smooth_l1_and_huber_save_their_inputs_and_width(loss):
    def prog(tg):
        x, t = leaf(tg), leaf(tg, seed=2)
        name = "beta" if loss == "smooth_l1_loss" else "delta"
        y = getattr(F(tg), loss)(x, t, reduction="sum", **{name: 0.3})
        node = y.grad_fn
        (gx,) = tg.autograd.grad(y, x, create_graph=True)
        return {"width": getattr(node, f"_saved_{name}"), "self": node._saved_self,
                "target": node._saved_target,
                "gradient_width": getattr(gx.grad_fn, f"_saved_{name}"),
                "grad_output": gx.grad_fn._saved_grad_output}
    run(prog)


@pytest.mark.parametrize("loss", ["smooth_l1_loss", "huber_loss"])
def test_the_target_gradient_swaps_input_and_target(loss):
    def prog(tg):
        x, t = leaf(tg) * 1, leaf(tg, seed=2)          # x behind a node, t a leaf
        y = getattr(F(tg), loss)(x, t, reduction="sum")
        gx, gt = tg.autograd.grad(y, (x, t), create_graph=True)
        return {"gx": D.graph(gx), "gt": D.graph(gt),
                "gt_self_is_t": gt.grad_fn._saved_self.equal(t)}
    run(prog)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_smooth_l1_with_beta_zero_is_l1_loss(reduction):
    """(torch's second derivative of abs is a zero tensor that numpy cannot read)"""
    def prog(tg):
        x, t = leaf(tg), leaf(tg, seed=2)
        y = F(tg).smooth_l1_loss(x, t, beta=0.0, reduction=reduction)
        y.backward(tg.tensor(D.data(tuple(y.shape), 9)))
        return {"y": y, "graph": D.graph(y), "x": x.grad, "t": t.grad}
    run(prog)


@pytest.mark.parametrize("loss", ["smooth_l1_loss", "huber_loss"])
def test_a_broadcast_target_warns_and_is_expanded(loss):
    def prog(tg):
        x, t = leaf(tg), leaf(tg, (4,), seed=2)
        y = getattr(F(tg), loss)(x, t)
        return derivatives(tg, y, (x, t), gradient_graphs=True)
    run(prog, warn=BROADCAST, warn_count=1)


@pytest.mark.parametrize("reduction", ["mean", "none"])
@pytest.mark.parametrize("loss", ["l1_loss", "mse_loss"])
def test_l1_and_mse_expand_a_broadcast_target_too(loss, reduction):
    """(as in PyTorch's Python code: broadcast_tensors first, so the graph has ExpandBackward0)"""
    def prog(tg):
        x, t = leaf(tg), leaf(tg, (4,), seed=2)
        y = getattr(F(tg), loss)(x, t, reduction=reduction)
        y.sum().backward()
        return {"y": y, "graph": D.graph(y), "x": x.grad, "t": t.grad}
    run(prog, warn=BROADCAST, warn_count=1)


def test_huber_weight():
    def prog(tg):
        x, t, w = leaf(tg), leaf(tg, seed=2), leaf(tg, seed=3)
        return [derivatives(tg, F(tg).huber_loss(x, t, r, 0.7, weight=w), (x, t, w))
                for r in REDUCTIONS]
    run(prog)


def test_the_loss_modules():
    def prog(tg):
        x, t = leaf(tg), leaf(tg, seed=2)
        smooth, huber = tg.nn.SmoothL1Loss(reduction="sum", beta=0.5), tg.nn.HuberLoss("none", 0.5)
        return {"smooth": smooth(x, t), "huber": huber(x, t), "beta": smooth.beta,
                "delta": huber.delta, "repr": repr(huber)}
    run(prog)


ERRORS = {
    "negative beta": (lambda tg: F(tg).smooth_l1_loss(leaf(tg), leaf(tg), beta=-1.0),
                      "RuntimeError"),
    "zero delta": (lambda tg: F(tg).huber_loss(leaf(tg), leaf(tg), delta=0.0), "RuntimeError"),
    "smooth reduction": (lambda tg: F(tg).smooth_l1_loss(leaf(tg), leaf(tg), reduction="avg"),
                         "ValueError"),
    "huber reduction": (lambda tg: F(tg).huber_loss(leaf(tg), leaf(tg), reduction="avg"),
                        "ValueError"),
    "huber weighted reduction": (lambda tg: F(tg).huber_loss(leaf(tg), leaf(tg), "avg",
                                                             weight=leaf(tg)), "ValueError"),
    "huber weight shape": (lambda tg: F(tg).huber_loss(leaf(tg), leaf(tg),
                                                       weight=leaf(tg, (4,))), "ValueError"),
    "smooth integers": (lambda tg: F(tg).smooth_l1_loss(longs(tg), longs(tg, seed=2)),
                        "NotImplementedError"),
    "huber integers": (lambda tg: F(tg).huber_loss(longs(tg), longs(tg, seed=2)),
                       "NotImplementedError"),
    "kl reduction": (lambda tg: F(tg).kl_div(leaf(tg), leaf(tg), reduction="avg"), "ValueError"),
    "kl integers": (lambda tg: F(tg).kl_div(leaf(tg), longs(tg), reduction="sum"), "RuntimeError"),
    "cosine integers": (lambda tg: F(tg).cosine_similarity(longs(tg), longs(tg)), "RuntimeError"),
    "cosine shapes": (lambda tg: F(tg).cosine_similarity(leaf(tg), leaf(tg, (5,))), "RuntimeError"),
    "cosine dim": (lambda tg: F(tg).cosine_similarity(leaf(tg), leaf(tg), dim=2), "IndexError"),
    "normalize dim": (lambda tg: F(tg).normalize(leaf(tg), dim=2), "IndexError"),
    "normalize integers": (lambda tg: F(tg).normalize(longs(tg)), "RuntimeError"),
    "distance shapes": (lambda tg: F(tg).pairwise_distance(leaf(tg), leaf(tg, (5,))),
                        "RuntimeError"),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors(case):
    prog, error = ERRORS[case]
    run(prog, raises=error)


def test_incompatible_target_warns_then_fails():
    run(lambda tg: F(tg).smooth_l1_loss(leaf(tg), leaf(tg, (5,))), raises="RuntimeError",
        warn=BROADCAST, warn_count=1)


# ---- KL divergence ---------------------------------------------------------------------
@pytest.mark.parametrize("target_shape", [(3, 4), (4,)])
@pytest.mark.parametrize("log_target", [False, True])
@pytest.mark.parametrize("reduction", REDUCTIONS + ["batchmean"])
def test_kl_div_matches_torch(reduction, log_target, target_shape):
    def prog(tg):
        x = leaf(tg)
        t = leaf(tg, target_shape, seed=2, lo=-3.0, hi=0.0 if log_target else 1.0)
        log_p = x.log_softmax(1)
        y = F(tg).kl_div(log_p, t if log_target else t.relu(),     # (relu: zeros in the target)
                         reduction=reduction, log_target=log_target)
        return derivatives(tg, y, (x, t))
    warn = KL_MEAN if reduction == "mean" else None
    run(prog, warn=warn, warn_count=1 if warn else None)


def test_kl_div_in_float64_and_as_a_module():
    def prog(tg):
        x, t = leaf(tg, dtype="float64"), leaf(tg, seed=2, dtype="float64", lo=0.0)
        loss = tg.nn.KLDivLoss(reduction="batchmean")
        return {"y": derivatives(tg, loss(x.log_softmax(1), t), (x, t)),
                "log_target": loss.log_target, "of_a_number": F(tg).kl_div(
                    leaf(tg, ()), leaf(tg, (), seed=2, lo=0.0), reduction="batchmean")}
    run(prog)


def test_kl_div_module_warns_for_mean():
    run(lambda tg: tg.nn.KLDivLoss()(leaf(tg), leaf(tg, seed=2)), warn=KL_MEAN, warn_count=1)


# ---- normalize, cosine similarity, pairwise distance -----------------------------------
def _similarity(call, shapes, dtype="float32"):
    def prog(tg):
        a, b = leaf(tg, shapes[0], dtype=dtype), leaf(tg, shapes[1], seed=2, dtype=dtype)
        return derivatives(tg, call(tg, a, b), (a, b))
    return prog


SIMILARITIES = {
    "normalize": (lambda tg, a, b: F(tg).normalize(a * b), [(3, 4), (3, 4)]),
    "normalize p=1 dim=0": (lambda tg, a, b: F(tg).normalize(a * b, p=1, dim=0), [(3, 4), (3, 4)]),
    "normalize dim=-1": (lambda tg, a, b: F(tg).normalize(a * b, dim=-1), [(3, 4), (3, 4)]),
    "normalize vector": (lambda tg, a, b: F(tg).normalize(a * b, dim=0), [(4,), (4,)]),
    "cosine": (lambda tg, a, b: F(tg).cosine_similarity(a, b), [(3, 4), (3, 4)]),
    "cosine dim=0": (lambda tg, a, b: F(tg).cosine_similarity(a, b, dim=0), [(3, 4), (3, 4)]),
    "cosine broadcast": (lambda tg, a, b: F(tg).cosine_similarity(a, b), [(3, 4), (1, 4)]),
    "cosine batches": (lambda tg, a, b: F(tg).cosine_similarity(a, b, dim=-1), [(2, 3, 4), (3, 4)]),
    "torch.cosine_similarity": (lambda tg, a, b: tg.cosine_similarity(a, b, dim=0), [(4,), (4,)]),
    "CosineSimilarity": (lambda tg, a, b: tg.nn.CosineSimilarity(0, 1e-3)(a, b), [(3, 4), (3, 4)]),
    "distance": (lambda tg, a, b: F(tg).pairwise_distance(a, b), [(3, 4), (3, 4)]),
    "distance p=3 keepdim": (lambda tg, a, b: F(tg).pairwise_distance(a, b, p=3, keepdim=True),
                             [(4,), (3, 4)]),
    "distance p=0.5": (lambda tg, a, b: F(tg).pairwise_distance(a, b, p=0.5), [(3, 4), (3, 4)]),
    "torch.pairwise_distance": (lambda tg, a, b: tg.pairwise_distance(a, b), [(4,), (4,)]),
    "PairwiseDistance": (lambda tg, a, b: tg.nn.PairwiseDistance(1.5, keepdim=True)(a, b),
                         [(3, 4), (3, 4)]),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", sorted(SIMILARITIES))
def test_similarities_match_torch(case, dtype):
    call, shapes = SIMILARITIES[case]
    run(_similarity(call, shapes, dtype))


@pytest.mark.parametrize("p", [1.0, float("inf")])
def test_distance_with_piecewise_norms(p):
    """(torch's second derivative here is a zero tensor that numpy cannot read: not compared)"""
    def prog(tg):
        a, b = leaf(tg), leaf(tg, (4,), seed=2)
        y = F(tg).pairwise_distance(a, b, p=p)
        y.backward(tg.tensor(D.data((3,), 9)))
        return {"y": y, "graph": D.graph(y), "a": a.grad, "b": b.grad}
    run(prog)


def test_similarity_records_and_saved_fields():
    def prog(tg):
        a, b = leaf(tg), leaf(tg, seed=2)
        distance = F(tg).pairwise_distance(a, b, p=3, keepdim=True).grad_fn
        module = tg.nn.PairwiseDistance()
        return {"p": distance._saved_p, "dim": distance._saved_dim,
                "keepdim": distance._saved_keepdim,
                "result": distance._saved_result, "norm": module.norm, "eps": module.eps,
                "cosine_eps": tg.nn.CosineSimilarity().eps,
                "zero_vector": F(tg).cosine_similarity(tg.zeros(3, 4, requires_grad=True), b),
                "zero_normalized": F(tg).normalize(tg.zeros(3, requires_grad=True), dim=0),
                "integers": F(tg).pairwise_distance(longs(tg), longs(tg, seed=3)),
                "integer_and_float": F(tg).cosine_similarity(longs(tg), b),
                "numbers": F(tg).pairwise_distance(leaf(tg, ()), leaf(tg, (), seed=2))}
    run(prog)
