"""More details compared with torch: the saved arguments of squeeze and of the diagonal nodes
(dims as given, a negative one read as unsigned), the graphs of the gradients of squeeze and
mean, ``mean`` with a dtype, ``_is_view`` and ``storage_offset``, unflatten's errors, and the
Python numbers a dtype cannot hold in masked_fill, clamp, index_fill and ``t[key] = number``."""
import warnings

import pytest

try:
    from . import differential as D
except ImportError:
    import differential as D

torch = pytest.importorskip("torch")
run = D.run_both


def saved(node):
    """A node's ``_saved_`` numbers and tuples (not its tensors), by name."""
    return {name: getattr(node, name) for name in dir(node)
            if name.startswith("_saved_") and not name.endswith("_raw")
            and isinstance(getattr(node, name), (int, tuple, type(None)))}


def gradient_graph(tg, y, x):
    """The graph of ``d y / d x`` under create_graph, for a grad_output that requires grad."""
    v = tg.ones_like(y, requires_grad=True)
    (g,) = tg.autograd.grad(y, x, v, create_graph=True)
    return {"grad": g.detach(), "graph": None if g.grad_fn is None else D.graph(g)}


# ---- squeeze --------------------------------------------------------------------------
SQUEEZES = {
    "all": lambda x: x.squeeze(),
    "one_negative": lambda x: x.squeeze(-3),
    "one_negative_not_1": lambda x: x.squeeze(-2),
    "one_positive": lambda x: x.squeeze(1),
    "one_not_1": lambda x: x.squeeze(0),
    "tuple": lambda x: x.squeeze((1, -1)),
    "tuple_negative": lambda x: x.squeeze((-1,)),
    "list": lambda x: x.squeeze([0, 1]),
    "empty_tuple": lambda x: x.squeeze(()),
    "keyword": lambda x: x.squeeze(dim=(3, 1)),
}


@pytest.mark.parametrize("case", sorted(SQUEEZES))
def test_squeeze_saves_the_dims_as_given_and_its_gradient_unsqueezes(case):
    def prog(tg):
        x = tg.ones(2, 1, 3, 1, requires_grad=True)
        y = SQUEEZES[case](x)
        return {"y": y, "node": D.name(y), "saved": saved(y.grad_fn), "is_view": y._is_view(),
                **gradient_graph(tg, y, x)}
    run(prog)


@pytest.mark.parametrize("dim", [-1, 0, (0,), (-1, )])
def test_squeeze_of_a_0d_tensor(dim):
    def prog(tg):
        x = tg.tensor(2.0, requires_grad=True)
        y = x.squeeze(dim)
        return {"y": y, "saved": saved(y.grad_fn), **gradient_graph(tg, y, x)}
    run(prog)


SQUEEZE_ERRORS = {
    "repeated": lambda tg: tg.ones(2, 1, 3, 1).squeeze((1, 1)),
    "repeated_negative": lambda tg: tg.ones(2, 1, 3, 1).squeeze((1, -3)),
    "out_of_range": lambda tg: tg.ones(2, 1, 3, 1).squeeze((1, 4)),
    "0d_repeated": lambda tg: tg.tensor(1.0).squeeze((0, -1)),
    "0d_out_of_range": lambda tg: tg.tensor(1.0).squeeze((1,)),
}


@pytest.mark.parametrize("case", sorted(SQUEEZE_ERRORS))
def test_squeeze_over_dims_refuses_what_torch_refuses(case):
    run(SQUEEZE_ERRORS[case], raises="Exception")


@pytest.mark.parametrize("q", [0.5, [0.5, 0.25]])
def test_quantile_squeezes_its_last_dim_as_minus_one(q):
    def prog(tg):
        x = tg.tensor([[1.0, 4.0], [2.0, 3.0], [0.5, 5.0]], requires_grad=True)
        y = x.quantile(q if isinstance(q, float) else tg.tensor(q), 0)
        return {"y": D.snap(y, version=False), "node": D.name(y), "saved": saved(y.grad_fn)}
    run(prog)


