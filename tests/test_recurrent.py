"""The recurrent layers compared with torch: nn.RNN / LSTM / GRU and their cells (parameters
and their initialisation, outputs, gradients, the nodes of the graph, errors, warnings), and
``unsafe_split`` / ``unsafe_chunk``, with which the cells cut their gates."""
import pytest

try:
    from . import differential as D
except ImportError:
    import differential as D

torch = pytest.importorskip("torch")
run = D.run_both


def _tensor(tg, shape, seed, dtype, requires_grad=False):
    return tg.tensor(D.data(shape, seed, -1.0, 1.0), dtype=getattr(tg, dtype),
                     requires_grad=requires_grad)


def _weighted_sum(tg, tensors, dtype):
    """A loss that gives every element of every output its own gradient."""
    return sum((t * _tensor(tg, tuple(t.shape), 50 + k, dtype)).sum()
               for k, t in enumerate(tensors))


def _flat(result):
    """(output, h) or (output, (h, c)) or h or (h, c) -> a flat list of tensors."""
    if not isinstance(result, tuple):
        return [result]
    return [t for part in result for t in _flat(part)]


def module_report(tg, make, x_shape, states=(), *, dtype="float32", x_grad=True, graphs=True,
                  eval_mode=False, seed=0):
    """Build the module after manual_seed(seed), run it on fixed data, backward a weighted
    sum of all its outputs; report outputs, their graphs, the parameters with their .grad,
    and the gradients of the input and of the initial states."""
    tg.manual_seed(seed)
    module = make(tg)
    if eval_mode:
        module.eval()
    x = _tensor(tg, x_shape, 1, dtype, x_grad)
    given = [_tensor(tg, s, 2 + k, dtype, True) for k, s in enumerate(states)]
    if not given:
        result = module(x)
    elif isinstance(module, (tg.nn.LSTM, tg.nn.LSTMCell)):
        result = module(x, tuple(given))
    else:
        result = module(x, given[0])
    outputs = _flat(result)
    report = {"outputs": outputs}
    if graphs:
        report["graphs"] = [D.graph(t) for t in outputs]
    _weighted_sum(tg, outputs, dtype).backward()
    report["parameters"] = dict(module.named_parameters())
    report["x_grad"] = x.grad
    report["state_grads"] = [s.grad for s in given]
    return report


def lstm(**kw):
    return lambda tg: tg.nn.LSTM(3, 4, **kw)


def rnn(**kw):
    return lambda tg: tg.nn.RNN(3, 4, **kw)


def gru(**kw):
    return lambda tg: tg.nn.GRU(3, 4, **kw)


