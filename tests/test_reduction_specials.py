"""Reductions at special values, compared with torch: max / min over all elements with NaN
and ties; an inf or NaN incoming gradient through max / min / trace (0 where torch selects,
NaN where torch multiplies by a mask, as amax does); prod and cumprod through 0 and inf;
var / std near the largest float32; max / min / amax / amin / argmax over an empty dim;
softmax and log_softmax of rows with inf. None of them may let a numpy RuntimeWarning
through. And the dims that reduction and unsqueeze nodes save, shown as torch shows them
(a negative d as 2**64 + d)."""
import math

import pytest

try:
    from . import differential as D
except ImportError:
    import differential as D

torch = pytest.importorskip("torch")

INF, NAN = math.inf, math.nan


def run_quietly(prog, **kw):
    """Same results as torch, and no numpy RuntimeWarning from teachgrad."""
    t_out, g_out = D.run_both(prog, **kw)
    numpy_warnings = [w for w in g_out.warns if w[0] == "RuntimeWarning"]
    assert not numpy_warnings, f"teachgrad warned {numpy_warnings}"


def gradient(tg, reduce, values, grad_value=1.0):
    """The value of ``reduce(x)`` and x's gradient for an incoming gradient ``grad_value``
    (values only: the gradient's version depends on the in-place steps of torch's C++)."""
    x = tg.tensor(values, requires_grad=True)
    out = reduce(x)
    out = out[0] if isinstance(out, tuple) else out
    (grad,) = tg.autograd.grad(out, x, tg.full(out.shape, grad_value))
    return {"out": out.detach(), "grad": D.loose(grad)}


# ---- 1. max() / min() of all elements: the winners (or the NaNs) share the gradient ----
WHOLE = {"max": lambda x: x.max(), "min": lambda x: x.min()}
WITH_NAN_AND_TIES = {
    "one_nan": [1.0, NAN, 3.0], "two_nans": [NAN, NAN, 1.0], "ties": [3.0, 3.0, 1.0],
    "nan_and_ties": [NAN, 3.0, 3.0], "inf_ties": [[INF, 2.0], [INF, -INF]],
    "all_nan": [NAN, NAN],
}


@pytest.mark.parametrize("values", sorted(WITH_NAN_AND_TIES))
@pytest.mark.parametrize("op", sorted(WHOLE))
def test_max_and_min_of_all_elements_share_the_gradient(op, values):
    run_quietly(lambda tg: gradient(tg, WHOLE[op], WITH_NAN_AND_TIES[values]))


# ---- 2. an inf or NaN incoming gradient --------------------------------------------
SELECTING = {
    "max()": lambda x: x.max(), "min()": lambda x: x.min(),
    "max(1)": lambda x: x.max(1), "min(0)": lambda x: x.min(0),
    "max(-1, keepdim)": lambda x: x.max(-1, keepdim=True),
    "amax(1)": lambda x: x.amax(1), "amin()": lambda x: x.amin(),
    "amax((0, 1))": lambda x: x.amax((0, 1)),
    "trace": lambda x: x.trace(), "median()": lambda x: x.median(),
}


@pytest.mark.parametrize("grad_value", [INF, -INF, NAN])
@pytest.mark.parametrize("op", sorted(SELECTING))
def test_an_infinite_or_nan_gradient(op, grad_value):
    values = [[1.0, 3.0, 2.0], [5.0, 4.0, 5.0]]
    run_quietly(lambda tg: gradient(tg, SELECTING[op], values, grad_value))


def test_max_along_a_dim_with_nan_and_ties_saves_its_indices():
    def prog(tg):
        x = tg.tensor([[1.0, 3.0, 3.0], [NAN, 2.0, NAN]], requires_grad=True)
        values, indices = x.max(1)
        node = values.grad_fn
        saved = D.loose(node._saved_indices)
        values.sum().backward()
        return {"values": values, "indices": indices, "saved": saved,
                "sizes": node._saved_self_sym_sizes, "grad": D.loose(x.grad)}
    run_quietly(prog)


def test_max_of_a_number_along_its_dim():
    def prog(tg):
        x = tg.tensor(2.0, requires_grad=True)
        values, indices = x.max(-1)
        node = values.grad_fn
        saved = D.loose(node._saved_indices)
        values.backward()
        return {"values": values, "indices": indices, "dim": node._saved_dim,
                "sizes": node._saved_self_sym_sizes, "saved": saved, "grad": D.loose(x.grad)}
    run_quietly(prog)


