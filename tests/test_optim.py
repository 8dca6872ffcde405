"""Optimisers and StepLR against torch: from the same weights, every step gives the same
parameters (to float32 precision), the same state, the same param_groups and versions."""
import numpy as np
import pytest

import teachgrad as tg
from nn_compare import arrays, assert_close, copy_state

torch = pytest.importorskip("torch")

SETTINGS = [
    ("SGD", {"lr": 0.1}),
    ("SGD", {"lr": 0.1, "momentum": 0.9}),
    ("SGD", {"lr": 0.05, "momentum": 0.9, "dampening": 0.3}),
    ("SGD", {"lr": 0.05, "momentum": 0.8, "nesterov": True}),
    ("SGD", {"lr": 0.1, "momentum": 0.5, "weight_decay": 0.01}),
    ("SGD", {"lr": 0.1, "weight_decay": 0.1, "maximize": True}),
    ("Adam", {"lr": 0.01}),
    ("Adam", {"lr": 0.01, "betas": (0.8, 0.99), "eps": 1e-6}),
    ("Adam", {"lr": 0.01, "weight_decay": 0.1}),
    ("Adam", {"lr": 0.01, "amsgrad": True}),
    ("Adam", {"lr": 0.01, "weight_decay": 0.1, "amsgrad": True, "maximize": True}),
    ("AdamW", {"lr": 0.01}),
    ("AdamW", {"lr": 0.01, "weight_decay": 0.3, "amsgrad": True}),
]


def _models():
    torch.manual_seed(0)
    theirs = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2))
    ours = tg.nn.Sequential(tg.nn.Linear(3, 4), tg.nn.Tanh(), tg.nn.Linear(4, 2))
    copy_state(ours, theirs)
    return ours, theirs


def _loss(lib, model, step):
    x, y = arrays(step, (5, 3), (5, 2))
    return ((model(lib.tensor(x)) - lib.tensor(y)) ** 2).mean()


def _train(lib, model, optimizer, steps, first_step=0, scheduler=None):
    for step in range(first_step, first_step + steps):
        optimizer.zero_grad()
        _loss(lib, model, step).backward()
        optimizer.step()
        if scheduler is not None:
            scheduler.step()


def _assert_same_parameters(ours, theirs, rtol=1e-5, atol=1e-6):
    for (name, p), (_, q) in zip(ours.named_parameters(), theirs.named_parameters()):
        assert_close(p, q, rtol, atol)


def _assert_same_state(ours, theirs):
    our_state, their_state = ours.state_dict(), theirs.state_dict()
    assert our_state["state"].keys() == their_state["state"].keys()
    for index, values in their_state["state"].items():
        assert our_state["state"][index].keys() == values.keys()
        for key, value in values.items():
            assert_close(our_state["state"][index][key], value, rtol=1e-5, atol=1e-7)
    for our_group, their_group in zip(our_state["param_groups"], their_state["param_groups"]):
        for key, value in our_group.items():
            assert their_group[key] == value, key


@pytest.mark.parametrize("name, options", SETTINGS, ids=[f"{n}-{i}" for i, (n, _) in
                                                        enumerate(SETTINGS)])
def test_trajectory_matches_torch(name, options):
    ours, theirs = _models()
    our_optimizer = getattr(tg.optim, name)(ours.parameters(), **options)
    their_optimizer = getattr(torch.optim, name)(theirs.parameters(), **options)
    versions = [(p._version, q._version) for p, q in zip(ours.parameters(), theirs.parameters())]
    for step in range(6):
        _train(tg, ours, our_optimizer, 1, step)
        _train(torch, theirs, their_optimizer, 1, step)
        _assert_same_parameters(ours, theirs)
    _assert_same_state(our_optimizer, their_optimizer)
    for (p, q), (p_start, q_start) in zip(zip(ours.parameters(), theirs.parameters()), versions):
        assert p._version - p_start == q._version - q_start


@pytest.mark.parametrize("name, options", [SETTINGS[1], SETTINGS[10]])
def test_resuming_from_a_saved_state_dict_continues_the_same_trajectory(name, options):
    ours, theirs = _models()
    our_optimizer = getattr(tg.optim, name)(ours.parameters(), **options)
    their_optimizer = getattr(torch.optim, name)(theirs.parameters(), **options)
    _train(tg, ours, our_optimizer, 3)
    _train(torch, theirs, their_optimizer, 3)
    resumed_model, _ = _models()
    resumed_model.load_state_dict(ours.state_dict())
    resumed = getattr(tg.optim, name)(resumed_model.parameters(), lr=123.0)
    resumed.load_state_dict(our_optimizer.state_dict())
    assert resumed.param_groups[0]["lr"] == options["lr"]
    _train(tg, resumed_model, resumed, 3, first_step=3)
    _train(torch, theirs, their_optimizer, 3, first_step=3)
    _assert_same_parameters(resumed_model, theirs)
    saved = our_optimizer.state_dict()["state"][0]
    assert all(value is not resumed.state_dict()["state"][0][key] for key, value in saved.items())


def test_param_groups_with_their_own_options():
    ours, theirs = _models()
    groups = lambda model: [{"params": model[0].parameters(), "lr": 0.5},  # noqa: E731
                            {"params": model[2].parameters()}]
    our_optimizer = tg.optim.SGD(groups(ours), lr=0.01, momentum=0.9)
    their_optimizer = torch.optim.SGD(groups(theirs), lr=0.01, momentum=0.9)
    _train(tg, ours, our_optimizer, 4)
    _train(torch, theirs, their_optimizer, 4)
    _assert_same_parameters(ours, theirs)
    assert [g["lr"] for g in our_optimizer.param_groups] == [0.5, 0.01]
    assert our_optimizer.state_dict()["param_groups"][1]["params"] == [2, 3]


