"""More edges of inference tensors and of views made without grad mode, compared with torch:
the clone of an inference tensor (an empty tensor written with ``copy_``), an in-place op on a
detached inference tensor that saves its old value, views made inside inference_mode and
changed in place outside it, ``n.data = inference_tensor``, a view made under no_grad of a
view of a leaf, and ``Tensor.addmm`` / ``Tensor.addmm_``."""
import pytest

try:
    from . import differential as D
    from .test_inference_edges import (_inside_the_mode, _leaf_made_inside, _made_inside,
                                       _under_no_grad)
except ImportError:
    import differential as D
    from test_inference_edges import (_inside_the_mode, _leaf_made_inside, _made_inside,
                                      _under_no_grad)

torch = pytest.importorskip("torch")
run = D.run_both


# ---- 1. clone of an inference tensor ------------------------------------------------------
CLONES = {
    "of_an_inference_tensor": lambda tg: _made_inside(tg).clone(),
    "of_its_detach": lambda tg: _made_inside(tg).detach().clone(),
    "of_its_data": lambda tg: _made_inside(tg).data.clone(),
    "of_a_view": lambda tg: _made_inside(tg)[1:].clone(),
    "under_no_grad": lambda tg: _under_no_grad(tg, lambda: _made_inside(tg).clone()),
    "of_an_inference_leaf": lambda tg: _leaf_made_inside(tg).clone(),
    "of_an_inference_leaf_under_no_grad":
        lambda tg: _under_no_grad(tg, lambda: _leaf_made_inside(tg).clone()),
    "of_a_normal_tensor": lambda tg: tg.ones(2).clone(),
    "of_a_normal_leaf": lambda tg: tg.ones(2, requires_grad=True).clone(),
}


@pytest.mark.parametrize("case", sorted(CLONES))
def test_a_clone_outside_the_mode_is_a_normal_tensor_written_with_copy_(case):
    def prog(tg):
        c = CLONES[case](tg)
        return {"clone": c, "inference": c.is_inference(), "graph": D.graph(c)}
    run(prog)


def test_the_clone_of_an_inference_leaf_passes_its_gradient_on():
    def prog(tg):
        leaf = _leaf_made_inside(tg)
        (leaf.clone() * tg.tensor([3.0, 4.0])).sum().backward()
        return {"grad": leaf.grad}
    run(prog)


def test_a_clone_inside_the_mode_is_an_inference_tensor():
    def prog(tg):
        t = _made_inside(tg)
        c = _inside_the_mode(tg, t.clone)
        return {"inference": c.is_inference(), "requires_grad": c.requires_grad, "values": c.tolist()}
    run(prog)


def test_a_clone_keeps_a_transposed_layout():
    run(lambda tg: _inside_the_mode(tg, lambda: tg.ones(2, 3)).t().clone().stride())


def test_the_function_clone_of_an_inference_tensor():
    def prog(tg):
        c = tg.clone(_leaf_made_inside(tg))
        return {"clone": c, "graph": D.graph(c)}
    run(prog)


# ---- 2. an in-place op on a detached inference tensor that saves its old value -------------
INPLACE_ON_A_DETACH = {
    "mul_": lambda d, w: d.mul_(w),
    "div_": lambda d, w: d.div_(w),
}


@pytest.mark.parametrize("op", sorted(INPLACE_ON_A_DETACH))
def test_an_inplace_op_on_a_detached_inference_tensor_saves_a_clone(op):
    def prog(tg):
        w = tg.tensor([1.0, 2.0], requires_grad=True)
        d = _made_inside(tg).detach()
        INPLACE_ON_A_DETACH[op](d, w)
        saved = d.grad_fn._saved_self
        return {"d": d, "inference": d.is_inference(), "graph": D.graph(d),
                "saved_self": saved, "saved_self_inference": saved.is_inference()}
    run(prog)


def test_an_inplace_op_that_saves_nothing_on_a_detached_inference_tensor():
    def prog(tg):
        w = tg.tensor([1.0, 2.0], requires_grad=True)
        d = _made_inside(tg).detach()
        d.add_(w)
        return {"d": d, "inference": d.is_inference(), "graph": D.graph(d)}
    run(prog)


def test_the_result_of_it_is_still_an_inference_tensor_for_backward():
    def prog(tg):
        d = _made_inside(tg).detach()
        d.add_(tg.tensor([1.0, 2.0], requires_grad=True))
        d.sum().backward()         # sum sees only an inference tensor: nothing recorded
    run(prog, raises="RuntimeError")


# ---- 3. a view made inside inference_mode, changed in place outside ------------------------
def _view_made_inside(tg, requires_grad, make_view=lambda b: b[:2], leaf=False):
    n = tg.ones(3, requires_grad=requires_grad)
    base = n if leaf else n * 1
    with tg.inference_mode():
        return base, make_view(base)


