"""A differential, property-based test of ``teachgrad.compile`` against eager (issue 28).

Each seed makes a random training step -- a model from the course's layers, a loss, an
optimiser, Python-side reads (a config dict, an object with ``__slots__``, a deep object, a
set, a deque, a helper reading a global, Python's or numpy's random numbers) -- and a
random sequence of calls with changes between them: learning rate, train/eval, batch
shape, masks, globals, containers, aliasing and non-contiguous arguments, a layer swapped,
grad mode. The same world is built twice, one stepped eagerly and one compiled; after
every call the losses (or the errors), parameters, gradients, optimiser state and
arguments must be equal bit for bit. A compiled step may fall back to eager (with a
warning); it may never differ.

A fixed sample runs in CI. To explore::

    python tests/test_compile_random_programs.py 5000        # seeds 0..4999
    TEACHGRAD_EXPLORE=5000 python -m pytest tests/test_compile_random_programs.py

Explored for issue 28: 18,000 programs, none differed, silently or not -- seeds 10000-17999
on the final code (3,671 ended replaying compiled, 4,329 fell back to eager with a warning:
mostly ``.item()`` in Adam, RMSprop and Adagrad, a branch checked after BatchNorm's running
statistics were updated, a call under no_grad), and seeds 0-9999 on two earlier states of
it. The one difference found (seed 3174, a NaN's sign bit) is in ``FOUND``.
"""
import collections
import os
import random
import sys
import warnings

import numpy as np
import pytest

import teachgrad
from teachgrad import nn

try:
    from .test_compile_soundness import Slotted, _nested
except ImportError:                     # (run as a script)
    from test_compile_soundness import Slotted, _nested

FOUND = [3174]              # seeds the exploration found differing, each fixed since
                            # (3174: NaNs of another sign, now counted equal: see _bits)
SAMPLE = [*range(40), *FOUND]   # the seeds CI runs

STEP_SOURCE = '''
def scale_three_deep():
    return scale_two_deep()

def scale_two_deep():
    return scale_global()

def scale_global():
    return SCALE

def step(x, y, aux, mask):
    opt.zero_grad()
    out = model(x)
    if mask is not None:
        out, y = out[mask], y[mask]
    loss = loss_fn(out, y) * ({factor})
    {aux_line}
    {l2_line}
    loss.backward()
    opt.step()
    return {returned}
'''

FACTORS = ["1.0", 'cfg["scale"]', "holder.scale", "deep.inner.inner.inner.inner.value",
           "len(members)", "queue[0]", "scale_three_deep()", "(2.0 if cfg['flag'] else 1.0)",
           "random.uniform(0.9, 1.1)", "float(np.random.uniform(0.9, 1.1))"]
RETURNED = ["loss.detach()", "loss", "(loss.detach(), out.detach())", "{'loss': loss.detach()}"]


# ---- a random program --------------------------------------------------------------
class Plan:
    """What a seed chooses: the model, loss, optimiser, the step's source, the calls."""

    def __init__(self, seed):
        r = random.Random(seed)
        self.seed = seed
        self.kind = r.choice(["mlp", "mlp", "cnn", "embed"])
        self.activation = r.choice(["ReLU", "Tanh", "GELU", "Sigmoid", "SiLU", "LeakyReLU"])
        self.norm = r.choice([None, None, "LayerNorm", "BatchNorm"])
        self.dropout = r.choice([None, None, None, 0.0, 0.0, 0.3])
        self.pool = r.choice(["MaxPool2d", "AvgPool2d", None])
        self.loss = r.choice(["CrossEntropyLoss", "MSELoss", "L1Loss", "HuberLoss",
                              "SmoothL1Loss", "BCEWithLogitsLoss", "NLLLoss"])
        self.reduction = r.choice(["mean", "mean", "sum"])
        self.optimizer = r.choice(["SGD"] * 12 + ["Adam", "AdamW", "RMSprop", "Adagrad"])
        self.options = self._options(r)
        self.factor = r.choice(FACTORS[:-3] * 3 + FACTORS[-3:])
        self.aux = r.random() < 0.3
        self.l2 = r.random() < 0.3
        self.returned = r.choice(RETURNED)
        self.masked = self.kind == "mlp" and r.random() < 0.3
        self.batch = r.choice([2, 3, 4])
        self.calls = [self._change(r) for _ in range(r.randint(3, 7))]

    def _options(self, r):
        lr = r.choice([0.1, 0.01])
        if self.optimizer == "SGD":
            momentum = r.choice([0.0, 0.9])
            return dict(lr=lr, momentum=momentum, weight_decay=r.choice([0.0, 0.01]),
                        nesterov=momentum > 0 and r.random() < 0.5)
        if self.optimizer in ("Adam", "AdamW"):
            return dict(lr=lr, amsgrad=r.random() < 0.3)
        return dict(lr=lr)

    def _change(self, r):
        """What happens before a call: nothing, most often, or one or two changes; seldom,
        a call under no_grad (which raises, and leaves the step eager for good)."""
        if r.random() < 0.02:
            return ["no_grad"]
        if r.random() < 0.5:
            return []
        return r.sample(["lr", "mode", "batch", "mask", "cfg", "flag", "slots", "deep",
                         "members", "queue", "global", "non_contiguous", "alias", "swap"],
                        r.choice([1, 2]))

    def source(self):
        aux_line = "loss = loss + aux.add_(1).sum() * 0.001" if self.aux else ""
        l2_line = ("loss = loss + 0.01 * sum(p.pow(2).sum() for p in model.parameters())"
                   if self.l2 else "")
        return STEP_SOURCE.format(factor=self.factor, aux_line=aux_line, l2_line=l2_line,
                                  returned=self.returned)


