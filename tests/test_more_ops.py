"""Operations added in session 4, compared with torch: values, node names, gradients (and
the node their graph ends in), second derivatives, errors; then finfo / iinfo, meshgrid,
nonzero, deepcopy, pickling and save / load."""
import io

import pytest

try:
    from . import differential as D
except ImportError:
    import differential as D

torch = pytest.importorskip("torch")
run = D.run_both

VERSION_MSG = "one of the variables needed for gradient computation has been modified by an inplace operation"


def _weights(tg):
    return tg.tensor([[0.2, 0.9, 0.5], [0.7, 0.1, 0.4]])


OPS = {
    "erf": lambda tg, x: x.erf() * x,
    "erf_function": lambda tg, x: tg.erf(x * 2),
    "lerp_number": lambda tg, x: tg.lerp(x, x.flip(0) * 2, 0.3) ** 2,
    "lerp_number_above_half": lambda tg, x: x.lerp(x.exp(), 0.8) * x,
    "lerp_tensor": lambda tg, x: tg.lerp(x, x.flip(1) ** 2, _weights(tg)) * x,
    "lerp_weight_needs_grad": lambda tg, x: tg.lerp(x[0], x[1] * 3, x[0].sigmoid()) ** 2,
    "addcmul": lambda tg, x: tg.addcmul(x, x.exp(), x, value=0.5) ** 2,
    "addcmul_broadcast": lambda tg, x: x.addcmul(x[0], x[:, 1:2]) * x,
    "addcdiv": lambda tg, x: tg.addcdiv(x, x, x.exp(), value=2) ** 2,
    "addcdiv_method": lambda tg, x: x.addcdiv(x.sin(), x.abs() + 1) * x,
    "diagonal": lambda tg, x: x.diagonal() ** 2,
    "diagonal_offset": lambda tg, x: x.diagonal(1) * 3,
    "diagonal_negative_offset": lambda tg, x: tg.diagonal(x.t(), -1) ** 2,
    "diag_of_matrix": lambda tg, x: tg.diag(x) ** 2,
    "diag_of_matrix_offset": lambda tg, x: x.diag(2) * x[0, 2],
    "diag_of_vector": lambda tg, x: tg.diag(x[0]) * 2,
    "diag_of_vector_offset": lambda tg, x: tg.diag(x[1], -1) ** 2,
    "diag_embed": lambda tg, x: tg.diag_embed(x) ** 2,
    "diag_embed_dims": lambda tg, x: x.diag_embed(1, 0, 2) * 3,
    "masked_select": lambda tg, x: x.masked_select(x > 0) ** 2,
    "masked_select_broadcast_mask": lambda tg, x: tg.masked_select(x, tg.tensor([True, False, True])) ** 2,
    "masked_scatter": lambda tg, x: x.masked_scatter(x < 0, x.exp()) * x,
    "masked_scatter_spare_source": lambda tg, x: x[0].masked_scatter(x[0] > 0, x[1] ** 2) * 2,
}


@pytest.mark.parametrize("case", sorted(OPS))
def test_values_nodes_gradients_and_second_derivatives(case):
    run(lambda tg: D.op_report(tg, OPS[case]))


def test_saved_attributes_match():
    def prog(tg):
        x = tg.tensor([1.0, -2.0, 3.0], requires_grad=True)
        lerp = tg.lerp(x, x * 2, 0.25)
        addcmul = tg.addcmul(x, x, x * 3, value=0.5)
        masked = x.masked_select(x > 0)
        return {"lerp_weight": lerp.grad_fn._saved_weight,
                "addcmul_value": addcmul.grad_fn._saved_value,
                "addcmul_tensor2": addcmul.grad_fn._saved_tensor2,
                "mask": masked.grad_fn._saved_mask, "masked_self": masked.grad_fn._saved_self,
                "erf_self": x.erf().grad_fn._saved_self,
                "diagonal_offset": tg.ones(2, 2, requires_grad=True).diagonal(1).grad_fn._saved_offset}
    run(prog)


def test_diagonal_is_a_view_that_writes_through():
    def prog(tg):
        base = tg.zeros(3, 3)
        view = base.diagonal()
        view.fill_(5.0)
        x = tg.ones(3, 3, requires_grad=True) * 2
        d = x.diagonal()
        d.mul_(3)
        d.sum().backward()
        return {"base": base, "view_is_view": view._base is base, "version": base._version,
                "stride": view.stride(), "x": x, "node": D.node_name(x.grad_fn),
                "view_node": D.node_name(d.grad_fn)}
    run(prog)


def test_masked_select_saves_its_input_with_its_version():
    def prog(tg):
        x = tg.tensor([1.0, -2.0, 3.0], requires_grad=True) * 1
        y = x.masked_select(x > 0)
        x.add_(1)
        y.sum().backward()
    run(prog, raises="RuntimeError", msg=VERSION_MSG)


