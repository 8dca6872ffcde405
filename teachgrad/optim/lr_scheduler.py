"""Learning-rate schedules: ``scheduler.step()`` once per epoch changes each group's "lr".

Every scheduler is an ``LRScheduler``. It remembers each group's starting lr ("initial_lr",
copied into ``base_lrs``), counts epochs in ``last_epoch`` and, at each ``step()``, sets the
lrs that its ``get_lr()`` gives. Most ``get_lr`` are *chainable*: they change the group's
current lr (multiply it by gamma...) instead of recomputing it from ``base_lrs``, so that two
schedulers can drive one optimizer together. ``step(epoch)`` (deprecated) jumps to an epoch
and uses the closed form, ``_get_closed_form_lr``, where there is one. Formulas and their
order of operations are PyTorch's, so the lrs are the same floats.
"""
import math
import types
import warnings
from bisect import bisect_right
from collections import Counter

from teachgrad.optim.optimizer import Optimizer

STEP_ORDER_WARNING = (
    "Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch 1.1.0 and "
    "later, you should call them in the opposite order: `optimizer.step()` before "
    "`lr_scheduler.step()`.  Failure to do this will result in PyTorch skipping the first "
    "value of the learning rate schedule. See more details at "
    "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate")

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated "
    "where possible. Please use `scheduler.step()` to step the scheduler. During the "
    "deprecation, if epoch is different from None, the closed form is used instead of the new "
    "chainable form, where available. Please open an issue if you are unable to replicate "
    "your use case: https://github.com/pytorch/pytorch/issues/new/choose.")


class LRScheduler:
    """Remembers each group's starting lr ("initial_lr") and sets the first lr at once."""

    def __init__(self, optimizer, last_epoch=-1):
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        else:
            _check_initial_lrs(optimizer)
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        _watch_optimizer_steps(optimizer)
        self._initial_step()

    def _initial_step(self):
        """Set the lrs of the first epoch; ``_is_initial`` tells get_lr that no epoch has
        passed yet (so that a resumed scheduler does not move one epoch too far)."""
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def get_lr(self):
        """The learning rates for epoch ``self.last_epoch``, one per group."""
        raise NotImplementedError

    def _get_closed_form_lr(self):
        """The learning rates for epoch ``self.last_epoch`` computed from ``base_lrs`` alone
        (used by ``step(epoch)``); a scheduler without a closed form uses get_lr."""
        return self.get_lr()

    def step(self, epoch=None):
        """The next epoch's lrs; call it after ``optimizer.step()`` (the first call warns
        otherwise, since the first lr of the schedule would never be used)."""
        if self._step_count == 1 and not self.optimizer._opt_called:
            warnings.warn(STEP_ORDER_WARNING, UserWarning, stacklevel=2)
        self._step_count += 1
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def _update_lr(self, epoch=None):
        """Move to the next epoch, or jump to ``epoch``, and set the lrs of that epoch."""
        if epoch is None:
            self.last_epoch += 1
            self._set_lrs(self.get_lr)
        else:
            self.last_epoch = epoch
            self._set_lrs(self._get_closed_form_lr)

    def _set_lrs(self, compute):
        """Set each group's lr to what ``compute()`` gives (get_lr does not warn in here)."""
        self._get_lr_called_within_step = True
        try:
            lrs = compute()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, lrs, strict=True):
            group["lr"] = lr
        self._last_lr = self._group_lrs()

    def _warn_if_called_outside_step(self):
        if not self._get_lr_called_within_step:
            warnings.warn("To get the last learning rate computed by the scheduler, please use "
                          "`get_last_lr()`.", UserWarning, stacklevel=3)

    def _group_lrs(self):
        """The current lr of each group, unchanged."""
        return [group["lr"] for group in self.optimizer.param_groups]

    def _multiplied_lrs(self, factor):
        """The current lr of each group times ``factor`` (a chainable step)."""
        return [group["lr"] * factor for group in self.optimizer.param_groups]

    def get_last_lr(self):
        return self._last_lr

    # ---- saving and loading ----------------------------------------------------------
    def state_dict(self):
        """Every attribute but the optimizer."""
        return {key: value for key, value in self.__dict__.items() if key != "optimizer"}

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)

    def _state_dict_with(self, key, saved):
        """state_dict() for a scheduler whose attribute ``key`` (functions, other schedulers)
        cannot be saved as it is: ``saved`` stands for it, at the end, as in PyTorch."""
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", key)}
        state[key] = saved
        return state

    def _load_all_but(self, state_dict, key):
        """Load every entry but ``key``, and return that one for the caller to restore."""
        self.__dict__.update({k: v for k, v in state_dict.items() if k != key})
        return state_dict[key]


