"""nn.Module and nn.Parameter against torch: registration by assignment, the walks over
parameters, buffers and submodules, modes, zero_grad, state_dict, apply and repr."""
import copy
from collections import OrderedDict

import numpy as np
import pytest

import teachgrad as tg
from nn_compare import arrays, assert_close, copy_state

torch = pytest.importorskip("torch")


def _net_class(lib):
    class Net(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = lib.nn.Conv2d(1, 2, 3, padding=1)
            self.bn = lib.nn.BatchNorm2d(2)
            self.blocks = lib.nn.ModuleList([lib.nn.Linear(8, 8), lib.nn.Linear(8, 8)])
            self.head = lib.nn.Sequential(OrderedDict([("drop", lib.nn.Dropout(0.1)),
                                                       ("out", lib.nn.Linear(8, 3))]))
            self.scale = lib.nn.Parameter(lib.ones(1))
            self.register_buffer("steps", lib.zeros(1))
            self.register_buffer("scratch", lib.zeros(2), persistent=False)
            self.shared = self.blocks[0]          # the same module twice: listed once

        def forward(self, x):
            x = lib.relu(self.bn(self.conv(x)))
            x = lib.nn.functional.max_pool2d(x, 2).flatten(1)
            for block in self.blocks:
                x = lib.tanh(block(x))
            return self.head(x) * self.scale
    return Net


@pytest.fixture
def nets():
    theirs = _net_class(torch)()
    ours = _net_class(tg)()
    copy_state(ours, theirs)
    return ours, theirs


def _names(pairs):
    return [name for name, _ in pairs]


def test_registration_and_walks_match_torch(nets):
    ours, theirs = nets
    assert _names(ours.named_parameters()) == _names(theirs.named_parameters())
    assert _names(ours.named_buffers()) == _names(theirs.named_buffers())
    assert _names(ours.named_children()) == _names(theirs.named_children())
    assert _names(ours.named_modules()) == _names(theirs.named_modules())
    assert [type(m).__name__ for m in ours.modules()] == \
        [type(m).__name__ for m in theirs.modules()]
    assert len(list(ours.parameters())) == len(list(theirs.parameters()))
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert "scratch" not in ours.state_dict()
    assert isinstance(ours.state_dict(), OrderedDict)
    assert repr(ours) == repr(theirs)
    assert isinstance(ours.conv.weight, tg.nn.Parameter)
    assert ours.state_dict()["conv.weight"].requires_grad is False
    assert ours.state_dict(keep_vars=True)["conv.weight"] is ours.conv.weight


def test_forward_backward_match_torch(nets):
    ours, theirs = nets
    ours.eval(), theirs.eval()
    (x,) = arrays(0, (2, 1, 4, 4))
    ours_out, theirs_out = ours(tg.tensor(x)), theirs(torch.tensor(x))
    assert_close(ours_out, theirs_out, rtol=1e-4)
    ours_out.sum().backward()
    theirs_out.sum().backward()
    for (name, p), (_, q) in zip(ours.named_parameters(), theirs.named_parameters()):
        assert_close(p.grad, q.grad, rtol=1e-4, atol=1e-5)


def test_train_eval_zero_grad_and_requires_grad(nets):
    ours, _ = nets
    assert ours.training and ours.head.drop.training
    assert ours.eval() is ours
    assert not any(m.training for m in ours.modules())
    ours.train()
    assert all(m.training for m in ours.modules())
    ours(tg.ones(1, 1, 4, 4)).sum().backward()
    assert all(p.grad is not None for p in ours.parameters())
    ours.zero_grad()
    assert all(p.grad is None for p in ours.parameters())
    ours(tg.ones(1, 1, 4, 4)).sum().backward()
    ours.zero_grad(set_to_none=False)
    assert all(float(p.grad.abs().sum()) == 0 for p in ours.parameters())
    assert ours.requires_grad_(False) is ours
    assert not any(p.requires_grad for p in ours.parameters())
    assert not ours(tg.ones(1, 1, 4, 4)).requires_grad


def test_state_dict_round_trip_and_incompatible_keys(nets):
    ours, theirs = nets
    fresh = _net_class(tg)()
    result = fresh.load_state_dict(ours.state_dict())
    assert repr(result) == repr(theirs.load_state_dict(theirs.state_dict())) == \
        "<All keys matched successfully>"
    for (name, a), (_, b) in zip(fresh.state_dict().items(), ours.state_dict().items()):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    state = dict(ours.state_dict())
    del state["scale"]
    state["unknown"] = tg.zeros(1)
    their_state = dict(theirs.state_dict())
    del their_state["scale"]
    their_state["unknown"] = torch.zeros(1)
    result = fresh.load_state_dict(state, strict=False)
    assert result.missing_keys == ["scale"] and result.unexpected_keys == ["unknown"]
    assert repr(result) == repr(theirs.load_state_dict(their_state, strict=False))


def test_state_dict_shares_memory_and_load_copies(nets):
    ours, _ = nets
    state = ours.state_dict()
    assert np.shares_memory(state["conv.weight"].numpy(), ours.conv.weight.detach().numpy())
    version = ours.conv.weight._version
    ours.load_state_dict({k: v.clone() for k, v in state.items()})
    assert ours.conv.weight._version == version + 1


def test_parameter_is_a_leaf_that_requires_grad_and_prints_like_torch():
    values = [[1.0, -2.5], [0.25, 3.0]]
    ours, theirs = tg.nn.Parameter(tg.tensor(values)), torch.nn.Parameter(torch.tensor(values))
    assert repr(ours) == repr(theirs)
    assert ours.is_leaf and ours.requires_grad and ours.grad_fn is None
    frozen = tg.nn.Parameter(tg.tensor(values, dtype=tg.float64), requires_grad=False)
    their_frozen = torch.nn.Parameter(torch.tensor(values, dtype=torch.float64),
                                      requires_grad=False)
    assert repr(frozen) == repr(their_frozen).replace("torch.", "teachgrad.")
    assert type(ours * 2) is tg.Tensor and type(ours.detach()) is tg.Tensor
    data = tg.zeros(2)
    shared = tg.nn.Parameter(data)
    data.add_(1)
    assert shared.tolist() == [1.0, 1.0]


def test_attribute_assignment_rules():
    layer = tg.nn.Linear(2, 2)
    layer.bias = None
    assert layer.bias is None and "bias" in layer._parameters
    assert [n for n, _ in layer.named_parameters()] == ["weight"]
    layer.extra = tg.nn.Parameter(tg.zeros(1))
    assert "extra" in layer._parameters
    del layer.extra
    assert "extra" not in layer._parameters
    with pytest.raises(AttributeError):
        layer.extra
    layer.note = "plain attribute"
    assert layer.__dict__["note"] == "plain attribute"
    assert "weight" in dir(layer)


def test_apply_deepcopy_and_dtype():
    torch.manual_seed(0)
    model = tg.nn.Sequential(tg.nn.Linear(2, 3), tg.nn.Linear(3, 1))
    seen = []
    model.apply(lambda m: seen.append(type(m).__name__))
    assert seen == ["Linear", "Linear", "Sequential"]
    clone = copy.deepcopy(model)
    assert clone[0].weight is not model[0].weight
    np.testing.assert_array_equal(clone[0].weight.detach().numpy(),
                                  model[0].weight.detach().numpy())
    assert isinstance(clone[0].weight, tg.nn.Parameter)
    model.double()
    assert model[0].weight.dtype == tg.float64 and isinstance(model[0].weight, tg.nn.Parameter)
    assert model(tg.ones(1, 2, dtype=tg.float64)).dtype == tg.float64
    assert model.to("cpu") is model and model.to(tg.float32)[0].bias.dtype == tg.float32


def test_freezing_a_submodule():
    torch_model = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.ReLU(), torch.nn.Linear(2, 1))
    model = tg.nn.Sequential(tg.nn.Linear(2, 2), tg.nn.ReLU(), tg.nn.Linear(2, 1))
    copy_state(model, torch_model)
    for lib, net in ((tg, model), (torch, torch_model)):
        for p in net[0].parameters():
            p.requires_grad = False
        net(lib.tensor([[1.0, -1.0], [0.5, 2.0]])).sum().backward()
    assert model[0].weight.grad is None and model[0].bias.grad is None
    assert_close(model[2].weight.grad, torch_model[2].weight.grad)
    optimizer = tg.optim.SGD(model.parameters(), lr=0.1)
    frozen = model[0].weight.detach().clone()
    optimizer.step()
    np.testing.assert_array_equal(model[0].weight.detach().numpy(), frozen.numpy())