ERRORS = {
    "lerp_other_dtype": (lambda tg, x: tg.lerp(x, tg.ones(2, 3, dtype=tg.int64), 0.5), "RuntimeError"),
    "lerp_weight_dtype": (lambda tg, x: tg.lerp(x, x, tg.ones(2, 3, dtype=tg.float64)), "RuntimeError"),
    "addcdiv_integers": (lambda tg, x: tg.addcdiv(x, tg.ones(2, dtype=tg.int64), tg.ones(2, dtype=tg.int64)), "RuntimeError"),
    "diag_of_3d": (lambda tg, x: tg.diag(tg.ones(2, 2, 2)), "RuntimeError"),
    "diagonal_same_dims": (lambda tg, x: x.diagonal(0, 1, 1), "RuntimeError"),
    "diagonal_dim_out_of_range": (lambda tg, x: x.diagonal(0, 0, 2), "IndexError"),
    "masked_select_integer_mask": (lambda tg, x: x.masked_select(tg.ones(3, dtype=tg.int64)), "RuntimeError"),
    "masked_scatter_integer_mask": (lambda tg, x: x.masked_scatter(tg.ones(3, dtype=tg.int64), x), "RuntimeError"),
    "masked_scatter_short_source": (lambda tg, x: x.masked_scatter(x > -10, tg.ones(2)), "RuntimeError"),
    "masked_scatter_source_dtype": (lambda tg, x: x.masked_scatter(x > 0, tg.ones(6, dtype=tg.int64)), "RuntimeError"),
    "meshgrid_matrix": (lambda tg, x: tg.meshgrid(x, x[0], indexing="ij"), "RuntimeError",
                        D.UPTO_COLON),     # (torch goes on to print the tensor)
    "meshgrid_dtypes": (lambda tg, x: tg.meshgrid(x[0], x[0].double(), indexing="ij"), "RuntimeError"),
    "meshgrid_indexing": (lambda tg, x: tg.meshgrid(x[0], indexing="yx"), "RuntimeError"),
    "meshgrid_nothing": (lambda tg, x: tg.meshgrid(indexing="ij"), "RuntimeError"),
    "finfo_of_integers": (lambda tg, x: tg.finfo(tg.int64), "TypeError"),
    "iinfo_of_floats": (lambda tg, x: tg.iinfo(tg.float32), "TypeError"),
    "iinfo_of_bool": (lambda tg, x: tg.iinfo(tg.bool), "TypeError"),
    "deepcopy_non_leaf": (lambda tg, x: __import__("copy").deepcopy(x * 2), "RuntimeError"),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors(case):
    make, error, *message = ERRORS[case]
    run(lambda tg: make(tg, tg.ones(2, 3, requires_grad=True)), raises=error,
        msg=message[0] if message else D.FIRST_LINE)


GRIDS = {
    "ij": lambda tg, a, b: tg.meshgrid(a, b, indexing="ij"),
    "xy": lambda tg, a, b: tg.meshgrid(a, b, indexing="xy"),
    "list": lambda tg, a, b: tg.meshgrid([a, b, a[:2]], indexing="xy"),
    "scalar": lambda tg, a, b: tg.meshgrid(a[0], b, indexing="ij"),
}


@pytest.mark.parametrize("case", sorted(GRIDS))
def test_meshgrid_views_and_gradients(case):
    def prog(tg):
        a = tg.tensor([1.0, 2.0, 3.0], requires_grad=True)
        b = tg.tensor([4.0, 5.0], requires_grad=True)
        grids = GRIDS[case](tg, a, b)
        sum(((g * (i + 1)) ** 2).sum() for i, g in enumerate(grids)).backward()
        return {"grids": [D.snap(g) for g in grids], "strides": [g.stride() for g in grids],
                "nodes": [D.node_name(g.grad_fn) for g in grids],
                "next": [D.node_name(g.grad_fn.next_functions[0][0]) for g in grids],
                "a_grad": a.grad, "b_grad": b.grad}
    run(prog)


def test_meshgrid_without_indexing_warns_and_uses_ij():
    run(lambda tg: tg.meshgrid(tg.arange(3), tg.arange(2)),
        warn=("UserWarning", "torch.meshgrid: in an upcoming release, it will be required"))


NONZERO = {
    "matrix": lambda tg: tg.tensor([[0, 1, 0], [2, 0, 3]]).nonzero(),
    "as_tuple": lambda tg: tg.nonzero(tg.tensor([[0.0, 1.5], [2.0, 0.0]]), as_tuple=True),
    "bool": lambda tg: tg.nonzero(tg.tensor([True, False, True])),
    "scalar": lambda tg: tg.nonzero(tg.tensor(3.0)),
    "zero_scalar": lambda tg: tg.tensor(0.0).nonzero(),
    "scalar_as_tuple": lambda tg: tg.tensor(3.0).nonzero(as_tuple=True),
    "none": lambda tg: tg.zeros(2, 2).nonzero(),
}


@pytest.mark.parametrize("case", sorted(NONZERO))
def test_nonzero(case):
    run(lambda tg: NONZERO[case](tg))


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_finfo(dtype):
    def prog(tg):
        info = tg.finfo(getattr(tg, dtype))
        return {"repr": repr(info), "numbers": [info.bits, info.eps, info.max, info.min,
                                                info.tiny, info.smallest_normal,
                                                info.resolution], "dtype": info.dtype,
                "default": repr(tg.finfo()), "equal": info == tg.finfo(getattr(tg, dtype))}
    run(prog)


@pytest.mark.parametrize("dtype", ["uint8", "int32", "int64"])
def test_iinfo(dtype):
    def prog(tg):
        info = tg.iinfo(getattr(tg, dtype))
        return {"repr": repr(info), "numbers": [info.bits, info.max, info.min], "dtype": info.dtype}
    run(prog)


def test_deepcopy_copies_a_leaf_and_its_grad():
    def prog(tg):
        import copy
        x = tg.tensor([1.0, 2.0], requires_grad=True)
        (x * 3).sum().backward()
        y = copy.deepcopy(x)
        y.data.add_(1)
        model = tg.nn.Linear(2, 1)
        twin = copy.deepcopy(model)
        with tg.no_grad():
            twin.weight.add_(1)
        return {"x": x, "y": D.snap(y, version=False), "y_grad": D.snap(y.grad, version=False),
                "shared": y.grad is x.grad, "weights_differ": not tg.equal(model.weight, twin.weight),
                "twin_type": type(twin.weight).__name__}
    run(prog)


def test_pickled_tensors_come_back_as_fresh_leaves():
    def prog(tg):
        import pickle
        x = tg.tensor([1.0, 2.0], requires_grad=True)
        (x * 2).sum().backward()
        back = pickle.loads(pickle.dumps([x, x * 2, x.detach().t(), tg.nn.Parameter(tg.ones(2))]))
        return {"tensors": [D.snap(t, version=False) for t in back[:3]], "grads": [t.grad for t in back],
                "leaves": [t.is_leaf for t in back], "parameter": type(back[3]).__name__,
                "parameter_requires_grad": back[3].requires_grad}
    run(prog)


def test_save_and_load_a_state_dict_through_a_file_object():
    def prog(tg):
        tg.manual_seed(0)
        model = tg.nn.Linear(3, 2)
        optimizer = tg.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        model(tg.ones(1, 3)).sum().backward()
        optimizer.step()
        buffer = io.BytesIO()
        tg.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": 3},
                buffer)
        buffer.seek(0)
        checkpoint = tg.load(buffer)
        fresh = tg.nn.Linear(3, 2)
        fresh.load_state_dict(checkpoint["model"])
        return {"weight": fresh.weight, "bias": fresh.bias, "epoch": checkpoint["epoch"],
                "momentum": D.snap(checkpoint["optimizer"]["state"][0]["momentum_buffer"],
                                   version=False),
                "keys": list(checkpoint["model"])}
    run(prog)


