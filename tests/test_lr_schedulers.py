"""Every lr scheduler of torch.optim.lr_scheduler against torch: the same lrs (bit for bit)
over 30 steps for two param groups with their own lrs, the same momenta or betas for the
cyclic ones, the same state_dict and param_groups, state_dict round trips that continue the
same schedule, the closed forms behind step(epoch), and the same warnings and errors."""
import copy
import io
import warnings

import pytest

try:
    from . import differential as D
except ImportError:
    import differential as D

torch = pytest.importorskip("torch")
run = D.run_both


def _optimizer(tg, name="SGD"):
    """Two groups with different lrs (and, for SGD, a momentum to cycle)."""
    w = tg.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
    b = tg.tensor([0.1, -0.3], requires_grad=True)
    if name == "SGD":
        return tg.optim.SGD([{"params": [w]}, {"params": [b], "lr": 0.05}], lr=0.1,
                            momentum=0.9)
    return getattr(tg.optim, name)([{"params": [w]}, {"params": [b], "lr": 0.05}], lr=0.1)


def _step_optimizer(tg, optimizer):
    params = [p for group in optimizer.param_groups for p in group["params"]]
    optimizer.zero_grad()
    sum(((p - 1) ** 2).sum() for p in params).backward()
    optimizer.step()


class Halving:
    """A callable object: its attributes go into the state_dict (a lambda's do not)."""

    def __init__(self):
        self.base = 0.5

    def __call__(self, epoch):
        return self.base ** (epoch // 3)


def _groups(optimizer):
    """Every option of every group (with "initial_lr", "max_lr"...), not the tensors."""
    return [{k: v for k, v in group.items() if k != "params"} for group in optimizer.param_groups]


S = "optim.lr_scheduler."
SCHEDULERS = {
    "LambdaLR": lambda tg, o: tg.optim.lr_scheduler.LambdaLR(o, lambda e: 0.95 ** e),
    "LambdaLR-per-group": lambda tg, o: tg.optim.lr_scheduler.LambdaLR(
        o, [lambda e: 1 / (e + 1), Halving()]),
    "MultiplicativeLR": lambda tg, o: tg.optim.lr_scheduler.MultiplicativeLR(o, lambda e: 0.9),
    "StepLR": lambda tg, o: tg.optim.lr_scheduler.StepLR(o, step_size=4, gamma=0.3),
    "MultiStepLR": lambda tg, o: tg.optim.lr_scheduler.MultiStepLR(o, [3, 7, 7, 20], 0.5),
    "ConstantLR": lambda tg, o: tg.optim.lr_scheduler.ConstantLR(o, factor=0.3, total_iters=6),
    "LinearLR": lambda tg, o: tg.optim.lr_scheduler.LinearLR(o, 0.1, 0.9, total_iters=13),
    "LinearLR-down": lambda tg, o: tg.optim.lr_scheduler.LinearLR(o, 1.0, 0.05, 7),
    "ExponentialLR": lambda tg, o: tg.optim.lr_scheduler.ExponentialLR(o, gamma=0.87),
    "PolynomialLR": lambda tg, o: tg.optim.lr_scheduler.PolynomialLR(o, total_iters=17,
                                                                      power=2.5),
    "CosineAnnealingLR": lambda tg, o: tg.optim.lr_scheduler.CosineAnnealingLR(o, T_max=7,
                                                                                eta_min=0.001),
    "CosineAnnealingLR-no-min": lambda tg, o: tg.optim.lr_scheduler.CosineAnnealingLR(o, 10),
    "CosineAnnealingWarmRestarts": lambda tg, o:
        tg.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=4, T_mult=2, eta_min=1e-3),
    "CosineAnnealingWarmRestarts-T_mult-1": lambda tg, o:
        tg.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=6),
    "CyclicLR": lambda tg, o: tg.optim.lr_scheduler.CyclicLR(o, 0.01, [0.1, 0.2],
                                                             step_size_up=4, step_size_down=6),
    "CyclicLR-triangular2": lambda tg, o: tg.optim.lr_scheduler.CyclicLR(
        o, [0.001, 0.002], 0.05, step_size_up=3, mode="triangular2", base_momentum=0.7),
    "CyclicLR-exp_range": lambda tg, o: tg.optim.lr_scheduler.CyclicLR(
        o, 0.01, 0.1, step_size_up=5, mode="exp_range", gamma=0.97, cycle_momentum=False),
    "CyclicLR-scale_fn": lambda tg, o: tg.optim.lr_scheduler.CyclicLR(
        o, 0.01, 0.1, step_size_up=2, scale_fn=lambda x: 1 / (x + 1), scale_mode="iterations"),
    "OneCycleLR": lambda tg, o: tg.optim.lr_scheduler.OneCycleLR(o, [1.0, 0.5],
                                                                 total_steps=30),
    "OneCycleLR-linear-3-phase": lambda tg, o: tg.optim.lr_scheduler.OneCycleLR(
        o, 0.8, epochs=5, steps_per_epoch=6, pct_start=0.25, anneal_strategy="linear",
        three_phase=True, div_factor=10.0, final_div_factor=100.0),
    "SequentialLR": lambda tg, o: tg.optim.lr_scheduler.SequentialLR(
        o, [tg.optim.lr_scheduler.LinearLR(o, 0.2, total_iters=4),
            tg.optim.lr_scheduler.CosineAnnealingLR(o, T_max=10),
            tg.optim.lr_scheduler.ExponentialLR(o, 0.8)], milestones=[5, 15]),
    "ChainedScheduler": lambda tg, o: tg.optim.lr_scheduler.ChainedScheduler(
        [tg.optim.lr_scheduler.ConstantLR(o, 0.5, total_iters=3),
         tg.optim.lr_scheduler.ExponentialLR(o, 0.9),
         tg.optim.lr_scheduler.StepLR(o, 5, 0.5)]),
}