# ---- a world: the model, optimiser and Python state a step reads ----------------------
def build_world(plan):
    teachgrad.manual_seed(plan.seed)
    classes = 3
    if plan.kind == "mlp":
        layers = [nn.Linear(4, 5), getattr(nn, plan.activation)()]
        if plan.norm == "LayerNorm":
            layers.append(nn.LayerNorm(5))
        elif plan.norm == "BatchNorm":
            layers.append(nn.BatchNorm1d(5))
        if plan.dropout is not None:
            layers.append(nn.Dropout(plan.dropout))
        layers.append(nn.Linear(5, classes))
    elif plan.kind == "cnn":
        layers = [nn.Conv2d(1, 2, 3, padding=1), getattr(nn, plan.activation)()]
        if plan.pool is not None:
            layers.append(getattr(nn, plan.pool)(2))
        layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(2, classes)]
    else:
        layers = [EmbeddingMean(), nn.Linear(4, classes)]
    if plan.loss == "NLLLoss":
        layers.append(nn.LogSoftmax(dim=1))
    model = nn.Sequential(*layers)
    options = dict(plan.options)
    optimizer = getattr(teachgrad.optim, plan.optimizer)(model.parameters(), **options)
    world = {"model": model, "opt": optimizer,
             "loss_fn": getattr(nn, plan.loss)(reduction=plan.reduction),
             "cfg": {"scale": 1.5, "flag": True}, "holder": Slotted(0.5),
             "deep": _nested(4, 0.25)[0], "members": {1, 2}, "queue": collections.deque([0.75]),
             "SCALE": 2.0, "random": random, "np": np, "teachgrad": teachgrad}
    exec(compile(plan.source(), f"<random program {plan.seed}>", "exec"), world)
    return world


class EmbeddingMean(nn.Module):
    """Embedding bags by hand: the mean of each row's embeddings (an expand in backward)."""

    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(10, 4)

    def forward(self, x):
        return self.embedding(x).mean(1)


CHANGES = {
    "lr": lambda w, s: w["opt"].param_groups[0].__setitem__(
        "lr", w["opt"].param_groups[0]["lr"] * 0.5),
    "mode": lambda w, s: w["model"].train(not w["model"].training),
    "cfg": lambda w, s: w["cfg"].__setitem__("scale", w["cfg"]["scale"] + 0.5),
    "flag": lambda w, s: w["cfg"].__setitem__("flag", not w["cfg"]["flag"]),
    "slots": lambda w, s: setattr(w["holder"], "scale", w["holder"].scale * 2),
    "deep": lambda w, s: setattr(w["deep"].inner.inner.inner.inner, "value",
                                 w["deep"].inner.inner.inner.inner.value + 1),
    "members": lambda w, s: w["members"].add(len(w["members"]) + 1),
    "queue": lambda w, s: w["queue"].appendleft(w["queue"][0] + 1),
    "global": lambda w, s: w.__setitem__("SCALE", w["SCALE"] + 1),
    "swap": lambda w, s: swap_last_layer(w, s),
}


def swap_last_layer(world, seed):
    teachgrad.manual_seed(seed)
    last = world["model"][-1] if not isinstance(world["model"][-1], nn.LogSoftmax) else None
    if isinstance(last, nn.Linear):
        world["model"][-1] = nn.Linear(last.in_features, last.out_features)


def arguments(plan, call, batch, changes, alias_aux):
    """This call's arguments, made afresh (the two worlds each get their own)."""
    r = np.random.RandomState(plan.seed * 100 + call)
    if plan.kind == "mlp":
        data = r.standard_normal((4, batch)).astype(np.float32)
        x = teachgrad.tensor(data).t() if "non_contiguous" in changes else \
            teachgrad.tensor(data.T.copy())
    elif plan.kind == "cnn":
        x = teachgrad.tensor(r.standard_normal((batch, 1, 5, 5)).astype(np.float32))
    else:
        x = teachgrad.tensor(r.randint(0, 10, (batch, 3)))
    if plan.loss in ("CrossEntropyLoss", "NLLLoss"):
        y = teachgrad.tensor(r.randint(0, 3, batch))
    elif plan.loss == "BCEWithLogitsLoss":
        y = teachgrad.tensor(r.uniform(0, 1, (batch, 3)).astype(np.float32))
    else:
        y = teachgrad.tensor(r.standard_normal((batch, 3)).astype(np.float32))
    aux = x if alias_aux and plan.kind != "embed" else teachgrad.ones(3)
    mask = None
    if plan.masked:
        mask = teachgrad.tensor(r.uniform(0, 1, batch) < 0.6)
    return x, y, aux, mask


