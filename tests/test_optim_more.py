"""RMSprop, Adagrad and Adadelta against torch: the same parameters (and versions) after every
step, the same state, param_groups and repr, state_dict round trips, groups with their own
options, skipped parameters, the same errors for invalid options, and StepLR driving them.

Parameters agree to float32 precision, not bit for bit: torch's CPU sqrt (MKL) is not
correctly rounded and ``add(..., alpha=)`` is a fused multiply-add. The state computed before
any square root (step, square_avg, grad_avg, sum) is compared exactly."""
import io

import pytest

try:
    from . import differential as D
except ImportError:
    import differential as D

torch = pytest.importorskip("torch")
run = D.run_both

SETTINGS = [
    ("RMSprop", {}),
    ("RMSprop", {"lr": 0.01, "alpha": 0.9, "eps": 1e-6}),
    ("RMSprop", {"weight_decay": 0.1}),
    ("RMSprop", {"momentum": 0.9}),
    ("RMSprop", {"centered": True}),
    ("RMSprop", {"centered": True, "momentum": 0.5, "weight_decay": 0.05, "maximize": True}),
    ("RMSprop", {"foreach": True, "momentum": 0.9}),
    ("Adagrad", {}),
    ("Adagrad", {"lr": 0.1, "lr_decay": 0.1}),
    ("Adagrad", {"weight_decay": 0.1, "initial_accumulator_value": 0.5}),
    ("Adagrad", {"lr": 0.1, "maximize": True, "eps": 1e-3}),
    ("Adadelta", {}),
    ("Adadelta", {"lr": 0.5, "rho": 0.5, "eps": 1e-4}),
    ("Adadelta", {"weight_decay": 0.1, "maximize": True, "foreach": False}),
]


def _ids(settings):
    return [f"{name}-{options}" for name, options in settings]


def _params(tg, dtype=None):
    w = tg.tensor(D.data((2, 3), seed=1), dtype=dtype, requires_grad=True)
    b = tg.tensor(D.data((2,), seed=2), dtype=dtype, requires_grad=True)
    return [w, b]


def _loss(tg, params, step):
    """A small least-squares problem, with new data at every step."""
    w, b = params
    x = tg.tensor(D.data((5, 3), seed=10 + step), dtype=w.dtype)
    y = tg.tensor(D.data((5, 2), seed=20 + step), dtype=w.dtype)
    return ((x @ w.T + b - y) ** 2).mean()


def _train(tg, optimizer, params, steps, first=0):
    for step in range(first, first + steps):
        optimizer.zero_grad()
        _loss(tg, params, step).backward()
        optimizer.step()


def _state(optimizer):
    """The state_dict, its state tensors compared without their versions (torch's in-place
    ops on them bump versions; teachgrad writes the numpy arrays)."""
    return D.snap(optimizer.state_dict(), version=False)


@pytest.mark.parametrize("name, options", SETTINGS, ids=_ids(SETTINGS))
def test_trajectory_matches_torch(name, options):
    """Six steps: the parameters with their versions after each, then the whole state_dict,
    the order of each state's keys, and print(optimizer)."""
    def prog(tg):
        params = _params(tg)
        optimizer = getattr(tg.optim, name)(params, **options)
        trajectory = []
        for step in range(6):
            _train(tg, optimizer, params, 1, step)
            trajectory.append(D.snap(params))
        return {"trajectory": trajectory, "state_dict": _state(optimizer),
                "keys": [list(state) for state in optimizer.state_dict()["state"].values()],
                "group_keys": list(optimizer.param_groups[0]), "repr": repr(optimizer)}
    run(prog)


EXACT = [("RMSprop", {"alpha": 0.9}), ("RMSprop", {"centered": True, "maximize": True}),
         ("Adagrad", {"lr_decay": 0.1}), ("Adadelta", {"rho": 0.8})]


@pytest.mark.parametrize("name, options", EXACT, ids=_ids(EXACT))
def test_first_state_and_step_counts_are_bit_for_bit_torchs(name, options):
    """After one step from a zero state, each running sum or average of the gradients is one
    rounded product, equal to torch's exactly; step counts stay exact. (Later sums differ in
    the last bit: on the CPU torch's addcmul_ and lerp_ are fused multiply-adds.)"""
    def prog(tg):
        params = _params(tg)
        optimizer = getattr(tg.optim, name)(params, **options)
        reports = []
        for step in range(5):
            for i, param in enumerate(params):
                param.grad = tg.tensor(D.data(param.shape, seed=100 * step + i))
            optimizer.step()
            keys = ("step", "square_avg", "grad_avg", "sum") if step == 0 else ("step",)
            reports.append([D.snap({key: state[key] for key in keys if key in state},
                                   version=False)
                            for state in optimizer.state_dict()["state"].values()])
        return reports
    run(prog, rtol=0, atol=0)