def _changed_under_no_grad_then(tg, base_view, then):
    base, view = base_view
    with tg.no_grad():
        view.add_(1)
    return then(base, view)


INFERENCE_VIEW_CHANGES = {
    "add_": lambda tg, b, v: v.add_(1),
    "mul_of_view": lambda tg, b, v: v.view(2).mul_(2),
    "copy_": lambda tg, b, v: v.copy_(tg.zeros(2)),
    "setitem": lambda tg, b, v: v.__setitem__(0, 1.0),
    "view_of_it_add_": lambda tg, b, v: v[0].add_(1),
    "t_": lambda tg, b, v: v.t_(),
    "add_a_tensor_that_requires_grad": lambda tg, b, v: v.add_(tg.ones(2, requires_grad=True)),
    "base_changed_then_grad_fn": lambda tg, b, v: (b.add_(tg.ones(3, requires_grad=True)),
                                                   v.grad_fn),
    "base_changed_then_view_of_it": lambda tg, b, v: (b.add_(tg.ones(3, requires_grad=True)),
                                                      v[0]),
}


@pytest.mark.parametrize("case", sorted(INFERENCE_VIEW_CHANGES))
@pytest.mark.parametrize("base", ["requires_grad", "leaf", "no_grad_needed"])
def test_a_view_made_inside_inference_mode_changed_in_place_outside(case, base):
    """Refused when the change would be recorded (whether the base requires grad or not),
    with PyTorch's words for inference_mode; allowed otherwise. (torch decides which.)"""
    def prog(tg):
        b, v = _view_made_inside(tg, base != "no_grad_needed", leaf=base == "leaf")
        flags = (v.is_inference(), v.requires_grad, v._base is b, v.grad_fn, v.is_leaf)
        INFERENCE_VIEW_CHANGES[case](tg, b, v)
        return {"flags": flags, "base": D.snap(b, version=False)}
    run(prog, raises=D.ANY)


INFERENCE_VIEW_ALLOWED = {
    "under_no_grad": lambda tg, bv: _changed_under_no_grad_then(tg, bv, lambda b, v: b),
    "inside_the_mode": lambda tg, bv: (_inside_the_mode(tg, lambda: bv[1].add_(1)), bv[0])[1],
    "through_detach": lambda tg, bv: (bv[1].detach().add_(1), bv[0])[1],
    "repr_after_a_change_under_no_grad":
        lambda tg, bv: _changed_under_no_grad_then(tg, bv, lambda b, v: repr(v)),
    "out_of_place_op": lambda tg, bv: bv[1] * 2,
    "backward": lambda tg, bv: (bv[1] * 2).sum().backward(),
}


@pytest.mark.parametrize("case", sorted(INFERENCE_VIEW_ALLOWED))
def test_what_a_view_made_inside_inference_mode_allows(case):
    run(lambda tg: INFERENCE_VIEW_ALLOWED[case](tg, _view_made_inside(tg, True)))


def test_after_a_change_under_no_grad_its_grad_fn_is_refused():
    run(lambda tg: _changed_under_no_grad_then(tg, _view_made_inside(tg, True),
                                               lambda b, v: v.grad_fn), raises="RuntimeError")


def test_a_view_made_under_no_grad_of_a_tensor_that_needs_no_grad():
    """PyTorch marks every floating-point view made under no_grad: changing it in place is
    refused once the change is recorded, even if its base did not require grad."""
    def prog(tg, change):
        n = tg.ones(3)
        with tg.no_grad():
            v = n[:2]
        return change(tg, n, v)
    run(lambda tg: prog(tg, lambda tg, n, v: v.add_(1)))
    run(lambda tg: prog(tg, lambda tg, n, v: v.add_(tg.ones(2, requires_grad=True))),
        raises="RuntimeError")
    run(lambda tg: prog(tg, lambda tg, n, v: (n.add_(tg.ones(3, requires_grad=True)), v.grad_fn)),
        raises="RuntimeError")
    run(lambda tg: prog(tg, lambda tg, n, v: (n.add_(tg.ones(3, requires_grad=True)), v * 2)),
        raises="RuntimeError")


def test_an_integer_view_made_under_no_grad_is_marked_too():
    def prog(tg, other):
        n = tg.ones(3, dtype=tg.int64)
        with tg.no_grad():
            v = n[:2]
        return v.add_(other(tg))
    run(lambda tg: prog(tg, lambda tg: tg.ones(2, dtype=tg.int64)))
    run(lambda tg: prog(tg, lambda tg: tg.ones(2, requires_grad=True)), raises="RuntimeError")


# ---- 4. n.data = an inference tensor -------------------------------------------------------
def _given_inference_data(tg, n):
    n.data = _made_inside(tg)
    return n