# ---- mean and sum ---------------------------------------------------------------------
REDUCTIONS = {
    "mean": lambda tg, x: x.mean(),
    "mean_dim": lambda tg, x: x.mean(0),
    "mean_negative_keepdim": lambda tg, x: x.mean(-1, keepdim=True),
    "mean_dims": lambda tg, x: x.mean((0, 1)),
    "mean_empty_list": lambda tg, x: x.mean([]),
    "mean_empty_list_keepdim": lambda tg, x: x.mean([], keepdim=True),
    "mean_dtype": lambda tg, x: x.mean(dtype=tg.float64),
    "mean_dim_dtype": lambda tg, x: x.mean(0, dtype=tg.float64),
    "sum": lambda tg, x: x.sum(),
    "sum_dim": lambda tg, x: x.sum(0),
    "sum_empty_list": lambda tg, x: x.sum([]),
    "sum_empty_tuple_keepdim": lambda tg, x: x.sum((), keepdim=True),
    "sum_dtype": lambda tg, x: x.sum(-1, dtype=tg.float64),
}


@pytest.mark.parametrize("case", sorted(REDUCTIONS))
def test_graphs_of_mean_and_sum_and_of_their_gradients(case):
    def prog(tg):
        x = tg.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        y = REDUCTIONS[case](tg, x)
        return {"y": y, "graph": D.graph(y), "saved": saved(y.grad_fn), **gradient_graph(tg, y, x)}
    run(prog)


MEANS_OF_OTHER_DTYPES = {
    "int_to_double": lambda tg: tg.tensor([2 ** 40 + 1, 1]).mean(dtype=tg.float64),
    "int_dim_to_double": lambda tg: tg.tensor([[2 ** 40 + 1, 1]]).mean(1, dtype=tg.float64),
    "uint8_to_half": lambda tg: tg.tensor([1, 2, 4], dtype=tg.uint8).mean(dtype=tg.float16),
    "double_to_float": lambda tg: tg.tensor([1.0, 2.0], dtype=tg.float64).mean(dtype=tg.float32),
}


@pytest.mark.parametrize("case", sorted(MEANS_OF_OTHER_DTYPES))
def test_mean_computes_in_the_dtype_given(case):
    run(MEANS_OF_OTHER_DTYPES[case])


@pytest.mark.parametrize("dtype", ["int64", "bool"])
def test_mean_refuses_a_dtype_that_is_not_floating(dtype):
    run(lambda tg: tg.tensor([1.0, 2.0]).mean(0, dtype=getattr(tg, dtype)), raises="RuntimeError")


def test_mean_with_a_dtype_gets_its_gradient_cast_back():
    def prog(tg):
        x = tg.ones(2, 3, dtype=tg.float16, requires_grad=True)
        y = x.mean(dtype=tg.float64)
        y.backward()
        return {"y": y, "graph": D.graph(y), "grad": x.grad}
    run(prog)


