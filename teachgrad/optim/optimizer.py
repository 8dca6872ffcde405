"""The ``Optimizer`` base class: parameter groups, per-parameter state, zero_grad, saving.

A subclass says how one parameter moves (``update``); ``step`` calls it,
under no_grad, for every parameter that has a gradient. The updates are
written on the numpy arrays in place, with PyTorch's formulas in PyTorch's
order of operations, so a step gives the same numbers as PyTorch's to
float32 precision. Each in-place change of a parameter bumps its
``_version`` (``changed``), as PyTorch's in-place ops do.
"""
import copy
import itertools
from collections import defaultdict

from teachgrad.autograd.grad_mode import enable_grad, no_grad
from teachgrad.nn.module import zero_grads
from teachgrad.tensor import Tensor


class Optimizer:
    def __init__(self, params, defaults):
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            f"Tensors or dicts, but got {params.type()}")
        self.defaults = defaults
        self.state = defaultdict(dict)      # parameter -> its state, e.g. {"momentum_buffer": ...}
        self.param_groups = []
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def add_param_group(self, param_group):
        """Add a group of parameters with its own options (those not given take the defaults)."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, "
                            "but the ordering of tensors in sets will change between runs. "
                            "Please use a list instead.")
        params = [params] if isinstance(params, Tensor) else list(params)
        for param in params:
            if not isinstance(param, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                + type(param).__name__)
            if not (param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        taken = {id(p) for group in self.param_groups for p in group["params"]}
        if any(id(param) in taken for param in params):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append({"params": params, **self.defaults,
                                  **{k: v for k, v in param_group.items() if k != "params"}})

    def zero_grad(self, set_to_none=True):
        zero_grads((p for group in self.param_groups for p in group["params"]), set_to_none)

    @no_grad()
    def step(self, closure=None):
        """Move every parameter that has a gradient; ``closure`` recomputes the loss first."""
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        for group in self.param_groups:
            if group.get("differentiable") or group.get("capturable"):
                _refuse_recorded_or_captured_steps(group)
            for param in group["params"]:
                grad = param.grad
                if grad is not None:
                    self.update(param, grad._data, group)
        self._opt_called = True        # (an lr scheduler checks that step() came first)
        return loss

    def update(self, param, grad, group):
        """Change ``param`` in place, given its gradient (a numpy array) and its group's
        options; ``self.state[param]`` is a dict kept from step to step."""
        raise NotImplementedError

    @staticmethod
    def changed(param):
        """Record an in-place change of a parameter: bump its version, as PyTorch's
        in-place operations do."""
        param._version_counter.bump()

    # ---- saving and loading ----------------------------------------------------------
    def state_dict(self):
        """{"state": {index: state}, "param_groups": [options with "params": [indices]]};
        parameters are numbered in the order of the groups."""
        index = {}
        groups = []
        for group in self.param_groups:
            for param in group["params"]:
                index.setdefault(param, len(index))
            groups.append({**{k: v for k, v in group.items() if k != "params"},
                           "params": [index[p] for p in group["params"]]})
        state = {index[param]: values for param, values in self.state.items()}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        """Take options and state from ``state_dict``; everything is checked before anything
        changes. State tensors are copied (cast to the parameter's dtype, except "step")."""
        saved_groups = state_dict["param_groups"]
        if len(saved_groups) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(saved["params"]) != len(group["params"])
               for saved, group in zip(saved_groups, self.param_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match "
                             "the size of optimizer's group")
        params = dict(zip(itertools.chain.from_iterable(g["params"] for g in saved_groups),
                          itertools.chain.from_iterable(g["params"] for g in self.param_groups)))
        state = defaultdict(dict)
        for index, values in state_dict["state"].items():
            param = params[index]
            state[param] = {key: _copy_state(value, param, key) for key, value in values.items()}
        self.state = state
        self.param_groups = [{**copy.deepcopy({k: v for k, v in saved.items() if k != "params"}),
                              "params": group["params"]}
                             for saved, group in zip(saved_groups, self.param_groups)]

    def __repr__(self):
        text = type(self).__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            for key in sorted(group):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"


def _copy_state(value, param, key):
    if not isinstance(value, Tensor):
        return copy.deepcopy(value)
    array = value._data.copy()
    if key != "step" and array.dtype.kind == "f":
        array = array.astype(param._data.dtype)
    return Tensor._make(array)


_OPTION_NAMES = {"lr": "learning rate", "eps": "epsilon value"}


def refuse_negative(**options):
    """PyTorch's ValueError for the first option (in the order given) that is below 0:
    "Invalid learning rate: -1", "Invalid momentum value: -0.5"..."""
    for name, value in options.items():
        if value < 0.0:
            raise ValueError(f"Invalid {_OPTION_NAMES.get(name, name + ' value')}: {value}")


def refuse_bad_betas(betas):
    """PyTorch's ValueError for a beta (the decay of a running average) outside [0, 1)."""
    for i, beta in enumerate(betas):
        if not 0.0 <= beta < 1.0:
            raise ValueError(f"Invalid beta parameter at index {i}: {beta}")


def implementation_options(foreach, fused, **more):
    """PyTorch's ``foreach`` and ``fused`` pick one of several kernels that make the same
    update (``capturable`` and ``differentiable`` are about CUDA graphs and autograd through
    the step). teachgrad has one way, so it keeps the options only to show them in
    ``param_groups``, as PyTorch does."""
    if fused and foreach:
        raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
    return {"foreach": foreach, **more, "fused": fused}


def _refuse_recorded_or_captured_steps(group):
    """The errors PyTorch raises on the CPU for a step with ``capturable=True`` or, on leaf
    parameters, ``differentiable=True``."""
    params = [p for p in group["params"] if p.grad is not None]
    if not params:
        return
    if group.get("capturable"):
        raise AssertionError("If capturable=True, params and state_steps must be on supported "
                             "devices: ['cuda', 'xpu', 'hpu', 'privateuseone', 'xla'].")
    if any(p.is_leaf and p.requires_grad for p in params):
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                           "operation.")
    raise NotImplementedError("teachgrad's optimizers do not record their steps "
                              "(differentiable=True)")