# name: (make, input shape, initial state shapes, options)
LAYERS = {
    "rnn": (rnn(), (3, 2, 3), (), {}),
    "rnn_relu_no_bias": (rnn(nonlinearity="relu", bias=False), (3, 2, 3), (), {}),
    "rnn_positional_nonlinearity": (lambda tg: tg.nn.RNN(3, 4, 1, "relu"), (2, 2, 3), (), {}),
    "rnn_two_layers_bidirectional_h0": (rnn(num_layers=2, bidirectional=True), (3, 2, 3),
                                        [(4, 2, 4)], {}),
    "rnn_batch_first": (rnn(batch_first=True), (1, 3, 3), [(1, 1, 4)], {}),
    "rnn_batch_first_batch_of_two": (rnn(batch_first=True), (2, 3, 3), (), {"graphs": False}),
    "rnn_unbatched": (rnn(), (3, 3), (), {}),
    "rnn_unbatched_h0": (rnn(num_layers=2), (3, 3), [(2, 4)], {}),
    "rnn_unbatched_batch_first": (rnn(batch_first=True), (3, 3), [(1, 4)], {}),
    "rnn_dropout": (rnn(num_layers=3, dropout=0.5), (3, 2, 3), (), {}),
    "rnn_dropout_in_eval": (rnn(num_layers=2, dropout=0.5), (3, 2, 3), (), {"eval_mode": True}),
    "rnn_float64": (lambda tg: tg.nn.RNN(3, 4, 2, dtype=tg.float64), (3, 2, 3), [(2, 2, 4)],
                    {"dtype": "float64"}),
    "gru": (gru(), (3, 2, 3), (), {}),
    "gru_no_bias_h0": (gru(bias=False), (3, 2, 3), [(1, 2, 4)], {}),
    "gru_two_layers_bidirectional": (gru(num_layers=2, bidirectional=True), (2, 2, 3), (), {}),
    "gru_batch_first": (gru(batch_first=True, bidirectional=True), (1, 3, 3), (), {}),
    "gru_batch_first_batch_of_two": (gru(batch_first=True), (2, 3, 3), (), {"graphs": False}),
    "gru_unbatched_h0": (gru(), (3, 3), [(1, 4)], {}),
    "gru_dropout": (gru(num_layers=2, dropout=0.3), (3, 2, 3), (), {"x_grad": False}),
    "gru_float64": (lambda tg: tg.nn.GRU(3, 4, dtype=tg.float64), (3, 2, 3), (),
                    {"dtype": "float64"}),
    # float32 LSTMs: one MkldnnRnnLayerBackward0 node per layer and direction
    "lstm": (lstm(), (3, 2, 3), (), {}),
    "lstm_input_needs_no_grad": (lstm(), (3, 2, 3), (), {"x_grad": False}),
    "lstm_no_bias": (lstm(bias=False), (3, 2, 3), (), {}),
    "lstm_two_layers_bidirectional_h0_c0": (lstm(num_layers=2, bidirectional=True), (3, 2, 3),
                                            [(4, 2, 4), (4, 2, 4)], {}),
    "lstm_batch_first": (lstm(batch_first=True), (2, 3, 3), (), {}),
    "lstm_batch_first_bidirectional": (lstm(batch_first=True, bidirectional=True), (2, 3, 3),
                                       [(2, 2, 4), (2, 2, 4)], {}),
    "lstm_unbatched_h0_c0": (lstm(num_layers=2), (3, 3), [(2, 4), (2, 4)], {}),
    "lstm_unbatched_batch_first": (lstm(batch_first=True, bidirectional=True), (3, 3), (), {}),
    "lstm_dropout": (lstm(num_layers=2, dropout=0.5), (3, 2, 3), (), {}),
    # the composed path: float64, and projections
    "lstm_float64": (lambda tg: tg.nn.LSTM(3, 4, 2, dtype=tg.float64), (3, 2, 3), (),
                     {"dtype": "float64"}),
    "lstm_float64_bidirectional_batch_first": (
        lambda tg: tg.nn.LSTM(3, 4, batch_first=True, bidirectional=True, dtype=tg.float64),
        (1, 3, 3), [(2, 1, 4), (2, 1, 4)], {"dtype": "float64"}),
    "lstm_projections": (lstm(proj_size=2, num_layers=2), (3, 2, 3), [(2, 2, 2), (2, 2, 4)], {}),
    "lstm_projections_bidirectional_batch_first": (
        lstm(proj_size=3, bidirectional=True, batch_first=True), (2, 3, 3), (), {"graphs": False}),
    "lstm_projections_float64": (lambda tg: tg.nn.LSTM(3, 4, proj_size=3, dtype=tg.float64),
                                 (3, 2, 3), (), {"dtype": "float64"}),
}


@pytest.mark.parametrize("case", sorted(LAYERS))
def test_layer_outputs_gradients_and_graph(case):
    make, x_shape, states, options = LAYERS[case]
    run(lambda tg: module_report(tg, make, x_shape, states, **options))


@pytest.mark.xfail(not D.SELFTEST, strict=True,
                   reason="teachgrad's F.linear sends a non-contiguous 3-D input through "
                   "reshape + addmm; PyTorch's linear uses matmul + add_ for it")