def test_fused_adagrad_gives_the_same_numbers():
    """torch's fused kernel makes the same update. (It leaves the parameters' _version alone;
    teachgrad's optimizers bump it for fused=True too, as torch's unfused kernels do.)"""
    def prog(tg):
        params = _params(tg)
        optimizer = tg.optim.Adagrad(params, lr=0.1, fused=True)
        _train(tg, optimizer, params, 6)
        return {"params": D.snap(params, version=False), "state": _state(optimizer),
                "repr": repr(optimizer)}
    run(prog)


def test_float64_parameters_keep_float64_state():
    """The state tensors take the parameter's dtype; the step count stays float32."""
    def prog(tg):
        reports = []
        for name, options in [("RMSprop", {"momentum": 0.9, "centered": True}),
                              ("Adagrad", {}), ("Adadelta", {})]:
            params = _params(tg, tg.float64)
            optimizer = getattr(tg.optim, name)(params, **options)
            _train(tg, optimizer, params, 3)
            reports.append({"params": D.snap(params), "state": _state(optimizer)})
        return reports
    run(prog)


RESUMED = [("RMSprop", {"momentum": 0.5, "centered": True, "lr": 0.02}),
           ("Adagrad", {"lr": 0.1, "lr_decay": 0.05, "initial_accumulator_value": 0.1}),
           ("Adadelta", {"rho": 0.7, "weight_decay": 0.01})]


@pytest.mark.parametrize("name, options", RESUMED, ids=_ids(RESUMED))
def test_resuming_from_a_saved_state_dict_continues_the_same_trajectory(name, options):
    """Three steps, state_dict() saved and loaded into a fresh optimizer made with another lr,
    three more steps: the same parameters as six steps in one go; the options come from the
    saved dict."""
    def prog(tg):
        params = _params(tg)
        optimizer = getattr(tg.optim, name)(params, **options)
        _train(tg, optimizer, params, 3)
        file = io.BytesIO()
        tg.save(optimizer.state_dict(), file)
        file.seek(0)
        copies = [param.detach().clone().requires_grad_() for param in params]
        resumed = getattr(tg.optim, name)(copies, lr=123.0)
        resumed.load_state_dict(tg.load(file))
        _train(tg, resumed, copies, 3, first=3)
        straight = _params(tg)
        straight_optimizer = getattr(tg.optim, name)(straight, **options)
        _train(tg, straight_optimizer, straight, 6)
        return {"resumed": D.snap(copies, version=False), "lr": resumed.param_groups[0]["lr"],
                "state": _state(resumed),
                "same": all(tg.equal(a, b) for a, b in zip(copies, straight))}
    _, ours = run(prog)
    assert ours.result["items"]["same"] == ("py", "bool", True)


GROUPS = {
    "RMSprop": (lambda tg, w, b: tg.optim.RMSprop([{"params": [w], "lr": 0.05, "momentum": 0.9},
                                                   {"params": [b], "centered": True}], lr=0.01),
                {"lr": 0.001, "alpha": 0.5}),
    "Adagrad": (lambda tg, w, b: tg.optim.Adagrad([{"params": [w], "lr_decay": 0.5,
                                                    "initial_accumulator_value": 3.0},
                                                   {"params": [b], "weight_decay": 0.2}],
                                                  initial_accumulator_value=0.1),
                {"lr": 0.5, "initial_accumulator_value": 2.0}),
    "Adadelta": (lambda tg, w, b: tg.optim.Adadelta([{"params": [w], "rho": 0.5},
                                                     {"params": [b], "maximize": True}]),
                 {"lr": 0.1, "eps": 1e-3}),
}


@pytest.mark.parametrize("name", sorted(GROUPS))
def test_param_groups_with_their_own_options(name):
    """Each group steps with its own options, a group added later with add_param_group too.
    Adagrad fills its state with the optimizer's initial_accumulator_value and ignores a
    group's own, as torch does."""
    make, extra_options = GROUPS[name]

    def prog(tg):
        params = _params(tg)
        extra = tg.tensor([0.5, -1.0], requires_grad=True)
        optimizer = make(tg, *params)
        optimizer.add_param_group({"params": [extra], **extra_options})
        for step in range(4):
            optimizer.zero_grad()
            (_loss(tg, params, step) + (extra ** 2).sum()).backward()
            optimizer.step()
        return {"params": D.snap(params + [extra]), "state": _state(optimizer),
                "repr": repr(optimizer)}
    run(prog)


