"""Bad input: the same exception type as torch with a message that starts with torch's words,
and afterwards nothing has changed (parameters, gradients, buffers, optimiser state)."""
import numpy as np
import pytest

import teachgrad as tg
from nn_compare import assert_same_error, assert_unchanged, snapshot

torch = pytest.importorskip("torch")


def _model(lib):
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Conv2d(3, 4, 2), lib.nn.BatchNorm2d(4), lib.nn.ReLU(),
                             lib.nn.Flatten(), lib.nn.Linear(4 * 4 * 4, 3))


def _trained(lib, optimizer_name="Adam"):
    """A model and optimiser after one step, so that grads and state exist."""
    model = _model(lib)
    optimizer = getattr(lib.optim, optimizer_name)(model.parameters(), lr=0.1)
    images = lib.tensor(np.linspace(0, 1, 2 * 3 * 5 * 5, dtype=np.float32).reshape(2, 3, 5, 5))
    model(images).sum().backward()
    optimizer.step()
    model(images).sum().backward()
    return model, optimizer


MODEL_CALLS = {
    "wrong_input_channels": lambda lib, model: model(lib.zeros(2, 2, 5, 5)),
    "wrong_features_for_linear": lambda lib, model: model[4](lib.zeros(4, 5)),
    "conv_input_2d": lambda lib, model: model(lib.zeros(5, 5)),
    "image_smaller_than_kernel": lambda lib, model: model(lib.zeros(1, 3, 1, 1)),
    "batch_norm_one_value_per_channel": lambda lib, model: model[1](lib.zeros(1, 4, 1, 1)),
    "batch_norm_wrong_dims": lambda lib, model: model[1](lib.zeros(4, 4)),
    "load_state_dict_wrong_shape": lambda lib, model: model.load_state_dict(
        {**model.state_dict(), "4.weight": lib.zeros(3, 5)}),
    "load_state_dict_missing_and_unexpected": lambda lib, model: model.load_state_dict(
        {**{k: v for k, v in model.state_dict().items() if k != "0.bias"}, "extra": lib.zeros(1)}),
    "load_state_dict_not_a_tensor": lambda lib, model: model.load_state_dict(
        {**model.state_dict(), "0.bias": 3}),
    "load_state_dict_non_strict_wrong_shape": lambda lib, model: model.load_state_dict(
        {"0.weight": lib.zeros(1)}, strict=False),
    "assign_tensor_to_parameter": lambda lib, model: setattr(model[0], "weight", lib.zeros(1)),
    "missing_attribute": lambda lib, model: model.nothing_here,
    "sequential_index": lambda lib, model: model[7],
}


# PyTorch's batch norm counts the batch before it checks the batch size.
COUNTED_BEFORE_THE_ERROR = {"batch_norm_one_value_per_channel"}


@pytest.mark.parametrize("case", MODEL_CALLS)
def test_model_errors_match_torch_and_change_nothing(case):
    ours_model, ours_optimizer = _trained(tg)
    theirs_model, _ = _trained(torch)
    before = snapshot(ours_model, ours_optimizer)
    assert_same_error(lambda: MODEL_CALLS[case](tg, ours_model),
                      lambda: MODEL_CALLS[case](torch, theirs_model))
    if case in COUNTED_BEFORE_THE_ERROR:
        counts = [int(m[1].num_batches_tracked) for m in (ours_model, theirs_model)]
        assert counts[0] == counts[1] == int(before[1]["1.num_batches_tracked"]) + 1
    else:
        assert_unchanged(before, snapshot(ours_model, ours_optimizer))


def test_load_state_dict_lists_every_problem_like_torch():
    ours, theirs = _model(tg), _model(torch)

    def bad(lib, model):
        state = dict(model.state_dict())
        del state["0.bias"]
        state["4.weight"] = lib.zeros(3, 5)
        state["extra"] = lib.zeros(1)
        return state
    our_error = pytest.raises(RuntimeError, ours.load_state_dict, bad(tg, ours))
    their_error = pytest.raises(RuntimeError, theirs.load_state_dict, bad(torch, theirs))
    assert str(our_error.value) == str(their_error.value).replace("torch.", "teachgrad.")
    assert str(our_error.value).startswith("Error(s) in loading state_dict for Sequential:\n\t"
                                           "Missing key(s) in state_dict: \"0.bias\". ")