@pytest.mark.parametrize("layer", ["RNN", "GRU"])
def test_batch_first_graph_of_a_batch_of_two(layer):
    """(batch_first transposes the input, which is then no longer contiguous.)"""
    run(lambda tg: D.graph(getattr(tg.nn, layer)(3, 4, batch_first=True)(
        _tensor(tg, (2, 3, 3), 1, "float32", True))[0]))


CELLS = {
    "rnn_cell": (lambda tg: tg.nn.RNNCell(3, 4), (2, 3), ()),
    "rnn_cell_h0": (lambda tg: tg.nn.RNNCell(3, 4), (2, 3), [(2, 4)]),
    "rnn_cell_relu_no_bias": (lambda tg: tg.nn.RNNCell(3, 4, bias=False, nonlinearity="relu"),
                              (2, 3), [(2, 4)]),
    "rnn_cell_unbatched": (lambda tg: tg.nn.RNNCell(3, 4), (3,), [(4,)]),
    "lstm_cell": (lambda tg: tg.nn.LSTMCell(3, 4), (2, 3), ()),
    "lstm_cell_h0_c0": (lambda tg: tg.nn.LSTMCell(3, 4), (2, 3), [(2, 4), (2, 4)]),
    "lstm_cell_no_bias_unbatched": (lambda tg: tg.nn.LSTMCell(3, 4, bias=False), (3,),
                                    [(4,), (4,)]),
    "gru_cell": (lambda tg: tg.nn.GRUCell(3, 4), (2, 3), ()),
    "gru_cell_h0": (lambda tg: tg.nn.GRUCell(3, 4), (2, 3), [(2, 4)]),
    "gru_cell_unbatched": (lambda tg: tg.nn.GRUCell(3, 4, bias=False), (3,), [(4,)]),
}


@pytest.mark.parametrize("case", sorted(CELLS))
def test_cell_outputs_gradients_and_graph(case):
    make, x_shape, states = CELLS[case]
    run(lambda tg: module_report(tg, make, x_shape, states))


def test_cells_in_float64():
    def prog(tg):
        return [module_report(tg, lambda tg, c=cell: c(3, 4, dtype=tg.float64), (2, 3),
                              dtype="float64")
                for cell in (tg.nn.RNNCell, tg.nn.LSTMCell, tg.nn.GRUCell)]
    run(prog)


def test_a_cell_run_along_a_sequence_matches_torch():
    def prog(tg):
        tg.manual_seed(3)
        cell = tg.nn.LSTMCell(3, 4)
        x = _tensor(tg, (4, 2, 3), 1, "float32", True)
        h, c = tg.zeros(2, 4), tg.zeros(2, 4)
        hs = []
        for x_t in x:
            h, c = cell(x_t, (h, c))
            hs.append(h)
        out = tg.stack(hs)
        out.pow(2).sum().backward()
        return {"out": out, "graph": D.graph(out), "x_grad": x.grad,
                "weight_grad": cell.weight_hh.grad}
    run(prog)


# ---- parameters ---------------------------------------------------------------------------
PARAMETER_CASES = {
    "rnn": lambda tg: tg.nn.RNN(3, 5, 2, nonlinearity="relu", bidirectional=True),
    "gru_no_bias": lambda tg: tg.nn.GRU(2, 3, 3, bias=False),
    "lstm_projections": lambda tg: tg.nn.LSTM(3, 4, 2, bidirectional=True, proj_size=2),
    "lstm_no_bias_projections": lambda tg: tg.nn.LSTM(3, 4, bias=False, proj_size=3),
    "rnn_cell": lambda tg: tg.nn.RNNCell(3, 4, nonlinearity="relu"),
    "lstm_cell_no_bias": lambda tg: tg.nn.LSTMCell(3, 4, bias=False),
    "gru_cell": lambda tg: tg.nn.GRUCell(2, 6, dtype=tg.float64),
}


