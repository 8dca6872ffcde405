"""Programs on which the differential fuzz (test_core_properties.py) once found teachgrad parting
from torch, each reduced to a few lines and compared with torch: issue 16's reproductions first,
then the cases its exploring mode found."""
import pytest

try:
    from . import differential as D
except ImportError:
    import differential as D

torch = pytest.importorskip("torch")
run = D.run_both


def state(*tensors):
    """What a test compares of each tensor at this moment: value, flags, node, version, grad."""
    return [D.snap(t) for t in tensors]


# ---- issue 16's reproductions ----------------------------------------------------------
def test_row_of_a_result_laid_out_transposed_copied_from_another_row():
    """The rows of a transposed result are strided views whose memory interleaves: PyTorch
    judges only densely laid out tensors, so it lets the copy happen."""
    def prog(tg):
        b = tg.ones(3, 4, requires_grad=True)
        e = b.reshape(4, 3).t() * 1.0
        e[0] = e[1]
        e.sum().backward()
        return state(e, b)
    run(prog)


def test_retain_grad_on_a_view_whose_base_is_then_changed_in_place():
    """The view's new node (replayed from its base's new history) keeps the retain_grad."""
    def prog(tg):
        c = tg.full((3, 4), 0.25, requires_grad=True)
        y = c * 1.0
        v = y[:, :]
        v.retain_grad()
        y.mul_(2.0)
        (v * 3.0).sum().backward()
        return state(v, y, c)
    run(prog)


def test_retain_grad_follows_a_base_changed_through_its_view_then_itself():
    """m[0] = m[1] moves m's retain_grad hook to its CopySlices; m.add_ then moves it on."""
    def prog(tg):
        a = tg.ones(3, 4, requires_grad=True)
        h = a.tanh()
        m = (h @ h.t()) @ h / 4.0
        m.retain_grad()
        m[0] = m[1]
        m.add_(h)
        (m * m).sum().backward()
        return state(m, a)
    run(prog)


def test_add_into_a_row_chosen_by_a_0d_integer_tensor():
    """``C[t] += x`` as a character-level language model writes it: ``C[t]`` is a view
    (select), ``+=`` changes it in place, and the assignment back copies it onto itself."""
    def prog(tg):
        w = tg.tensor(D.data((5, 2), seed=1), requires_grad=True)
        c = w * 1.0
        t = tg.tensor(3)
        x = tg.tensor(D.data((2,), seed=2), requires_grad=True)
        c[t] += x
        c[t] += x
        (c * c).sum().backward()
        return state(c, w, x)
    run(prog)


def test_count_pairs_with_0d_integer_tensor_indices():
    """Bigram counts: ``N[ix1, ix2] += 1`` with 0-d int64 tensors (and an int32 table)."""
    def prog(tg):
        n = tg.zeros((4, 4), dtype=tg.int32)
        chars = tg.tensor([0, 2, 3, 2, 3, 1])
        for ix1, ix2 in zip(chars, chars[1:]):
            n[ix1, ix2] += 1
        return n
    run(prog)


def test_0d_integer_tensor_beside_a_list_writes_through_a_view():
    """``x[t, [0, 1]] = v``: the 0-d tensor selects a row first (a view), so the result's
    history is a CopySlices around IndexPutBackward0, as for ``x[3, [0, 1]] = v``."""
    def prog(tg):
        x = tg.zeros(5, 3, requires_grad=True) * 1.0
        v = tg.tensor([1.5, -2.0], requires_grad=True)
        x[tg.tensor(3), [0, 1]] = v
        x.sum().backward()
        return {"x": x, "graph": D.graph(x), "v": v}
    run(prog)


# ---- PyTorch's overlap rules -------------------------------------------------------------
OVERLAPS = {
    "same_memory_other_order": lambda tg, x: x.add_(x.t()),
    "rows_shifted_by_one": lambda tg, x: x.__setitem__(slice(0, 2), x[1:3]),
    "columns_shifted_by_one": lambda tg, x: x.__setitem__((slice(None), slice(0, 2)), x[:, 1:3]),
    "row_onto_itself": lambda tg, x: x.__setitem__(0, x[0]),
    "row_of_transpose_from_another": lambda tg, x: x.t().__setitem__(0, x.t()[1]),
    "row_times_column": lambda tg, x: x[0].mul_(x[:, 0]),
    "whole_plus_its_row": lambda tg, x: x.add_(x[0]),
    "row_plus_whole_as_one_row": lambda tg, x: x[0].add_(x[0:1]),
    "flat_prefix_from_overlapping_rows": lambda tg, x: x.view(-1)[:8].copy_(x[1:3].reshape(-1)),
    "index_put_of_itself": lambda tg, x: x.view(-1).__setitem__(list(range(16)), x.view(-1)),
    "index_put_of_a_copy": lambda tg, x: x.__setitem__([0, 1], x[[2, 3]]),
    "mask_put_of_itself": lambda tg, x: x.__setitem__(tg.ones(4, 4, dtype=tg.bool), x),
    "index_copy_of_itself": lambda tg, x: x.index_copy_(0, tg.tensor([0, 1, 2, 3]), x),
    "put_of_itself": lambda tg, x: x.put_(tg.tensor([0, 1, 2, 3]), x[0]),
}