DATA_SWAPS = {
    "flags": lambda tg, n: (n.is_inference(), n._version, n.requires_grad),
    "counts_inplace_changes": lambda tg, n: (n.add_(1), n._version,
                                             _inside_the_mode(tg, lambda: n.add_(1)), n._version),
    "keeps_its_version": lambda tg, n: n._version,
    "a_view_of_it": lambda tg, n: (n[0].is_inference(), n[0].requires_grad),
    "its_detach": lambda tg, n: (n.detach().is_inference(), n.detach()._version),
    "an_earlier_view_shares_the_counter": None,      # (written out below)
    "an_op_on_it": lambda tg, n: (n.exp().is_inference(), (n + tg.ones(2)).is_inference()),
}


def _prepared(tg, case):
    n = tg.zeros(2)
    if case == "keeps_its_version":
        n.add_(1)
        n.add_(1)
    if case == "an_earlier_view_shares_the_counter":
        early = n[:1]
        _given_inference_data(tg, n).add_(1)
        return early._version, early.is_inference(), n._version
    return DATA_SWAPS[case](tg, _given_inference_data(tg, n))


@pytest.mark.parametrize("case", sorted(DATA_SWAPS))
def test_a_normal_tensor_given_inference_data_becomes_an_inference_tensor(case):
    run(lambda tg: _prepared(tg, case))


DATA_SWAP_ERRORS = {
    "version_of_a_view": lambda tg, n: n[0]._version,
    "requires_grad_": lambda tg, n: n.requires_grad_(),
    "saved_for_backward": lambda tg, n: n * tg.ones(2, requires_grad=True),
}


@pytest.mark.parametrize("case", sorted(DATA_SWAP_ERRORS))
def test_what_a_tensor_given_inference_data_refuses(case):
    run(lambda tg: DATA_SWAP_ERRORS[case](tg, _given_inference_data(tg, tg.zeros(2))),
        raises="RuntimeError")


def test_a_leaf_that_requires_grad_given_inference_data():
    def prog(tg):
        p = _given_inference_data(tg, tg.zeros(2, requires_grad=True))
        recorded, unrecorded = p * 2, p.exp()
        recorded.sum().backward()
        return {"flags": (p.is_inference(), p.requires_grad), "grad": p.grad,
                "recorded": D.graph(recorded), "unrecorded": unrecorded}
    run(prog)


def test_inside_the_mode_a_tensor_given_inference_data():
    def prog(tg):
        m = tg.zeros(2)
        with tg.inference_mode():
            m.data = tg.ones(2)
            m.add_(1)
        return m.is_inference(), m._version, m
    run(prog)


def test_a_view_given_inference_data():
    def prog(tg):
        base = tg.zeros(3)
        view = base[:2]
        view.data = _made_inside(tg)
        view.add_(1)
        return {"view": (view.is_inference(), view._base is base, view._version), "base": base}
    run(prog)


# ---- 5. a view made under no_grad of a view of a leaf that requires grad -------------------
def _no_grad_view_of_a_view(tg, make_view=lambda v: v[:2]):
    leaf = tg.ones(3, requires_grad=True)
    view = leaf[:3]
    with tg.no_grad():
        inner = make_view(view)
    return leaf, view, inner


def test_a_no_grad_view_of_a_view_of_a_leaf():
    def prog(tg):
        leaf, view, inner = _no_grad_view_of_a_view(tg)
        flags = (inner.requires_grad, inner.grad_fn, inner.is_leaf, inner._base is leaf)
        (inner * 2).sum().backward()          # its gradient goes nowhere
        return {"flags": flags, "leaf_grad": leaf.grad, "select": D.graph(inner[0])}
    run(prog)


NO_GRAD_VIEW_CHANGES = {
    "add_": lambda tg, leaf, view, inner: inner.add_(1),
    "mul_a_tensor_that_requires_grad":
        lambda tg, leaf, view, inner: inner.mul_(tg.ones(2, requires_grad=True)),
    "view_of_it_add_": lambda tg, leaf, view, inner: inner[0].add_(1),
    "setitem": lambda tg, leaf, view, inner: inner.__setitem__(0, 1.0),
    "unsqueeze_": lambda tg, leaf, view, inner: inner.unsqueeze_(0),
    "its_view_changed_under_no_grad_then_grad_fn":
        lambda tg, leaf, view, inner: (_under_no_grad(tg, lambda: view.mul_(2)), inner.grad_fn),
    "changed_under_no_grad_then_grad_fn":
        lambda tg, leaf, view, inner: (_under_no_grad(tg, lambda: inner.mul_(2)), inner.grad_fn),
    "base_view_changed_then_view_of_it_grad_fn":
        lambda tg, leaf, view, inner: (lambda s: (_under_no_grad(tg, lambda: view.mul_(2)),
                                                  s.grad_fn))(inner[0]),
}