def _schedule(tg, make, steps=30, optimizer_name="SGD"):
    optimizer = _optimizer(tg, optimizer_name)
    scheduler = make(tg, optimizer)
    lrs, momenta = [scheduler.get_last_lr()], []
    for _ in range(steps):
        _step_optimizer(tg, optimizer)
        scheduler.step()
        lrs.append(scheduler.get_last_lr())
        momenta.append([group.get("momentum", group.get("betas"))
                        for group in optimizer.param_groups])
    return optimizer, scheduler, lrs, momenta


@pytest.mark.parametrize("name", sorted(SCHEDULERS))
def test_lrs_over_30_steps_are_torchs_exactly(name):
    """The lrs after each step, as floats equal to torch's, and at the end the same
    state_dict, param_groups, last_epoch and base_lrs."""
    def prog(tg):
        optimizer, scheduler, lrs, momenta = _schedule(tg, SCHEDULERS[name])
        return {"lrs": lrs, "momenta": momenta, "state_dict": scheduler.state_dict(),
                "state_keys": list(scheduler.state_dict()), "groups": _groups(optimizer),
                "last_epoch": getattr(scheduler, "last_epoch", None),
                "base_lrs": getattr(scheduler, "base_lrs", None)}
    run(prog, rtol=0, atol=0)


@pytest.mark.parametrize("name", ["CyclicLR", "OneCycleLR"])
def test_cyclic_schedules_cycle_adams_beta1(name):
    """With Adam, the momentum that is cycled is betas[0]; betas[1] stays."""
    make = {"CyclicLR": lambda tg, o: tg.optim.lr_scheduler.CyclicLR(o, 0.001, 0.01, 3),
            "OneCycleLR": lambda tg, o: tg.optim.lr_scheduler.OneCycleLR(o, 0.01, 12)}[name]

    def prog(tg):
        optimizer, scheduler, lrs, momenta = _schedule(tg, make, 12, "Adam")
        return {"lrs": lrs, "betas": momenta, "groups": _groups(optimizer)}
    run(prog, rtol=0, atol=0)