def _check_optimizer(optimizer):
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")


def _check_initial_lrs(optimizer):
    """A scheduler resumed at ``last_epoch >= 0`` needs the "initial_lr" of every group."""
    for i, group in enumerate(optimizer.param_groups):
        if "initial_lr" not in group:
            raise KeyError(
                f"param 'initial_lr' is not specified in param_groups[{i}] when resuming "
                "scheduler with last_epoch >= 0.\nThis typically happens when:\n1. You're "
                "trying to resume training from a checkpoint but haven't properly loaded the "
                "optimizer state\n2. You're using last_epoch >= 0 for a fresh training run "
                "(not recommended)")


def _watch_optimizer_steps(optimizer):
    """Optimizer.step() sets ``_opt_called``; as in PyTorch, only the steps taken after the
    optimizer's first scheduler was made count."""
    if not getattr(optimizer, "_steps_watched", False):
        optimizer._steps_watched = True
        optimizer._opt_called = False


def _per_group(name, optimizer, value):
    """``value`` for every group, or a list with one value per group."""
    if isinstance(value, (list, tuple)):
        if len(value) != len(optimizer.param_groups):
            raise ValueError(f"{name} must have the same length as optimizer.param_groups. "
                             f"{name} has {len(value)} values, param_groups has "
                             f"{len(optimizer.param_groups)}.")
        return list(value)
    return [value] * len(optimizer.param_groups)


# ---- a function of the epoch -----------------------------------------------------------
class _LambdaScheduler(LRScheduler):
    """What LambdaLR and MultiplicativeLR share: one function of the epoch per group, saved
    in the state_dict only when it is a callable object (as its attributes); a plain
    function or lambda cannot be pickled and is saved as None."""

    def _set_lambdas(self, optimizer, lr_lambda):
        if not isinstance(lr_lambda, (list, tuple)):
            self.lr_lambdas = [lr_lambda] * len(optimizer.param_groups)
        elif len(lr_lambda) != len(optimizer.param_groups):
            raise ValueError(f"Expected {len(optimizer.param_groups)} lr_lambdas, but got "
                             f"{len(lr_lambda)}")
        else:
            self.lr_lambdas = list(lr_lambda)

    def state_dict(self):
        return self._state_dict_with("lr_lambdas", [_saved_function(fn)
                                                    for fn in self.lr_lambdas])

    def load_state_dict(self, state_dict):
        for fn, saved in zip(self.lr_lambdas, self._load_all_but(state_dict, "lr_lambdas")):
            _restore_function(fn, saved)


def _saved_function(fn):
    return None if isinstance(fn, types.FunctionType) else fn.__dict__.copy()


def _restore_function(fn, saved):
    if saved is not None:
        fn.__dict__.update(saved)


class LambdaLR(_LambdaScheduler):
    """lr = initial lr * lr_lambda(epoch)."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        self.optimizer = optimizer
        self._set_lambdas(optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_if_called_outside_step()
        return [base_lr * lmbda(self.last_epoch)
                for lmbda, base_lr in zip(self.lr_lambdas, self.base_lrs, strict=True)]


class MultiplicativeLR(_LambdaScheduler):
    """At every epoch after the first, lr = lr * lr_lambda(epoch)."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        self.optimizer = optimizer
        self._set_lambdas(optimizer, lr_lambda)
        for fn in self.lr_lambdas:
            if not callable(fn):
                raise TypeError(f"lr_lambda should be a function, but got {type(fn).__name__}")
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_if_called_outside_step()
        if self._is_initial:
            return self._group_lrs()
        return [group["lr"] * lmbda(self.last_epoch)
                for lmbda, group in zip(self.lr_lambdas, self.optimizer.param_groups,
                                        strict=True)]


