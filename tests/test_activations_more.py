"""LayerNorm and the activations added after GELU/SiLU (hardtanh, relu6, threshold, elu,
selu, logsigmoid, softsign, hardsigmoid, hardswish, mish) against torch: values, node names
and saved fields, gradients, second derivatives, ties at the bounds, -0.0, inf and nan,
in-place variants, module printing and parameters."""
import math
import warnings

import numpy as np
import pytest

try:
    from . import differential as D
except ImportError:
    import differential as D

torch = pytest.importorskip("torch")
run = D.run_both

SPECIAL = [-2.0, -1.0, -0.0, 0.0, 1.0, 2.0, 3.0, -3.0, 6.0, 0.5, float("inf"), float("-inf"),
           float("nan")]


def _saved(node, names=None, values_only=False):
    """The node's ``_saved_`` fields (by default all it lists): tensors (with their flags, or
    with ``values_only`` just their values), the rest as they are."""
    names = names or sorted(n for n in dir(node) if n.startswith("_saved_"))
    fields = {name: getattr(node, name) for name in names}
    return {name: D.snap(value.detach() if values_only else value, version=False)
            if D.is_tensor(value) else value for name, value in fields.items()}


# ---- layer norm -------------------------------------------------------------------------
LAYER_NORM_SAVED = ["_saved_bias", "_saved_input", "_saved_normalized_shape", "_saved_result1",
                    "_saved_result2", "_saved_weight"]     # None for an absent weight or bias

def _layer_norm_input(tg, shape=(2, 3, 4)):
    values = np.linspace(-2, 3, int(np.prod(shape)), dtype=np.float32).reshape(shape) ** 2
    return tg.tensor(values.tolist(), requires_grad=True)


@pytest.mark.parametrize("normalized_shape", [(4,), (3, 4), (2, 3, 4)])
@pytest.mark.parametrize("affine,bias", [(True, True), (True, False), (False, False)])
def test_layer_norm_module_values_saved_fields_and_gradients(normalized_shape, affine, bias):
    def prog(tg):
        tg.manual_seed(0)
        layer = tg.nn.LayerNorm(normalized_shape, elementwise_affine=affine, bias=bias)
        if affine:          # away from the initial ones and zeros, so their gradients show
            with tg.no_grad():
                layer.weight.mul_(tg.linspace(0.5, 1.5, layer.weight.numel()).view(normalized_shape))
                if bias:
                    layer.bias.add_(0.25)
        x = _layer_norm_input(tg)
        y = layer(x)
        node = y.grad_fn
        result = {"y": y, "node": D.name(y), "graph": D.graph(y), "saved": _saved(node, LAYER_NORM_SAVED),
                  "repr": repr(layer), "params": [name for name, _ in layer.named_parameters()]}
        (y * tg.linspace(-1, 1, y.numel()).view(y.shape)).pow(2).sum().backward()
        result["grads"] = D.snap([x.grad] + [p.grad for p in layer.parameters()], version=False)
        return result
    run(prog, rtol=1e-4, atol=1e-5)


def test_layer_norm_second_derivative():
    def prog(tg):
        x = _layer_norm_input(tg, (3, 5)).double().detach().requires_grad_()
        w = tg.linspace(0.5, 2.0, 5, dtype=tg.float64, requires_grad=True)
        b = tg.linspace(-1.0, 1.0, 5, dtype=tg.float64, requires_grad=True)
        y = tg.nn.functional.layer_norm(x, (5,), w, b, eps=1e-3)
        weights = tg.linspace(-1, 2, 15, dtype=tg.float64).view(3, 5)
        gx, gw, gb = tg.autograd.grad((y * weights).pow(2).sum(), (x, w, b), create_graph=True)
        second = tg.autograd.grad((gx.pow(2).sum() + gw.pow(2).sum() + gb.sum()), (x, w, b))
        # (torch's gradient is one NativeLayerNormBackwardBackward0 node, teachgrad's a graph
        # of ordinary ops: only values and flags are compared)
        return D.loose([y, gx, gw, gb, *second])
    run(prog, rtol=1e-9, atol=1e-10)