def test_reduce_lr_on_plateau_follows_the_metric():
    """Reductions after `patience` bad epochs, cooldowns, min_lr per group, both modes,
    thresholds absolute and relative; the metric may be a 0-dim tensor."""
    metrics = [1.0, 0.9, 0.95, 0.95, 0.95, 0.8, 0.85, 0.85, 0.85, 0.85, 0.7999, 0.85, 0.85,
               0.85, 0.85, 0.85, 0.85, 0.85, 0.85, 0.85]
    settings = [{}, {"patience": 2}, {"patience": 1, "cooldown": 2, "factor": 0.5},
                {"patience": 0, "min_lr": [0.02, 0.001], "factor": 0.3},
                {"mode": "max", "patience": 1, "threshold": 0.05, "threshold_mode": "abs"},
                {"mode": "max", "patience": 2, "min_lr": 0.04, "eps": 0.02},
                {"patience": 1, "threshold": 0.2, "threshold_mode": "abs"}]

    def prog(tg):
        reports = []
        for options in settings:
            optimizer = _optimizer(tg)
            scheduler = tg.optim.lr_scheduler.ReduceLROnPlateau(optimizer, **options)
            lrs = []
            for i, metric in enumerate(metrics):
                _step_optimizer(tg, optimizer)
                scheduler.step(tg.tensor(metric) if i % 2 else metric)
                lrs.append(scheduler.get_last_lr())
            reports.append({"lrs": lrs, "state_dict": scheduler.state_dict(),
                            "in_cooldown": scheduler.in_cooldown})
        return reports
    run(prog, rtol=0, atol=0)


def test_reduce_lr_on_plateau_with_a_group_added_later():
    """A single min_lr is repeated for a new group; a list of min_lrs cannot be."""
    def prog(tg):
        results = []
        for min_lr in [0.0, [0.0, 0.0]]:
            optimizer = _optimizer(tg)
            scheduler = tg.optim.lr_scheduler.ReduceLROnPlateau(optimizer, patience=0,
                                                                min_lr=min_lr)
            optimizer.add_param_group({"params": [tg.tensor([1.0], requires_grad=True)]})
            try:
                scheduler.step(1.0)
                scheduler.step(2.0)
                results.append(scheduler.get_last_lr())
            except RuntimeError as error:
                results.append(str(error))
        return results
    run(prog, rtol=0, atol=0)


ROUND_TRIPS = ["LambdaLR-per-group", "MultiStepLR", "LinearLR", "CosineAnnealingLR",
               "CosineAnnealingWarmRestarts", "CyclicLR-triangular2", "OneCycleLR",
               "SequentialLR", "ChainedScheduler", "PolynomialLR"]


@pytest.mark.parametrize("name", ROUND_TRIPS)
def test_state_dict_round_trip_continues_the_schedule(name):
    """Twelve steps, the optimizer's and the scheduler's state_dict saved (with save/load)
    and loaded into fresh ones: the next twelve lrs are those of one unbroken run."""
    make = SCHEDULERS[name]

    def prog(tg):
        optimizer, scheduler, lrs, _ = _schedule(tg, make, 12)
        file = io.BytesIO()
        tg.save({"optimizer": optimizer.state_dict(), "scheduler": scheduler.state_dict()},
                file)
        file.seek(0)
        saved = tg.load(file, weights_only=False)
        resumed_optimizer = _optimizer(tg)
        resumed = make(tg, resumed_optimizer)
        resumed_optimizer.load_state_dict(saved["optimizer"])
        resumed.load_state_dict(saved["scheduler"])
        after = []
        for _ in range(12):
            _step_optimizer(tg, resumed_optimizer)
            resumed.step()
            after.append(resumed.get_last_lr())
        _, _, straight, _ = _schedule(tg, make, 24)
        return {"after": after, "same": after == straight[13:],
                "state_dict": resumed.state_dict()}
    _, ours = run(prog, rtol=0, atol=0)
    assert ours.result["items"]["same"] == ("py", "bool", True)


def test_state_dict_keeps_a_callable_objects_attributes():
    """A lambda is saved as None, a callable object as its __dict__, which load_state_dict
    puts back; the dict given to load_state_dict is left as it was."""
    def prog(tg):
        optimizer = _optimizer(tg)
        halving = Halving()
        scheduler = tg.optim.lr_scheduler.LambdaLR(optimizer, [lambda e: 1.0, halving])
        state = scheduler.state_dict()
        state["lr_lambdas"][1]["base"] = 0.25
        kept = copy.deepcopy(state)
        scheduler.load_state_dict(state)
        for _ in range(4):
            _step_optimizer(tg, optimizer)
            scheduler.step()
        return {"base": halving.base, "lrs": scheduler.get_last_lr(),
                "unchanged": state == kept, "keys": list(state)}
    run(prog, rtol=0, atol=0)