LOSS_CALLS = {
    "bce_input_above_one": lambda lib, F, x: F.binary_cross_entropy(
        x + 1.5, lib.zeros(2, 3)),
    "bce_input_negative": lambda lib, F, x: F.binary_cross_entropy(x - 5, lib.zeros(2, 3)),
    "bce_target_outside": lambda lib, F, x: F.binary_cross_entropy(
        x.sigmoid(), lib.full((2, 3), 2.0)),
    "bce_size_mismatch": lambda lib, F, x: F.binary_cross_entropy(x.sigmoid(), lib.zeros(3)),
    "bce_long_target": lambda lib, F, x: F.binary_cross_entropy(
        x.sigmoid(), lib.zeros(2, 3, dtype=lib.int64)),
    "bce_logits_size_mismatch": lambda lib, F, x: F.binary_cross_entropy_with_logits(
        x, lib.zeros(3)),
    "cross_entropy_class_too_big": lambda lib, F, x: F.cross_entropy(x, lib.tensor([0, 3])),
    "cross_entropy_negative_class": lambda lib, F, x: F.cross_entropy(x, lib.tensor([-1, 0])),
    "nll_class_too_big": lambda lib, F, x: F.nll_loss(x, lib.tensor([1, 5])),
    "nll_float_target": lambda lib, F, x: F.nll_loss(x, lib.tensor([1.0, 0.0])),
    "nll_batch_mismatch": lambda lib, F, x: F.nll_loss(x, lib.tensor([1, 0, 2])),
    "nll_multi_target": lambda lib, F, x: F.nll_loss(x, lib.tensor([[1, 0], [0, 1]])),
    "bad_reduction": lambda lib, F, x: F.mse_loss(x, x, reduction="avg"),
    "mse_not_broadcastable": lambda lib, F, x: F.mse_loss(x, lib.zeros(2)),
    "linear_shapes": lambda lib, F, x: F.linear(lib.zeros(4, 5), lib.zeros(2, 3)),
    "linear_dtypes": lambda lib, F, x: F.linear(x.double(), lib.zeros(2, 3), lib.zeros(2)),
    "linear_dtypes_without_bias": lambda lib, F, x: F.linear(x.double(), lib.zeros(2, 3)),
    "linear_0d": lambda lib, F, x: F.linear(lib.tensor(1.0), lib.zeros(2, 3)),
    "conv_bias_size": lambda lib, F, x: F.conv2d(lib.zeros(1, 3, 5, 5), lib.zeros(4, 3, 2, 2),
                                                 lib.zeros(3)),
    "conv_negative_padding": lambda lib, F, x: F.conv2d(lib.zeros(1, 3, 5, 5),
                                                        lib.zeros(4, 3, 2, 2), padding=-1),
    "conv_padding_string": lambda lib, F, x: F.conv2d(lib.zeros(1, 3, 5, 5),
                                                      lib.zeros(4, 3, 2, 2), padding="foo"),
    "conv_same_strided": lambda lib, F, x: F.conv2d(lib.zeros(1, 3, 5, 5), lib.zeros(4, 3, 3, 3),
                                                    stride=2, padding="same"),
    "conv_zero_stride": lambda lib, F, x: F.conv2d(lib.zeros(1, 3, 5, 5),
                                                   lib.zeros(4, 3, 2, 2), stride=0),
    "max_pool_padding_too_big": lambda lib, F, x: F.max_pool2d(lib.zeros(1, 1, 5, 5), 2,
                                                               padding=2),
    "max_pool_2d_input": lambda lib, F, x: F.max_pool2d(lib.zeros(3, 3), 2),
    "pool_output_too_small": lambda lib, F, x: F.avg_pool2d(lib.zeros(1, 1, 1, 1), 2),
    "pad_odd_length": lambda lib, F, x: F.pad(x, (1,)),
    "pad_too_long": lambda lib, F, x: F.pad(x, (1, 1, 1, 1, 1, 1)),
    "one_hot_too_big": lambda lib, F, x: F.one_hot(lib.tensor([1, 5]), 3),
    "one_hot_negative": lambda lib, F, x: F.one_hot(lib.tensor([1, -1]), 3),
    "one_hot_float": lambda lib, F, x: F.one_hot(lib.tensor([1.0])),
    "embedding_out_of_range": lambda lib, F, x: F.embedding(lib.tensor([3]), x),
    "embedding_float_indices": lambda lib, F, x: F.embedding(lib.tensor([1.0]), x),
    "dropout_probability": lambda lib, F, x: F.dropout(x, 1.5),
    "batch_norm_eval_without_stats": lambda lib, F, x: F.batch_norm(x, None, None),
    "batch_norm_wrong_channels": lambda lib, F, x: F.batch_norm(x, lib.zeros(4), lib.ones(4)),
}