@pytest.mark.parametrize("case", sorted(NO_GRAD_VIEW_CHANGES))
def test_a_no_grad_view_of_a_view_of_a_leaf_refuses_inplace_changes(case):
    run(lambda tg: NO_GRAD_VIEW_CHANGES[case](tg, *_no_grad_view_of_a_view(tg)),
        raises="RuntimeError")


def test_a_no_grad_view_of_a_view_changed_under_no_grad():
    def prog(tg):
        leaf, view, inner = _no_grad_view_of_a_view(tg)
        with tg.no_grad():
            inner.mul_(2)
        return {"repr": repr(inner), "view": D.graph(view), "version": leaf._version}
    run(prog)


# ---- 6. Tensor.addmm and Tensor.addmm_ -----------------------------------------------------
def _factors(tg):
    bias = tg.tensor(D.data((2, 3), seed=1), requires_grad=True)
    mat1 = tg.tensor(D.data((2, 2), seed=2), requires_grad=True)
    mat2 = tg.tensor(D.data((2, 3), seed=3), requires_grad=True)
    return bias, mat1, mat2


ADDMM = {
    "method": lambda tg, b, m1, m2: b.addmm(m1, m2),
    "method_scaled": lambda tg, b, m1, m2: b.addmm(m1, m2, beta=0.5, alpha=2),
    "method_row_bias": lambda tg, b, m1, m2: b[0].addmm(m1, m2, beta=2),
    "inplace": lambda tg, b, m1, m2: (b * 1).addmm_(m1, m2),
    "inplace_scaled": lambda tg, b, m1, m2: (b * 1).addmm_(m1, m2, beta=-1.5, alpha=3),
    "inplace_beta_0": lambda tg, b, m1, m2: tg.full((2, 3), float("nan")).addmm_(m1, m2, beta=0),
    "inplace_into_a_view": lambda tg, b, m1, m2: (lambda base: (base[1:3].addmm_(m1, m2), base)[1])(
        tg.zeros(4, 3)),
}


@pytest.mark.parametrize("case", sorted(ADDMM))
def test_addmm_as_a_method(case):
    def prog(tg):
        bias, mat1, mat2 = _factors(tg)
        out = ADDMM[case](tg, bias, mat1, mat2)
        saved = None if case == "inplace_into_a_view" else {     # (CopySlices shows none)
            name: getattr(out.grad_fn, name) for name in (
                "_saved_alpha", "_saved_beta", "_saved_mat1_sym_sizes", "_saved_mat2_sym_strides")}
        (out * tg.tensor(D.data(tuple(out.shape), seed=4))).sum().backward()
        return {"out": out, "graph": D.graph(out), "saved": saved,
                "grads": (bias.grad, mat1.grad, mat2.grad)}
    run(prog)


def test_addmm_of_integers_in_place():
    run(lambda tg: tg.ones(2, 3, dtype=tg.int64).addmm_(tg.ones(2, 2, dtype=tg.int64),
                                                         tg.ones(2, 3, dtype=tg.int64), alpha=2))


ADDMM_ERRORS = {
    "leaf": lambda tg: tg.ones(2, 3, requires_grad=True).addmm_(tg.ones(2, 2), tg.ones(2, 3)),
    "leaf_before_dtype": lambda tg: tg.ones(2, 3, requires_grad=True).addmm_(
        tg.ones(2, 2, dtype=tg.float64), tg.ones(2, 3)),
    "leaf_before_shape": lambda tg: tg.ones(2, 4, requires_grad=True).addmm_(
        tg.ones(2, 2), tg.ones(2, 3)),
    "row_self": lambda tg: tg.ones(3).addmm_(tg.ones(2, 2), tg.ones(2, 3)),
    "wrong_self": lambda tg: tg.ones(2, 4).addmm_(tg.ones(2, 2), tg.ones(2, 3)),
    "factors_before_self": lambda tg: tg.ones(2, 4).addmm_(tg.ones(2, 2), tg.ones(3, 3)),
    "dtype_of_self": lambda tg: tg.ones(2, 3, dtype=tg.float64).addmm_(tg.ones(2, 2),
                                                                       tg.ones(2, 3)),
    "dtype_before_shape": lambda tg: tg.ones(2, 4).addmm_(tg.ones(2, 2, dtype=tg.float64),
                                                          tg.ones(2, 3, dtype=tg.float64)),
    "vector_factor": lambda tg: tg.ones(2, 3).addmm_(tg.ones(2), tg.ones(2, 3)),
}


@pytest.mark.parametrize("case", sorted(ADDMM_ERRORS))
def test_addmm_in_place_refuses(case):
    run(ADDMM_ERRORS[case], raises="RuntimeError")