def test_mean_of_nothing_is_nan_without_a_warning():
    def prog(tg):
        x = tg.zeros(0, 3, requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            y, whole = x.mean(0), x.mean()
        y.sum().backward()
        return {"y": y, "whole": whole, "grad": x.grad, "warnings": len(caught)}
    run(prog)


# ---- the diagonals --------------------------------------------------------------------
DIAGONALS = {
    "diag_of_vector": lambda tg, v, m: v.diag(),
    "diag_of_vector_above": lambda tg, v, m: v.diag(1),
    "diag_of_vector_below": lambda tg, v, m: v.diag(-1),
    "diag_embed": lambda tg, v, m: v.diag_embed(),
    "diag_embed_dims": lambda tg, v, m: v.diag_embed(1, 0, -1),
    "diag_embed_negative": lambda tg, v, m: v.diag_embed(-1, -1, -2),
    "diag_embed_swapped": lambda tg, v, m: v.diag_embed(0, 1, 0),
    "diag_embed_of_matrix": lambda tg, v, m: tg.diag_embed(m, 1, 0, 2),
    "diagflat": lambda tg, v, m: v.diagflat(),
    "diagflat_below": lambda tg, v, m: v.diagflat(-2),
    "diagflat_of_matrix": lambda tg, v, m: m.diagflat(1),
    "diagonal_negative": lambda tg, v, m: m.diagonal(-1, -1, -2),
    "diag_of_matrix": lambda tg, v, m: m.diag(-1),
}


@pytest.mark.parametrize("case", sorted(DIAGONALS))
def test_diagonal_nodes_save_offset_and_dims_as_given(case):
    def prog(tg):
        v = tg.tensor([1.0, 2.0, 3.0], requires_grad=True)
        m = tg.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        y = DIAGONALS[case](tg, v, m)
        x = m if "matrix" in case or "diagonal" in case else v
        v_out = tg.ones_like(y, requires_grad=True)
        (g,) = tg.autograd.grad(y, x, v_out, create_graph=True)
        return {"y": y, "node": D.name(y), "saved": saved(y.grad_fn), "grad": g.detach(),
                "grad_node": D.name(g), "grad_saved": saved(g.grad_fn)}
    run(prog)


# ---- _is_view and storage_offset ------------------------------------------------------
VIEWS = {
    "leaf": lambda tg, b, x: b,
    "reshaped": lambda tg, b, x: x,
    "row": lambda tg, b, x: x[1],
    "corner": lambda tg, b, x: x[:, 1:, 2:],
    "step": lambda tg, b, x: b[3::2],
    "transposed_slice": lambda tg, b, x: x.transpose(0, 2)[1:],
    "expanded": lambda tg, b, x: x[:, :1].expand(2, 5, 4),
    "unflattened": lambda tg, b, x: b[4:].unflatten(0, (4, 5)),
    "detached_view": lambda tg, b, x: x[1].detach(),
    "data_of_view": lambda tg, b, x: x[1].data,
    "clone": lambda tg, b, x: x[1].clone(),
    "contiguous_copy": lambda tg, b, x: x.transpose(0, 1).contiguous(),
    "select": lambda tg, b, x: x.select(2, 3),
    "narrow": lambda tg, b, x: x.narrow(1, 1, 2),
    "diagonal": lambda tg, b, x: x.diagonal(1, 1, 2),
    "split_piece": lambda tg, b, x: b.split(5)[2],
    "unbind_piece": lambda tg, b, x: x.unbind(1)[2],
    "squeezed": lambda tg, b, x: x[:, 1:2].squeeze(1),
    "viewed": lambda tg, b, x: x[1].view(12),
    "as_strided": lambda tg, b, x: b.as_strided((2, 2), (3, 1), 5),
    "as_strided_of_view": lambda tg, b, x: b[2:].as_strided((2,), (1,)),
    "reshape_copy": lambda tg, b, x: x.transpose(0, 1).reshape(24),
    "masked": lambda tg, b, x: x[x > 3],
    "element": lambda tg, b, x: x[1, 2, 3],
    "permuted": lambda tg, b, x: x.permute(2, 0, 1)[1],
    "flipped": lambda tg, b, x: x.flip(0),
    "ellipsis": lambda tg, b, x: x[..., 1],
    "flattened_copy": lambda tg, b, x: x.transpose(0, 1).flatten(),
}


@pytest.mark.parametrize("case", sorted(VIEWS))
def test_is_view_and_storage_offset(case):
    def prog(tg):
        b = tg.arange(24.0)
        t = VIEWS[case](tg, b, b.reshape(2, 3, 4))
        return {"is_view": t._is_view(), "offset": t.storage_offset()}
    run(prog)


def test_views_made_under_no_grad_and_of_leaves_that_require_grad():
    def prog(tg):
        r = tg.ones(3, requires_grad=True)
        with tg.no_grad():
            quiet = r[1:]
        return [r[1:]._is_view(), r[1:].storage_offset(), quiet._is_view(),
                quiet.storage_offset(), r._is_view()]
    run(prog)


# ---- unflatten ------------------------------------------------------------------------
UNFLATTENS = {
    "too_many": lambda tg: tg.ones(2, 6).unflatten(1, (4, 2)),
    "negative_dim": lambda tg: tg.ones(2, 6).unflatten(-1, (4, 2)),
    "inferred_does_not_divide": lambda tg: tg.ones(2, 6).unflatten(1, (4, -1)),
    "zero_and_inferred": lambda tg: tg.ones(2, 6).unflatten(1, (0, -1)),
    "ambiguous_in_nothing": lambda tg: tg.ones(2, 0).unflatten(1, (0, -1)),
    "function": lambda tg: tg.unflatten(tg.ones(2, 6), 1, [5]),
}


@pytest.mark.parametrize("case", sorted(UNFLATTENS))
def test_unflatten_with_sizes_that_do_not_fit(case):
    run(UNFLATTENS[case], raises="RuntimeError")


@pytest.mark.parametrize("shape", [(0, -1), (-1, 0), (-1, 0, 2)])
def test_reshape_of_nothing_with_an_ambiguous_size(shape):
    run(lambda tg: tg.zeros(0, 3).reshape(shape), raises="RuntimeError")


# ---- numbers a dtype cannot hold ------------------------------------------------------
def _set(key):
    def write(tg, t, value):
        t[key(tg)] = value
        return t
    return write


FILLS = {
    "masked_fill": lambda tg, t, v: t.masked_fill(tg.tensor([True, False]), v),
    "masked_fill_": lambda tg, t, v: t.masked_fill_(tg.tensor([True, False]), v),
    "clamp": lambda tg, t, v: t.clamp(v),
    "clamp_max_only": lambda tg, t, v: t.clamp(max=v),
    "clamp_": lambda tg, t, v: t.clamp_(v),
    "clamp_min": lambda tg, t, v: t.clamp_min(v),
    "clamp_max": lambda tg, t, v: t.clamp_max(v),
    "clamp_min_": lambda tg, t, v: t.clamp_min_(v),
    "clamp_max_": lambda tg, t, v: t.clamp_max_(v),
    "clip": lambda tg, t, v: t.clip(v, None),
    "index_fill": lambda tg, t, v: t.index_fill(0, tg.tensor([0]), v),
    "index_fill_": lambda tg, t, v: t.index_fill_(0, tg.tensor([0]), v),
    "set_mask": _set(lambda tg: tg.tensor([True, False])),
    "set_index": _set(lambda tg: 0),
    "set_all": _set(lambda tg: slice(None)),
}
VALUES = {  # (dtype, value) -> whether torch refuses it
    ("float32", 1e39): True, ("float32", -1e300): True, ("float32", 2 ** 63): False,
    ("float32", float("inf")): False, ("float16", 70000.0): True, ("float16", 2 ** 31): True,
    ("int32", 2 ** 31): True, ("int64", 2 ** 63): True, ("int64", 1e20): True,
    ("int64", float("nan")): True, ("uint8", 300): True, ("uint8", -1): False,
    ("uint8", -256): True, ("int64", 2 ** 64): True, ("float32", -2 ** 63 - 1): True,
    ("float64", 1e300): False,
}


def _fill_cases():
    """Every op with every (dtype, value), but a float bound of clamp for an integer tensor:
    that lifts the tensor to float (or cannot be cast in place), another question."""
    return [(op, dtype, value) for op in sorted(FILLS) for dtype, value in sorted(VALUES, key=repr)
            if not (dtype.startswith(("int", "uint")) and isinstance(value, float)
                    and op.startswith(("clamp", "clip")))]


@pytest.mark.parametrize("op, dtype, value", _fill_cases())
def test_numbers_the_dtype_cannot_hold(op, dtype, value):
    def prog(tg):
        return FILLS[op](tg, tg.zeros(2, dtype=getattr(tg, dtype)), value)
    refused = VALUES[dtype, value]
    if op.startswith("set"):     # a one-element fill: float16 takes any float; int64's range
        refused = (refused and dtype != "float16") or (isinstance(value, int) and
                                                      not -2 ** 63 <= value < 2 ** 63)
    run(prog, raises="Exception" if refused else None)


def test_a_one_element_half_target_takes_a_big_number_as_inf():
    def prog(tg):
        t = tg.zeros(2, dtype=tg.float16)
        t[0] = 1e39
        t[tg.tensor([False, True])] = -70000.0
        return t
    run(prog)


ZERO_D_VALUES = {
    "masked_fill_double_into_float": lambda tg: tg.zeros(2).masked_fill(
        tg.tensor([True, False]), tg.tensor(1e39, dtype=tg.float64)),
    "masked_fill_long_into_uint8": lambda tg: tg.zeros(2, dtype=tg.uint8).masked_fill(
        tg.tensor([True, False]), tg.tensor(300)),
    "masked_fill__double_into_float": lambda tg: tg.zeros(2).masked_fill_(
        tg.tensor([True, False]), tg.tensor(1e39, dtype=tg.float64)),
    "index_fill_double_into_float": lambda tg: tg.zeros(2).index_fill(
        0, tg.tensor([0]), tg.tensor(1e39, dtype=tg.float64)),
    "index_fill_before_the_bounds_check": lambda tg: tg.zeros(2).index_fill(
        0, tg.tensor([5]), 1e39),
    "clamp_both_bounds": lambda tg: tg.zeros(2).clamp(-1e39, 1e39),
    "clamp_of_nothing": lambda tg: tg.zeros(0).clamp(1e39),
    "set_out_of_range_index": lambda tg: tg.zeros(2).__setitem__(5, 1e39),
}


@pytest.mark.parametrize("case", sorted(ZERO_D_VALUES))
def test_values_refused_in_other_ways(case):
    run(ZERO_D_VALUES[case], raises="RuntimeError")


def test_a_float_written_into_an_integer_tensor_is_truncated():
    def prog(tg):
        t = tg.zeros(3, dtype=tg.int64)
        t[tg.tensor([True, False, False])] = 1.5
        t[1] = 2.7
        return t, tg.zeros(2, dtype=tg.uint8).clamp(-1)
    run(prog)


@pytest.mark.parametrize("dim", [-1, 1, -2, 0])
def test_squeeze_in_place_keeps_the_dim_as_given(dim):
    def prog(tg):
        x = tg.ones(2, 1, requires_grad=True) * 1
        x.squeeze_(dim)
        saved = x.grad_fn._saved_dim
        x.sum().backward()
        return {"x": x, "node": x.grad_fn.name(), "saved_dim": saved}
    D.run_both(prog)


WIDER_BOUNDS = {
    "clamp_float_bound": lambda tg: tg.tensor([1, 5]).clamp_(0.5, 2.5),
    "clamp_max_only_float": lambda tg: tg.tensor([1, 5]).clamp_(min=0, max=2.5),
    "clamp_min_": lambda tg: tg.tensor([1, 5]).clamp_min_(0.5),
    "clamp_max_int32": lambda tg: tg.tensor([1, 5], dtype=tg.int32).clamp_max_(2.5),
    "clamp_uint8": lambda tg: tg.tensor([1, 5], dtype=tg.uint8).clamp_(0.5),
    "clamp_bool_by_ints": lambda tg: tg.tensor([True]).clamp_(0, 1),
    "clamp_min_bool_by_float": lambda tg: tg.tensor([True]).clamp_min_(0.5),
}


@pytest.mark.parametrize("case", sorted(WIDER_BOUNDS))
def test_clamping_in_place_by_a_wider_number_is_refused(case):
    run(WIDER_BOUNDS[case], raises="RuntimeError")


@pytest.mark.parametrize("case", ["int_by_int", "float_by_float"])
def test_clamping_in_place_by_a_number_of_its_kind(case):
    def prog(tg):
        x = tg.tensor([1, 5]) if case == "int_by_int" else tg.tensor([1.0, 5.0])
        bounds = (0, 2) if case == "int_by_int" else (0.5, 2.5)
        return x.clamp_(*bounds), x._version
    run(prog)


def test_a_refused_clamp_changes_nothing():
    import teachgrad as tg
    x = tg.tensor([1, 5])
    with pytest.raises(RuntimeError):
        x.clamp_(0.5, 2.5)
    assert x.tolist() == [1, 5] and x._version == 0