def test_trace_twice_differentiated():
    def prog(tg):
        m = tg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        (g,) = tg.autograd.grad(m.trace() * m.trace(), m, create_graph=True)
        (h,) = tg.autograd.grad(g.sum(), m)
        return {"g": g.detach(), "h": h}
    run_quietly(prog)


# ---- 3. prod and cumprod through 0 and inf -------------------------------------------
FACTORS = {
    "one_zero": [2.0, 0.0, 3.0], "two_zeros": [0.0, 2.0, 0.0], "all_zeros": [0.0, 0.0, 0.0],
    "inf_and_zero": [INF, 0.0, 2.0], "two_infs_and_zero": [INF, INF, 0.0],
    "zeros_and_inf": [0.0, 0.0, INF], "nan_and_zero": [NAN, 0.0, 2.0], "inf": [INF, 2.0, 3.0],
    "opposite_infs": [INF, -INF], "lone_zero": [0.0],
    "rows": [[2.0, 0.0, 3.0, 0.0, 5.0], [1.0, 2.0, 3.0, 4.0, 5.0]],
    "rows_with_inf": [[INF, 0.0, 3.0, 0.5, 0.0], [0.0, INF, 2.0, 0.0, 1.0]],
}
PRODUCTS = {
    "prod()": lambda x: x.prod(), "prod(-1)": lambda x: x.prod(-1),
    "prod(-1, keepdim)": lambda x: x.prod(-1, keepdim=True), "cumprod(-1)": lambda x: x.cumprod(-1),
}


@pytest.mark.parametrize("values", sorted(FACTORS))
@pytest.mark.parametrize("op", sorted(PRODUCTS))
def test_products_through_zero_and_inf(op, values):
    run_quietly(lambda tg: gradient(tg, PRODUCTS[op], FACTORS[values], 1.0))


def test_cumprod_gradient_with_zeros_is_weighted_by_the_incoming_gradient():
    def prog(tg):
        x = tg.tensor([[2.0, 0.0, 3.0, 0.0, 5.0], [0.5, 4.0, 0.0, 2.0, -1.0]],
                      requires_grad=True)
        (grad,) = tg.autograd.grad(x.cumprod(1), x, tg.tensor([[1.0, 2.0, -3.0, 4.0, 0.5]] * 2))
        return grad
    run_quietly(prog)


@pytest.mark.parametrize("values", ["one_zero", "two_zeros", "rows"])
@pytest.mark.parametrize("op", ["prod()", "prod(-1)"])
def test_prod_through_a_zero_differentiates_twice(op, values):
    def prog(tg):
        x = tg.tensor(FACTORS[values], requires_grad=True)
        (g,) = tg.autograd.grad(PRODUCTS[op](x).sum(), x, create_graph=True)
        (h,) = tg.autograd.grad(g.sum(), x)
        return {"g": g.detach(), "h": h}
    run_quietly(prog)


def test_prod_of_a_zero_number():
    run_quietly(lambda tg: [gradient(tg, lambda x: x.prod(), 0.0),
                            gradient(tg, lambda x: x.prod(0), 0.0),
                            gradient(tg, lambda x: x.cumprod(0), 0.0)])


# ---- 4. var and std near the largest float32 --------------------------------------------
LARGE = {
    "opposite_large": [3e38, -3e38, 1e38], "equal_large": [3e38, 3e38],
    "1e20": [1e20, -1e20], "tiny": [1e-30, -1e-30], "with_inf": [INF, 1.0],
    "rows": [[3e38, 3e38], [1.0, 2.0], [3e38, -3e38]], "tiny_rows": [[1e-30, -1e-30], [1e-22, 0.0]],
    "one_row": [[3e38, 3e38, 0.0]], "constant": [[1.0, 1.0], [2.0, 2.0]],
}
SPREADS = {
    "var()": lambda x: x.var(), "std()": lambda x: x.std(), "var(-1)": lambda x: x.var(-1),
    "std(-1)": lambda x: x.std(-1), "std(-1, keepdim)": lambda x: x.std(-1, keepdim=True),
    "std(correction=0)": lambda x: x.std(correction=0), "var(0)": lambda x: x.var(0),
}


@pytest.mark.parametrize("values", sorted(LARGE))
@pytest.mark.parametrize("op", sorted(SPREADS))
def test_var_and_std_of_extreme_values(op, values):
    run_quietly(lambda tg: gradient(tg, SPREADS[op], LARGE[values]))