# ---- forward hooks --------------------------------------------------------------------------

def _forward_hook_story(lib):
    """Pre-hooks and forward hooks on a Linear: order, replaced inputs and outputs, prepend,
    with_kwargs, removal, and a pre-hook returning one value instead of a tuple."""
    lib.manual_seed(0)
    layer = lib.nn.Linear(3, 2)
    log, x = [], lib.ones(4, 3)
    layer.register_forward_pre_hook(lambda m, args: log.append(("pre", len(args))))
    doubling = layer.register_forward_pre_hook(lambda m, args: (args[0] * 2,))
    layer.register_forward_hook(lambda m, args, out: log.append(("post", float(args[0].sum()))))
    plus_one = layer.register_forward_hook(lambda m, args, out: out + 1)
    layer.register_forward_hook(lambda m, args, out: log.append("first"), prepend=True)
    layer.register_forward_pre_hook(lambda m, args, kwargs: (args, kwargs), with_kwargs=True)
    layer.register_forward_hook(lambda m, args, kwargs, out: log.append(("kw", len(kwargs))),
                                with_kwargs=True)
    outputs = [layer(x)]
    doubling.remove()
    plus_one.remove()
    outputs.append(layer(x))
    layer.register_forward_pre_hook(lambda m, args: args[0] + 1)
    outputs.append(layer(x))
    return log, [out.detach().numpy() for out in outputs]