def test_save_and_load_with_a_path(tmp_path):
    def prog(tg):
        path = tmp_path / f"{tg.__name__}.pt"
        tg.save([tg.arange(3), tg.float64], path)
        return [D.snap(x, version=False) if isinstance(x, tg.Tensor) else x
                for x in tg.load(str(path))]
    run(prog)


class Custom:
    pass


def test_weights_only_load_refuses_other_classes():
    def prog(tg):
        buffer = io.BytesIO()
        tg.save({"thing": Custom()}, buffer)
        buffer.seek(0)
        return tg.load(buffer)
    run(prog, raises="UnpicklingError", msg="Weights only load failed.")


def test_load_with_weights_only_false_accepts_other_classes():
    def prog(tg):
        buffer = io.BytesIO()
        tg.save({"thing": Custom(), "x": tg.ones(2)}, buffer)
        buffer.seek(0)
        loaded = tg.load(buffer, weights_only=False)
        return type(loaded["thing"]).__name__, D.snap(loaded["x"], version=False)
    run(prog)


def test_in_place_error_hint_under_anomaly_mode():
    def prog(tg):
        x = tg.ones(2, requires_grad=True)
        with tg.autograd.set_detect_anomaly(True):
            e = x.exp()
            e.add_(1)
            e.sum().backward()
    run(prog, raises="RuntimeError", contains=("Hint: the backtrace further above shows",),
        warn=("UserWarning", "Error detected in ExpBackward0."))


def test_anomaly_trace_ends_at_the_forward_line_of_the_caller():
    import teachgrad
    with pytest.warns(UserWarning) as caught:
        x = teachgrad.ones(2, requires_grad=True)
        with teachgrad.autograd.set_detect_anomaly(True):
            e = x.exp()  # the forward line
            e.add_(1)
            with pytest.raises(RuntimeError):
                e.sum().backward()
    trace = next(str(w.message) for w in caught if "Error detected" in str(w.message))
    assert trace.rstrip().endswith("e = x.exp()  # the forward line")


def test_detect_anomaly_warns_when_made_and_switches_on_inside():
    def prog(tg):
        before = tg.is_anomaly_enabled()
        with tg.autograd.detect_anomaly(check_nan=False):
            inside = tg.is_anomaly_enabled(), tg.is_anomaly_check_nan_enabled()
        return before, inside, tg.is_anomaly_enabled(), tg.is_anomaly_check_nan_enabled()
    run(prog, warn=("UserWarning", "Anomaly Detection has been enabled."))


def test_data_ptr_shows_shared_memory():
    def prog(tg):
        x = tg.ones(2, 3)
        return {"view": x[0].data_ptr() == x.data_ptr(), "t": x.t().data_ptr() == x.data_ptr(),
                "offset": x[1].data_ptr() - x.data_ptr(), "clone": x.clone().data_ptr() == x.data_ptr(),
                "detach": x.detach().data_ptr() == x.data_ptr(), "empty": tg.tensor([]).data_ptr()}
    run(prog)


@pytest.mark.parametrize("name", ["relu_", "exp_", "sigmoid_", "tanh_", "neg_", "zero_"])
def test_top_level_in_place_functions(name):
    def prog(tg):
        x = tg.tensor([-1.0, 0.5, 2.0])
        result = getattr(tg, name)(x)
        return result is x, x
    run(prog)


def test_top_level_in_place_function_on_a_leaf_that_requires_grad():
    run(lambda tg: tg.relu_(tg.ones(2, requires_grad=True)), raises="RuntimeError",
        msg="a leaf Variable that requires grad is being used in an in-place operation.")