@pytest.mark.parametrize("dtype", ["float16", "float64"])
def test_std_in_other_dtypes(dtype):
    def prog(tg):
        half = tg.tensor([[3e4, -3e4, 1e4], [1.0, 2.0, 3.0]], dtype=getattr(tg, dtype))
        return [half.std(), half.std(1), half.var(1), half.var()]
    run_quietly(prog)


@pytest.mark.parametrize("call", ["x.var()", "x.std()", "x.var(correction=3)",
                                  "tg.zeros(2, 0).var(1)", "tg.zeros(0).std()"])
def test_no_degrees_of_freedom_warns_as_torch(call):
    def prog(tg):
        x = tg.tensor([1.0, 2.0]) if "correction" in call else tg.tensor([1.0])
        return eval(call)
    name = "std" if "std" in call else "var"
    run_quietly(prog, warn=("UserWarning", f"{name}(): degrees of freedom is <= 0"))


# ---- 5. max / min over no element ------------------------------------------------------
EMPTY = {
    "amax(1)": ("IndexError", lambda z: z.amax(1)),
    "amax(-1)": ("IndexError", lambda z: z.amax(-1)),
    "amin((0, 1))": ("IndexError", lambda z: z.amin((0, 1))),
    "amax((-1, 0))": ("IndexError", lambda z: z.amax((-1, 0))),
    "amax()": ("RuntimeError", lambda z: z.amax()),
    "amin(dim=[])": ("RuntimeError", lambda z: z.amin(dim=[])),
    "max(1)": ("IndexError", lambda z: z.max(1)), "min(-1)": ("IndexError", lambda z: z.min(-1)),
    "max(1, keepdim)": ("IndexError", lambda z: z.max(1, keepdim=True)),
    "max()": ("RuntimeError", lambda z: z.max()), "min()": ("RuntimeError", lambda z: z.min()),
    "argmax(1)": ("IndexError", lambda z: z.argmax(1)),
    "argmin()": ("IndexError", lambda z: z.argmin()),
}


@pytest.mark.parametrize("shape", [(3, 0), (0, 0)])
@pytest.mark.parametrize("op", sorted(EMPTY))
def test_reductions_over_no_element(op, shape):
    error, reduce = EMPTY[op]
    run_quietly(lambda tg: reduce(tg.zeros(*shape, requires_grad=True)), raises=error)


@pytest.mark.parametrize("op", ["amax(0)", "min(0)", "max(0, keepdim)"])
def test_reducing_a_dim_that_is_not_empty_of_an_empty_tensor(op):
    reduce = {"amax(0)": lambda z: z.amax(0), "min(0)": lambda z: z.min(0)[0],
              "max(0, keepdim)": lambda z: z.max(0, keepdim=True)[0]}[op]
    run_quietly(lambda tg: reduce(tg.zeros(3, 0)))


def test_amax_of_all_dims_named_as_an_empty_list():
    run_quietly(lambda tg: gradient(tg, lambda x: x.amax(dim=[]), [[1.0, 3.0], [3.0, 2.0]]))


@pytest.mark.parametrize("op", ["sum", "mean", "amax", "logsumexp", "var"])
def test_a_dim_named_twice(op):
    run_quietly(lambda tg: getattr(tg.ones(2, 3), op)((1, -1)), raises="RuntimeError")


# ---- 6. the dims nodes save, as torch shows them ---------------------------------------
DIMS = {
    "sum(-1)": lambda x: x.sum(-1), "sum((-1, 0))": lambda x: x.sum((-1, 0)),
    "sum([0, -2])": lambda x: x.sum([0, -2]), "sum(1, keepdim)": lambda x: x.sum(1, keepdim=True),
    "mean(-1)": lambda x: x.mean(-1), "mean((-1, 0))": lambda x: x.mean((-1, 0)),
    "amax(-1)": lambda x: x.amax(-1), "amin((-1, 0))": lambda x: x.amin((-1, 0)),
    "amax()": lambda x: x.amax(), "amin([-2])": lambda x: x.amin([-2]),
    "max(-1)": lambda x: x.max(-1)[0], "min(-2, keepdim)": lambda x: x.min(-2, keepdim=True)[0],
    "prod(-1)": lambda x: x.prod(-1), "cumsum(-1)": lambda x: x.cumsum(-1),
    "cumprod(-2)": lambda x: x.cumprod(-2), "softmax(-1)": lambda x: x.softmax(-1),
    "log_softmax(-1)": lambda x: x.log_softmax(-1), "logsumexp(-1)": lambda x: x.logsumexp(-1),
    "logsumexp((-1, 0))": lambda x: x.logsumexp((-1, 0)), "var(-1)": lambda x: x.var(-1),
    "std((-1, 0))": lambda x: x.std((-1, 0)), "nansum(-1)": lambda x: x.nansum(-1),
    "nansum()": lambda x: x.nansum(), "median(-1)": lambda x: x.median(-1)[0],
    "mode(-1)": lambda x: x.mode(-1)[0], "kthvalue(-1)": lambda x: x.kthvalue(2, -1)[0],
    "sort(-1)": lambda x: x.sort(-1)[0], "topk(-1)": lambda x: x.topk(2, -1)[0],
    "norm(dim=-1)": lambda x: x.norm(dim=-1),
}


