"""``teachgrad.amp``: mixed-precision training's gradient scaler and ``autocast``.

``GradScaler`` multiplies the loss by a large scale before ``backward`` (so that small
float16 gradients do not flush to zero), divides the gradients by it again before the
optimiser steps, skips a step whose gradients hold an inf or a nan and then halves the
scale, and doubles the scale after ``growth_interval`` clean steps. As in PyTorch, the
default device is "cuda", which this machine lacks: the scaler then warns and disables
itself, and ``scale`` returns the loss as it is and ``step`` just steps. On "cpu" it works.
"""
import functools
import warnings
from collections import defaultdict

from teachgrad import creation, dtypes
from teachgrad.autograd.grad_mode import no_grad
from teachgrad.tensor import Tensor

READY, UNSCALED, STEPPED = "ready", "unscaled", "stepped"


class autocast:
    """Run a block in lower precision. For "cuda", which this machine lacks, it warns and
    does nothing, as PyTorch does; turned off (``enabled=False``) it does nothing; on the
    CPU it is refused, since teachgrad has no bfloat16 kernels to run the block in."""

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if device_type == "cuda" and enabled:
            warnings.warn("CUDA is not available or torch_xla is imported. Disabling "
                          "autocast.", stacklevel=2)
            enabled = False
        if enabled:
            raise NotImplementedError(f"teachgrad has no autocast on '{device_type}': it has "
                                      "no lower-precision kernels (use enabled=False)")
        self.device, self.fast_dtype, self._enabled = device_type, dtype, False

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        return False

    def __call__(self, function):
        @functools.wraps(function)
        def without_autocast(*args, **kwargs):
            return function(*args, **kwargs)
        return without_autocast


def is_autocast_available(device_type):
    return False


class GradScaler:
    def __init__(self, device="cuda", init_scale=2.0**16, growth_factor=2.0,
                 backoff_factor=0.5, growth_interval=2000, enabled=True):
        self._device, self._enabled = device, enabled
        if device == "cuda" and enabled:
            warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  "
                          "Disabling.", stacklevel=2)
            self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
        self._init_scale, self._scale = init_scale, None
        self._growth_factor, self._backoff_factor = growth_factor, backoff_factor
        self._growth_interval, self._growth_tracker = growth_interval, 0
        self._optimizer_states = defaultdict(lambda: {"stage": READY, "found_inf": False})

    def is_enabled(self):
        return self._enabled

    def scale(self, outputs):
        """``outputs`` (a tensor, or tensors in lists and tuples) times the scale."""
        if not self._enabled:
            return outputs
        if self._scale is None:
            self._scale = creation.full((), self._init_scale, dtype=dtypes.float32)
        if isinstance(outputs, Tensor):
            return outputs * self._scale
        return type(outputs)(self.scale(output) for output in outputs)

    def unscale_(self, optimizer):
        """Divide the gradients of ``optimizer``'s parameters by the scale, in place."""
        if not self._enabled:
            return
        state = self._optimizer_states[id(optimizer)]
        if state["stage"] is UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since "
                               "the last update().")
        if state["stage"] is STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inverse = self._scale.double().reciprocal().float()
        found_inf = False
        with no_grad():
            for group in optimizer.param_groups:
                for param in group["params"]:
                    if param.grad is not None:
                        found_inf |= not bool(param.grad.isfinite().all())
                        param.grad.mul_(inverse)
        state.update(stage=UNSCALED, found_inf=found_inf)

    def step(self, optimizer, *args, **kwargs):
        """Unscale if not done yet, then step unless a gradient was inf or nan."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is "
                               "enabled.")
        state = self._optimizer_states[id(optimizer)]
        if state["stage"] is STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] is READY:
            self.unscale_(optimizer)
        result = None if state["found_inf"] else optimizer.step(*args, **kwargs)
        state["stage"] = STEPPED
        return result

    def update(self, new_scale=None):
        """Back off after a skipped step; grow after ``growth_interval`` clean ones."""
        if not self._enabled:
            return
        if new_scale is not None:
            value = new_scale.item() if isinstance(new_scale, Tensor) else new_scale
        elif any(state["found_inf"] for state in self._optimizer_states.values()):
            value, self._growth_tracker = self.get_scale() * self._backoff_factor, 0
        else:
            value, self._growth_tracker = self.get_scale(), self._growth_tracker + 1
            if self._growth_tracker == self._growth_interval:
                value, self._growth_tracker = value * self._growth_factor, 0
        self._scale = creation.full((), value, dtype=dtypes.float32)
        self._optimizer_states.clear()

    def get_scale(self):
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else self._scale.item()

    def get_growth_factor(self):
        return self._growth_factor

    def get_backoff_factor(self):
        return self._backoff_factor

    def get_growth_interval(self):
        return self._growth_interval

    def state_dict(self):
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor,
                "growth_interval": self._growth_interval,
                "_growth_tracker": self._growth_tracker}

    def load_state_dict(self, state_dict):
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved "
                               "from a disabled instance of GradScaler.")
        self._init_scale = state_dict["scale"]
        self._scale = creation.full((), state_dict["scale"], dtype=dtypes.float32)
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._growth_tracker = state_dict["_growth_tracker"]