# ---- decays by a factor ----------------------------------------------------------------
class StepLR(LRScheduler):
    """Multiply the learning rate by ``gamma`` every ``step_size`` epochs."""

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        self.step_size, self.gamma = step_size, gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_if_called_outside_step()
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return self._group_lrs()
        return self._multiplied_lrs(self.gamma)

    def _get_closed_form_lr(self):
        return [base_lr * self.gamma ** (self.last_epoch // self.step_size)
                for base_lr in self.base_lrs]


class MultiStepLR(LRScheduler):
    """Multiply the learning rate by ``gamma`` at each of the ``milestones`` (epochs; one
    given twice multiplies by gamma ** 2)."""

    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1):
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_if_called_outside_step()
        if self.last_epoch not in self.milestones:
            return self._group_lrs()
        return self._multiplied_lrs(self.gamma ** self.milestones[self.last_epoch])

    def _get_closed_form_lr(self):
        passed = bisect_right(sorted(self.milestones.elements()), self.last_epoch)
        return [base_lr * self.gamma ** passed for base_lr in self.base_lrs]


class ConstantLR(LRScheduler):
    """lr * factor for the first ``total_iters`` epochs, then lr again (a warm-up)."""

    def __init__(self, optimizer, factor=1.0 / 3, total_iters=5, last_epoch=-1):
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_if_called_outside_step()
        if self.last_epoch == 0:
            return self._multiplied_lrs(self.factor)
        if self.last_epoch != self.total_iters:
            return self._group_lrs()
        return self._multiplied_lrs(1.0 / self.factor)

    def _get_closed_form_lr(self):
        return [base_lr * (self.factor + (self.last_epoch >= self.total_iters)
                           * (1 - self.factor))
                for base_lr in self.base_lrs]


class LinearLR(LRScheduler):
    """The factor of the lr goes in a straight line from ``start_factor`` to ``end_factor``
    over ``total_iters`` epochs, then stays."""

    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5,
                 last_epoch=-1):
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError("Starting multiplicative factor expected to be greater than 0 and "
                             "less or equal to 1.")
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_if_called_outside_step()
        if self.last_epoch == 0:
            return self._multiplied_lrs(self.start_factor)
        if self._is_initial or self.last_epoch > self.total_iters:
            return self._group_lrs()
        change = self.end_factor - self.start_factor
        # the ratio of this epoch's factor to the previous one's
        return self._multiplied_lrs(
            1.0 + change / (self.total_iters * self.start_factor
                            + (self.last_epoch - 1) * change))

    def _get_closed_form_lr(self):
        return [base_lr * (self.start_factor + (self.end_factor - self.start_factor)
                           * min(self.total_iters, self.last_epoch) / self.total_iters)
                for base_lr in self.base_lrs]


class ExponentialLR(LRScheduler):
    """Multiply the learning rate by ``gamma`` every epoch."""

    def __init__(self, optimizer, gamma, last_epoch=-1):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_if_called_outside_step()
        if self._is_initial:
            return self._group_lrs()
        return self._multiplied_lrs(self.gamma)

    def _get_closed_form_lr(self):
        return [base_lr * self.gamma ** self.last_epoch for base_lr in self.base_lrs]