def _functions(tg):
    class Ident(tg.autograd.Function):
        @staticmethod
        def forward(ctx, x, k=1.0):
            ctx.seen = ctx.needs_input_grad
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad, None

    class GradForNumber(tg.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            return x * k

        @staticmethod
        def backward(ctx, grad):
            return grad, grad

    class ReturnsList(tg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return [grad]

    class SavesNumber(ReturnsList):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x, 3.0)
            return x * 2

    class Exp(tg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            result = x.exp()
            ctx.save_for_backward(result)
            return result

        @staticmethod
        def backward(ctx, grad):
            (result,) = ctx.saved_tensors
            return grad * result
    return Ident, GradForNumber, ReturnsList, SavesNumber, Exp


def test_a_function_returning_its_input_leaves_the_input_alone():
    def prog(tg):
        Ident = _functions(tg)[0]
        x = tg.ones(2, requires_grad=True)
        y = Ident.apply(x)
        with tg.no_grad():
            z = Ident.apply(x, 2.0)
        return {"y_is_x": y is x, "x_leaf": x.is_leaf, "y_node": D.node_name(y.grad_fn),
                "needs": y.grad_fn.seen, "z_is_x": z is x, "z_requires_grad": z.requires_grad,
                "shares_memory": y.data_ptr() == x.data_ptr(), "x_grad_fn": x.grad_fn}
    run(prog)


FUNCTION_ERRORS = {
    "gradient_for_a_number": (lambda tg, F, x: F[1].apply(x, 3.0).sum().backward(), "RuntimeError"),
    "backward_returns_a_list": (lambda tg, F, x: F[2].apply(x).sum().backward(), "RuntimeError"),
    "save_a_number": (lambda tg, F, x: F[3].apply(x), "TypeError"),
    "call_an_instance": (lambda tg, F, x: F[2]()(x), "RuntimeError"),
    "saved_output_changed": (lambda tg, F, x: _change_saved_output(tg, F[4], x), "RuntimeError"),
}


def _change_saved_output(tg, Exp, x):
    y = Exp.apply(x)
    with tg.no_grad():
        y.mul_(2)
    y.sum().backward()


@pytest.mark.parametrize("case", sorted(FUNCTION_ERRORS))
def test_custom_function_errors(case):
    make, error = FUNCTION_ERRORS[case]
    run(lambda tg: make(tg, _functions(tg), tg.ones(2, requires_grad=True)), raises=error)


def test_instantiating_a_function_warns():
    run(lambda tg: type(_functions(tg)[2]()).__name__,
        warn=("DeprecationWarning", "<class"))


@pytest.mark.parametrize("exponent", [3, 0.5, 0, -1])
def test_the_gradient_graph_of_pow_is_torchs(exponent):
    def prog(tg):
        x = tg.tensor([0.5, 2.0], requires_grad=True)
        (g,) = tg.autograd.grad((x ** exponent).sum(), x, create_graph=True)
        return {"g": D.snap(g, version=False), "graph": D.graph(g) if g.grad_fn else None}
    run(prog)


def test_numpy_of_a_tensor_that_requires_grad_is_allowed_under_no_grad():
    def prog(tg):
        import numpy as np
        x = tg.ones(2, requires_grad=True)
        with tg.no_grad():
            return x.numpy().tolist(), (x * 2).numpy().tolist(), np.asarray(x).tolist()
    run(prog)
    run(lambda tg: tg.ones(2, requires_grad=True).numpy(), raises="RuntimeError")


def test_inference_mode_switched_off_records_as_enable_grad_does():
    def prog(tg):
        x = tg.ones(2, requires_grad=True)
        with tg.inference_mode(False):
            kept = (x * 2).requires_grad
        with tg.inference_mode():
            dropped = (x * 2).requires_grad

        @tg.inference_mode(False)
        def decorated():
            return (x * 2).requires_grad

        @tg.inference_mode
        def bare():
            return (x * 2).requires_grad
        with tg.no_grad():
            with tg.inference_mode(False):
                inside_no_grad = tg.is_grad_enabled()
            after = tg.is_grad_enabled()
        return kept, dropped, decorated(), bare(), tg.is_grad_enabled(), inside_no_grad, after
    run(prog)


def test_deepcopy_of_a_parameter_drops_its_grad():
    def prog(tg):
        import copy
        layer = tg.nn.Linear(2, 1)
        layer(tg.ones(1, 2)).sum().backward()
        twin = copy.deepcopy(layer)
        return {"grad": twin.weight.grad, "type": type(twin.weight).__name__,
                "same_values": tg.equal(twin.weight, layer.weight),
                "requires_grad": twin.weight.requires_grad}
    run(prog)


@pytest.mark.parametrize("args", [(-4, 4, 81), (-3.3, 7.1, 1000), (0.1, 0.9, 33), (3, -1, 9),
                                  (1, 2, 1), (0, 1, 0)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_linspace_agrees_with_torch_to_the_last_bit(args, dtype):
    import numpy as np
    import teachgrad
    ours = teachgrad.linspace(*args, dtype=getattr(teachgrad, dtype)).numpy()
    theirs = torch.linspace(*args, dtype=getattr(torch, dtype)).numpy()
    assert ours.dtype == theirs.dtype and np.array_equal(ours, theirs)


CYCLE_WARNING = ("Using backward() with create_graph=True will create a reference cycle between "
                 "the parameter and its gradient which can cause a memory leak.")


def test_backward_with_create_graph_warns_once_per_process():
    import warnings
    import teachgrad
    from teachgrad.autograd import functional
    functional._warned_about_the_cycle.clear()
    x = teachgrad.tensor(2.0, requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        (x ** 3).backward(create_graph=True)
        (x ** 3).backward(create_graph=True)
        teachgrad.autograd.grad(x ** 3, x, create_graph=True)
    assert [str(w.message)[:len(CYCLE_WARNING)] for w in caught] == [CYCLE_WARNING]


def test_a_later_backward_adds_into_a_grad_that_has_a_graph():
    def prog(tg):
        x = tg.tensor(2.0, requires_grad=True)
        (x ** 3).backward(create_graph=True)
        first = D.loose(x.grad)
        x.grad.backward()                 # d(3x^2)/dx = 12, added in place into x.grad
        return {"first": first, "after": D.loose(x.grad)}
    run(prog)


def _setup_context_square(tg):
    class Square(tg.autograd.Function):
        @staticmethod
        def forward(x):
            return x * x

        @staticmethod
        def setup_context(ctx, inputs, output):
            (x,) = inputs
            ctx.save_for_backward(x)

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return 2 * x * grad
    return Square


def test_a_function_in_the_setup_context_style():
    def prog(tg):
        x = tg.tensor([1.0, 3.0], requires_grad=True)
        y = _setup_context_square(tg).apply(x)
        y.sum().backward()
        with tg.no_grad():
            plain = _setup_context_square(tg).apply(x)
        return {"y": y, "node": D.node_name(y.grad_fn), "grad": x.grad, "plain": plain}
    run(prog)


def _once_differentiable_exp(tg):
    from importlib import import_module
    once_differentiable = import_module(f"{tg.__name__}.autograd.function").once_differentiable

    class Exp(tg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            result = x.exp()
            ctx.save_for_backward(result)
            return result

        @staticmethod
        @once_differentiable
        def backward(ctx, grad):
            (result,) = ctx.saved_tensors
            return grad * result
    return Exp


def test_once_differentiable_gives_first_derivatives_and_refuses_second_ones():
    def prog(tg):
        x = tg.tensor([1.0, 2.0], requires_grad=True)
        (plain,) = tg.autograd.grad(_once_differentiable_exp(tg).apply(x).sum(), x)
        y = _once_differentiable_exp(tg).apply(x * 1)
        (g,) = tg.autograd.grad(y, x, tg.ones(2, requires_grad=True), create_graph=True)
        return {"plain": plain, "plain_node": D.node_name(plain.grad_fn), "g": D.snap(g),
                "g_node": D.node_name(g.grad_fn),
                "next": [D.node_name(n) for n, _ in g.grad_fn.next_functions]}
    run(prog)

    def twice(tg):
        x = tg.tensor([1.0, 2.0], requires_grad=True)
        y = _once_differentiable_exp(tg).apply(x)
        (g,) = tg.autograd.grad(y, x, tg.ones(2, requires_grad=True), create_graph=True)
        g.sum().backward()
    run(twice, raises="RuntimeError",
        msg="trying to differentiate twice a function that was marked with @once_differentiable")


def _scalar(x):
    return (x ** 3).sum() + x[0] * x[1].sin()


JACOBIAN_CALLS = {
    "jacobian": lambda F, tg, x: F.jacobian(lambda a: a.exp() * a[0], x),
    "jacobian_matrix_input": lambda F, tg, x: F.jacobian(lambda a: a.sum(0), x.reshape(2, 2)),
    "jacobian_tuples": lambda F, tg, x: F.jacobian(lambda a, b: (a * b, a.sum() + b), (x, x * 2)),
    "jacobian_unused_input": lambda F, tg, x: F.jacobian(lambda a, b: a * 2, (x, x)),
    "jacobian_vectorize": lambda F, tg, x: F.jacobian(lambda a: a ** 2, x, vectorize=True),
    "hessian": lambda F, tg, x: F.hessian(_scalar, x),
    "hessian_tuple": lambda F, tg, x: F.hessian(lambda a, b: (a * b).sum() * a[0], (x, x + 1)),
    "vjp": lambda F, tg, x: F.vjp(lambda a: a.tanh(), x, tg.ones(4) * 2),
    "vjp_scalar_without_v": lambda F, tg, x: F.vjp(_scalar, x),
    "jvp": lambda F, tg, x: F.jvp(lambda a: a.sin() * a, x, tg.arange(4.0)),
    "hvp": lambda F, tg, x: F.hvp(_scalar, x, tg.tensor([1.0, 0.0, -1.0, 2.0])),
    "vhp": lambda F, tg, x: F.vhp(_scalar, x, tg.tensor([1.0, 0.0, -1.0, 2.0])),
}


@pytest.mark.parametrize("case", sorted(JACOBIAN_CALLS))
def test_autograd_functional_matches_torch(case):
    def prog(tg):
        x = tg.tensor([0.5, -1.0, 2.0, 0.3])
        result = JACOBIAN_CALLS[case](tg.autograd.functional, tg, x)
        # (torch fills some results in place, so versions are left out)
        return D.snap(result, version=False)
    run(prog)


def test_hessian_with_create_graph_stays_connected_to_the_inputs():
    def prog(tg):
        x = tg.tensor([0.5, -1.0, 2.0], requires_grad=True)
        h = tg.autograd.functional.hessian(lambda a: (a ** 3).sum(), x, create_graph=True)
        h.diagonal().sum().backward()      # d/dx of the trace of 6 diag(x): 6 each
        return {"h": D.loose(h), "x_grad": D.snap(x.grad, version=False)}
    run(prog)


JACOBIAN_ERRORS = {
    "hessian_of_a_vector": (lambda F, tg, x: F.hessian(lambda a: a * 2, x), "RuntimeError"),
    "vjp_needs_v": (lambda F, tg, x: F.vjp(lambda a: a * 2, x), "RuntimeError"),
    "strict_unused": (lambda F, tg, x: F.jacobian(lambda a, b: a * 2, (x, x), strict=True),
                      "RuntimeError"),
}


@pytest.mark.parametrize("case", sorted(JACOBIAN_ERRORS))
def test_autograd_functional_errors(case):
    make, error = JACOBIAN_ERRORS[case]
    run(lambda tg: make(tg.autograd.functional, tg, tg.tensor([0.5, -1.0])), raises=error)


def _double_backward_functions(tg):
    class Good(tg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 3 * x ** 2

    class DetachedBackward(Good):
        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 3 * x.detach() ** 2       # right once, wrong twice
    return Good, DetachedBackward


def test_gradgradcheck_passes_a_twice_differentiable_function():
    def prog(tg):
        x = tg.tensor([0.5, -1.5], dtype=tg.float64, requires_grad=True)
        good = _double_backward_functions(tg)[0]
        return (tg.autograd.gradgradcheck(good.apply, (x,)),
                tg.autograd.gradgradcheck(lambda a: (a.sin() * a).sum(), x))
    run(prog)


def test_gradgradcheck_finds_a_backward_that_is_right_only_once():
    def prog(tg):
        x = tg.tensor([0.5, -1.5], dtype=tg.float64, requires_grad=True)
        wrong = _double_backward_functions(tg)[1]
        return (tg.autograd.gradcheck(wrong.apply, (x,)),
                tg.autograd.gradgradcheck(wrong.apply, (x,), raise_exception=False))
    run(prog)


ACTIVATIONS = {
    "softplus": lambda tg, x: tg.nn.functional.softplus(x * 10),
    "softplus_beta_threshold": lambda tg, x: tg.nn.functional.softplus(x * 10, beta=2, threshold=15),
    "softplus_module": lambda tg, x: tg.nn.Softplus(beta=0.5)(x) * x,
    "silu": lambda tg, x: tg.nn.functional.silu(x * 3),
    "silu_module": lambda tg, x: tg.nn.SiLU()(x) ** 2,
    "gelu": lambda tg, x: tg.nn.functional.gelu(x * 2),
    "gelu_tanh": lambda tg, x: tg.nn.functional.gelu(x, approximate="tanh") * 2,
    "gelu_module": lambda tg, x: tg.nn.GELU()(x) * x,
    "gelu_tanh_module": lambda tg, x: tg.nn.GELU(approximate="tanh")(x) * x,
}


@pytest.mark.parametrize("case", sorted(ACTIVATIONS))
def test_activations_values_nodes_gradients_and_second_derivatives(case):
    run(lambda tg: D.op_report(tg, ACTIVATIONS[case]))


@pytest.mark.parametrize("case", sorted(ACTIVATIONS))
def test_activations_in_float64(case):
    def prog(tg):
        x = tg.tensor([[1.5, -2.3, 0.5], [2.0, 0.1, -0.7]], dtype=tg.float64, requires_grad=True)
        y = ACTIVATIONS[case](tg, x)
        (g,) = tg.autograd.grad(y.sum(), x, create_graph=True)
        (h,) = tg.autograd.grad(g.sum(), x)
        return D.snap([y, g, h], version=False)
    run(prog, rtol=1e-10, atol=1e-12)


def test_activation_modules_print_as_torch():
    run(lambda tg: [repr(tg.nn.Softplus(beta=2)), repr(tg.nn.SiLU(inplace=True)),
                    repr(tg.nn.GELU(approximate="tanh")), repr(tg.nn.GELU())])


def test_silu_in_place():
    def prog(tg):
        x = tg.tensor([1.0, -2.0, 0.5], requires_grad=True)
        h = x * 1
        y = tg.nn.functional.silu(h, inplace=True)
        y.sum().backward()
        return {"same": y is h, "node": D.node_name(h.grad_fn), "grad": x.grad, "version": h._version}
    run(prog)


def test_gelu_refuses_other_approximations():
    run(lambda tg: tg.nn.functional.gelu(tg.ones(2), approximate="sigmoid"), raises="RuntimeError")


CLAMPS = {
    "both_bounds": lambda tg, x, lo, hi: tg.clamp(x, min=lo, max=hi),
    "min_only": lambda tg, x, lo, hi: tg.clamp(x, min=lo),
    "max_only": lambda tg, x, lo, hi: x.clamp(max=hi),
    "crossed_bounds": lambda tg, x, lo, hi: tg.clamp(x, min=hi, max=lo),
    "number_and_tensor_broadcast": lambda tg, x, lo, hi: x.clamp(min=lo[:1], max=hi),
}


@pytest.mark.parametrize("case", sorted(CLAMPS))
def test_clamp_with_tensor_bounds_sends_gradients_as_torch(case):
    """Ties (x equal to a bound) go to x, as in PyTorch."""
    def prog(tg):
        x = tg.tensor([1.0, 1.0, 0.0, 3.0, -2.0], requires_grad=True)
        lo = tg.tensor([0.0, 1.0, 0.0, 0.0, 0.0], requires_grad=True)
        hi = tg.tensor([1.0, 2.0, 1.0, 2.0, -1.0], requires_grad=True)
        y = CLAMPS[case](tg, x, lo, hi)
        (y * tg.arange(1.0, 6.0)).sum().backward()
        return {"y": y, "node": D.node_name(y.grad_fn), "x": x.grad, "lo": lo.grad, "hi": hi.grad,
                "edges": [D.node_name(n) for n, _ in y.grad_fn.next_functions]}
    run(prog)


def test_clamp_with_tensor_bounds_promotes_and_saves_as_torch():
    def prog(tg):
        ints = tg.tensor([1, 5])
        y = tg.clamp(tg.tensor([1.0, 5.0], requires_grad=True), min=tg.tensor([2.0, 2.0]))
        return {"int": tg.clamp(ints, min=tg.tensor([2, 2])),
                "promoted": tg.clamp(ints, min=tg.tensor([2.5, 2.0])),
                "saved_max": y.grad_fn._saved_max, "saved_min": y.grad_fn._saved_min}
    run(prog)


def test_gradcheck_prints_one_row_per_input_element_as_torch():
    def prog(tg):
        class Wrong(tg.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x.repeat(3)[:3] * x.sum()

            @staticmethod
            def backward(ctx, grad):
                return tg.ones(2, dtype=tg.float64) * grad.sum()
        x = tg.tensor([0.5, 1.5], dtype=tg.float64, requires_grad=True)
        tg.autograd.gradcheck(Wrong.apply, (x,))
    run(prog, raises="RuntimeError",
        contains=("numerical:tensor([[2.5000, 1.5000, 2.5000],\n        [0.5000, 3.5000, 0.5000]]",))


QUIET_OPS = {
    "exp_overflow": lambda tg, x: x.exp().sum().backward(),
    "expm1_overflow": lambda tg, x: x.expm1(),
    "divide_by_zero": lambda tg, x: (x / tg.zeros(3)).sum().backward(),
    "sqrt_backward_at_zero": lambda tg, x: tg.zeros(2, requires_grad=True).sqrt().sum().backward(),
    "negative_base_fractional_power": lambda tg, x: x ** 0.5,
    "zero_to_a_negative_power": lambda tg, x: tg.zeros(2) ** -1.0,
    "tensor_power": lambda tg, x: tg.zeros(3) ** (x * 0 - 1),
    "number_to_a_tensor_power": lambda tg, x: 0.0 ** (x * 0 - 1),
}


@pytest.mark.parametrize("case", sorted(QUIET_OPS))
def test_inf_and_nan_come_without_numpy_warnings_as_in_torch(case):
    import warnings
    import teachgrad
    x = teachgrad.tensor([-1000.0, 0.0, 1000.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        QUIET_OPS[case](teachgrad, x)


MORE_FUNCTIONS = {
    "tan": lambda tg, x: (x * 0.5).tan(),
    "asin": lambda tg, x: tg.asin(x * 0.3),
    "acos": lambda tg, x: (x * 0.3).acos() * x,
    "atan": lambda tg, x: x.atan() ** 2,
    "arctan_alias": lambda tg, x: tg.arctan(x),
    "atan2": lambda tg, x: tg.atan2(x, x.flip(1) + 0.5),
    "atan2_number": lambda tg, x: x.atan2(tg.tensor(2.0)),
    "sinh": lambda tg, x: x.sinh() * x,
    "cosh": lambda tg, x: tg.cosh(x),
    "log2": lambda tg, x: x.abs().log2(),
    "log10": lambda tg, x: tg.log10(x.abs()) * x,
    "trunc": lambda tg, x: (x * 3).trunc() * x,
    "trace": lambda tg, x: tg.trace(x * x) * x,
    "trace_method": lambda tg, x: x.t().trace() ** 2,
    "broadcast_to": lambda tg, x: tg.broadcast_to(x[0], (4, 3)) ** 2,
    "broadcast_tensors": lambda tg, x: sum(t ** 2 for t in tg.broadcast_tensors(x, x[:, :1])),
    "hstack": lambda tg, x: tg.hstack([x, x * 2]) ** 2,
    "hstack_vectors": lambda tg, x: tg.hstack([x[0], x[1].exp()]) ** 2,
    "vstack": lambda tg, x: tg.vstack([x[0], x[1] * 2, x]) ** 2,
    "diff": lambda tg, x: tg.diff(x) ** 2,
    "diff_twice_dim0": lambda tg, x: x.diff(n=2, dim=1) * x[:, :1],
}


@pytest.mark.parametrize("case", sorted(MORE_FUNCTIONS))
def test_more_functions_match_torch(case):
    run(lambda tg: D.op_report(tg, MORE_FUNCTIONS[case]))


def test_isinf_fix_and_integer_trace():
    run(lambda tg: [tg.isinf(tg.tensor([1.0, float("inf"), -float("inf"), float("nan")])),
                    tg.fix(tg.tensor([-1.5, 2.7])), tg.trace(tg.tensor([[1, 2], [3, 4]])),
                    tg.vstack([tg.tensor(1.0), tg.tensor(2.0)]).shape,
                    tg.remainder(tg.tensor([5, -5]), 3), tg.floor_divide(tg.tensor([5, -5]), 3)])


def test_trace_of_a_vector_raises():
    run(lambda tg: tg.trace(tg.ones(3)), raises="RuntimeError")


INDEXINGS = {
    "tensor": lambda tg, x: x[tg.tensor([1, 0])],
    "mask": lambda tg, x: x[x > 2],
    "list_in_second_dim": lambda tg, x: x[:, [0, 2]],
    "tensor_then_slice": lambda tg, x: x[tg.tensor([1, 0]), 1:],
    "two_tensors": lambda tg, x: x[tg.tensor([0, 1]), tg.tensor([2, 0])],
}


@pytest.mark.parametrize("case", sorted(INDEXINGS))
def test_index_saves_its_index_tensors_as_torch(case):
    def prog(tg):
        x = tg.arange(6.0).view(2, 3).requires_grad_()
        y = INDEXINGS[case](tg, x)
        names = [n for n in dir(y.grad_fn) if "indices" in n]
        return {"y": y, "indices": y.grad_fn._saved_indices, "names": names}
    run(prog)


def test_an_index_changed_in_place_and_a_second_backward_raise_as_torch():
    def changed(tg):
        x = tg.arange(6.0).requires_grad_()
        index = tg.tensor([1, 0])
        y = x[index]
        index.add_(0)
        y.sum().backward()
    run(changed, raises="RuntimeError", msg=VERSION_MSG, contains=("LongTensor [2]] is at version 1",))

    def twice(tg):
        x = tg.arange(6.0).requires_grad_()
        y = x[tg.tensor([1, 0])].sum()
        y.backward()
        y.backward()
    run(twice, raises="RuntimeError", msg="Trying to backward through the graph a second time")


BERNOULLI = {
    "probabilities": lambda tg: tg.bernoulli(tg.tensor([0.1, 0.5, 0.9, 0.3, 0.7, 0.2])),
    "many_float64": lambda tg: tg.bernoulli(tg.full((40,), 0.3, dtype=tg.float64)),
    "one_probability": lambda tg: tg.bernoulli(tg.zeros(2, 3), 0.4),
    "method": lambda tg: tg.full((5,), 0.6).bernoulli(),
    "in_place_number": lambda tg: tg.zeros(7).bernoulli_(0.3),
    "in_place_tensor": lambda tg: tg.zeros(3).bernoulli_(tg.tensor([0.1, 0.9, 0.5])),
    "generator": lambda tg: tg.bernoulli(tg.full((4,), 0.5), generator=tg.Generator().manual_seed(3)),
}


@pytest.mark.parametrize("case", sorted(BERNOULLI))
def test_bernoulli_draws_torchs_numbers(case):
    def prog(tg):
        tg.manual_seed(0)
        first = BERNOULLI[case](tg)
        return first, tg.rand(2)              # and the generator moved on by as much
    run(prog)


def test_bernoulli_records_a_zero_gradient_node():
    def prog(tg):
        tg.manual_seed(0)
        p = tg.tensor([0.2, 0.8], requires_grad=True)
        y = tg.bernoulli(p)
        h = p * 1
        h.bernoulli_(0.5)
        (g,) = tg.autograd.grad(y.sum(), p)
        return {"y": D.snap(y), "node": D.node_name(y.grad_fn), "g": g,
                "in_place_node": D.node_name(h.grad_fn)}
    run(prog)


def test_bernoulli_refuses_probabilities_outside_0_1():
    run(lambda tg: tg.bernoulli(tg.tensor([1.5])), raises="RuntimeError",
        msg="Expected p_in >= 0 && p_in <= 1 to be true, but got false.")


NORMALS = {
    "numbers_and_size": lambda tg, m, s: tg.normal(0.0, 2.0, (5,)),
    "numbers_many": lambda tg, m, s: tg.normal(1.0, 0.5, size=(20,)),
    "tensor_mean": lambda tg, m, s: tg.normal(m, 2.0),
    "tensor_std": lambda tg, m, s: tg.normal(1.0, s),
    "both_tensors": lambda tg, m, s: tg.normal(m, s),
    "broadcast": lambda tg, m, s: tg.normal(m.reshape(3, 1), s),
    "generator": lambda tg, m, s: tg.normal(m, s, generator=tg.Generator().manual_seed(5)),
}


@pytest.mark.parametrize("case", sorted(NORMALS))
def test_normal_draws_torchs_numbers_with_a_zero_gradient(case):
    def prog(tg):
        tg.manual_seed(0)
        m = tg.tensor([1.0, 2.0, 3.0], requires_grad=True)
        s = tg.tensor([0.5, 1.0, 2.0], requires_grad=True)
        y = NORMALS[case](tg, m, s)
        if y.requires_grad:
            y.sum().backward()
        # (torch fills the zero gradients in place: their versions are left out)
        return {"y": D.snap(y), "node": D.node_name(y.grad_fn),
                "m": D.snap(m.grad, version=False), "s": D.snap(s.grad, version=False),
                "next": tg.rand(2)}
    run(prog)


NORMAL_ERRORS = {
    "negative_std": (lambda tg: tg.normal(tg.zeros(2), tg.tensor([-1.0, 1.0])), "RuntimeError"),
    "numbers_without_size": (lambda tg: tg.normal(0.0, 1.0), "TypeError"),
}


@pytest.mark.parametrize("case", sorted(NORMAL_ERRORS))
def test_normal_errors(case):
    make, error = NORMAL_ERRORS[case]
    run(lambda tg: make(tg), raises=error, msg=D.UPTO_COLON if error == "TypeError" else D.FIRST_LINE)


SPECIAL_VALUES = {
    "nan_to_num": lambda tg, x: tg.nan_to_num(x),
    "nan_to_num_values": lambda tg, x: x.nan_to_num(nan=0.5, posinf=9.0, neginf=-9.0) * 2,
}


@pytest.mark.parametrize("case", sorted(SPECIAL_VALUES))
def test_nan_to_num_passes_gradients_only_where_finite(case):
    def prog(tg):
        x = tg.tensor([1.5, float("nan"), float("inf"), -float("inf"), -2.5], requires_grad=True)
        y = SPECIAL_VALUES[case](tg, x)
        node = D.node_name(y.grad_fn)
        y.sum().backward()
        return {"y": y, "node": node, "grad": x.grad}
    run(prog)


FMODS = {
    "by_a_number": lambda tg, x: tg.fmod(x * 3, 2) * x,
    "by_a_tensor": lambda tg, x: tg.fmod(x * 3, x.flip(0).abs() + 0.5) ** 2,
    "method": lambda tg, x: (x * 5).fmod(-1.5),
}


@pytest.mark.parametrize("case", sorted(FMODS))
def test_fmod_matches_torch(case):
    run(lambda tg: D.op_report(tg, FMODS[case]))


def test_fmod_of_integers_and_randint_like():
    def prog(tg):
        tg.manual_seed(0)
        return [tg.fmod(tg.tensor([5, -5]), 3), tg.nan_to_num(tg.tensor([1, 2])),
                tg.randint_like(tg.zeros(3), 10), tg.randint_like(tg.zeros(2, dtype=tg.int64), 2, 5)]
    run(prog)


CUMPRODS = {
    "dim_1": lambda tg, x: x.cumprod(1) * x,
    "dim_0": lambda tg, x: tg.cumprod(x, dim=0) ** 2,
    "negative_dim": lambda tg, x: x.cumprod(-1).sum(1),
    "dtype": lambda tg, x: x.cumprod(1, dtype=tg.float64),
}


@pytest.mark.parametrize("case", sorted(CUMPRODS))
def test_cumprod_matches_torch(case):
    run(lambda tg: D.op_report(tg, CUMPRODS[case]))


def test_cumprod_gradient_through_zeros_matches_torch():
    def prog(tg):
        x = tg.tensor([[1.5, 0.0, 2.0, -1.0], [0.5, 2.0, 0.0, 0.0], [0.0, 3.0, 1.0, 2.0]],
                      requires_grad=True)
        y = x.cumprod(1)
        (y * tg.arange(4.0)).sum().backward()
        return {"y": y, "node": D.node_name(y.grad_fn), "grad": x.grad,
                "saved": [y.grad_fn._saved_dim]}
    run(prog)


def test_cumprod_of_integers_and_its_saved_values():
    def prog(tg):
        x = tg.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x.cumprod(0)
        return {"ints": tg.cumprod(tg.tensor([1, 2, 3]), 0), "self": y.grad_fn._saved_self,
                "result": y.grad_fn._saved_result}
    run(prog)


def test_cumprod_second_derivative_through_a_zero_is_refused_not_wrong():
    import teachgrad
    x = teachgrad.tensor([1.5, 0.0, 2.0], requires_grad=True)
    with pytest.raises(NotImplementedError, match="cumprod through a factor equal to 0"):
        teachgrad.autograd.grad(x.cumprod(0).sum(), x, create_graph=True)
