"""More shape and construction functions, compared with torch: atleast_nd, column_stack,
dstack, tensor_split and hsplit/vsplit/dsplit, unflatten, ravel, moveaxis, rot90, fliplr,
flipud, block_diag, tril/triu_indices, cartesian_prod, combinations, the *_scatter ops,
narrow_copy, diagflat, broadcast_shapes, as_strided, index_copy and index_fill.

For each: the values, the nodes of the graph (and their saved arguments where the node is
the op's own), which results are views of the input (``_base``, a shared version counter),
the gradients, and PyTorch's errors."""
import pytest

try:
    from . import differential as D
except ImportError:
    import differential as D

torch = pytest.importorskip("torch")
run = D.run_both


def _pieces(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


def report(tg, op, shape=(2, 3, 4), second=False):
    """``out = op(tg, x)`` for a leaf ``x``: the output(s), each one's graph and whether it
    is ``x`` itself or a view of ``x``, and the gradient of a loss of all outputs (with
    ``second``, the gradient of that gradient too)."""
    x = tg.tensor(D.data(shape), requires_grad=True)
    out = op(tg, x)
    pieces = _pieces(out)
    facts = {"out": out, "graphs": [D.graph(p) for p in pieces],
             "is_input": [p is x for p in pieces], "view_of_input": [p._base is x for p in pieces]}
    needing = [p for p in pieces if p.requires_grad]
    if not needing:
        return facts
    loss = sum((p * p + p).sum() for p in needing)
    (grad,) = tg.autograd.grad(loss, x, create_graph=second, allow_unused=True)
    facts["grad"] = D.loose(grad)
    if second:
        facts["second"] = D.loose(tg.autograd.grad((grad * grad).sum(), x)[0])
    return facts


def memory_report(tg, op, shape=(2, 3, 4)):
    """Does a change of the input show in the output (same memory) and bump its version (same
    version counter)? The input does not require grad here."""
    x = tg.tensor(D.data(shape))
    pieces = _pieces(op(tg, x))
    before = [p.clone() for p in pieces]
    x.add_(1)
    return {"changed": [not tg.equal(p, b) for p, b in zip(pieces, before)],
            "versions": [p._version for p in pieces], "views": [p._base is x for p in pieces]}


OPS = {
    # at least n dimensions: reshape (a view) for a number, unsqueeze for a vector...
    "atleast_1d_number": (lambda tg, x: tg.atleast_1d(x), ()),
    "atleast_1d_vector": (lambda tg, x: tg.atleast_1d(x), (3,)),
    "atleast_1d_list": (lambda tg, x: tg.atleast_1d([x, x[0]]), (3,)),
    "atleast_1d_varargs": (lambda tg, x: tg.atleast_1d(x[0], x), (3,)),
    "atleast_2d_number": (lambda tg, x: tg.atleast_2d(x), ()),
    "atleast_2d_vector": (lambda tg, x: tg.atleast_2d(x), (3,)),
    "atleast_2d_matrix": (lambda tg, x: tg.atleast_2d(x), (2, 3)),
    "atleast_3d_number": (lambda tg, x: tg.atleast_3d(x), ()),
    "atleast_3d_vector": (lambda tg, x: tg.atleast_3d(x), (3,)),
    "atleast_3d_matrix": (lambda tg, x: tg.atleast_3d(x), (2, 3)),
    "atleast_3d_block": (lambda tg, x: tg.atleast_3d((x, x[0], x[0, 0], x[0, 0, 0])), (2, 3, 4)),
    # stacking
    "column_stack": (lambda tg, x: tg.column_stack([x[0], x.t(), x[1]]), (2, 3)),
    "stacks_of_numbers": (lambda tg, x: (tg.column_stack((x[0], x[1])), tg.hstack([x[0], x]),
                                         tg.vstack([x[0], x[1:2]])), (2,)),
    "dstack": (lambda tg, x: tg.dstack([x, x[0], x * 2]), (1, 2)),
    "dstack_one": (lambda tg, x: tg.dstack([x]), ()),
    # splitting into slices, each its own SliceBackward0
    "tensor_split_sections": (lambda tg, x: tg.tensor_split(x, 3, dim=-1), (2, 3, 8)),
    "tensor_split_indices": (lambda tg, x: x.tensor_split([1, 4], 1), (2, 6, 2)),
    "tensor_split_indices_out_of_order": (lambda tg, x: tg.tensor_split(x, (4, 2, 9, -1), 1),
                                          (2, 6)),
    "tensor_split_tensor_indices": (lambda tg, x: tg.tensor_split(x, tg.tensor([1, 2])), (4,)),
    "tensor_split_tensor_sections": (lambda tg, x: tg.tensor_split(x, tg.tensor(3), 1), (2, 7)),
    "tensor_split_more_sections": (lambda tg, x: tg.tensor_split(x, 5), (3,)),
    "hsplit": (lambda tg, x: tg.hsplit(x, 2), (2, 4, 3)),
    "hsplit_vector": (lambda tg, x: x.hsplit([1, 3]), (4,)),
    "vsplit": (lambda tg, x: x.vsplit(2), (4, 3)),
    "vsplit_indices": (lambda tg, x: tg.vsplit(x, [3]), (4, 3)),
    "dsplit": (lambda tg, x: tg.dsplit(x, [1, 2]), (2, 2, 4)),
    # views of the whole
    "unflatten": (lambda tg, x: tg.unflatten(x, 1, (3, 1)), (2, 3, 4)),
    "unflatten_inferred": (lambda tg, x: x.unflatten(-1, (2, -1)), (2, 3, 4)),
    "unflatten_transposed": (lambda tg, x: x.transpose(0, 2).unflatten(0, (2, 2)), (2, 3, 4)),
    "ravel": (lambda tg, x: tg.ravel(x), (2, 3, 4)),
    "ravel_number": (lambda tg, x: x.ravel(), ()),
    "ravel_transposed": (lambda tg, x: x.t().ravel(), (2, 3)),
    "moveaxis": (lambda tg, x: tg.moveaxis(x, 0, -1), (2, 3, 4)),
    "moveaxis_many": (lambda tg, x: x.moveaxis((0, 1), (2, 0)), (2, 3, 4)),
    "as_strided": (lambda tg, x: tg.as_strided(x, (2, 2), (1, 2), 1), (3, 4)),
    "as_strided_overlapping": (lambda tg, x: x.as_strided((3, 3), (1, 1)), (3, 4)),
    "as_strided_repeating": (lambda tg, x: x.as_strided((2, 3), (0, 2)), (3, 4)),
    "as_strided_of_a_slice": (lambda tg, x: x[1:].as_strided((2, 2), (1, 3)), (3, 4)),
    "as_strided_of_a_slice_from_0": (lambda tg, x: x[1:].as_strided((2, 2), (3, 1), 0), (3, 4)),
    "as_strided_of_an_expanded": (lambda tg, x: x.expand(3, 4).as_strided((2, 2), (1, 1)), (4,)),
    "as_strided_empty": (lambda tg, x: x.as_strided((0, 3), (1, 1), 12), (3, 4)),
    # copies
    "rot90": (lambda tg, x: tg.rot90(x), (2, 3, 4)),
    "rot90_k2": (lambda tg, x: x.rot90(2, [0, 2]), (2, 3, 4)),
    "rot90_k3_negative_dims": (lambda tg, x: tg.rot90(x, 3, [2, -3]), (2, 3, 4)),
    "rot90_k_negative": (lambda tg, x: tg.rot90(x, -1), (2, 3)),
    "rot90_k0": (lambda tg, x: tg.rot90(x, 0), (2, 3)),
    "rot90_k5": (lambda tg, x: tg.rot90(x, 5, (1, 0)), (2, 3)),
    "fliplr": (lambda tg, x: tg.fliplr(x), (2, 3, 4)),
    "flipud": (lambda tg, x: x.flipud(), (3,)),
    "block_diag": (lambda tg, x: tg.block_diag(x, x[0], x[1, 1], x[:, :1]), (2, 3)),
    "block_diag_empty_blocks": (lambda tg, x: tg.block_diag(x[:0], x[:, :0], x), (2, 3)),
    "cartesian_prod": (lambda tg, x: tg.cartesian_prod(x, x[1:], x[:2]), (3,)),
    "cartesian_prod_one": (lambda tg, x: tg.cartesian_prod(x), (3,)),
    "cartesian_prod_size_one": (lambda tg, x: tg.cartesian_prod(x[:1], x), (3,)),
    "combinations": (lambda tg, x: tg.combinations(x), (4,)),
    "combinations_3_with_replacement": (lambda tg, x: tg.combinations(x, 3, True), (3,)),
    "combinations_1": (lambda tg, x: tg.combinations(x, 1), (3,)),
    "combinations_0": (lambda tg, x: tg.combinations(x, 0), (3,)),
    "combinations_too_many": (lambda tg, x: tg.combinations(x, 4), (3,)),
    "narrow_copy": (lambda tg, x: tg.narrow_copy(x, 1, 1, 2), (3, 4)),
    "narrow_copy_negative": (lambda tg, x: x.narrow_copy(-1, -3, 2), (3, 4)),
    "narrow_negative_start": (lambda tg, x: x.narrow(-1, -3, 2), (3, 4)),
    "diagflat": (lambda tg, x: tg.diagflat(x), (3,)),
    "diagflat_matrix": (lambda tg, x: x.diagflat(-1), (2, 2)),
    "diagflat_transposed": (lambda tg, x: x.t().diagflat(1), (2, 3)),
    "diagflat_number": (lambda tg, x: tg.diagflat(x), ()),
    # writing into a region
    "select_scatter": (lambda tg, x: tg.select_scatter(x, x[0] * 2, 0, 1), (3, 4)),
    "select_scatter_negative": (lambda tg, x: x.select_scatter(x[:, 0].exp(), -1, -1), (3, 4)),
    "select_scatter_number": (lambda tg, x: tg.select_scatter(x, x[0] * 3, 0, 2), (3,)),
    "slice_scatter": (lambda tg, x: tg.slice_scatter(x, x[:, :2] * 2, 1, 1, 4, 2), (3, 4)),
    "slice_scatter_whole": (lambda tg, x: x.slice_scatter(x.exp()), (3, 4)),
    "slice_scatter_negative": (lambda tg, x: tg.slice_scatter(x, x[:, :2], -1, -2), (3, 4)),
    "diagonal_scatter": (lambda tg, x: tg.diagonal_scatter(x, x[0, :3] * 2, 1), (3, 4)),
    "diagonal_scatter_dims": (lambda tg, x: x.diagonal_scatter(x[0, :, :2].exp(), -1, -1, 0),
                              (2, 3, 3)),
    # copying and filling along a dimension
    "index_copy": (lambda tg, x: x.index_copy(0, tg.tensor([2, 0]), x[:2] * 5), (3, 4)),
    "index_copy_repeated": (lambda tg, x: tg.index_copy(x, -1, tg.tensor([1, 1]), x[:, :2].exp()),
                            (3, 4)),
    "index_copy_number": (lambda tg, x: x.index_copy(0, tg.tensor(1), x[0] * 2), (3,)),
    "index_fill": (lambda tg, x: x.index_fill(1, tg.tensor([2, 0]), -1.0), (3, 4)),
    "index_fill_negative": (lambda tg, x: tg.index_fill(x, -1, tg.tensor([-1, 0, -1]), 2), (3, 4)),
    "index_fill_tensor": (lambda tg, x: x.index_fill(0, tg.tensor([0, 0, 2]), x[1, 1] * 3),
                          (3, 4)),
    "index_fill_constant_tensor": (lambda tg, x: x.index_fill(0, tg.tensor([1]), tg.tensor(2.0)),
                                   (3, 4)),
    "index_fill_number_input": (lambda tg, x: x.index_fill(0, tg.tensor([0]), 7), ()),
}


@pytest.mark.parametrize("case", sorted(OPS))
def test_values_graph_views_and_gradient(case):
    op, shape = OPS[case]
    run(lambda tg: report(tg, op, shape))


SECOND = ["rot90", "rot90_k3_negative_dims", "block_diag", "as_strided_overlapping",
          "as_strided_of_an_expanded", "narrow_copy", "select_scatter", "slice_scatter",
          "diagonal_scatter", "index_copy", "index_fill_tensor", "combinations", "dstack",
          "tensor_split_sections"]


@pytest.mark.parametrize("case", SECOND)
def test_second_derivative(case):
    op, shape = OPS[case]
    run(lambda tg: report(tg, op, shape, second=True))


MEMORY = ["atleast_2d_vector", "atleast_3d_number", "tensor_split_indices", "hsplit", "dsplit",
          "unflatten_transposed", "ravel", "ravel_transposed", "moveaxis", "as_strided",
          "as_strided_overlapping", "as_strided_of_a_slice", "rot90", "fliplr", "narrow_copy",
          "narrow_negative_start", "diagflat", "select_scatter", "column_stack", "dstack",
          "stacks_of_numbers", "cartesian_prod_one"]


@pytest.mark.parametrize("case", MEMORY)
def test_which_results_share_memory_and_version(case):
    op, shape = OPS[case]
    run(lambda tg: memory_report(tg, op, shape))


def saved(node, names):
    return {name: getattr(node, f"_saved_{name}") for name in names}


SAVED = {
    "rot90": (lambda tg, x: tg.rot90(x, 3, [1, -2]), ("dims", "k")),
    "rot90_negative_k": (lambda tg, x: x.rot90(-1), ("dims", "k")),
    "as_strided": (lambda tg, x: x.as_strided((2, 2), (1, 2), 1),
                   ("size", "stride", "storage_offset")),
    "as_strided_default_offset": (lambda tg, x: tg.as_strided(x, (2,), (3,)),
                                  ("size", "stride", "storage_offset")),
    "narrow_copy": (lambda tg, x: x.narrow_copy(-1, -1, 1),
                    ("dim", "start", "length", "self_sym_sizes")),
    "select_scatter": (lambda tg, x: tg.select_scatter(x, x[0], -2, -1), ("dim", "index")),
    "slice_scatter": (lambda tg, x: tg.slice_scatter(x, x[:, :2], -1, -2),
                      ("dim", "start", "end", "step")),
    "slice_scatter_bounds": (lambda tg, x: tg.slice_scatter(x, x[:, :2], 1, 1, 4, 2),
                             ("dim", "start", "end", "step")),
    "diagonal_scatter": (lambda tg, x: tg.diagonal_scatter(x, x[:, 0], -1, -1, 0),
                         ("offset", "dim1", "dim2")),
    "index_copy": (lambda tg, x: x.index_copy(-1, tg.tensor([0, 2]), x[:, :2] * 2),
                   ("dim", "index", "source", "source_dim")),
    "index_copy_constant_source": (lambda tg, x: x.index_copy(0, tg.tensor([1]), tg.ones(1, 4)),
                                   ("dim", "index", "source", "source_dim")),
    "index_fill": (lambda tg, x: x.index_fill(-1, tg.tensor([0]), 2), ("dim", "index")),
    "index_fill_tensor": (lambda tg, x: x.index_fill(1, tg.tensor([0]), x[0, 0]), ("dim", "index")),
    "tensor_split_piece": (lambda tg, x: tg.tensor_split(x, [3, 1])[1], ("dim", "start", "end")),
    "tensor_split_negative_index": (lambda tg, x: tg.tensor_split(x, [-1, 1], 1)[1],
                                    ("dim", "start", "end")),
    "slice_negative_bounds": (lambda tg, x: x[-3:-1], ("dim", "start", "end", "step")),
}


@pytest.mark.parametrize("case", sorted(SAVED))
def test_saved_arguments_of_the_node(case):
    op, names = SAVED[case]

    def prog(tg):
        x = tg.tensor(D.data((3, 4)), requires_grad=True)
        node = op(tg, x).grad_fn
        return {"node": D.name(node), "saved": saved(node, names)}
    run(prog)


def test_tensor_split_pieces_may_change_in_place_unlike_split_pieces():
    def prog(tg):
        x = tg.tensor(D.data((4, 3)), requires_grad=True)
        y = x * 1
        first, second = tg.tensor_split(y, 2)
        second.mul_(2)
        (y * y).sum().backward()
        try:                            # (a piece of split may not)
            tg.split(y, 2)[0].mul_(2)
        except RuntimeError as error:
            refusal = str(error).split(".")[0]
        return {"base": D.graph(y), "piece": D.graph(second), "grad": x.grad,
                "versions": (first._version, second._version, y._version), "split": refusal}
    run(prog)


def test_as_strided_view_changed_in_place_goes_through_copy_slices():
    def prog(tg):
        x = tg.tensor(D.data((3, 4)), requires_grad=True)
        y = x * 1
        window = y.as_strided((2, 2), (4, 1), 5)
        window.mul_(3)
        (y * y).sum().backward()
        return {"y": y, "graph": D.graph(y), "window": D.graph(window), "grad": x.grad}
    run(prog)


def test_as_strided_offset_counts_from_the_start_of_the_memory():
    def prog(tg):
        x = tg.tensor(D.data((3, 4)))
        inner = x[1:, 1:]
        return {"default": inner.as_strided((2,), (4,)), "from_0": inner.as_strided((2,), (4,), 0),
                "from_7": tg.as_strided(inner, (2, 2), (2, 1), 7), "strides": inner.stride()}
    run(prog)


def test_strides_of_the_copies_are_torch_s():
    def prog(tg):
        x = tg.tensor(D.data((2, 3, 4)))
        return {"rot90_" + str(k): tg.rot90(x, k, [0, 2]).stride() for k in range(4)} | {
            "block_diag": tg.block_diag(x[0], x[1]).stride(), "narrow_copy":
            x.narrow_copy(2, 1, 2).stride(), "diagflat": tg.diagflat(x[0]).stride()}
    run(prog)


def test_in_place_index_copy_and_index_fill():
    def prog(tg):
        x = tg.tensor(D.data((3, 4)), requires_grad=True)
        source = tg.tensor(D.data((3, 2), seed=1), requires_grad=True)
        value = tg.tensor(1.5, requires_grad=True)
        y = x * 1
        same = y.index_copy_(1, tg.tensor([3, 0]), source)
        z = x * 2
        z.index_fill_(0, tg.tensor([1]), value)
        (y * y).sum().backward()
        (z * z).sum().backward()
        return {"same": same is y, "y": y, "y_graph": D.graph(y), "z": z, "z_graph": D.graph(z),
                "grads": (x.grad, source.grad, value.grad)}
    run(prog)


def test_in_place_index_fill_of_an_integer_tensor_truncates():
    def prog(tg):
        x = tg.tensor([1, 2, 3])
        x.index_fill_(0, tg.tensor([0, 2]), 2.7)
        return {"x": x, "version": x._version}
    run(prog)


def test_index_copy_saves_its_source():
    def prog(tg):
        x = tg.tensor(D.data((3, 4)), requires_grad=True)
        source = tg.tensor(D.data((1, 4), seed=2), requires_grad=True) * 1
        y = x.index_copy(0, tg.tensor([1]), source)
        source.add_(1)
        y.sum().backward()
    run(prog, raises="RuntimeError")


def test_index_positions_of_triangles():
    def prog(tg):
        return {"tril": tg.tril_indices(3, 4), "triu_above": tg.triu_indices(3, 4, 1),
                "tril_below": tg.tril_indices(4, 3, -1),
                "int32": tg.tril_indices(3, 3, dtype=tg.int32),
                "empty": tg.triu_indices(0, 0), "all": tg.triu_indices(3, 3, -100),
                "none": tg.tril_indices(3, 3, -100), "wide": tg.triu_indices(2, 5, 2)}
    run(prog)


def test_broadcast_shapes():
    def prog(tg):
        return {"pair": tg.broadcast_shapes((2, 1), (3, 1, 1)),
                "number": tg.broadcast_shapes(5, (3, 1)),
                "none": tg.broadcast_shapes(), "lists": tg.broadcast_shapes([1, 4], [3, 1], (4,)),
                "zero": tg.broadcast_shapes((0, 1), (1, 3)),
                "type": type(tg.broadcast_shapes((2,))).__name__,
                "repr": repr(tg.broadcast_shapes((2, 1), (2,)))}
    run(prog)


def test_block_diag_promotes_and_keeps_integers():
    def prog(tg):
        floats = tg.tensor([1.0, 2.0], dtype=tg.float64, requires_grad=True)
        single = tg.tensor([[3.0]], requires_grad=True)
        out = tg.block_diag(floats, single, tg.tensor([4, 5]), tg.ones(0, requires_grad=True))
        (out * out).sum().backward()
        return {"out": out, "grads": (floats.grad, single.grad),
                "integers": tg.block_diag(tg.tensor(3), tg.tensor([[True, False]])),
                "nothing": tg.block_diag()}
    run(prog)


def test_scatter_sources_of_another_dtype():
    def prog(tg):
        x = tg.zeros(3, requires_grad=True)
        source = tg.tensor(2.0, dtype=tg.float64, requires_grad=True)
        out = tg.select_scatter(x, source, 0, 1)
        (out * tg.tensor([1.0, 2.0, 3.0])).sum().backward()
        return {"out": out, "grads": (x.grad, source.grad),
                "ints": tg.select_scatter(tg.tensor([[1, 2], [3, 4]]), tg.tensor([1.7, -2.5]),
                                          0, 0)}
    run(prog)


ERRORS = {
    "tensor_split_number": lambda tg: tg.tensor_split(tg.tensor(1.0), 2),
    "tensor_split_no_sections": lambda tg: tg.tensor_split(tg.ones(4), 0),
    "tensor_split_negative_sections": lambda tg: tg.ones(4).tensor_split(-1),
    "tensor_split_dim": lambda tg: tg.tensor_split(tg.ones(4, 2), [1, 2], 5),
    "tensor_split_float_tensor": lambda tg: tg.tensor_split(tg.ones(4), tg.tensor([1.0])),
    "tensor_split_matrix_tensor": lambda tg: tg.tensor_split(tg.ones(4), tg.tensor([[1]])),
    "hsplit_number": lambda tg: tg.hsplit(tg.tensor(1.0), 2),
    "hsplit_not_divisible": lambda tg: tg.hsplit(tg.ones(3, 3), 2),
    "hsplit_vector_not_divisible": lambda tg: tg.ones(3).hsplit(2),
    "hsplit_zero": lambda tg: tg.hsplit(tg.ones(3, 4), 0),
    "vsplit_vector": lambda tg: tg.vsplit(tg.ones(3), 3),
    "vsplit_not_divisible": lambda tg: tg.ones(3, 3).vsplit(2),
    "dsplit_matrix": lambda tg: tg.dsplit(tg.ones(2, 2), 2),
    "dsplit_not_divisible": lambda tg: tg.dsplit(tg.ones(4, 4, 4), 3),
    "column_stack_empty": lambda tg: tg.column_stack([]),
    "column_stack_sizes": lambda tg: tg.column_stack([tg.ones(2), tg.ones(3)]),
    "column_stack_dims": lambda tg: tg.column_stack((tg.ones(2, 1, 1), tg.ones(2))),
    "dstack_empty": lambda tg: tg.dstack([]),
    "dstack_sizes": lambda tg: tg.dstack((tg.ones(2, 1), tg.ones(3))),
    "hstack_empty": lambda tg: tg.hstack([]),
    "vstack_empty": lambda tg: tg.vstack(()),
    "unflatten_sizes": lambda tg: tg.unflatten(tg.ones(3, 4), 1, (3,)),
    "unflatten_negative_dim_sizes": lambda tg: tg.ones(3, 4).unflatten(-1, (-1, 3)),
    "unflatten_two_inferred": lambda tg: tg.unflatten(tg.ones(3, 4), 1, (-1, -1)),
    "unflatten_no_sizes": lambda tg: tg.unflatten(tg.ones(3, 4), 1, ()),
    "unflatten_dim": lambda tg: tg.unflatten(tg.ones(3, 4), 2, (1, 4)),
    "unflatten_number": lambda tg: tg.unflatten(tg.tensor(1.0), 0, (1,)),
    "moveaxis_lengths": lambda tg: tg.moveaxis(tg.ones(2, 3), (0, 1), (0,)),
    "moveaxis_repeated_source": lambda tg: tg.moveaxis(tg.ones(2, 3, 4), (0, -3), (1, 2)),
    "moveaxis_repeated_destination": lambda tg: tg.ones(2, 3, 4).moveaxis((0, 1), (-1, 2)),
    "moveaxis_dim": lambda tg: tg.ones(2, 3).moveaxis(0, 2),
    "rot90_one_dim": lambda tg: tg.rot90(tg.ones(2, 3), 1, [0]),
    "rot90_same_dims": lambda tg: tg.rot90(tg.ones(2, 3), 1, [0, 0]),
    "rot90_same_dims_wrapped": lambda tg: tg.rot90(tg.ones(2, 3), 1, [0, -2]),
    "rot90_dim_out_of_range": lambda tg: tg.rot90(tg.ones(2, 3), 1, [0, 2]),
    "rot90_vector": lambda tg: tg.rot90(tg.ones(3)),
    "fliplr_vector": lambda tg: tg.fliplr(tg.ones(3)),
    "flipud_number": lambda tg: tg.tensor(1.0).flipud(),
    "block_diag_3d": lambda tg: tg.block_diag(tg.ones(2), tg.ones(2, 2, 2)),
    "cartesian_prod_matrix": lambda tg: tg.cartesian_prod(tg.ones(2, 2), tg.ones(2)),
    "cartesian_prod_number": lambda tg: tg.cartesian_prod(tg.ones(()), tg.ones(2)),
    "cartesian_prod_nothing": lambda tg: tg.cartesian_prod(),
    "cartesian_prod_dtypes": lambda tg: tg.cartesian_prod(tg.ones(2), tg.tensor([1, 2])),
    "combinations_matrix": lambda tg: tg.combinations(tg.ones(2, 2)),
    "combinations_negative": lambda tg: tg.combinations(tg.ones(2), -1),
    "tril_indices_negative_row": lambda tg: tg.tril_indices(-1, 2),
    "triu_indices_negative_col": lambda tg: tg.triu_indices(2, -1),
    "tril_indices_float": lambda tg: tg.tril_indices(3, 3, dtype=tg.float64),
    "triu_indices_bool": lambda tg: tg.triu_indices(3, 3, dtype=tg.bool),
    "select_scatter_size": lambda tg: tg.select_scatter(tg.zeros(3, 4), tg.ones(3), 0, 1),
    "select_scatter_index": lambda tg: tg.select_scatter(tg.zeros(3, 4), tg.ones(4), 0, 5),
    "select_scatter_negative_index": lambda tg: tg.zeros(3, 4).select_scatter(tg.ones(3), -1, -5),
    "slice_scatter_size": lambda tg: tg.slice_scatter(tg.zeros(3, 4), tg.ones(3, 3), 1),
    "slice_scatter_step": lambda tg: tg.slice_scatter(tg.zeros(3, 4), tg.ones(3, 2), 1, 0, 4, 0),
    "diagonal_scatter_size": lambda tg: tg.diagonal_scatter(tg.zeros(3, 4), tg.ones(2)),
    "diagonal_scatter_dims": lambda tg: tg.diagonal_scatter(tg.zeros(3, 4), tg.ones(3), 0, 1, 1),
    "narrow_copy_too_long": lambda tg: tg.narrow_copy(tg.ones(3, 4), 1, 3, 2),
    "narrow_copy_start": lambda tg: tg.ones(3, 4).narrow_copy(1, 5, 0),
    "narrow_copy_negative_length": lambda tg: tg.narrow_copy(tg.ones(3, 4), 1, 1, -1),
    "narrow_copy_number": lambda tg: tg.narrow_copy(tg.tensor(1.0), 0, 0, 1),
    "narrow_too_long": lambda tg: tg.narrow(tg.ones(3, 4), 1, 3, 2),
    "narrow_start": lambda tg: tg.ones(3, 4).narrow(-1, -5, 1),
    "narrow_negative_length": lambda tg: tg.narrow(tg.ones(3, 4), 1, 1, -1),
    "narrow_number": lambda tg: tg.narrow(tg.tensor(1.0), 0, 0, 1),
    "broadcast_shapes_mismatch": lambda tg: tg.broadcast_shapes((2, 3), (4,)),
    "broadcast_shapes_mismatch_later": lambda tg: tg.broadcast_shapes((1, 3), [2, 1], (5, 1)),
    "broadcast_shapes_negative": lambda tg: tg.broadcast_shapes((-1,), (2,)),
    "as_strided_out_of_memory": lambda tg: tg.as_strided(tg.ones(3, 4), (10, 10), (1, 1)),
    "as_strided_out_of_a_view_memory": lambda tg: tg.ones(3, 4)[1:].as_strided((2,), (1,), 11),
    "as_strided_negative_stride": lambda tg: tg.as_strided(tg.ones(3, 4), (2,), (-1,), 3),
    "as_strided_lengths": lambda tg: tg.ones(3, 4).as_strided((2,), (1, 1)),
    "as_strided_negative_offset": lambda tg: tg.as_strided(tg.ones(3, 4), (2,), (1,), -1),
    "as_strided_repeating_in_place": lambda tg: tg.ones(3, 4).as_strided((3, 3), (0, 1)).mul_(2),
    "index_copy_float_index": lambda tg: tg.ones(3, 4).index_copy(0, tg.tensor([0.0]),
                                                                  tg.ones(1, 4)),
    "index_copy_int32_index": lambda tg: tg.ones(3).index_copy(0, tg.tensor([0], dtype=tg.int32),
                                                               tg.ones(1)),
    "index_copy_matrix_index": lambda tg: tg.ones(3, 4).index_copy(0, tg.tensor([[0, 1]]),
                                                                   tg.ones(2, 4)),
    "index_copy_out_of_bounds": lambda tg: tg.ones(3, 4).index_copy(0, tg.tensor([0, 5]),
                                                                    tg.ones(2, 4)),
    "index_copy_negative_index": lambda tg: tg.ones(3, 4).index_copy(0, tg.tensor([-1]),
                                                                     tg.ones(1, 4)),
    "index_copy_count": lambda tg: tg.ones(3, 4).index_copy(0, tg.tensor([0]), tg.ones(2, 4)),
    "index_copy_slices": lambda tg: tg.ones(3, 4, 5).index_copy(1, tg.tensor([0]),
                                                                tg.ones(3, 1, 4)),
    "index_copy_dtype": lambda tg: tg.ones(3, 4).index_copy(0, tg.tensor([0]),
                                                            tg.ones(1, 4, dtype=tg.float64)),
    "index_copy_scalar_source": lambda tg: tg.ones(3, 4, 5).index_copy(1, tg.tensor([0, 1]),
                                                                       tg.ones(())),
    "index_copy_source_dims": lambda tg: tg.ones(3, 4, 5).index_copy(1, tg.tensor([0, 1]),
                                                                     tg.ones(3, 4)),
    "index_copy_dim": lambda tg: tg.index_copy(tg.ones(3, 4), 2, tg.tensor([0]), tg.ones(3, 1)),
    "index_fill_float_index": lambda tg: tg.ones(3, 4).index_fill(0, tg.tensor([0.0]), 1),
    "index_fill_int32_index": lambda tg: tg.ones(3).index_fill(0, tg.tensor([0], dtype=tg.int32),
                                                               1),
    "index_fill_matrix_index": lambda tg: tg.ones(3, 4).index_fill(0, tg.tensor([[0]]), 1),
    "index_fill_out_of_bounds": lambda tg: tg.ones(3, 4).index_fill(0, tg.tensor([5]), 1),
    "index_fill_too_negative": lambda tg: tg.index_fill(tg.ones(3, 4), 1, tg.tensor([-5]), 1),
    "index_fill_vector_value": lambda tg: tg.ones(3, 4).index_fill(0, tg.tensor([0]), tg.ones(2)),
    "index_fill_dim": lambda tg: tg.ones(3, 4).index_fill(-3, tg.tensor([0]), 1),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors(case):
    run(ERRORS[case], raises="Exception")