@pytest.mark.filterwarnings("ignore:Using a target size")
@pytest.mark.parametrize("case", LOSS_CALLS)
def test_functional_errors_match_torch(case):
    x = np.arange(6, dtype=np.float32).reshape(2, 3) / 10
    assert_same_error(
        lambda: LOSS_CALLS[case](tg, tg.nn.functional, tg.tensor(x, requires_grad=True)),
        lambda: LOSS_CALLS[case](torch, torch.nn.functional, torch.tensor(x, requires_grad=True)))


CONSTRUCTOR_CALLS = {
    "dropout_p": lambda lib, params: lib.nn.Dropout(-0.1),
    "conv_same_with_stride": lambda lib, params: lib.nn.Conv2d(3, 4, 3, stride=2, padding="same"),
    "sgd_negative_lr": lambda lib, params: lib.optim.SGD(params, lr=-1),
    "sgd_negative_momentum": lambda lib, params: lib.optim.SGD(params, lr=1, momentum=-1),
    "sgd_nesterov_without_momentum": lambda lib, params: lib.optim.SGD(params, lr=1,
                                                                      nesterov=True),
    "sgd_weight_decay": lambda lib, params: lib.optim.SGD(params, lr=1, weight_decay=-1),
    "adam_beta": lambda lib, params: lib.optim.Adam(params, betas=(1.0, 0.9)),
    "adam_beta2": lambda lib, params: lib.optim.Adam(params, betas=(0.9, -0.1)),
    "adam_eps": lambda lib, params: lib.optim.Adam(params, eps=-1),
    "empty_parameter_list": lambda lib, params: lib.optim.SGD([], lr=1),
    "a_tensor_not_a_list": lambda lib, params: lib.optim.SGD(params[0], lr=1),
    "non_leaf": lambda lib, params: lib.optim.SGD([params[0] * 2], lr=1),
    "not_a_tensor": lambda lib, params: lib.optim.SGD([1.0], lr=1),
    "parameter_in_two_groups": lambda lib, params: lib.optim.SGD(
        [{"params": params}, {"params": params[:1]}], lr=1),
    "param_set": lambda lib, params: lib.optim.SGD([{"params": set(params)}], lr=1),
    "batch_size": lambda lib, params: lib.utils.data.DataLoader([1, 2], batch_size=0),
    "tensor_dataset_sizes": lambda lib, params: lib.utils.data.TensorDataset(
        lib.zeros(3, 2), lib.zeros(2)),
    "integer_parameter": lambda lib, params: lib.nn.Parameter(lib.tensor([1, 2])),
    "parameter_of_a_list": lambda lib, params: lib.nn.Parameter([1.0]),
}


@pytest.mark.parametrize("case", CONSTRUCTOR_CALLS)
def test_constructor_errors_match_torch(case):
    def params(lib):
        return [lib.zeros(2, requires_grad=True), lib.zeros(3, requires_grad=True)]
    assert_same_error(lambda: CONSTRUCTOR_CALLS[case](tg, params(tg)),
                      lambda: CONSTRUCTOR_CALLS[case](torch, params(torch)))


def test_optimizer_load_state_dict_errors_change_nothing():
    model, optimizer = _trained(tg, "SGD")
    before = snapshot(model, optimizer)
    state = optimizer.state_dict()
    with pytest.raises(ValueError, match="different number of parameter groups"):
        optimizer.load_state_dict({"state": {}, "param_groups": state["param_groups"] * 2})
    with pytest.raises(ValueError, match="doesn't match the size of optimizer's group"):
        optimizer.load_state_dict({"state": {}, "param_groups": [
            {**state["param_groups"][0], "params": [0]}]})
    assert_unchanged(before, snapshot(model, optimizer))


def test_module_misuse_errors():
    class NoInit(tg.nn.Module):
        def __init__(self):
            self.layer = tg.nn.Linear(1, 1)

    class TorchNoInit(torch.nn.Module):
        def __init__(self):
            self.layer = torch.nn.Linear(1, 1)
    assert_same_error(NoInit, TorchNoInit)
    assert_same_error(lambda: tg.nn.Module()(1), lambda: torch.nn.Module()(1))
    assert_same_error(lambda: tg.nn.Linear(1, 1).register_buffer("weight", tg.zeros(1)),
                      lambda: torch.nn.Linear(1, 1).register_buffer("weight", torch.zeros(1)))


def test_conv_padding_string_error():
    """(torch prints the allowed strings as a set, in an order that changes from run to run)"""
    with pytest.raises(ValueError, match="Invalid padding string 'full', should be one of"):
        tg.nn.Conv2d(3, 4, 3, padding="full")