def test_resuming_with_last_epoch_continues_from_initial_lr():
    """A scheduler made with last_epoch=k (after the optimizer's state was loaded) takes its
    base_lrs from "initial_lr" and goes on from epoch k + 1."""
    def prog(tg):
        reports = []
        for make in [lambda o, e: tg.optim.lr_scheduler.StepLR(o, 3, 0.5, last_epoch=e),
                     lambda o, e: tg.optim.lr_scheduler.ExponentialLR(o, 0.9, last_epoch=e),
                     lambda o, e: tg.optim.lr_scheduler.CosineAnnealingLR(o, 8, last_epoch=e),
                     lambda o, e: tg.optim.lr_scheduler.LinearLR(o, 0.5, last_epoch=e),
                     lambda o, e: tg.optim.lr_scheduler.PolynomialLR(o, 9, last_epoch=e),
                     lambda o, e: tg.optim.lr_scheduler.LambdaLR(o, lambda k: 0.9 ** k,
                                                                  last_epoch=e),
                     lambda o, e: tg.optim.lr_scheduler.CosineAnnealingWarmRestarts(
                         o, 3, 2, last_epoch=e)]:
            optimizer = _optimizer(tg)
            scheduler = make(optimizer, -1)
            for _ in range(5):
                _step_optimizer(tg, optimizer)
                scheduler.step()
            resumed_optimizer = _optimizer(tg)
            resumed_optimizer.load_state_dict(optimizer.state_dict())
            resumed = make(resumed_optimizer, 5)
            lrs = [resumed.get_last_lr()]
            for _ in range(6):
                _step_optimizer(tg, resumed_optimizer)
                resumed.step()
                lrs.append(resumed.get_last_lr())
            reports.append({"lrs": lrs, "state": resumed.state_dict()})
        return reports
    run(prog, rtol=0, atol=0)


@pytest.mark.parametrize("make", [
    lambda tg, o: tg.optim.lr_scheduler.StepLR(o, 3, last_epoch=2),
    lambda tg, o: tg.optim.lr_scheduler.CosineAnnealingLR(o, 3, last_epoch=0),
    lambda tg, o: tg.optim.lr_scheduler.OneCycleLR(o, 0.1, 10, last_epoch=4),
    lambda tg, o: tg.optim.lr_scheduler.CyclicLR(o, 0.1, 1.0, last_epoch=4),
], ids=["StepLR", "CosineAnnealingLR", "OneCycleLR", "CyclicLR"])
def test_resuming_without_initial_lr_is_a_key_error(make):
    run(lambda tg: make(tg, _optimizer(tg)), raises="KeyError")


CLOSED_FORMS = ["StepLR", "MultiStepLR", "ConstantLR", "LinearLR", "ExponentialLR",
                "PolynomialLR", "CosineAnnealingLR", "LambdaLR", "MultiplicativeLR",
                "CosineAnnealingWarmRestarts", "CosineAnnealingWarmRestarts-T_mult-1"]


@pytest.mark.parametrize("name", CLOSED_FORMS)
def test_step_with_an_epoch_uses_the_closed_form_and_warns(name):
    """step(epoch) jumps (forwards, backwards, to a fraction of an epoch for the warm
    restarts) and, except for CosineAnnealingWarmRestarts, warns that epoch is deprecated."""
    epochs = [3, 1, 8, 8, 20, 0, 5, 13]
    if name.startswith("CosineAnnealingWarmRestarts"):
        epochs += [2.5, 17.25, 40]

    def prog(tg):
        optimizer = _optimizer(tg)
        scheduler = SCHEDULERS[name](tg, optimizer)
        lrs = []
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for epoch in epochs:
                _step_optimizer(tg, optimizer)
                scheduler.step(epoch)
                lrs.append(scheduler.get_last_lr())
                scheduler.step()
                lrs.append(scheduler.get_last_lr())
        return {"lrs": lrs, "state": scheduler.state_dict(),
                "warnings": [(w.category.__name__, str(w.message)) for w in caught]}
    run(prog, rtol=0, atol=0)