@pytest.mark.parametrize("case", sorted(PARAMETER_CASES))
def test_parameters_names_order_and_initial_values(case):
    def prog(tg):
        tg.manual_seed(7)
        module = PARAMETER_CASES[case](tg)
        first = [(name, p) for name, p in module.named_parameters()]
        module.reset_parameters()
        return {"parameters": first, "after_reset": D.snap(list(module.parameters())),
                "repr": repr(module), "state_dict_keys": list(module.state_dict())}
    run(prog)


def test_layer_attributes():
    def prog(tg):
        lstm = tg.nn.LSTM(3, 4, 2, batch_first=True, dropout=0.25, proj_size=2)
        rnn = tg.nn.RNN(3, 4, nonlinearity="relu")
        return {"lstm": [lstm.mode, lstm.input_size, lstm.hidden_size, lstm.num_layers,
                         lstm.bias, lstm.batch_first, lstm.dropout, lstm.bidirectional,
                         lstm.proj_size, lstm._flat_weights_names],
                "all_weights": [[tuple(w.shape) for w in ws] for ws in lstm.all_weights],
                "rnn": [rnn.mode, rnn.nonlinearity],
                "cell": [tg.nn.GRUCell(3, 4).bias_ih.shape[0], tg.nn.RNNCell(3, 4, False).bias_ih]}
    run(prog)


# ---- the oneDNN LSTM node -----------------------------------------------------------------
def test_lstm_node_edges_and_outputs():
    def prog(tg):
        tg.manual_seed(0)
        lstm = tg.nn.LSTM(3, 4, num_layers=2)
        x = _tensor(tg, (3, 2, 3), 1, "float32", True)
        h0 = _tensor(tg, (2, 2, 4), 2, "float32", True)
        out, (h, c) = lstm(x, (h0, h0 * 1))
        node = out.grad_fn
        return {"node": node.name(), "edges": D.graph(node, 2),
                "h_edges": [(D.name(n), nr) for n, nr in h.grad_fn.next_functions],
                "c_edges": [(D.name(n), nr) for n, nr in c.grad_fn.next_functions],
                "reverse": node._saved_reverse, "saved_input": node._saved_input,
                "saved_hx": node._saved_hx_}
    run(prog)


def test_double_backward_through_the_lstm_node():
    def prog(tg):
        tg.manual_seed(0)
        lstm = tg.nn.LSTM(3, 4, bidirectional=True)
        x = _tensor(tg, (3, 2, 3), 1, "float32", True)
        c0 = _tensor(tg, (2, 2, 4), 2, "float32", True)
        out, (h, c) = lstm(x, (tg.zeros(2, 2, 4), c0))
        loss = (out ** 2).sum() + c.sum()
        gx, gc0, gw = tg.autograd.grad(loss, (x, c0, lstm.weight_hh_l0), create_graph=True)
        (gx.pow(2).sum() + gc0.sum() + gw.sum()).backward()
        return {"first": D.loose([gx, gc0, gw]), "x_grad": D.loose(x.grad),
                "c0_grad": D.loose(c0.grad), "w_grad": D.loose(lstm.weight_ih_l0.grad)}
    run(prog, rtol=1e-4, atol=1e-5)


def test_only_some_outputs_of_the_lstm_node_get_a_gradient():
    def prog(tg):
        tg.manual_seed(1)
        lstm = tg.nn.LSTM(3, 4)
        x = _tensor(tg, (3, 2, 3), 1, "float32", True)
        out, (h, c) = lstm(x)
        (gx_out,) = tg.autograd.grad(out.sum(), x, retain_graph=True)
        (gx_c,) = tg.autograd.grad(c.sum(), x, retain_graph=True)
        (gx_h,) = tg.autograd.grad(h[0, 1].sum(), x)
        return [gx_out, gx_c, gx_h]
    run(prog)


