"""t_, transpose_ / swapaxes_ / swapdims_, squeeze_ and unsqueeze_: in-place changes of a
tensor's shape, compared with torch (shape, strides, version, node names, saved dims,
gradients, where a retain_grad ends up, views of a base, and the errors)."""
import pytest

try:
    from . import differential as D
except ImportError:
    import differential as D

torch = pytest.importorskip("torch")
run = D.run_both

RESHAPES = {
    "t_": lambda y: y.t_(),
    "t_of_a_vector": lambda y: y[0, 0].t_(),
    "transpose_": lambda y: y.transpose_(0, 2),
    "transpose_negative": lambda y: y.transpose_(-1, 0),
    "swapaxes_": lambda y: y.swapaxes_(1, 2),
    "swapdims_": lambda y: y.swapdims_(0, 1),
    "unsqueeze_": lambda y: y.unsqueeze_(1),
    "unsqueeze_at_end": lambda y: y.unsqueeze_(3),
    "squeeze_all": lambda y: y.squeeze_(),
    "squeeze_dim": lambda y: y.squeeze_(1),
    "squeeze_negative_dim": lambda y: y.squeeze_(-2),
    "squeeze_dim_not_one": lambda y: y.squeeze_(0),
}


def _shaped(tg, case):
    """A 2x1x3 non-leaf (a 2x3 one for t_), to change in place."""
    x = tg.arange(6.0).requires_grad_()
    return x, (x * 1).view(2, 3) if case == "t_" else (x * 1).view(2, 1, 3)


@pytest.mark.parametrize("case", sorted(RESHAPES))
def test_shape_strides_version_node_and_gradient(case):
    def prog(tg):
        x, y = _shaped(tg, case)
        out = RESHAPES[case](y)
        node = out.grad_fn
        # (torch shows a negative dim it saved as 2**64 + dim; teachgrad saves it normalised)
        saved = {} if "negative" in case else {
            name: getattr(node, name) for name in dir(node)
            if name in ("_saved_dim", "_saved_dim0", "_saved_dim1")}
        weights = tg.arange(1.0, out.numel() + 1).view(out.shape)
        (out * weights).sum().backward()
        return {"same_tensor": out is y or case == "t_of_a_vector", "shape": tuple(out.shape),
                "stride": out.stride(), "version": out._version, "node": D.node_name(node),
                "next": D.node_name(node.next_functions[0][0]), "saved": saved, "x_grad": x.grad}
    run(prog)


def test_unsqueeze_saves_the_dim_it_was_given():
    def prog(tg):
        y = tg.ones(2, 3, requires_grad=True) * 1
        return {"dim": y.unsqueeze_(1).grad_fn._saved_dim}
    run(prog)


@pytest.mark.parametrize("case", ["t_", "unsqueeze_", "squeeze_all"])
def test_retain_grad_stays_with_the_old_shape(case):
    """PyTorch leaves a retain_grad() on the node before the reshape: .grad keeps the
    tensor's old shape (an in-place op on values moves it to the new node)."""
    def prog(tg):
        _, y = _shaped(tg, case)
        y.retain_grad()
        RESHAPES[case](y)
        (y * tg.arange(6.0).view(y.shape)).sum().backward()
        return {"grad": y.grad, "shape": tuple(y.shape), "retains": y.retains_grad}
    run(prog)


def test_a_view_reshaped_in_place_stays_a_view_of_its_base():
    def prog(tg):
        leaf = tg.arange(6.0, requires_grad=True)
        base = leaf.view(2, 3) * 1
        row = base[1]
        row.unsqueeze_(0)
        first = {"row_is_view": row._base is base, "versions": (row._version, base._version),
                 "node": D.name(row), "next": D.node_name(row.grad_fn.next_functions[0][0]),
                 "base_node": D.name(base)}
        (row * tg.tensor([[1.0, 2.0, 3.0]])).sum().backward(retain_graph=True)
        base.mul_(2)            # the row's history is now replayed from the changed base
        row.sum().backward()
        return {**first, "after_base_changed": D.name(row), "row": row,
                "leaf_grad": leaf.grad}
    run(prog)


def test_a_leaf_without_grad_is_reshaped_and_writes_through():
    def prog(tg):
        a = tg.zeros(3, 1)
        a.squeeze_(1)
        b = tg.zeros(2, 3)
        b.t_()[0, 1] = 5.0
        return {"a": a, "a_version": a._version, "b": b, "b_stride": b.stride()}
    run(prog)


def test_no_grad_reshapes_a_leaf_that_requires_grad():
    def prog(tg):
        x = tg.ones(2, 3, requires_grad=True)
        with tg.no_grad():
            x.t_()
        return {"x": x, "leaf": x.is_leaf, "version": x._version, "stride": x.stride()}
    run(prog)


ERRORS = {
    "leaf_requires_grad": lambda tg: tg.ones(2, 3, requires_grad=True).t_(),
    "view_of_leaf": lambda tg: tg.ones(2, 3, requires_grad=True)[0].unsqueeze_(0),
    "split_piece": lambda tg: (tg.ones(4, requires_grad=True) * 1).split(2)[0].unsqueeze_(0),
    "t_of_3d": lambda tg: tg.ones(2, 3, 4).t_(),
    "squeeze_dim_out_of_range": lambda tg: tg.ones(3, 2).squeeze_(5),
    "unsqueeze_dim_out_of_range": lambda tg: tg.ones(3, 2).unsqueeze_(-4),
    "transpose_dim_out_of_range": lambda tg: tg.ones(3).transpose_(0, 3),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors(case):
    raises = "IndexError" if "range" in case else "RuntimeError"
    run(ERRORS[case], raises=raises)


def test_a_failed_reshape_leaves_shape_and_version_alone():
    def prog(tg):
        y = tg.ones(2, 3, 4) * 1
        try:
            y.t_()
        except RuntimeError as error:
            return {"shape": tuple(y.shape), "version": y._version, "error": str(error)}
    run(prog)


def test_a_view_made_under_no_grad_may_not_be_reshaped_with_grad_on():
    def prog(tg):
        x = tg.ones(2, 3, requires_grad=True)
        with tg.no_grad():
            row = x[0]
        row.unsqueeze_(0)
    run(prog, raises="RuntimeError")
