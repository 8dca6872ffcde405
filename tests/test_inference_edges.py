"""Edge cases of inference tensors, compared with torch: ``detach()`` and ``.data`` of one
(still inference tensors, but with a version counter of their own), ``enable_grad()`` inside
``inference_mode`` (records nothing), a leaf made with requires_grad=True inside the mode and
used outside (an op records only if one of its inputs is a normal tensor), and what a clone
of an inference tensor is."""
import pytest

try:
    from . import differential as D
except ImportError:
    import differential as D

torch = pytest.importorskip("torch")
run = D.run_both


def _made_inside(tg):
    with tg.inference_mode():
        return tg.ones(2) * 3


def _leaf_made_inside(tg):
    with tg.inference_mode():
        return tg.tensor([1.0, 2.0], requires_grad=True)


# ---- detach() and .data of an inference tensor --------------------------------------------
DETACHED = {"detach": lambda t: t.detach(), "data": lambda t: t.data,
            "detach_of_detach": lambda t: t.detach().detach(), "data_of_data": lambda t: t.data.data}


@pytest.mark.parametrize("how", sorted(DETACHED))
def test_a_detached_inference_tensor_counts_its_inplace_changes(how):
    def prog(tg):
        t = _made_inside(tg)
        d = DETACHED[how](t)
        fresh = (d.is_inference(), d._version, d.requires_grad)
        d.add_(1)
        d.mul_(2)
        with tg.no_grad():
            d.zero_()
        return {"fresh": fresh, "d": d, "after": (d.is_inference(), d._version),
                "t": t.tolist(), "next_detach": DETACHED[how](d)}
    run(prog)


def test_each_detach_has_a_counter_of_its_own():
    def prog(tg):
        t = _made_inside(tg)
        first, second = t.detach(), t.detach()
        first.add_(1)
        return {"versions": (first._version, second._version), "again": first.detach()._version}
    run(prog)


def test_inside_the_mode_a_detached_inference_tensor_is_not_counted():
    def prog(tg):
        d = _made_inside(tg).detach()
        d.add_(1)
        with tg.inference_mode():
            d.add_(1)
            inside = d._version
        return {"inside": inside, "outside": d._version, "d": d}
    run(prog)


def test_detach_and_data_of_a_normal_tensor_inside_the_mode():
    def prog(tg):
        n = tg.ones(2)
        with tg.inference_mode():
            detached, data = n.detach(), n.data
            detached.add_(1)
        return {"detached": (detached.is_inference(), detached._version),
                "data": (data.is_inference(), data._version), "n": n}
    run(prog)


def test_an_inplace_op_on_a_detached_inference_tensor_is_recorded():
    def prog(tg):
        w = tg.tensor([1.0, 2.0], requires_grad=True)
        d = _made_inside(tg).detach()
        d.add_(w)
        return {"d": d, "graph": D.graph(d)}
    run(prog)


DETACHED_ERRORS = {
    "version_inside_the_mode": lambda tg, d: _inside_the_mode(tg, lambda: d.detach()._version),
    "data_version_inside_the_mode": lambda tg, d: _inside_the_mode(tg, lambda: d.data._version),
    "version_of_a_view": lambda tg, d: d[0]._version,
    "inplace_through_a_view": lambda tg, d: d[0].add_(1),
    "saved_for_backward": lambda tg, d: tg.ones(2, requires_grad=True) * d,
    "requires_grad_": lambda tg, d: d.requires_grad_(),
}


def _inside_the_mode(tg, f):
    with tg.inference_mode():
        return f()


@pytest.mark.parametrize("case", sorted(DETACHED_ERRORS))
def test_what_a_detached_inference_tensor_still_refuses(case):
    run(lambda tg: DETACHED_ERRORS[case](tg, _made_inside(tg).detach()), raises="RuntimeError")


def test_views_of_an_inference_tensor_are_no_views_for_autograd():
    def prog(tg):
        t = _made_inside(tg)
        leaf = _leaf_made_inside(tg)
        with tg.inference_mode():
            inside = t[0]
        return {name: (v.is_inference(), v.requires_grad, v._base is None, v.is_leaf)
                for name, v in {"outside": t[0], "inside": inside, "of_detach": t.detach()[:1],
                                "of_leaf": leaf[0], "unsqueeze_of_leaf": leaf.unsqueeze(0)}.items()}
    run(prog)


# ---- enable_grad() inside inference_mode ----------------------------------------------------
def _inside_enable_grad(tg, f):
    with tg.inference_mode():
        with tg.enable_grad():
            return f()


def test_enable_grad_inside_inference_mode_records_nothing():
    def prog(tg):
        w = tg.tensor([1.0, 2.0], requires_grad=True)
        with tg.inference_mode():
            with tg.enable_grad():
                modes = (tg.is_grad_enabled(), tg.is_inference_mode_enabled())
                product, exp = w * 2, w.exp()
                leaf = tg.ones(2, requires_grad=True)
                from_leaf = leaf * 3
                view = w[0]
            with tg.set_grad_enabled(True):
                with_set_grad_enabled = w * 2
        return {"modes": modes, "product": product, "exp": exp, "leaf": leaf,
                "from_leaf": from_leaf, "view": (view.requires_grad, view.grad_fn, view.is_leaf),
                "set_grad_enabled": with_set_grad_enabled, "inference": product.is_inference()}
    run(prog)


def test_enable_grad_as_a_decorator_inside_inference_mode():
    def prog(tg):
        w = tg.tensor([1.0, 2.0], requires_grad=True)

        @tg.enable_grad()
        def double(x):
            return x * 2
        with tg.inference_mode():
            return double(w)
    run(prog)