# ---- unsafe_split / unsafe_chunk ----------------------------------------------------------
def test_unsafe_split_pieces_are_not_views():
    def prog(tg):
        x = tg.tensor(D.data((2, 5)), requires_grad=True)
        y = x * 1
        a, b, c = y.unsafe_split(2, 1)
        report = {"pieces": [a, b, c], "graph": D.graph(b), "output_nr": [a.output_nr, c.output_nr],
                  "not_views": [a._base is None, b._base is None],
                  "saved": [a.grad_fn._saved_split_size, a.grad_fn._saved_dim,
                            tuple(a.grad_fn._saved_self_sym_sizes)]}
        a.mul_(2)                    # allowed: the piece has its own version counter...
        report.update(changed=D.snap(y), versions=[a._version, y._version])   # ...and y's memory
        (b.sum() + c.sum()).backward()
        report["grad"] = x.grad
        return report
    run(prog)


def test_unsafe_chunk_and_the_functions():
    def prog(tg):
        x = tg.tensor(D.data((3, 4)), requires_grad=True)
        pieces = x.unsafe_chunk(3, 1) + tg.unsafe_chunk(x, 2, 0) + tg.unsafe_split(x, 3, -1)
        sum((p * (k + 1)).sum() for k, p in enumerate(pieces)).backward()
        return {"pieces": pieces, "names": [D.name(p) for p in pieces], "grad": x.grad}
    run(prog)


UNSAFE_SPLIT_ERRORS = {
    "chunks_zero": lambda tg, x: x.unsafe_chunk(0, 1),
    "split_size_zero": lambda tg, x: x.unsafe_split(0, 1),
    "dim_out_of_range": lambda tg, x: x.unsafe_split(2, 5),
    "sizes_as_a_list": lambda tg, x: x.unsafe_split([1, 2], 1),
}


@pytest.mark.parametrize("case", sorted(UNSAFE_SPLIT_ERRORS))
def test_unsafe_split_errors(case):
    run(lambda tg: UNSAFE_SPLIT_ERRORS[case](tg, tg.ones(2, 3)), raises="Exception")


# ---- errors and warnings ----------------------------------------------------------------
def _x(tg, *shape):
    return tg.zeros(*shape)