# ---- running both --------------------------------------------------------------------
def state_bits(world, args):
    """Everything a step may change, as bytes: parameters, .grad, optimiser state,
    buffers, the arguments."""
    out = []
    for name, tensor in list(world["model"].named_parameters()) + \
            list(world["model"].named_buffers()):
        out.append((name, _bits(tensor), _bits(tensor.grad)))
    for group in world["opt"].param_groups:
        for p in group["params"]:
            out.append(sorted((key, _bits(value)) for key, value in
                              world["opt"].state.get(p, {}).items()))
    out.append([_bits(a) for a in args])
    return out


def _bits(value):
    if isinstance(value, teachgrad.Tensor):
        array = value.detach().numpy()
        if array.dtype.kind == "f" and np.isnan(array).any():
            # Which NaN an add keeps (its sign bit) depends on numpy's loop -- in place or
            # not, SIMD or not -- not on the program: any NaN is the same NaN here.
            array = np.where(np.isnan(array), np.nan, array).astype(array.dtype)
        return ("tensor", array.dtype.str, array.shape, array.strides, array.tobytes())
    if isinstance(value, (tuple, list)):
        return [_bits(item) for item in value]
    if isinstance(value, dict):
        return {key: _bits(item) for key, item in value.items()}
    return value


def call_step(world, step, args, no_grad):
    try:
        if no_grad:
            with teachgrad.no_grad():
                return ("value", _bits(step(*args)))
        return ("value", _bits(step(*args)))
    except Exception as error:
        return ("raised", type(error).__name__, str(error).split("\n")[0])


def run_program(seed):
    """Run one random program in both worlds; returns (differences, warnings)."""
    plan = Plan(seed)
    eager, compiled = build_world(plan), build_world(plan)
    compiled_step = teachgrad.compile(compiled["step"])
    random_states = {}
    differences, caught = [], []
    batch, alias = plan.batch, False
    for call, changes in enumerate(plan.calls):
        if "batch" in changes:
            batch = 5 - batch if batch != 5 - batch else batch + 1
        alias = ("alias" in changes) != alias
        results = []
        for world, step in ((eager, eager["step"]), (compiled, compiled_step)):
            for change in changes:
                if change in CHANGES:
                    CHANGES[change](world, seed * 10 + call)
            # the same Python and numpy random numbers in both worlds
            state = random_states.setdefault(call, (random.getstate(), np.random.get_state()))
            random.setstate(state[0])
            np.random.set_state(state[1])
            teachgrad.manual_seed(seed * 100 + call)         # (dropout's masks)
            args = arguments(plan, call, batch, changes, alias)
            with warnings.catch_warnings(record=True) as seen:
                warnings.simplefilter("always")
                result = call_step(world, step, args, "no_grad" in changes)
            if step is compiled_step:
                caught += [str(w.message) for w in seen if "teachgrad.compile" in str(w.message)]
            results.append((result, state_bits(world, args)))
        if results[0] != results[1]:
            differences.append((call, changes, _first_difference(*results)))
            break
    return differences, caught, compiled_step


def _first_difference(eager, compiled):
    (eager_result, eager_state), (compiled_result, compiled_state) = eager, compiled
    if eager_result != compiled_result:
        return f"result: eager {_short(eager_result)} compiled {_short(compiled_result)}"
    for e, c in zip(eager_state, compiled_state):
        if e != c:
            return f"state: eager {_short(e)} compiled {_short(c)}"
    return "state lengths differ"


def _short(value):
    text = repr(value)
    return text if len(text) < 200 else text[:200] + "..."


def _seeds():
    explore = os.environ.get("TEACHGRAD_EXPLORE")
    return range(int(explore)) if explore else SAMPLE


@pytest.mark.parametrize("seed", _seeds())
def test_compiled_step_equals_eager_bit_for_bit(seed):
    differences, caught, _ = run_program(seed)
    assert not differences, (Plan(seed).source(), differences, caught)


def explore(count, start=0):
    """Run ``count`` random programs; print each that differed (silently or not)."""
    differed = silent = fell_back = replayed = 0
    for seed in range(start, start + count):
        differences, caught, step = run_program(seed)
        fell_back += step.fallback_reason is not None
        replayed += step.program is not None and step.fallback_reason is None
        if differences:
            differed += 1
            silent += not caught
            print(f"seed {seed}: {'SILENT ' if not caught else ''}{differences} {caught[:1]}",
                  flush=True)
        if (seed - start + 1) % 100 == 0:
            print(f"... {seed - start + 1} programs, {differed} differed", flush=True)
    print(f"{count} programs: {differed} differed ({silent} silently); "
          f"{replayed} replayed compiled, {fell_back} fell back to eager")
    return differed


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    sys.exit(1 if explore(int(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 0)
             else 0)
