"""Adamax, NAdam, RAdam and ASGD against torch: the same parameters (and versions) after
every step, the same state, param_groups and repr, state_dict round trips, groups with their
own options, skipped parameters, the same errors for invalid options, and schedulers
driving them.

float32 parameters agree to float32 precision (torch's CPU sqrt is not correctly rounded,
``add(..., alpha=)`` and ``addcmul_`` are fused multiply-adds); float64 ones, where those
differences shrink to the last bits, agree to 1e-12."""
import io

import pytest

try:
    from . import differential as D
    from .test_optim_more import _ids, _loss, _params, _state, _train
except ImportError:
    import differential as D
    from test_optim_more import _ids, _loss, _params, _state, _train

torch = pytest.importorskip("torch")
run = D.run_both

SETTINGS = [
    ("Adamax", {}),
    ("Adamax", {"lr": 0.05, "betas": (0.8, 0.9), "eps": 1e-4}),
    ("Adamax", {"weight_decay": 0.1, "maximize": True}),
    ("Adamax", {"foreach": True, "lr": 0.1}),
    ("NAdam", {}),
    ("NAdam", {"lr": 0.05, "betas": (0.7, 0.95), "momentum_decay": 0.1}),
    ("NAdam", {"weight_decay": 0.1}),
    ("NAdam", {"weight_decay": 0.1, "decoupled_weight_decay": True, "maximize": True}),
    ("NAdam", {"foreach": True, "lr": 0.1}),
    ("RAdam", {}),
    ("RAdam", {"lr": 0.1, "betas": (0.9, 0.9), "eps": 1e-6}),
    ("RAdam", {"weight_decay": 0.1, "maximize": True, "betas": (0.5, 0.8)}),
    ("RAdam", {"weight_decay": 0.1, "decoupled_weight_decay": True, "lr": 0.05}),
    ("RAdam", {"foreach": True, "lr": 0.1, "betas": (0.9, 0.8)}),
    ("ASGD", {}),
    ("ASGD", {"lr": 0.1, "lambd": 0.01, "alpha": 0.5, "t0": 3}),
    ("ASGD", {"lr": 0.05, "t0": 0, "weight_decay": 0.1, "maximize": True}),
]


# (ASGD with foreach=True is left out: torch's foreach kernel fuses the weight decay and the
# step into one addcmul_, one _version bump instead of two, and rounds differently)


@pytest.mark.parametrize("name, options", SETTINGS, ids=_ids(SETTINGS))
def test_trajectory_matches_torch(name, options):
    """Ten steps (RAdam's switch to adaptive steps, ASGD's averaging after t0 happen in
    them): the parameters with their versions after each, then the whole state_dict, the
    order of each state's keys, and print(optimizer)."""
    def prog(tg):
        params = _params(tg)
        optimizer = getattr(tg.optim, name)(params, **options)
        trajectory = []
        for step in range(10):
            _train(tg, optimizer, params, 1, step)
            trajectory.append(D.snap(params))
        return {"trajectory": trajectory, "state_dict": _state(optimizer),
                "keys": [list(state) for state in optimizer.state_dict()["state"].values()],
                "group_keys": list(optimizer.param_groups[0]), "repr": repr(optimizer)}
    run(prog)


@pytest.mark.parametrize("name, options", [s for s in SETTINGS if "foreach" not in s[1]],
                         ids=_ids([s for s in SETTINGS if "foreach" not in s[1]]))
def test_float64_parameters_follow_torch_closely(name, options):
    """In float64 the same formulas in the same order give the same numbers to 1e-12; the
    state takes the parameter's dtype, while step (and NAdam's mu_product, ASGD's eta and
    mu) stay float32 numbers."""
    def prog(tg):
        params = _params(tg, tg.float64)
        optimizer = getattr(tg.optim, name)(params, **options)
        _train(tg, optimizer, params, 12)
        return {"params": D.snap(params), "state": _state(optimizer)}
    run(prog, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name, options", [("NAdam", {"momentum_decay": 0.3}),
                                           ("ASGD", {"lr": 0.3, "lambd": 0.5, "t0": 2})],
                         ids=["NAdam", "ASGD"])
def test_float32_scalars_in_the_state_are_torchs_exactly(name, options):
    """mu_product, eta and mu are float32 numbers computed from Python floats: equal to
    torch's bit for bit, step after step."""
    def prog(tg):
        params = _params(tg)
        optimizer = getattr(tg.optim, name)(params, **options)
        reports = []
        for step in range(8):
            _train(tg, optimizer, params, 1, step)
            reports.append([{key: value for key, value in state.items()
                             if key in ("step", "mu_product", "eta", "mu")}
                            for state in optimizer.state_dict()["state"].values()])
        return D.snap(reports, version=False)
    run(prog, rtol=0, atol=0)


RESUMED = [("Adamax", {"lr": 0.02, "weight_decay": 0.01}),
           ("NAdam", {"lr": 0.02, "momentum_decay": 0.05}),
           ("RAdam", {"lr": 0.05, "betas": (0.9, 0.9)}),
           ("ASGD", {"lr": 0.05, "t0": 2, "lambd": 0.01})]


