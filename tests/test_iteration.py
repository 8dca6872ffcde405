"""Iterating over a tensor, compared with torch: ``for row in t`` is ``unbind(0)``, so all the
rows share one ``UnbindBackward0`` node and differ by ``output_nr``; they are views of ``t``
(its ``_base`` and version counter), and, as pieces of a function with several outputs,
may not be changed in place while autograd records. Also ``list``/``tuple``/unpacking,
1-d tensors (0-d rows), tensors that need no gradient, and ``x in t``."""
import pytest

try:
    from . import differential as D
except ImportError:
    import differential as D

torch = pytest.importorskip("torch")
run = D.run_both


def _matrix(tg, requires_grad=True):
    return tg.tensor(D.data((3, 2)), requires_grad=requires_grad)


def _rows_report(tg, rows):
    return {"rows": rows, "output_nr": [r.output_nr for r in rows],
            "one_node": all(r.grad_fn is rows[0].grad_fn for r in rows),
            "graph": D.graph(rows[0]) if rows[0].grad_fn is not None else None}


ITERATIONS = {
    "for": lambda t: [row for row in t],
    "list": lambda t: list(t),
    "tuple": lambda t: tuple(t),
    "unpacking": lambda t: _unpacked(t),
    "zip": lambda t: [row for row, _ in zip(t, range(2))],
}


def _unpacked(t):
    first, second, third = t
    return [first, second, third]


@pytest.mark.parametrize("how", sorted(ITERATIONS))
def test_the_rows_share_one_unbind_node(how):
    def prog(tg):
        x = _matrix(tg) * 2
        return _rows_report(tg, list(ITERATIONS[how](x)))
    run(prog)


def test_the_rows_of_a_leaf():
    run(lambda tg: _rows_report(tg, list(_matrix(tg))))


def test_each_iteration_makes_a_new_node():
    def prog(tg):
        x = _matrix(tg) * 2
        return {"same": next(iter(x)).grad_fn is next(iter(x)).grad_fn,
                "saved_dim": next(iter(x)).grad_fn._saved_dim}
    run(prog)


def test_the_rows_are_views_of_the_tensor():
    def prog(tg):
        x = _matrix(tg) * 2
        rows = list(x)
        bases = [r._base is x for r in rows]
        with tg.no_grad():
            x.mul_(3)
        return {"bases": bases, "versions": [r._version for r in rows], "x": x._version,
                "values": [r.tolist() for r in rows]}
    run(prog)


def test_gradients_through_the_rows():
    def prog(tg):
        w = _matrix(tg)
        total = 0
        for i, row in enumerate(w * 1):
            total = total + (row * (i + 1)).sum()
        total.backward()
        first = _matrix(tg)
        only_last = None
        for only_last in first:
            pass
        (only_last ** 2).sum().backward()
        return {"w_grad": w.grad, "only_last": first.grad}
    run(prog)


def test_rows_of_a_1d_tensor_are_0d():
    def prog(tg):
        v = tg.tensor([1.0, 2.0, 3.0], requires_grad=True)
        rows = list(v * 1)
        values = [r.item() for r in v]
        return {**_rows_report(tg, rows), "values": values, "shapes": [r.shape for r in rows]}
    run(prog)


NO_GRADIENT = {
    "plain": lambda tg: tg.zeros(2, 3),
    "integers": lambda tg: tg.arange(6).reshape(2, 3),
    "under_no_grad": lambda tg: _matrix(tg) * 2,
}


@pytest.mark.parametrize("case", sorted(NO_GRADIENT))
def test_rows_of_a_tensor_that_needs_no_gradient(case):
    def prog(tg):
        t = NO_GRADIENT[case](tg)
        if case == "under_no_grad":
            with tg.no_grad():
                rows = list(t)
        else:
            rows = list(t)
        return {"rows": rows, "bases": [r._base is t for r in rows]}
    run(prog)


def test_rows_of_rows():
    def prog(tg):
        x = _matrix(tg) * 2
        return [[(q.output_nr, D.name(q), q._base is x) for q in row] for row in x]
    run(prog)


def test_a_row_of_a_plain_tensor_may_be_changed_in_place():
    def prog(tg):
        n = tg.zeros(3, 2)
        rows = list(n)
        rows[0].add_(1)
        return {"n": n, "versions": [r._version for r in rows]}
    run(prog)


def test_a_row_changed_under_no_grad_before_backward():
    def prog(tg):
        rows = list(_matrix(tg) * 1)
        with tg.no_grad():
            rows[0].add_(1)
        return rows[0].grad_fn
    run(prog, raises="RuntimeError")


INPLACE_ERRORS = {
    "row_of_a_result": lambda tg: list(_matrix(tg) * 1)[1].mul_(2),
    "row_of_a_leaf": lambda tg: list(_matrix(tg))[0].add_(1),
    "setitem_in_a_row": lambda tg: list(_matrix(tg) * 1)[0].__setitem__(0, 5.0),
    "row_of_a_plain_tensor_with_a_gradient": lambda tg: list(tg.zeros(3, 2))[0].add_(
        _matrix(tg)[0]),
    "base_changed_then_grad_fn": lambda tg: _base_changed_then_grad_fn(tg),
    "row_of_a_1d_tensor": lambda tg: list(tg.tensor([1.0, 2.0], requires_grad=True) * 1)[0].add_(1),
}


def _base_changed_then_grad_fn(tg):
    x = _matrix(tg) * 1
    rows = list(x)
    x.add_(1)
    return rows[0].grad_fn


@pytest.mark.parametrize("case", sorted(INPLACE_ERRORS))
def test_a_row_may_not_be_changed_in_place_while_autograd_records(case):
    run(INPLACE_ERRORS[case], raises="RuntimeError")


ERRORS = {
    "0-d": ("TypeError", lambda tg: list(tg.tensor(1.0))),
    "unpacking_too_few": ("ValueError", lambda tg: _unpack_two(_matrix(tg))),
    "contains_a_string": ("RuntimeError", lambda tg: "a" in tg.zeros(2)),
}


def _unpack_two(t):
    first, second = t
    return first, second


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors(case):
    kind, prog = ERRORS[case]
    run(prog, raises=kind)


def test_an_empty_tensor_has_no_rows():
    run(lambda tg: list(tg.zeros(0, 2)))


def test_in_looks_at_the_elements():
    def prog(tg):
        t = tg.tensor([[1.0, 2.0], [3.0, 4.0]])
        return (3.0 in t, 5 in t, tg.tensor(2.0) in t, tg.tensor([3.0, 4.0]) in t)
    run(prog)


def _inference_matrix(tg):
    with tg.inference_mode():
        return tg.ones(3, 2)


def test_rows_of_an_inference_tensor_are_no_views_for_autograd():
    def prog(tg):
        t = _inference_matrix(tg)
        return [(r.is_inference(), r._base is None, r.requires_grad, r.grad_fn) for r in t]
    run(prog)


def test_a_row_of_an_inference_tensor_changed_in_place_with_a_gradient():
    """(The inference tensor's error, not the one for the pieces of unbind.)"""
    def prog(tg):
        rows = list(_inference_matrix(tg))
        rows[0].add_(tg.ones(2, requires_grad=True))
    run(prog, raises="RuntimeError")