def _warnings_of(tg, make, calls):
    """The warnings (category, message) of a sequence of calls."""
    optimizer = _optimizer(tg)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scheduler = make(tg, optimizer)
        for call in calls:
            if call == "optimizer":
                _step_optimizer(tg, optimizer)
            elif call == "scheduler":
                scheduler.step()
            else:
                scheduler.get_lr()
    return {"warnings": [(w.category.__name__, str(w.message)) for w in caught],
            "lrs": scheduler.get_last_lr()}


ORDERS = [("scheduler", "optimizer", "scheduler"), ("optimizer", "scheduler", "scheduler"),
          ("optimizer", "scheduler", "get_lr"), ("scheduler", "scheduler")]


@pytest.mark.parametrize("calls", ORDERS, ids=["-".join(c) for c in ORDERS])
@pytest.mark.parametrize("name", ["MultiStepLR", "CosineAnnealingLR", "CyclicLR", "OneCycleLR",
                                  "CosineAnnealingWarmRestarts", "SequentialLR",
                                  "ChainedScheduler", "LambdaLR"])
def test_warnings_for_the_order_of_calls(name, calls):
    """scheduler.step() before optimizer.step() warns once (not for the warm restarts);
    get_lr() outside step() warns (not for the schedulers made of schedulers, which have
    none: torch raises NotImplementedError)."""
    run(lambda tg: _warnings_of(tg, SCHEDULERS[name], calls), rtol=0, atol=0,
        raises="NotImplementedError" if "get_lr" in calls and name in
        ("SequentialLR", "ChainedScheduler") else None)


def test_optimizer_steps_before_the_first_scheduler_do_not_count():
    """torch starts watching optimizer.step() when its first scheduler is made."""
    def prog(tg):
        optimizer = _optimizer(tg)
        _step_optimizer(tg, optimizer)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            first = tg.optim.lr_scheduler.StepLR(optimizer, 2)
            first.step()
            _step_optimizer(tg, optimizer)
            second = tg.optim.lr_scheduler.ExponentialLR(optimizer, 0.5)
            second.step()
        return [(w.category.__name__, str(w.message)) for w in caught]
    run(prog)