@pytest.mark.parametrize("case", sorted(OVERLAPS))
def test_inplace_ops_refuse_overlapping_inputs_as_pytorch_does(case):
    """PyTorch refuses an input that covers part of the written memory, or all of it in
    another order (and, for index_put_ and friends, all of it at all); views it cannot judge
    cheaply pass."""
    def prog(tg):
        x = tg.arange(16.0).reshape(4, 4)
        OVERLAPS[case](tg, x)
        return x
    run(prog, raises=D.ANY)


def test_view_of_a_leaf_error_comes_before_the_repeated_memory_error():
    """Autograd's checks run before the kernel's: an expanded row of a leaf gets the leaf's
    error, not the one about elements sharing memory."""
    def prog(tg):
        m = tg.zeros(4, 4, requires_grad=True)
        m[0].expand(3, 4).add_(1)
    run(prog, raises="RuntimeError")


# ---- found by the exploring mode ---------------------------------------------------------
def test_row_assigned_its_own_view_keeps_the_base_retained_grad():
    """``c[t] = v`` with ``v = c[t]``: the copy's node points at v's history from before the
    write, and v's next history goes through c's CopySlices, where c's retain_grad now is."""
    def prog(tg):
        b = tg.tensor([0.7, -0.4], requires_grad=True)
        c = b * 2
        c.retain_grad()
        v = c[tg.tensor(0)]
        c[tg.tensor(0)] = v
        v.backward(retain_graph=True)
        v.backward()
        return {"c": c, "v": v, "b": b, "graph": D.graph(v)}
    run(prog)


def test_retain_grad_on_a_view_changed_in_place():
    """The view's retain_grad moves from its old node to the one replayed from the base's
    CopySlices (the in-place op's own node never holds it)."""
    def prog(tg):
        b = tg.tensor([0.7, 0.2], requires_grad=True)
        c = b * 2
        w = c[0]
        w.retain_grad()
        w.mul_(3)
        (w * 2).backward()
        return state(w, c, b)
    run(prog)


def test_view_whose_base_came_to_require_grad_counts_as_a_leaf_until_asked():
    """A view made while its base needed no grad, the base then written from a tensor that
    does: PyTorch's check reads the view's stored (still empty) history, so the view counts as
    a leaf that requires grad -- as long as nothing asked for its grad_fn in between."""
    def prog(tg):
        a = tg.tensor([0.5], requires_grad=True)
        base = tg.ones(4, 1).cumsum(-1)
        view = base.t()
        base[0] = a
        view.zero_()
    run(prog, raises="RuntimeError")


def test_stale_piece_of_unbind_refused_before_the_overlap_check():
    """The in-place op takes its inputs' histories before the kernel runs: a piece of unbind
    whose base changed raises autograd's error, not the kernel's one about shared memory."""
    def prog(tg):
        a = tg.tensor([0.3, -0.2], requires_grad=True)
        y = a.masked_fill(a > 0, 0.5)
        piece = y.unbind(0)[-1]
        y[0] = y[-1]
        y.add_(piece)
    run(prog, raises="RuntimeError")


def test_retain_grad_again_on_a_stale_piece_of_chunk_is_a_no_op():
    """retain_grad() reads the tensor's stored node and flag first (as PyTorch does): a second
    call on a piece of chunk whose base changed since returns quietly; the error comes later,
    when backward asks for the piece's history."""
    def prog(tg):
        x = tg.tensor([0.3, -0.2, 0.5], requires_grad=True)
        y = x + x
        piece = y.chunk(2, -1)[0]
        piece.retain_grad()
        y[0] = 0.25
        piece.retain_grad()
        flag = piece.retains_grad
        try:
            piece.sum().backward()
        except RuntimeError as error:
            return {"retains": flag, "error": str(error).split(".")[0]}
    run(prog)


def test_first_retain_grad_on_a_stale_piece_of_chunk_raises_and_retains_nothing():
    def prog(tg):
        x = tg.tensor([0.3, -0.2, 0.5], requires_grad=True)
        y = x + x
        piece = y.chunk(2, -1)[0]
        y[0] = 0.25
        try:
            piece.retain_grad()
        except RuntimeError as error:
            return {"error": str(error).split(".")[0], "retains": piece.retains_grad}
    run(prog)


def test_retain_grad_on_a_view_made_before_its_base_required_grad_is_a_no_op():
    """Its stored node is empty, so PyTorch takes it for a leaf: nothing is retained."""
    def prog(tg):
        a = tg.tensor([0.5], requires_grad=True)
        base = tg.ones(4, 1).cumsum(-1)
        view = base.t()
        base[0] = a
        view.retain_grad()
        flag = view.retains_grad
        (view * 2).sum().backward()
        return {"retains": flag, "view": view, "a": a}
    run(prog)