def test_step_lr_schedule_matches_torch():
    ours, theirs = _models()
    our_optimizer = tg.optim.SGD(ours.parameters(), lr=1.0, momentum=0.5)
    their_optimizer = torch.optim.SGD(theirs.parameters(), lr=1.0, momentum=0.5)
    our_scheduler = tg.optim.lr_scheduler.StepLR(our_optimizer, step_size=2, gamma=0.5)
    their_scheduler = torch.optim.lr_scheduler.StepLR(their_optimizer, step_size=2, gamma=0.5)
    lrs = []
    for epoch in range(7):
        assert our_scheduler.get_last_lr() == their_scheduler.get_last_lr()
        lrs.append(our_scheduler.get_last_lr()[0])
        _train(tg, ours, our_optimizer, 1, epoch, our_scheduler)
        _train(torch, theirs, their_optimizer, 1, epoch, their_scheduler)
    assert lrs == [1.0, 1.0, 0.5, 0.5, 0.25, 0.25, 0.125]
    _assert_same_parameters(ours, theirs, rtol=1e-4)
    assert our_optimizer.param_groups[0]["initial_lr"] == 1.0
    state = our_scheduler.state_dict()
    assert state == their_scheduler.state_dict()


def _scheduler_warnings(lib, calls):
    import warnings
    model = lib.nn.Linear(2, 1)
    optimizer = lib.optim.SGD(model.parameters(), lr=1.0)
    scheduler = lib.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for call in calls:
            {"optimizer": optimizer.step, "scheduler": scheduler.step,
             "get_lr": scheduler.get_lr}[call]()
    return [(w.category.__name__, str(w.message)) for w in caught], scheduler.get_last_lr()


@pytest.mark.parametrize("calls", [("scheduler", "optimizer", "scheduler"),
                                   ("optimizer", "scheduler", "scheduler"),
                                   ("optimizer", "scheduler", "get_lr")])
def test_scheduler_warns_as_torch_does(calls):
    """Stepping the scheduler before the optimizer, and get_lr() outside step(), warn."""
    ours, theirs = _scheduler_warnings(tg, calls), _scheduler_warnings(torch, calls)
    assert ours == theirs


def test_zero_grad_closure_and_repr():
    ours, theirs = _models()
    optimizer = tg.optim.Adam(ours.parameters(), lr=0.01)
    _loss(tg, ours, 0).backward()
    optimizer.zero_grad()
    assert all(p.grad is None for p in ours.parameters())
    loss = optimizer.step(lambda: _loss(tg, ours, 0).backward() or _loss(tg, ours, 0))
    assert loss.item() == pytest.approx(_loss(torch, theirs, 0).item(), rel=1e-6)


OPTIMIZERS = {
    "sgd": lambda lib, params: lib.optim.SGD(params, lr=0.1, momentum=0.9),
    "sgd_foreach": lambda lib, params: lib.optim.SGD(params, lr=0.1, foreach=True),
    "sgd_fused": lambda lib, params: lib.optim.SGD(params, lr=0.1, fused=True),
    "adam": lambda lib, params: lib.optim.Adam(params, lr=0.01),
    "adam_fused": lambda lib, params: lib.optim.Adam(params, fused=True),
    "adamw_foreach": lambda lib, params: lib.optim.AdamW(params, foreach=False),
}


@pytest.mark.parametrize("case", sorted(OPTIMIZERS))
def test_optimizer_repr_and_group_options_match_torch(case):
    """print(optimizer) and its param_groups and state_dict show every option torch shows,
    foreach, fused, capturable and differentiable included, in the same order."""
    ours, theirs = _models()
    mine, their = OPTIMIZERS[case](tg, ours.parameters()), OPTIMIZERS[case](torch, theirs.parameters())
    assert repr(mine) == repr(their)
    assert list(mine.param_groups[0]) == list(their.param_groups[0])
    assert mine.state_dict()["param_groups"] == their.state_dict()["param_groups"]


@pytest.mark.parametrize("make", [lambda lib, p: lib.optim.SGD(p, lr=0.1, fused=True, foreach=True),
                                  lambda lib, p: lib.optim.Adam(p, fused=True, foreach=True)])
def test_fused_and_foreach_together_are_refused(make):
    errors = []
    for lib in (tg, torch):
        with pytest.raises(RuntimeError) as caught:
            make(lib, [lib.ones(2, requires_grad=True)])
        errors.append(str(caught.value))
    assert errors[0] == errors[1]


@pytest.mark.parametrize("options, error", [({"capturable": True}, AssertionError),
                                            ({"differentiable": True}, RuntimeError)])
def test_capturable_and_differentiable_steps_fail_as_in_torch(options, error):
    """On the CPU, torch refuses a capturable step, and a differentiable step on leaf
    parameters (an in-place change of a leaf that requires grad); a step with no gradient
    to apply goes through."""
    messages = []
    for lib in (tg, torch):
        param = lib.ones(2, requires_grad=True)
        optimizer = lib.optim.Adam([param], **options)
        optimizer.step()                            # no gradient yet: nothing happens
        param.grad = lib.ones(2)
        with pytest.raises(error) as caught:
            optimizer.step()
        messages.append(str(caught.value))
        assert param.tolist() == [1.0, 1.0]
    assert messages[0] == messages[1]


def test_parameters_without_gradient_are_left_alone():
    a, b = tg.ones(2, requires_grad=True), tg.ones(2, requires_grad=True)
    optimizer = tg.optim.Adam([a, b], lr=0.1)
    (a * 2).sum().backward()
    optimizer.step()
    assert b.tolist() == [1.0, 1.0] and b._version == 0
    assert list(optimizer.state_dict()["state"]) == [0]
    assert np.all(a.detach().numpy() < 1)
