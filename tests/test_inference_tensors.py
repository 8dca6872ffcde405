"""Inference tensors, compared with torch: what inference_mode makes, what may use them
outside the mode (an op that saves nothing) and what may not (saving one for backward, an
in-place change, requires_grad=True), with PyTorch's errors."""
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


def test_which_tensors_are_inference_tensors():
    def prog(tg):
        normal = tg.ones(2)
        with tg.inference_mode():
            made = tg.zeros(2)
            computed = normal * 2
            view_of_normal = normal[:1]
            leaf = tg.ones(2, requires_grad=True)
            normal.add_(1)           # a normal tensor changed inside: it counts the change
        with tg.no_grad():
            under_no_grad = tg.ones(2)
        inference = computed
        return {"made": made.is_inference(), "computed": computed.is_inference(),
                "view_of_normal": view_of_normal.is_inference(),
                "leaf": (leaf.is_inference(), leaf.requires_grad),
                "normal": (normal.is_inference(), normal._version),
                "under_no_grad": under_no_grad.is_inference(),
                "view_outside": inference[0].is_inference(),
                "detach": inference.detach().is_inference(),
                "data": inference.data.is_inference(),
                "clone": inference.clone().is_inference(),
                "op_outside": (inference * 2).is_inference(),
                "inference_mode_false": _made_with_inference_mode_off(tg).is_inference()}
    run(prog)


def _made_with_inference_mode_off(tg):
    with tg.inference_mode():
        with tg.inference_mode(False):
            return tg.ones(2) * 2


def test_an_op_that_saves_nothing_may_use_one():
    def prog(tg):
        w = tg.tensor([1.0, 2.0], requires_grad=True)
        e = _made_inside(tg)
        total = (w + e).sum()
        total.backward()
        cloned = w * e.clone()
        return {"total": total, "w_grad": w.grad, "node": D.name(cloned)}
    run(prog)


def test_inside_the_mode_an_inference_tensor_may_be_changed_in_place():
    def prog(tg):
        with tg.inference_mode():
            e = tg.ones(2)
            e.mul_(5)
            e[0] = 2.0
        return {"e": e}
    run(prog)


ERRORS = {
    "version": lambda tg: _made_inside(tg)._version,
    "saved_for_backward": lambda tg: tg.ones(2, requires_grad=True) * _made_inside(tg),
    "saved_as_the_other_factor": lambda tg: _made_inside(tg) * tg.ones(2, requires_grad=True).exp(),
    "inplace_outside": lambda tg: _made_inside(tg).add_(1),
    "inplace_through_a_view": lambda tg: _made_inside(tg)[0].mul_(2),
    "setitem_outside": lambda tg: _made_inside(tg).__setitem__(0, 5.0),
    "requires_grad_": lambda tg: _made_inside(tg).requires_grad_(),
    "requires_grad_attribute": lambda tg: setattr(_made_inside(tg), "requires_grad", True),
    "parameter": lambda tg: tg.nn.Parameter(_made_inside(tg)),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors(case):
    run(ERRORS[case], raises="RuntimeError")


def test_a_refused_inplace_update_changes_nothing():
    """(PyTorch raises only after its kernel has written: its e would be [4., 4.].)"""
    import teachgrad as tg
    e = _made_inside(tg)
    with pytest.raises(RuntimeError, match="^Inplace update to inference tensor outside"):
        e.add_(1)
    assert e.tolist() == [3.0, 3.0]


def test_a_parameter_shares_the_version_counter_of_its_tensor():
    def prog(tg):
        t = tg.ones(2)
        p = tg.nn.Parameter(t)
        t.add_(1)
        with tg.no_grad():
            p.mul_(2)
        return {"versions": (p._version, t._version), "p": p.detach()}
    run(prog)