def test_layer_norm_of_a_constant_row_is_zero_and_eps_matters():
    def prog(tg):
        x = tg.tensor([[1.0, 1.0, 1.0], [0.0, 1e-3, 2e-3]], requires_grad=True)
        y = tg.nn.functional.layer_norm(x, [3], eps=1e-2)
        y.pow(3).sum().backward()
        return y, x.grad, y.grad_fn._saved_normalized_shape
    run(prog, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("call", [
    lambda tg, x: tg.nn.functional.layer_norm(x, (3,)),
    lambda tg, x: tg.nn.functional.layer_norm(x, (5, 2, 3, 4)),
    lambda tg, x: tg.nn.functional.layer_norm(x, (4,), weight=tg.ones(3)),
    lambda tg, x: tg.nn.functional.layer_norm(x, (4,), bias=tg.ones(2, 2)),
    lambda tg, x: tg.nn.functional.layer_norm(x, (4,), weight=tg.ones(4, dtype=tg.float64)),
    lambda tg, x: tg.nn.functional.layer_norm(x.long(), (4,)),
], ids=["wrong_shape", "too_many_dims", "weight_shape", "bias_shape", "mixed_dtype", "long"])
def test_layer_norm_errors(call):
    run(lambda tg: call(tg, _layer_norm_input(tg).detach()), raises="Exception")


def test_layer_norm_refuses_an_int_shape():
    run(lambda tg: tg.nn.functional.layer_norm(tg.ones(2, 4), 4), raises="TypeError")


def test_layer_norm_module_state_and_parameters():
    def prog(tg):
        layer = tg.nn.LayerNorm([2, 3], eps=1e-3)
        return (layer.normalized_shape, layer.weight, layer.bias, list(layer.state_dict()),
                list(tg.nn.LayerNorm(3, elementwise_affine=False).state_dict()),
                tg.nn.LayerNorm(3, elementwise_affine=False).weight, repr(layer))
    run(prog)


# ---- activations ------------------------------------------------------------------------
ACTIVATIONS = {
    "hardtanh": lambda tg, x: tg.nn.functional.hardtanh(x),
    "hardtanh_bounds": lambda tg, x: tg.nn.functional.hardtanh(x, -2.0, 3.0),
    "hardtanh_module": lambda tg, x: tg.nn.Hardtanh(-0.5, 2.0)(x),
    "relu6": lambda tg, x: tg.nn.functional.relu6(x),
    "relu6_module": lambda tg, x: tg.nn.ReLU6()(x),
    "threshold": lambda tg, x: tg.nn.functional.threshold(x, 1.0, -5.0),
    "threshold_module": lambda tg, x: tg.nn.Threshold(0.0, 20.0)(x),
    "elu": lambda tg, x: tg.nn.functional.elu(x),
    "elu_alpha": lambda tg, x: tg.nn.functional.elu(x, 2.0),
    "elu_module": lambda tg, x: tg.nn.ELU(0.5)(x),
    "selu": lambda tg, x: tg.nn.functional.selu(x),
    "selu_module": lambda tg, x: tg.nn.SELU()(x),
    "logsigmoid": lambda tg, x: tg.nn.functional.logsigmoid(x),
    "logsigmoid_module": lambda tg, x: tg.nn.LogSigmoid()(x),
    "softsign": lambda tg, x: tg.nn.functional.softsign(x),
    "softsign_module": lambda tg, x: tg.nn.Softsign()(x),
    "hardswish": lambda tg, x: tg.nn.functional.hardswish(x),
    "hardswish_module": lambda tg, x: tg.nn.Hardswish()(x),
    "mish": lambda tg, x: tg.nn.functional.mish(x),
    "mish_module": lambda tg, x: tg.nn.Mish()(x),
}
FIRST_ORDER_ONLY = {   # torch's gradient cannot be differentiated again (NotImplemented)
    "hardsigmoid": lambda tg, x: tg.nn.functional.hardsigmoid(x),
    "hardsigmoid_module": lambda tg, x: tg.nn.Hardsigmoid()(x),
}


@pytest.mark.parametrize("case", sorted(ACTIVATIONS))
def test_values_nodes_gradients_and_second_derivatives(case):
    run(lambda tg: D.op_report(tg, lambda tg, x: ACTIVATIONS[case](tg, x * 2)))


@pytest.mark.parametrize("case", sorted(ACTIVATIONS))
def test_in_float64(case):
    def prog(tg):
        x = tg.tensor([[1.5, -2.3, 0.5], [2.9, 0.1, -0.7]], dtype=tg.float64, requires_grad=True)
        y = ACTIVATIONS[case](tg, x * 3)
        (g,) = tg.autograd.grad((y * y).sum(), x, create_graph=True)
        (h,) = tg.autograd.grad(g.sum(), x)
        return D.snap([y, g, h], version=False)
    run(prog, rtol=1e-10, atol=1e-12)


def _at_special_values(tg, op):
    """``op`` at ties, -0.0, inf and nan: values, the sign of zeros, gradient, saved fields."""
    x = tg.tensor(SPECIAL, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # no numpy warning may escape
        y = op(tg, x)
        # (softsign is a division: which operands DivBackward0 keeps is not this file's matter)
        saved = None if D.name(y) == "DivBackward0" else _saved(y.grad_fn)
        (g,) = tg.autograd.grad(y.sum(), x)
    signs = [math.copysign(1.0, v) for v in y.tolist() if v == v]      # -0.0 against 0.0
    return {"y": y, "signs": signs, "node": D.name(y), "saved": saved,
            "grad": D.snap(g, version=False)}


@pytest.mark.parametrize("case", sorted({**ACTIVATIONS, **FIRST_ORDER_ONLY}))
def test_ties_signed_zeros_inf_and_nan(case):
    op = {**ACTIVATIONS, **FIRST_ORDER_ONLY}[case]
    run(lambda tg: _at_special_values(tg, op))


def test_hardsigmoid_gradient_is_not_differentiable_again_in_torch_either():
    def prog(tg):
        x = tg.tensor([-4.0, -1.0, 0.5, 3.0], requires_grad=True)
        (g,) = tg.autograd.grad(tg.nn.functional.hardsigmoid(x).sum(), x, create_graph=True)
        return g.detach()
    run(prog)


INPLACE = {
    "hardtanh": lambda tg, h: tg.nn.functional.hardtanh(h, -0.7, 0.7, inplace=True),
    "hardtanh_": lambda tg, h: tg.nn.functional.hardtanh_(h),
    "hardtanh_module": lambda tg, h: tg.nn.Hardtanh(inplace=True)(h),
    "relu6": lambda tg, h: tg.nn.functional.relu6(h, inplace=True),
    "relu6_module": lambda tg, h: tg.nn.ReLU6(inplace=True)(h),
    "threshold": lambda tg, h: tg.nn.functional.threshold(h, 0.5, 20.0, inplace=True),
    "threshold_": lambda tg, h: tg.nn.functional.threshold_(h, 0.5, -1.0),
    "threshold_module": lambda tg, h: tg.nn.Threshold(0.1, 3.0, inplace=True)(h),
    "elu": lambda tg, h: tg.nn.functional.elu(h, 0.5, inplace=True),
    "elu_": lambda tg, h: tg.nn.functional.elu_(h),
    "elu_module": lambda tg, h: tg.nn.ELU(inplace=True)(h),
    "selu": lambda tg, h: tg.nn.functional.selu(h, inplace=True),
    "selu_": lambda tg, h: tg.nn.functional.selu_(h),
    "selu_module": lambda tg, h: tg.nn.SELU(inplace=True)(h),
    "hardsigmoid": lambda tg, h: tg.nn.functional.hardsigmoid(h, inplace=True),
    "hardswish": lambda tg, h: tg.nn.functional.hardswish(h, inplace=True),
    "hardswish_module": lambda tg, h: tg.nn.Hardswish(inplace=True)(h),
    "mish": lambda tg, h: tg.nn.functional.mish(h, inplace=True),
    "mish_module": lambda tg, h: tg.nn.Mish(inplace=True)(h),
}


@pytest.mark.parametrize("case", sorted(INPLACE))
def test_in_place(case):
    def prog(tg):
        x = tg.tensor([1.0, -2.0, 0.5, 0.0, 3.5, -0.3], requires_grad=True)
        h = x * 2
        y = INPLACE[case](tg, h)
        result = {"same": y is h, "node": D.name(h), "graph": D.graph(h), "version": h._version,
                  "saved": _saved(h.grad_fn, values_only=True)}   # (see the report on clones)
        (h * h).sum().backward()
        result["grad"] = x.grad
        return result
    run(prog)


def test_in_place_on_a_leaf_is_refused():
    run(lambda tg: tg.nn.functional.elu(tg.ones(2, requires_grad=True), inplace=True),
        raises="RuntimeError")


def test_modules_print_as_torch():
    run(lambda tg: [repr(m) for m in (
        tg.nn.Hardtanh(), tg.nn.Hardtanh(-2, 3), tg.nn.Hardtanh(inplace=True), tg.nn.ReLU6(),
        tg.nn.ReLU6(True), tg.nn.Threshold(0.1, 20), tg.nn.Threshold(0.1, 20, True),
        tg.nn.ELU(), tg.nn.ELU(0.5, True), tg.nn.SELU(), tg.nn.SELU(True), tg.nn.LogSigmoid(),
        tg.nn.Softsign(), tg.nn.Hardsigmoid(), tg.nn.Hardsigmoid(True), tg.nn.Hardswish(),
        tg.nn.Hardswish(True), tg.nn.Mish(), tg.nn.Mish(True))])


def test_hardtanh_refuses_crossed_bounds():
    run(lambda tg: tg.nn.functional.hardtanh(tg.ones(2), 2.0, 1.0), raises="ValueError")
    run(lambda tg: tg.nn.Hardtanh(2.0, 1.0), raises="AssertionError")


def test_integer_inputs_of_hardtanh_and_threshold_stay_integers():
    run(lambda tg: [tg.nn.functional.hardtanh(tg.tensor([1, 5, -3]), -2, 2),
                    tg.nn.functional.relu6(tg.tensor([-1, 3, 9])),
                    tg.nn.functional.threshold(tg.arange(3), 1, 0)])


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_relu_and_threshold_gradients_pass_or_zero_every_bit_as_torch(dtype):
    """Where the input is above the threshold (or NaN) the gradient passes bit for bit
    (inf, nan, -0.0 included); elsewhere it is +0.0."""
    values = [math.nan, math.inf, -math.inf, -0.0, 0.0, 1.0, -1.0, 2.0, 0.5]
    grads = [1.0, math.inf, 3.0, -math.nan, -0.0, -0.0, math.inf, math.nan, -2.0]

    def prog(tg):
        x = tg.tensor(values, dtype=getattr(tg, dtype), requires_grad=True)
        out = tg.relu(x) + tg.nn.functional.threshold(x, 0.5, 7.0)
        (grad,) = tg.autograd.grad(out, x, tg.tensor(grads, dtype=getattr(tg, dtype)))
        bits = grad.numpy().view(f"u{grad.element_size()}")
        return bits.tolist()
    D.run_both(prog)


@pytest.mark.parametrize("first", ["x * 2", "relu", "threshold"])
def test_a_relu_gradient_summed_with_another_is_added_into_in_place(first):
    """The engine adds a second gradient into the first in place when nothing else holds
    it, as PyTorch does: relu's gradient must be an array of its own for that (version 1)."""
    def prog(tg):
        x = tg.tensor([1.0, -1.0, 0.25], requires_grad=True)
        parts = {"x * 2": x * 2, "relu": tg.relu(x),
                 "threshold": tg.nn.functional.threshold(x, 0.5, 7.0)}
        second = [part for name, part in parts.items() if name != first]
        (grad,) = tg.autograd.grad(parts[first] + second[0] + second[1], x, tg.ones(3))
        return grad.tolist(), grad._version
    D.run_both(prog)