def test_forward_hooks_run_like_torch():
    (our_log, ours), (their_log, theirs) = _forward_hook_story(tg), _forward_hook_story(torch)
    assert our_log == their_log
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_forward_pre_hook_with_kwargs_must_return_args_and_kwargs():
    messages = []
    for lib in (tg, torch):
        layer = lib.nn.Linear(3, 2)
        layer.register_forward_pre_hook(lambda m, args, kwargs: 5, with_kwargs=True)
        with pytest.raises(RuntimeError) as error:
            layer(lib.ones(1, 3))
        messages.append(str(error.value))
    assert messages[0] == messages[1]


# ---- nn.changes: every change to a module's state is counted -------------------------------
@pytest.mark.parametrize("change", [
    lambda m: setattr(m[0], "in_features", 5),
    lambda m: m.eval(),
    lambda m: delattr(m[0], "bias"),
    lambda m: m.__setitem__(1, tg.nn.Tanh()),
    lambda m: m.append(tg.nn.ReLU()),
    lambda m: m[0].register_buffer("scale", tg.ones(1)),
    lambda m: m[0].register_forward_hook(lambda *a: None),
    lambda m: m[0].register_full_backward_hook(lambda *a: None),
    lambda m: m[0]._parameters.pop("weight"),
], ids=["attribute", "eval", "delattr", "setitem", "append", "buffer", "forward_hook",
        "backward_hook", "registry_pop"])
def test_changes_to_a_module_are_counted(change):
    from teachgrad.nn.changes import changes
    model = tg.nn.Sequential(tg.nn.Linear(3, 2), tg.nn.ReLU())
    before = changes.count
    change(model)
    assert changes.count > before


def test_a_removed_hook_is_counted_and_reading_is_not():
    from teachgrad.nn.changes import changes
    layer = tg.nn.Linear(3, 2)
    handle = layer.register_forward_hook(lambda *a: None)
    before = changes.count
    layer(tg.ones(1, 3)), layer.state_dict(), list(layer.parameters()), layer.weight
    assert changes.count == before
    handle.remove()
    assert changes.count == before + 1 and not layer._forward_hooks


def test_registries_still_copy_and_pickle_as_ordered_dicts():
    import pickle
    model = tg.nn.Sequential(tg.nn.Linear(3, 2))
    for twin in (copy.deepcopy(model), pickle.loads(pickle.dumps(model))):
        assert isinstance(twin._modules, OrderedDict) and list(twin._modules) == ["0"]
        assert type(twin._modules) is type(model._modules)
        assert np.array_equal(twin[0].weight.detach().numpy(), model[0].weight.detach().numpy())