@pytest.mark.parametrize("name, options", RESUMED, ids=_ids(RESUMED))
def test_resuming_from_a_saved_state_dict_continues_the_same_trajectory(name, options):
    """Five steps, state_dict() saved and loaded into a fresh optimizer made with another lr,
    five more steps: the same parameters as ten steps in one go; the options come from the
    saved dict."""
    def prog(tg):
        params = _params(tg)
        optimizer = getattr(tg.optim, name)(params, **options)
        _train(tg, optimizer, params, 5)
        file = io.BytesIO()
        tg.save(optimizer.state_dict(), file)
        file.seek(0)
        copies = [param.detach().clone().requires_grad_() for param in params]
        resumed = getattr(tg.optim, name)(copies, lr=123.0)
        resumed.load_state_dict(tg.load(file))
        _train(tg, resumed, copies, 5, first=5)
        straight = _params(tg)
        straight_optimizer = getattr(tg.optim, name)(straight, **options)
        _train(tg, straight_optimizer, straight, 10)
        return {"resumed": D.snap(copies, version=False), "lr": resumed.param_groups[0]["lr"],
                "state": _state(resumed),
                "same": all(tg.equal(a, b) for a, b in zip(copies, straight))}
    _, ours = run(prog)
    assert ours.result["items"]["same"] == ("py", "bool", True)


def test_loading_casts_the_state_scalars_to_the_parameters_dtype():
    """load_state_dict gives the state tensors the parameter's dtype, except step: with
    float64 parameters ASGD's eta and mu and NAdam's mu_product, float32 numbers until
    then, become float64 and are then computed in float64."""
    def prog(tg):
        reports = []
        for name, options in [("ASGD", {"t0": 1, "lambd": 0.1}), ("NAdam", {})]:
            params = _params(tg, tg.float64)
            optimizer = getattr(tg.optim, name)(params, **options)
            _train(tg, optimizer, params, 2)
            before = _state(optimizer)
            copies = [param.detach().clone().requires_grad_() for param in params]
            resumed = getattr(tg.optim, name)(copies, **options)
            resumed.load_state_dict(optimizer.state_dict())
            loaded = _state(resumed)
            _train(tg, resumed, copies, 6, first=2)
            reports.append({"before": before, "loaded": loaded,
                            "params": D.snap(copies, version=False),
                            "state": _state(resumed)})
        return reports
    run(prog, rtol=1e-12, atol=1e-14)


GROUPS = {
    "Adamax": {"weight_decay": 0.2, "betas": (0.5, 0.6)},
    "NAdam": {"decoupled_weight_decay": True, "weight_decay": 0.3, "momentum_decay": 0.2},
    "RAdam": {"betas": (0.8, 0.7), "maximize": True},
    "ASGD": {"t0": 1, "lambd": 0.2, "alpha": 0.9},
}


@pytest.mark.parametrize("name", sorted(GROUPS))
def test_param_groups_with_their_own_options(name):
    """Each group steps with its own options, a group added later with add_param_group too."""
    def prog(tg):
        params = _params(tg)
        extra = tg.tensor([0.5, -1.0], requires_grad=True)
        optimizer = getattr(tg.optim, name)([{"params": [params[0]], **GROUPS[name]},
                                             {"params": [params[1]], "lr": 0.05}], lr=0.01)
        optimizer.add_param_group({"params": [extra], "lr": 0.2})
        for step in range(8):
            optimizer.zero_grad()
            (_loss(tg, params, step) + (extra ** 2).sum()).backward()
            optimizer.step()
        return {"params": D.snap(params + [extra]), "state": _state(optimizer),
                "repr": repr(optimizer)}
    run(prog)


@pytest.mark.parametrize("name", sorted(GROUPS))
def test_a_parameter_without_gradient_is_skipped(name):
    """It keeps its values and version, and gets no state."""
    def prog(tg):
        used, unused = _params(tg)
        optimizer = getattr(tg.optim, name)([used, unused])
        optimizer.step()                          # no gradient at all: nothing moves
        for _ in range(3):
            optimizer.zero_grad()
            (used ** 2).sum().backward()
            optimizer.step()
        return {"params": D.snap([used, unused]), "state": _state(optimizer)}
    run(prog)


DRIVEN = [("NAdam", lambda tg, o: tg.optim.lr_scheduler.OneCycleLR(o, 0.1, total_steps=10)),
          ("Adamax", lambda tg, o: tg.optim.lr_scheduler.CyclicLR(o, 0.001, 0.1, 3)),
          ("RAdam", lambda tg, o: tg.optim.lr_scheduler.CosineAnnealingLR(o, 4)),
          ("ASGD", lambda tg, o: tg.optim.lr_scheduler.StepLR(o, 2, 0.5))]