FORWARD_ERRORS = {
    "rnn_4d_input": lambda tg: tg.nn.RNN(3, 4)(_x(tg, 2, 1, 3, 1)),
    "gru_1d_input": lambda tg: tg.nn.GRU(3, 4)(_x(tg, 3)),
    "lstm_4d_input": lambda tg: tg.nn.LSTM(3, 4)(_x(tg, 2, 1, 3, 1)),
    "input_size": lambda tg: tg.nn.RNN(3, 4)(_x(tg, 2, 1, 5)),
    "hidden_size": lambda tg: tg.nn.GRU(3, 4)(_x(tg, 2, 1, 3), _x(tg, 1, 2, 4)),
    "hidden_size_bidirectional": lambda tg: tg.nn.RNN(3, 4, bidirectional=True)(
        _x(tg, 2, 1, 3), _x(tg, 1, 1, 4)),
    "batched_input_2d_hx": lambda tg: tg.nn.RNN(3, 4)(_x(tg, 2, 1, 3), _x(tg, 1, 4)),
    "unbatched_input_3d_hx": lambda tg: tg.nn.GRU(3, 4)(_x(tg, 2, 3), _x(tg, 1, 1, 4)),
    "lstm_cell_state_size": lambda tg: tg.nn.LSTM(3, 4)(_x(tg, 2, 1, 3),
                                                       (_x(tg, 1, 1, 4), _x(tg, 1, 2, 4))),
    "lstm_hidden_size_with_projections": lambda tg: tg.nn.LSTM(3, 4, proj_size=2)(
        _x(tg, 2, 1, 3), (_x(tg, 1, 1, 4), _x(tg, 1, 1, 4))),
    "lstm_batched_2d_hx": lambda tg: tg.nn.LSTM(3, 4)(_x(tg, 2, 1, 3),
                                                     (_x(tg, 1, 4), _x(tg, 1, 1, 4))),
    "lstm_unbatched_3d_hx": lambda tg: tg.nn.LSTM(3, 4)(_x(tg, 2, 3),
                                                       (_x(tg, 1, 1, 4), _x(tg, 1, 4))),
    "dtype": lambda tg: tg.nn.RNN(3, 4)(_x(tg, 2, 1, 3).double()),
    "empty_sequence": lambda tg: tg.nn.RNN(3, 4)(_x(tg, 0, 1, 3)),
    "empty_sequence_lstm": lambda tg: tg.nn.LSTM(3, 4)(_x(tg, 0, 1, 3)),
    "cell_3d_input": lambda tg: tg.nn.RNNCell(3, 4)(_x(tg, 1, 2, 3)),
    "cell_3d_hidden": lambda tg: tg.nn.GRUCell(3, 4)(_x(tg, 2, 3), _x(tg, 1, 2, 4)),
    "lstm_cell_3d_hx": lambda tg: tg.nn.LSTMCell(3, 4)(_x(tg, 2, 3),
                                                      (_x(tg, 2, 4), _x(tg, 1, 2, 4))),
    "cell_input_size": lambda tg: tg.nn.GRUCell(3, 4)(_x(tg, 2, 5)),
    "cell_batch_size": lambda tg: tg.nn.RNNCell(3, 4)(_x(tg, 2, 3), _x(tg, 3, 4)),
    "cell_hidden_size": lambda tg: tg.nn.RNNCell(3, 4)(_x(tg, 2, 3), _x(tg, 2, 5)),
    "cell_unbatched_input_batched_hidden": lambda tg: tg.nn.RNNCell(3, 4)(_x(tg, 3),
                                                                         _x(tg, 2, 4)),
    "lstm_cell_second_state": lambda tg: tg.nn.LSTMCell(3, 4)(_x(tg, 2, 3),
                                                             (_x(tg, 2, 4), _x(tg, 3, 4))),
    "cell_unknown_nonlinearity": lambda tg: tg.nn.RNNCell(3, 4, nonlinearity="gelu")(
        _x(tg, 2, 3)),
}


@pytest.mark.parametrize("case", sorted(FORWARD_ERRORS))
def test_forward_errors(case):
    run(FORWARD_ERRORS[case], raises="Exception")


def test_empty_batch_is_allowed():
    run(lambda tg: [tg.nn.GRU(3, 4)(_x(tg, 2, 0, 3)), tg.nn.LSTM(3, 4)(_x(tg, 2, 0, 3))])


CONSTRUCTOR_ERRORS = {
    "nonlinearity": lambda tg: tg.nn.RNN(3, 4, nonlinearity="sigmoid"),
    "proj_size_for_gru": lambda tg: tg.nn.GRU(3, 4, proj_size=2),
    "proj_size_for_rnn": lambda tg: tg.nn.RNN(3, 4, proj_size=2),
    "proj_size_too_large": lambda tg: tg.nn.LSTM(3, 4, proj_size=4),
    "proj_size_negative": lambda tg: tg.nn.LSTM(3, 4, proj_size=-1),
    "dropout_range": lambda tg: tg.nn.LSTM(3, 4, dropout=1.5),
    "dropout_bool": lambda tg: tg.nn.GRU(3, 4, dropout=True),
    "hidden_size_zero": lambda tg: tg.nn.LSTM(3, 0),
    "input_size_zero": lambda tg: tg.nn.RNN(0, 4),
    "num_layers_zero": lambda tg: tg.nn.GRU(3, 4, num_layers=0),
    "bias_not_bool": lambda tg: tg.nn.LSTM(3, 4, bias=1),
    "batch_first_not_bool": lambda tg: tg.nn.LSTM(3, 4, batch_first=None),
    "hidden_size_float": lambda tg: tg.nn.RNN(3, 4.0),
}