@pytest.mark.parametrize("op", sorted(DIMS))
def test_saved_dims_as_torch_shows_them(op):
    def prog(tg):
        x = tg.tensor([[[1.0, 4.0, 2.0], [3.0, 0.5, 5.0]], [[2.0, 1.0, 6.0], [0.0, 7.0, 8.0]]],
                      requires_grad=True)
        out = DIMS[op](x)
        node = out.grad_fn
        weights = tg.arange(1.0, out.numel() + 1).view(out.shape)
        (out * weights).sum().backward()
        return {"dim": node._saved_dim, "keepdim": getattr(node, "_saved_keepdim", None),
                "out": out.detach(), "grad": D.loose(x.grad)}
    run_quietly(prog)


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_saved_dim_of_the_softmax_gradient_node(op):
    def prog(tg):
        x = tg.tensor([[2.0, 0.0, 3.0], [1.0, 2.0, 3.0]], requires_grad=True)
        y = getattr(x, op)(-1)
        (g,) = tg.autograd.grad((y * y).sum(), x, create_graph=True)
        node = g.grad_fn if op == "log_softmax" else g.grad_fn.next_functions[1][0]
        return {"node": D.node_name(g.grad_fn), "dim": getattr(node, "_saved_dim", None), "g": g}
    run_quietly(prog)


def test_saved_dims_of_a_number():
    def prog(tg):
        x = tg.tensor(1.5, requires_grad=True)
        nodes = [x.sum(-1).grad_fn, x.prod(-1).grad_fn, x.max(-1)[0].grad_fn,
                 x.softmax(-1).grad_fn, x.cumsum(-1).grad_fn, x.sort(-1)[0].grad_fn]
        return [node._saved_dim for node in nodes]
    run_quietly(prog)


# ---- 7. softmax and log_softmax of rows with inf -----------------------------------------
ROWS = {
    "plus_inf": [1.0, INF, 2.0], "two_plus_infs": [INF, INF, 1.0], "minus_inf": [-INF, 1.0, 2.0],
    "all_minus_inf": [-INF, -INF, -INF], "both_infs": [INF, -INF, 0.0], "nan": [NAN, 1.0, 2.0],
    "two_minus_infs": [-INF, -INF, 1.0],
    "rows": [[1.0, INF, 2.0], [-INF, 1.0, 2.0], [-INF, -INF, -INF]],
}
SOFTMAXES = {
    "softmax": lambda tg, x: x.softmax(-1), "log_softmax": lambda tg, x: x.log_softmax(-1),
    "F.softmax": lambda tg, x: tg.nn.functional.softmax(x, dim=-1),
}


@pytest.mark.parametrize("grad_value", [1.0, INF])
@pytest.mark.parametrize("values", sorted(ROWS))
@pytest.mark.parametrize("op", sorted(SOFTMAXES))
def test_softmax_of_rows_with_inf(op, values, grad_value):
    run_quietly(lambda tg: gradient(tg, lambda x: SOFTMAXES[op](tg, x), ROWS[values], grad_value))


@pytest.mark.parametrize("values", ["minus_inf", "two_minus_infs", "plus_inf"])
@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_softmax_of_rows_with_inf_weighted(op, values):
    def prog(tg):
        x = tg.tensor(ROWS[values], requires_grad=True)
        (getattr(x, op)(0) * tg.tensor([1.0, 2.0, 3.0])).sum().backward()
        return x.grad
    run_quietly(prog)


@pytest.mark.parametrize("call", ["unsqueeze(-1)", "unsqueeze(-3)", "unsqueeze_(-1)"])
def test_unsqueeze_saves_the_dim_as_given(call):
    def prog(tg):
        x = tg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True) * 1
        out = eval(f"x.{call}")
        node = out.grad_fn
        (out * tg.arange(1.0, 5.0).view(out.shape)).sum().backward()
        return {"dim": node._saved_dim, "shape": tuple(out.shape), "node": D.node_name(node)}
    run_quietly(prog)