@pytest.mark.parametrize("name", ["RMSprop", "Adagrad", "Adadelta"])
def test_a_parameter_without_gradient_is_skipped(name):
    """It keeps its values and version, and gets no state (Adagrad's, made at construction,
    stays at step 0)."""
    def prog(tg):
        used, unused = _params(tg)
        optimizer = getattr(tg.optim, name)([used, unused])
        optimizer.step()                          # no gradient at all: nothing moves
        for _ in range(2):
            optimizer.zero_grad()
            (used ** 2).sum().backward()
            optimizer.step()
        return {"params": D.snap([used, unused]), "state": _state(optimizer)}
    run(prog)


@pytest.mark.parametrize("name", ["RMSprop", "Adagrad", "Adadelta"])
def test_step_lr_drives_the_learning_rate(name):
    """StepLR halves every group's lr every two epochs, and the steps use it."""
    def prog(tg):
        params = _params(tg)
        optimizer = getattr(tg.optim, name)(params, lr=0.1)
        scheduler = tg.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)
        lrs = []
        for epoch in range(6):
            lrs.append(scheduler.get_last_lr())
            _train(tg, optimizer, params, 1, epoch)
            scheduler.step()
        return {"lrs": lrs, "params": D.snap(params), "state": _state(optimizer),
                "scheduler": scheduler.state_dict()}
    _, ours = run(prog)
    assert D.normalise([[0.1], [0.1], [0.05], [0.05], [0.025], [0.025]]) \
        == ours.result["items"]["lrs"]


INVALID = [
    ("RMSprop", {"lr": -0.1}), ("RMSprop", {"eps": -1e-8}), ("RMSprop", {"momentum": -0.9}),
    ("RMSprop", {"weight_decay": -1}), ("RMSprop", {"alpha": -0.5}),
    ("RMSprop", {"fused": True}), ("RMSprop", {"nesterov": True}),
    ("Adagrad", {"lr": -0.1}), ("Adagrad", {"lr_decay": -1}), ("Adagrad", {"weight_decay": -1}),
    ("Adagrad", {"initial_accumulator_value": -0.1}), ("Adagrad", {"eps": -1e-10}),
    ("Adagrad", {"fused": True, "differentiable": True}),
    ("Adagrad", {"fused": True, "foreach": True}), ("Adagrad", {"capturable": True}),
    ("Adadelta", {"lr": -1}), ("Adadelta", {"rho": 1.5}), ("Adadelta", {"rho": -0.1}),
    ("Adadelta", {"eps": -1e-6}), ("Adadelta", {"weight_decay": -1}),
    ("Adadelta", {"fused": True}),
]


@pytest.mark.parametrize("name, options", INVALID, ids=_ids(INVALID))
def test_invalid_options_raise_torchs_errors(name, options):
    run(lambda tg: getattr(tg.optim, name)(_params(tg), **options), raises="Exception")


def test_positional_arguments_follow_torchs_signatures():
    """RMSprop takes all its options by position; Adagrad and Adadelta stop after foreach."""
    def prog(tg):
        return [repr(tg.optim.RMSprop(_params(tg), 0.1, 0.9, 1e-6, 0.1, 0.5, True, False, None,
                                      True, False)),
                repr(tg.optim.Adagrad(_params(tg), 0.1, 0.01, 0.1, 0.5, 1e-8, False)),
                repr(tg.optim.Adadelta(_params(tg), 0.5, 0.8, 1e-5, 0.1, None))]
    run(prog)


@pytest.mark.parametrize("extra", [(1,), ()])
def test_too_many_positional_arguments_are_refused(extra):
    run(lambda tg: repr(tg.optim.Adagrad(_params(tg), 0.1, 0, 0, 0, 1e-10, None, *extra)),
        raises="TypeError" if extra else None)


REFUSED_STEPS = [("RMSprop", {"capturable": True}, "AssertionError", D.FIRST_LINE),
                 ("RMSprop", {"differentiable": True}, "RuntimeError", D.FIRST_LINE),
                 ("Adagrad", {"differentiable": True}, "RuntimeError", D.FIRST_LINE),
                 ("Adadelta", {"differentiable": True}, "RuntimeError", D.FIRST_LINE),
                 # torch's Adadelta leaves 'xla' out of its list of devices
                 ("Adadelta", {"capturable": True}, "AssertionError",
                  "If capturable=True, params and state_steps must be on supported devices: "
                  "['cuda', 'xpu', 'hpu', 'privateuseone'")]


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


def test_closure_returns_the_loss():
    def prog(tg):
        params = _params(tg)
        optimizer = tg.optim.RMSprop(params, momentum=0.5)

        def closure():
            optimizer.zero_grad()
            loss = _loss(tg, params, 0)
            loss.backward()
            return loss
        losses = [optimizer.step(closure) for _ in range(3)]
        return {"losses": [loss.item() for loss in losses], "params": D.snap(params)}
    run(prog)