@pytest.mark.parametrize("case", sorted(CONSTRUCTOR_ERRORS))
def test_constructor_errors(case):
    run(CONSTRUCTOR_ERRORS[case], raises="Exception")


@pytest.mark.parametrize("layer", ["RNN", "LSTM", "GRU"])
def test_dropout_with_one_layer_warns(layer):
    run(lambda tg: repr(getattr(tg.nn, layer)(3, 4, dropout=0.5)),
        warn=("UserWarning", "dropout option adds dropout after all but last recurrent layer"),
        warn_count=1)


HOOK_ORDER_CASES = {
    "rnn_cell": (lambda tg: tg.nn.RNNCell(3, 4), (2, 3)),
    "lstm_cell": (lambda tg: tg.nn.LSTMCell(3, 4), (2, 3)),
    "gru_cell": (lambda tg: tg.nn.GRUCell(3, 4), (2, 3)),
    "rnn": (lambda tg: tg.nn.RNN(3, 4, 2, bidirectional=True), (2, 2, 3)),
    "gru": (lambda tg: tg.nn.GRU(3, 4, 2), (2, 2, 3)),
    "lstm": (lambda tg: tg.nn.LSTM(3, 4, 2, bidirectional=True), (2, 2, 3)),
    "lstm_float64": (lambda tg: tg.nn.LSTM(3, 4, 2, dtype=tg.float64), (2, 2, 3)),
}


@pytest.mark.parametrize("case", sorted(HOOK_ORDER_CASES))
def test_gradients_reach_the_parameters_in_torch_order(case):
    """The nodes are created in PyTorch's order (the engine runs them by creation number),
    so the parameters' hooks fire in the same order."""
    def prog(tg):
        make, x_shape = HOOK_ORDER_CASES[case]
        tg.manual_seed(0)
        module = make(tg)
        order = []
        for name, p in module.named_parameters():
            p.register_hook(lambda grad, name=name: order.append(name))
        dtype = module.weight_ih_l0.dtype if hasattr(module, "weight_ih_l0") else tg.float32
        x = tg.tensor(D.data(x_shape), dtype=dtype, requires_grad=True)
        x.register_hook(lambda grad: order.append("input"))
        out = module(x)
        (out[0] if isinstance(out, tuple) else out).sum().backward()
        return order
    run(prog)


def _double_backward(tg, module, x_shape, dtype="float32"):
    x = _tensor(tg, x_shape, 1, dtype, True)
    loss = _weighted_sum(tg, _flat(module(x)), dtype)
    (gx,) = tg.autograd.grad(loss, x, create_graph=True)
    gx.pow(2).sum().backward()
    return {"first": D.loose(gx), "x_grad": D.loose(x.grad),
            "w_grads": D.loose([p.grad for p in module.parameters()])}


DOUBLE_BACKWARD_CASES = {
    "rnn": (lambda tg: tg.nn.RNN(3, 4, 2, bidirectional=True), (3, 2, 3), "float32"),
    "lstm_float64": (lambda tg: tg.nn.LSTM(3, 4, 2, dtype=tg.float64), (3, 2, 3), "float64"),
    "lstm_cell": (lambda tg: tg.nn.LSTMCell(3, 4), (2, 3), "float32"),
    "rnn_cell": (lambda tg: tg.nn.RNNCell(3, 4), (2, 3), "float32"),
    "gru": (lambda tg: tg.nn.GRU(3, 4), (3, 2, 3), "float32"),          # (its cell's mul_)
    "gru_cell": (lambda tg: tg.nn.GRUCell(3, 4), (2, 3), "float32"),
}


@pytest.mark.parametrize("case", sorted(DOUBLE_BACKWARD_CASES))
def test_double_backward_through_composed_layers_and_cells(case):
    make, x_shape, dtype = DOUBLE_BACKWARD_CASES[case]

    def prog(tg):
        tg.manual_seed(2)
        return _double_backward(tg, make(tg), x_shape, dtype)
    run(prog, rtol=1e-4, atol=1e-5)