INVALID = {
    "not-an-optimizer": lambda tg, o: tg.optim.lr_scheduler.StepLR("sgd", 3),
    "plateau-not-an-optimizer": lambda tg, o: tg.optim.lr_scheduler.ReduceLROnPlateau(5),
    "cyclic-not-an-optimizer": lambda tg, o: tg.optim.lr_scheduler.CyclicLR([1], 0.1, 1.0),
    "lambdas-per-group": lambda tg, o: tg.optim.lr_scheduler.LambdaLR(o, [lambda e: 1.0]),
    "multiplicative-not-callable": lambda tg, o: tg.optim.lr_scheduler.MultiplicativeLR(o, 0.9),
    "multiplicative-per-group": lambda tg, o: tg.optim.lr_scheduler.MultiplicativeLR(
        o, (lambda e: 1.0,) * 3),
    "constant-factor": lambda tg, o: tg.optim.lr_scheduler.ConstantLR(o, factor=1.5),
    "linear-start": lambda tg, o: tg.optim.lr_scheduler.LinearLR(o, start_factor=0),
    "linear-end": lambda tg, o: tg.optim.lr_scheduler.LinearLR(o, end_factor=-0.1),
    "warm-restarts-T_0": lambda tg, o: tg.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, 0),
    "warm-restarts-T_0-float": lambda tg, o:
        tg.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, 2.0),
    "warm-restarts-T_mult": lambda tg, o:
        tg.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, 2, T_mult=0),
    "warm-restarts-eta_min": lambda tg, o:
        tg.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, 2, eta_min="0"),
    "warm-restarts-negative-epoch": lambda tg, o:
        tg.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, 2).step(-1),
    "cyclic-mode": lambda tg, o: tg.optim.lr_scheduler.CyclicLR(o, 0.1, 1.0, mode="cos"),
    "cyclic-max_lr-per-group": lambda tg, o: tg.optim.lr_scheduler.CyclicLR(o, 0.1, [1.0]),
    "cyclic-base_lr-per-group": lambda tg, o: tg.optim.lr_scheduler.CyclicLR(o, [1, 2, 3], 1.0),
    "cyclic-no-momentum": lambda tg, o: tg.optim.lr_scheduler.CyclicLR(
        tg.optim.Adagrad(o.param_groups[0]["params"]), 0.1, 1.0),
    "one-cycle-total_steps": lambda tg, o: tg.optim.lr_scheduler.OneCycleLR(o, 0.1, 0),
    "one-cycle-nothing": lambda tg, o: tg.optim.lr_scheduler.OneCycleLR(o, 0.1, epochs=3),
    "one-cycle-epochs": lambda tg, o: tg.optim.lr_scheduler.OneCycleLR(o, 0.1, epochs=2.0,
                                                                       steps_per_epoch=3),
    "one-cycle-steps_per_epoch": lambda tg, o: tg.optim.lr_scheduler.OneCycleLR(
        o, 0.1, epochs=2, steps_per_epoch=-3),
    "one-cycle-pct_start": lambda tg, o: tg.optim.lr_scheduler.OneCycleLR(o, 0.1, 10,
                                                                          pct_start=1),
    "one-cycle-anneal": lambda tg, o: tg.optim.lr_scheduler.OneCycleLR(
        o, 0.1, 10, anneal_strategy="exp"),
    "one-cycle-too-many-steps": lambda tg, o: [scheduler.step() for scheduler in
                                               [tg.optim.lr_scheduler.OneCycleLR(o, 0.1, 3)]
                                               for _ in range(4)],
    "one-cycle-no-momentum": lambda tg, o: tg.optim.lr_scheduler.OneCycleLR(
        tg.optim.Adagrad(o.param_groups[0]["params"]), 0.1, 10),
    "plateau-factor": lambda tg, o: tg.optim.lr_scheduler.ReduceLROnPlateau(o, factor=1.0),
    "plateau-mode": lambda tg, o: tg.optim.lr_scheduler.ReduceLROnPlateau(o, mode="up"),
    "plateau-threshold-mode": lambda tg, o: tg.optim.lr_scheduler.ReduceLROnPlateau(
        o, threshold_mode="pct"),
    "plateau-min-lrs": lambda tg, o: tg.optim.lr_scheduler.ReduceLROnPlateau(o, min_lr=[0.1]),
    "sequential-empty": lambda tg, o: tg.optim.lr_scheduler.SequentialLR(o, [], []),
    "sequential-milestones": lambda tg, o: tg.optim.lr_scheduler.SequentialLR(
        o, [tg.optim.lr_scheduler.StepLR(o, 2)], [3]),
    "sequential-plateau": lambda tg, o: tg.optim.lr_scheduler.SequentialLR(
        o, [tg.optim.lr_scheduler.StepLR(o, 2), tg.optim.lr_scheduler.ReduceLROnPlateau(o)],
        [3]),
    "sequential-not-a-scheduler": lambda tg, o: tg.optim.lr_scheduler.SequentialLR(o, [1], []),
    "sequential-other-optimizer": lambda tg, o: tg.optim.lr_scheduler.SequentialLR(
        o, [tg.optim.lr_scheduler.StepLR(_optimizer(tg), 2)], []),
    "chained-empty": lambda tg, o: tg.optim.lr_scheduler.ChainedScheduler([]),
    "chained-other-optimizer": lambda tg, o: tg.optim.lr_scheduler.ChainedScheduler(
        [tg.optim.lr_scheduler.StepLR(o, 2), tg.optim.lr_scheduler.StepLR(_optimizer(tg), 2)]),
    "chained-plateau": lambda tg, o: tg.optim.lr_scheduler.ChainedScheduler(
        [tg.optim.lr_scheduler.ReduceLROnPlateau(o)]),
    "sequential-step-epoch": lambda tg, o: tg.optim.lr_scheduler.SequentialLR(
        o, [tg.optim.lr_scheduler.StepLR(o, 2)], []).step(3),
}


@pytest.mark.parametrize("name", sorted(INVALID))
def test_invalid_arguments_raise_torchs_errors(name):
    run(lambda tg: INVALID[name](tg, _optimizer(tg)), raises="Exception")


def test_base_class_get_lr_is_not_implemented():
    run(lambda tg: tg.optim.lr_scheduler.LRScheduler(_optimizer(tg)),
        raises="NotImplementedError")