@pytest.mark.parametrize("name, make", DRIVEN, ids=[name for name, _ in DRIVEN])
def test_a_scheduler_drives_the_optimizer(name, make):
    """The schedule's lr (and, for the cyclic ones, beta1) are what the steps use. ASGD
    keeps the eta of its first step: its lr only enters the eta of the next one."""
    def prog(tg):
        params = _params(tg)
        optimizer = getattr(tg.optim, name)(params, lr=0.1)
        scheduler = make(tg, optimizer)
        for epoch in range(9):
            _train(tg, optimizer, params, 1, epoch)
            scheduler.step()
        return {"params": D.snap(params), "state": _state(optimizer),
                "groups": [{k: v for k, v in g.items() if k != "params"}
                           for g in optimizer.param_groups]}
    run(prog)


INVALID = [
    ("Adamax", {"lr": -0.1}), ("Adamax", {"eps": -1e-8}), ("Adamax", {"betas": (1.0, 0.9)}),
    ("Adamax", {"betas": (0.9, -0.1)}), ("Adamax", {"weight_decay": -1}),
    ("Adamax", {"fused": True}), ("Adamax", {"lr": -1, "betas": (2, 2)}),
    ("NAdam", {"lr": -0.1}), ("NAdam", {"eps": -1}), ("NAdam", {"betas": (0.9, 1.0)}),
    ("NAdam", {"weight_decay": -0.5}), ("NAdam", {"momentum_decay": -1e-3}),
    ("NAdam", {"amsgrad": True}),
    ("RAdam", {"lr": -0.1}), ("RAdam", {"eps": -1}), ("RAdam", {"betas": (-0.1, 0.9)}),
    ("RAdam", {"betas": (0.9, 1.5)}), ("RAdam", {"weight_decay": -0.5}),
    ("ASGD", {"lr": -0.1}), ("ASGD", {"weight_decay": -1}), ("ASGD", {"fused": True}),
]


@pytest.mark.parametrize("name, options", INVALID, ids=_ids(INVALID))
def test_invalid_options_raise_torchs_errors(name, options):
    run(lambda tg: getattr(tg.optim, name)(_params(tg), **options), raises="Exception")


def test_negative_lambd_alpha_and_t0_are_accepted_by_asgd():
    """torch checks only ASGD's lr and weight_decay."""
    def prog(tg):
        params = _params(tg)
        optimizer = tg.optim.ASGD(params, lambd=-0.01, alpha=-0.5, t0=-2)
        _train(tg, optimizer, params, 3)
        return {"params": D.snap(params), "state": _state(optimizer)}
    run(prog)


def test_positional_arguments_follow_torchs_signatures():
    """ASGD takes all its options by position; Adamax stops after foreach, NAdam and RAdam
    after decoupled_weight_decay."""
    def prog(tg):
        return [repr(tg.optim.Adamax(_params(tg), 0.1, (0.8, 0.9), 1e-6, 0.1, True)),
                repr(tg.optim.NAdam(_params(tg), 0.1, (0.8, 0.9), 1e-6, 0.1, 0.01, True)),
                repr(tg.optim.RAdam(_params(tg), 0.1, (0.8, 0.9), 1e-6, 0.1, True)),
                repr(tg.optim.ASGD(_params(tg), 0.1, 0.01, 0.5, 100.0, 0.1, None, True,
                                   False, False))]
    run(prog)


@pytest.mark.parametrize("make", [
    lambda tg: tg.optim.Adamax(_params(tg), 0.1, (0.8, 0.9), 1e-6, 0.1, True, False),
    lambda tg: tg.optim.NAdam(_params(tg), 0.1, (0.8, 0.9), 1e-6, 0.1, 0.01, True, None),
    lambda tg: tg.optim.RAdam(_params(tg), 0.1, (0.8, 0.9), 1e-6, 0.1, True, None),
    lambda tg: tg.optim.ASGD(_params(tg), 0.1, 0.01, 0.5, 100.0, 0.1, None, True, False,
                             False, None),
], ids=["Adamax", "NAdam", "RAdam", "ASGD"])
def test_too_many_positional_arguments_are_refused(make):
    run(lambda tg: make(tg), raises="TypeError")


# torch's NAdam and ASGD name more state in the message ("params, mu_products and
# state_steps"); teachgrad's shared check agrees on the first words
REFUSED_STEPS = [(name, {option: True}, error, "If capturable=True, params"
                  if option == "capturable" else D.FIRST_LINE)
                 for name in ["Adamax", "NAdam", "RAdam", "ASGD"]
                 for option, error in [("capturable", "AssertionError"),
                                       ("differentiable", "RuntimeError")]]


@pytest.mark.parametrize("name, options, error, msg", REFUSED_STEPS,
                         ids=[f"{n}-{o}" for n, o, _, _ in REFUSED_STEPS])
def test_capturable_and_differentiable_steps_fail_as_in_torch(name, options, error, msg):
    """Accepted when the optimizer is made, refused (on the CPU) by a step with a gradient."""
    def prog(tg):
        params = _params(tg)
        optimizer = getattr(tg.optim, name)(params, **options)
        optimizer.step()                        # no gradient yet: nothing happens
        _loss(tg, params, 0).backward()
        optimizer.step()
    run(prog, raises=error, msg=msg)


def test_the_new_optimizers_are_in_the_namespace():
    assert {"Adamax", "NAdam", "RAdam", "ASGD"} <= set(D.libraries()[1].optim.__all__)