def test_inference_mode_false_inside_still_records():
    def prog(tg):
        w = tg.tensor([1.0, 2.0], requires_grad=True)
        with tg.inference_mode():
            with tg.enable_grad():
                with tg.inference_mode(False):
                    y = w * 2
        return {"y": y, "graph": D.graph(y), "inference": y.is_inference()}
    run(prog)


def test_enable_grad_inside_inference_mode_makes_no_inplace_checks():
    def prog(tg):
        w = tg.tensor([1.0, 2.0], requires_grad=True)
        with tg.inference_mode():
            with tg.enable_grad():
                w.add_(1)                   # a leaf that requires grad: allowed here
                n = tg.zeros(2)
                n.add_(w)
        return {"w": w, "n": (n.requires_grad, n.grad_fn, n.is_inference())}
    run(prog)


def test_backward_of_what_enable_grad_made_inside_inference_mode():
    def prog(tg):
        w = tg.tensor([1.0, 2.0], requires_grad=True)
        _inside_enable_grad(tg, lambda: (w * 2).sum()).backward()
    run(prog, raises="RuntimeError")


# ---- a leaf made inside the mode with requires_grad=True, used outside ----------------------
OPS_ON_AN_INFERENCE_LEAF = {
    "times_a_number": lambda tg, leaf: leaf * 2,       # the number is a normal tensor: recorded
    "plus_a_number": lambda tg, leaf: leaf + 1,
    "plus_a_normal_tensor": lambda tg, leaf: leaf + tg.ones(2),
    "times_a_normal_tensor": lambda tg, leaf: leaf * tg.ones(2),
    "exp": lambda tg, leaf: leaf.exp(),                 # inference inputs only: not recorded
    "sum": lambda tg, leaf: leaf.sum(),
    "pow": lambda tg, leaf: leaf ** 2,
    "plus_itself": lambda tg, leaf: leaf + leaf,
    "plus_an_inference_tensor": lambda tg, leaf: leaf + _made_inside(tg),
    "plus_its_detach": lambda tg, leaf: leaf + leaf.detach(),
    "select": lambda tg, leaf: leaf[0],
    "view": lambda tg, leaf: leaf.view(2),
    "stack": lambda tg, leaf: tg.stack([leaf, leaf]),
    "under_no_grad": lambda tg, leaf: _under_no_grad(tg, lambda: leaf * 2),
}


def _under_no_grad(tg, f):
    with tg.no_grad():
        return f()


@pytest.mark.parametrize("case", sorted(OPS_ON_AN_INFERENCE_LEAF))
def test_an_op_on_an_inference_leaf_records_only_with_a_normal_input(case):
    def prog(tg):
        leaf = _leaf_made_inside(tg)
        y = OPS_ON_AN_INFERENCE_LEAF[case](tg, leaf)
        # (PyTorch's sum kernel, run without autograd, writes its result in place: version 1)
        return {"y": D.snap(y, version=case != "sum"), "inference": y.is_inference(),
                "graph": D.graph(y) if y.grad_fn else None}
    run(prog)


def test_gradients_reach_an_inference_leaf_through_a_normal_input():
    def prog(tg):
        leaf = _leaf_made_inside(tg)
        w = tg.tensor([3.0, 4.0], requires_grad=True)
        (leaf + w).sum().backward()
        (leaf * 5).sum().backward()
        return {"leaf_grad": leaf.grad, "w_grad": w.grad,
                "autograd_grad": tg.autograd.grad((leaf * 2).sum(), leaf)}
    run(prog)


INFERENCE_LEAF_ERRORS = {
    "saved_by_mul": lambda tg, leaf: leaf * tg.tensor([1.0, 2.0], requires_grad=True),
    "saved_by_linear": lambda tg, leaf: tg.nn.Linear(2, 1)(leaf),
    "backward_of_an_unrecorded_sum": lambda tg, leaf: leaf.sum().backward(),
    "inplace_with_a_number": lambda tg, leaf: leaf.add_(1),           # autograd's error first
    "inplace_with_a_normal_tensor": lambda tg, leaf: leaf.mul_(tg.ones(2)),
    "inplace_alone": lambda tg, leaf: leaf.neg_(),                    # the inference error
    "inplace_with_an_inference_tensor": lambda tg, leaf: leaf.add_(_made_inside(tg)),
    "inplace_under_no_grad": lambda tg, leaf: _under_no_grad(tg, lambda: leaf.add_(1)),
    "setitem": lambda tg, leaf: leaf.__setitem__(0, 1.0),
}


@pytest.mark.parametrize("case", sorted(INFERENCE_LEAF_ERRORS))
def test_what_an_inference_leaf_refuses(case):
    run(lambda tg: INFERENCE_LEAF_ERRORS[case](tg, _leaf_made_inside(tg)), raises="RuntimeError")


# ---- clone -------------------------------------------------------------------------------
def test_a_clone_of_an_inference_tensor_is_a_normal_tensor():
    """(Versions and graphs of such clones are compared in test_inference_more.py.)"""
    def prog(tg):
        t = _made_inside(tg)
        with tg.inference_mode():
            inside = t.clone()
        clones = {"outside": t.clone(), "of_detach": t.detach().clone(), "of_data": t.data.clone()}
        return {"inference": {name: c.is_inference() for name, c in clones.items()},
                "inside": inside.is_inference(),
                "values": {name: c.tolist() for name, c in clones.items()},
                "may_be_saved": (tg.ones(2, requires_grad=True) * clones["outside"]).grad_fn}
    run(prog)