class PolynomialLR(LRScheduler):
    """lr = initial lr * (1 - epoch / total_iters) ** power, then 0 after total_iters."""

    def __init__(self, optimizer, total_iters=5, power=1.0, last_epoch=-1):
        self.total_iters = total_iters
        self.power = power
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_if_called_outside_step()
        if self._is_initial or self.last_epoch > self.total_iters:
            return self._group_lrs()
        return self._multiplied_lrs(((1.0 - self.last_epoch / self.total_iters)
                                     / (1.0 - (self.last_epoch - 1) / self.total_iters))
                                    ** self.power)

    def _get_closed_form_lr(self):
        return [base_lr * (1.0 - min(self.total_iters, self.last_epoch) / self.total_iters)
                ** self.power
                for base_lr in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """The lr follows half a cosine from the initial lr down to ``eta_min`` in ``T_max``
    epochs, then back up, and so on:

        lr = eta_min + (initial lr - eta_min) * (1 + cos(pi * epoch / T_max)) / 2

    ``get_lr`` reaches it step by step (each lr from the previous one), as PyTorch does, so
    that another scheduler may change the lr too; the floats differ slightly from the
    closed form above, which ``step(epoch)`` uses."""

    def __init__(self, optimizer, T_max, eta_min=0.0, last_epoch=-1):
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_if_called_outside_step()
        if self._is_initial:
            return self._group_lrs()
        if self._step_count == 1 and self.last_epoch > 0:      # resumed: start in closed form
            return self._cosine_lrs()
        if (self.last_epoch - 1 - self.T_max) % (2 * self.T_max) == 0:
            # at the bottom the recursive ratio would be 0 / 0: add the first rise instead
            rise = 1 - math.cos(math.pi / self.T_max)
            return [group["lr"] + (base_lr - self.eta_min) * rise / 2
                    for base_lr, group in zip(self.base_lrs, self.optimizer.param_groups,
                                              strict=True)]
        ratio = ((1 + math.cos(math.pi * self.last_epoch / self.T_max))
                 / (1 + math.cos(math.pi * (self.last_epoch - 1) / self.T_max)))
        return [ratio * (group["lr"] - self.eta_min) + self.eta_min
                for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return self._cosine_lrs()

    def _cosine_lrs(self):
        return [self.eta_min + (base_lr - self.eta_min)
                * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
                for base_lr in self.base_lrs]


class CosineAnnealingWarmRestarts(LRScheduler):
    """A cosine from the initial lr down to ``eta_min`` over ``T_0`` epochs, then a restart
    at the initial lr; each cycle is ``T_mult`` times longer than the last. ``T_cur`` counts
    the epochs since the last restart, ``T_i`` is the length of the current cycle.
    (Its step never warns and does not count ``_step_count``, as in PyTorch.)"""

    def __init__(self, optimizer, T_0, T_mult=1, eta_min=0.0, last_epoch=-1):
        if T_0 <= 0 or not isinstance(T_0, int):
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        if not isinstance(eta_min, (float, int)):
            raise ValueError(f"Expected float or int eta_min, but got {eta_min} of type "
                             f"{type(eta_min)}")
        self.T_0 = T_0
        self.T_i = T_0
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_if_called_outside_step()
        return [self.eta_min + (base_lr - self.eta_min)
                * (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2
                for base_lr in self.base_lrs]

    def step(self, epoch=None):
        """One more epoch, or (a float is allowed, e.g. a fraction of an epoch) ``epoch``."""
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:
                self.T_cur = self.T_cur % self.T_i
                self.T_i = self.T_i * self.T_mult
        else:
            self._jump_to(epoch)
        self.last_epoch = math.floor(epoch)
        self._set_lrs(self.get_lr)

    def _jump_to(self, epoch):
        """Find the cycle that ``epoch`` falls in: its length T_i and the place T_cur in it."""
        if epoch < 0:
            raise ValueError(f"Expected non-negative epoch, but got {epoch}")
        if epoch < self.T_0:
            self.T_i = self.T_0
            self.T_cur = epoch
        elif self.T_mult == 1:
            self.T_cur = epoch % self.T_0
        else:      # n cycles (T_0, T_0 * T_mult, ...) end at T_0 (T_mult**n - 1) / (T_mult - 1)
            n = int(math.log((epoch / self.T_0 * (self.T_mult - 1) + 1), self.T_mult))
            self.T_cur = epoch - self.T_0 * (self.T_mult ** n - 1) / (self.T_mult - 1)
            self.T_i = self.T_0 * self.T_mult ** n


# ---- cycles of lr (and momentum), step by step within an epoch --------------------------
def _uses_beta1(optimizer):
    """CyclicLR and OneCycleLR cycle the momentum, or Adam's beta1 in its place."""
    if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
        raise ValueError("optimizer must support momentum or beta1 with `cycle_momentum` "
                         "option enabled")
    return "betas" in optimizer.defaults


def _start_momentums(optimizer, base_momentums, max_momentums, use_beta1):
    """A fresh start: each group's momentum at its max, and both bounds kept in the group."""
    for max_momentum, base_momentum, group in zip(max_momentums, base_momentums,
                                                  optimizer.param_groups, strict=True):
        _set_momentum(group, max_momentum, use_beta1)
        group["max_momentum"] = max_momentum
        group["base_momentum"] = base_momentum


def _set_momentum(group, momentum, use_beta1):
    if use_beta1:
        group["betas"] = (momentum, *group["betas"][1:])
    else:
        group["momentum"] = momentum


class CyclicLR(LRScheduler):
    """The lr goes from ``base_lr`` up to ``max_lr`` in ``step_size_up`` steps and back down
    in ``step_size_down``, again and again (the momentum moves the other way). The height
    of a cycle is scaled by ``scale_fn``: 1 ("triangular"), halved every cycle
    ("triangular2"), or ``gamma ** step`` ("exp_range"). Step it after every batch."""

    def __init__(self, optimizer, base_lr, max_lr, step_size_up=2000, step_size_down=None,
                 mode="triangular", gamma=1.0, scale_fn=None, scale_mode="cycle",
                 cycle_momentum=True, base_momentum=0.8, max_momentum=0.9, last_epoch=-1):
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        base_lrs = _per_group("base_lr", optimizer, base_lr)
        if last_epoch == -1:
            for lr, group in zip(base_lrs, optimizer.param_groups, strict=True):
                group["lr"] = lr
        self.max_lrs = _per_group("max_lr", optimizer, max_lr)
        step_size_up = float(step_size_up)
        step_size_down = float(step_size_down) if step_size_down is not None else step_size_up
        self.total_size = step_size_up + step_size_down
        self.step_ratio = step_size_up / self.total_size
        if mode not in ["triangular", "triangular2", "exp_range"] and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode = mode
        self.gamma = gamma
        self._scale_fn_custom = scale_fn
        # the built-in modes choose what their scale_fn is a function of
        self.scale_mode = scale_mode if scale_fn is not None else \
            {"triangular": "cycle", "triangular2": "cycle", "exp_range": "iterations"}[mode]
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.use_beta1 = _uses_beta1(optimizer)
            self.base_momentums = _per_group("base_momentum", optimizer, base_momentum)
            self.max_momentums = _per_group("max_momentum", optimizer, max_momentum)
            if last_epoch == -1:
                _start_momentums(optimizer, self.base_momentums, self.max_momentums,
                                 self.use_beta1)
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def scale_fn(self, x):
        """The height of the cycle, as a function of the cycle number or of the step."""
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        if self.mode == "triangular":
            return 1.0
        if self.mode == "triangular2":
            return 1 / (2.0 ** (x - 1))
        return self.gamma ** x

    def get_lr(self):
        self._warn_if_called_outside_step()
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle          # where in the cycle, 0..1
        if x <= self.step_ratio:
            scale_factor = x / self.step_ratio
        else:
            scale_factor = (x - 1) / (self.step_ratio - 1)
        scale = self.scale_fn(cycle if self.scale_mode == "cycle" else self.last_epoch)
        lrs = [base_lr + (max_lr - base_lr) * scale_factor * scale
               for base_lr, max_lr in zip(self.base_lrs, self.max_lrs, strict=True)]
        if self.cycle_momentum:
            for group, base_momentum, max_momentum in zip(
                    self.optimizer.param_groups, self.base_momentums, self.max_momentums,
                    strict=True):
                momentum = max_momentum - (max_momentum - base_momentum) * scale_factor * scale
                _set_momentum(group, momentum, self.use_beta1)
        return lrs

    def state_dict(self):
        return self._state_dict_with("_scale_fn_custom",
                                     None if self._scale_fn_custom is None
                                     else _saved_function(self._scale_fn_custom))

    def load_state_dict(self, state_dict):
        _restore_function(self._scale_fn_custom, self._load_all_but(state_dict,
                                                                    "_scale_fn_custom"))


class OneCycleLR(LRScheduler):
    """One cycle over ``total_steps`` steps: the lr rises from max_lr / div_factor to
    ``max_lr`` during the first ``pct_start`` of the steps, then anneals (cosine or linear)
    to initial lr / final_div_factor; the momentum moves the other way. ``three_phase``
    comes back to the initial lr before the final fall. Step it after every batch."""

    def __init__(self, optimizer, max_lr, total_steps=None, epochs=None, steps_per_epoch=None,
                 pct_start=0.3, anneal_strategy="cos", cycle_momentum=True,
                 base_momentum=0.85, max_momentum=0.95, div_factor=25.0,
                 final_div_factor=1e4, three_phase=False, last_epoch=-1):
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        self.total_steps = _total_steps(total_steps, epochs, steps_per_epoch)
        self._schedule_phases = self._phases(pct_start, three_phase)
        if pct_start < 0 or pct_start > 1 or not isinstance(pct_start, float):
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError("anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        self._anneal_func_type = anneal_strategy
        max_lrs = _per_group("max_lr", self.optimizer, max_lr)
        if last_epoch == -1:
            for group, group_max_lr in zip(self.optimizer.param_groups, max_lrs):
                group["initial_lr"] = group_max_lr / div_factor
                group["max_lr"] = group_max_lr
                group["min_lr"] = group["initial_lr"] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.use_beta1 = _uses_beta1(optimizer)
            max_momentums = _per_group("max_momentum", optimizer, max_momentum)
            base_momentums = _per_group("base_momentum", optimizer, base_momentum)
            if last_epoch == -1:
                _start_momentums(optimizer, base_momentums, max_momentums, self.use_beta1)
        super().__init__(optimizer, last_epoch)

    def _phases(self, pct_start, three_phase):
        """Each phase ends at a step and goes from one value kept in the group to another."""
        def phase(end_step, start_lr, end_lr, start_momentum, end_momentum):
            return {"end_step": end_step, "start_lr": start_lr, "end_lr": end_lr,
                    "start_momentum": start_momentum, "end_momentum": end_momentum}
        rise = phase(float(pct_start * self.total_steps) - 1, "initial_lr", "max_lr",
                     "max_momentum", "base_momentum")
        if not three_phase:
            return [rise, phase(self.total_steps - 1, "max_lr", "min_lr",
                                "base_momentum", "max_momentum")]
        return [rise,
                phase(float(2 * pct_start * self.total_steps) - 2, "max_lr", "initial_lr",
                      "base_momentum", "max_momentum"),
                phase(self.total_steps - 1, "initial_lr", "min_lr",
                      "max_momentum", "max_momentum")]

    def _anneal(self, start, end, pct):
        """From ``start`` (pct = 0) to ``end`` (pct = 1)."""
        if self._anneal_func_type == "cos":
            return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)
        return (end - start) * pct + start

    def get_lr(self):
        self._warn_if_called_outside_step()
        step_num = self.last_epoch
        if step_num > self.total_steps:
            raise ValueError(f"Tried to step {step_num} times. The specified number of total "
                             f"steps is {self.total_steps}")
        lrs = []
        for group in self.optimizer.param_groups:
            start_step = 0.0
            for i, phase in enumerate(self._schedule_phases):
                end_step = phase["end_step"]
                if step_num <= end_step or i == len(self._schedule_phases) - 1:
                    pct = (step_num - start_step) / (end_step - start_step)
                    break
                start_step = end_step
            lrs.append(self._anneal(group[phase["start_lr"]], group[phase["end_lr"]], pct))
            if self.cycle_momentum:
                _set_momentum(group, self._anneal(group[phase["start_momentum"]],
                                                  group[phase["end_momentum"]], pct),
                              self.use_beta1)
        return lrs


def _total_steps(total_steps, epochs, steps_per_epoch):
    if total_steps is not None:
        if total_steps <= 0 or not isinstance(total_steps, int):
            raise ValueError(f"Expected positive integer total_steps, but got {total_steps}")
        return total_steps
    if epochs is None or steps_per_epoch is None:
        raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")
    if not isinstance(epochs, int) or epochs <= 0:
        raise ValueError(f"Expected positive integer epochs, but got {epochs}")
    if not isinstance(steps_per_epoch, int) or steps_per_epoch <= 0:
        raise ValueError(f"Expected positive integer steps_per_epoch, but got {steps_per_epoch}")
    return epochs * steps_per_epoch


# ---- schedulers made of schedulers -------------------------------------------------------
class _CompositeScheduler(LRScheduler):
    """What SequentialLR and ChainedScheduler share: the checks of their schedulers, and a
    state_dict that holds the state_dict of each."""

    def _check_schedulers(self, optimizer, schedulers):
        name = type(self).__name__
        for i, scheduler in enumerate(schedulers):
            if not hasattr(scheduler, "optimizer"):
                raise TypeError(f"{name} at index {i} should have `optimizer` as its attribute.")
            if isinstance(scheduler, ReduceLROnPlateau):
                raise ValueError(
                    f"{name} does not support `ReduceLROnPlateau` scheduler as it requires "
                    "additional kwargs to be specified when calling `step`, but got one at "
                    f"index {i} in the given schedulers sequence.")
            if optimizer != scheduler.optimizer:
                raise ValueError(
                    f"{name} expects all schedulers to belong to the same optimizer, but got "
                    f"scheduler {type(scheduler).__name__} at index {i} has "
                    f"{scheduler.optimizer}, which is different from "
                    f"{type(optimizer).__name__}.")

    def state_dict(self):
        return self._state_dict_with("_schedulers", [s.state_dict() for s in self._schedulers])

    def load_state_dict(self, state_dict):
        for scheduler, saved in zip(self._schedulers,
                                    self._load_all_but(state_dict, "_schedulers")):
            scheduler.load_state_dict(saved)


class SequentialLR(_CompositeScheduler):
    """``schedulers[0]`` until epoch ``milestones[0]``, then ``schedulers[1]`` (started
    afresh from the initial lrs), and so on."""

    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1):
        if len(schedulers) < 1:
            raise ValueError(f"{type(self).__name__} expects at least one scheduler, but got "
                             "no scheduler.")
        self._check_schedulers(optimizer, schedulers)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(
                "Sequential Schedulers expects number of schedulers provided to be one more "
                "than the number of milestone points, but got number of schedulers "
                f"{len(schedulers)} and the number of milestones to be equal to "
                f"{len(milestones)}")
        self._schedulers = schedulers
        self._milestones = milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        # undo the first step that each scheduler took when it was made...
        for group in optimizer.param_groups:
            group["lr"] = group["initial_lr"]
        self.recursive_undo()
        # ...and take it again with the one scheduler that runs at epoch 0
        first = self._schedulers[bisect_right(self._milestones, 0)]
        first._initial_step()
        self._last_lr = first.get_last_lr()

    def recursive_undo(self, sched=None):
        """Take one epoch back from every scheduler inside this one (and inside those)."""
        scheds = self if sched is None else sched
        if hasattr(scheds, "_schedulers"):
            for s in scheds._schedulers:
                self.recursive_undo(s)
        elif hasattr(scheds, "last_epoch"):
            scheds.last_epoch -= 1

    def step(self):
        self.last_epoch += 1
        idx = bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[idx]
        if idx > 0 and self._milestones[idx - 1] == self.last_epoch:
            scheduler._update_lr(0)       # a milestone: the next scheduler starts at epoch 0
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()


class ChainedScheduler(_CompositeScheduler):
    """Step all the ``schedulers`` at once: their changes of the lr add up."""

    def __init__(self, schedulers, optimizer=None):
        if len(schedulers) < 1:
            raise ValueError(f"{type(self).__name__} expects at least one scheduler to be "
                             "chained, but got no scheduler.")
        optimizer = optimizer or schedulers[0].optimizer
        self._check_schedulers(optimizer, schedulers)
        self._schedulers = schedulers
        self.optimizer = optimizer
        self._last_lr = self._group_lrs()

    def step(self):
        for scheduler in self._schedulers:
            scheduler.step()
        self._last_lr = self._group_lrs()


# ---- driven by a metric --------------------------------------------------------------------
class ReduceLROnPlateau(LRScheduler):
    """Multiply the lr by ``factor`` when the metric given to ``step(metric)`` has not
    improved (by more than ``threshold``) for ``patience`` epochs; then wait ``cooldown``
    epochs before counting again. The lr never goes below ``min_lr``."""

    def __init__(self, optimizer, mode="min", factor=0.1, patience=10, threshold=1e-4,
                 threshold_mode="rel", cooldown=0, min_lr=0, eps=1e-8):
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        self.factor = factor
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != len(optimizer.param_groups):
                raise ValueError(f"expected {len(optimizer.param_groups)} min_lrs, got "
                                 f"{len(min_lr)}")
            self.default_min_lr = None
            self.min_lrs = list(min_lr)
        else:
            self.default_min_lr = min_lr
            self.min_lrs = [min_lr] * len(optimizer.param_groups)
        self.patience = patience
        self.cooldown = cooldown
        self.eps = eps
        self.last_epoch = 0
        self._last_lr = self._group_lrs()
        self._init_is_better(mode, threshold, threshold_mode)
        self._reset()

    def _reset(self):
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    def step(self, metrics, epoch=None):
        current = float(metrics)          # a 0-dim tensor is fine too
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self.last_epoch = epoch
        if self._is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0       # bad epochs during the cooldown do not count
        if self.num_bad_epochs > self.patience:
            self._reduce_lr()
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = self._group_lrs()

    def _reduce_lr(self):
        if len(self.optimizer.param_groups) != len(self.min_lrs):
            if self.default_min_lr is None:
                raise RuntimeError(
                    f"The number of param groups in the `optimizer` "
                    f"({len(self.optimizer.param_groups)}) differs from when "
                    f"`ReduceLROnPlateau` was initialized ({len(self.min_lrs)}), usually due "
                    "to a new param group being added to the optimizer. Please modify the "
                    "`min_lrs` field to match the length of the `optimizer` param groups.")
            self.min_lrs = [self.default_min_lr] * len(self.optimizer.param_groups)
        for group, min_lr in zip(self.optimizer.param_groups, self.min_lrs):
            old_lr = float(group["lr"])
            new_lr = max(old_lr * self.factor, min_lr)
            if old_lr - new_lr > self.eps:
                group["lr"] = new_lr

    @property
    def in_cooldown(self):
        return self.cooldown_counter > 0

    def _is_better(self, a, best):
        if self.mode == "min" and self.threshold_mode == "rel":
            return a < best * (1.0 - self.threshold)
        if self.mode == "min":
            return a < best - self.threshold
        if self.threshold_mode == "rel":
            return a > best * (self.threshold + 1.0)
        return a > best + self.threshold

    def _init_is_better(self, mode, threshold, threshold_mode):
        if mode not in {"min", "max"}:
            raise ValueError("mode " + mode + " is unknown!")
        if threshold_mode not in {"rel", "abs"}:
            raise ValueError("threshold mode " + threshold_mode + " is unknown!")
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self.mode = mode
        self.threshold = threshold
        self.threshold_mode = threshold_mode

    def load_state_dict(self, state_dict):
        super().load_state_dict(state_dict)
        self._init_is_better(self.mode, self.threshold, self.threshold_mode)
