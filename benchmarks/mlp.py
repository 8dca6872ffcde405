"""Case 1: one training step of a 784-256-128-10 ReLU MLP (batch 64, cross-entropy, SGD).

Three contenders run the same network from the same float32 weights:

* teachgrad and torch run the same program (``lib`` is either module:
  ``import teachgrad as torch`` works unchanged);
* the numpy floor does the forward, the backward and the update by hand. teachgrad
  computes with numpy, so it cannot beat these calls; the gap is its overhead.
"""
import sys

import numpy as np

import teachgrad

from benchmarks import counts, timing

SIZES = (784, 256, 128, 10)
BATCH = 64
LR = 0.01


def make_data(sizes=SIZES, batch=BATCH, seed=0):
    """Weights in torch's Linear layout (weight: out x in, then bias) and one batch."""
    rng = np.random.default_rng(seed)
    params = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        bound = 1 / np.sqrt(fan_in)
        params.append(rng.uniform(-bound, bound, (fan_out, fan_in)).astype(np.float32))
        params.append(rng.uniform(-bound, bound, fan_out).astype(np.float32))
    x = rng.standard_normal((batch, sizes[0])).astype(np.float32)
    y = rng.integers(0, sizes[-1], batch)
    return params, x, y


# ---- teachgrad and torch: the same code ----------------------------------------------
def build_model(lib, sizes=SIZES):
    layers = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        layers += [lib.nn.Linear(fan_in, fan_out), lib.nn.ReLU()]
    return lib.nn.Sequential(*layers[:-1])      # no ReLU after the last layer


def load_weights(lib, model, arrays):
    with lib.no_grad():
        for param, array in zip(model.parameters(), arrays):
            param.copy_(lib.from_numpy(array.copy()))


def training_step(lib, model, x, y, lr=LR):
    """``step()``: zero_grad, forward, cross-entropy, backward, SGD update; returns the loss."""
    optimizer = lib.optim.SGD(model.parameters(), lr=lr)
    loss_fn = lib.nn.CrossEntropyLoss()
    x, y = lib.from_numpy(x), lib.from_numpy(y)

    def step():
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        return loss
    return step


def framework_step(lib, params, x, y, sizes=SIZES):
    model = build_model(lib, sizes)
    load_weights(lib, model, params)
    return model, training_step(lib, model, x, y)


# ---- the numpy floor -----------------------------------------------------------------
def cross_entropy(logits, y):
    """The mean cross-entropy of ``logits`` (n x classes) and its gradient."""
    shifted = logits - logits.max(1, keepdims=True)
    exp = np.exp(shifted)
    total = exp.sum(1, keepdims=True)
    rows = np.arange(len(y))
    loss = (np.log(total[:, 0]) - shifted[rows, y]).mean()
    grad = exp / total                      # d loss / d logits = (softmax - one_hot) / n
    grad[rows, y] -= 1
    grad /= len(y)
    return loss, grad


def numpy_loss_and_grads(params, x, y):
    """Forward and backward by hand: the loss and one gradient per parameter."""
    weights, biases = params[0::2], params[1::2]
    activations = [x]                       # the input of each Linear layer
    for w, b in zip(weights[:-1], biases[:-1]):
        activations.append(np.maximum(activations[-1] @ w.T + b, 0))
    logits = activations[-1] @ weights[-1].T + biases[-1]
    loss, grad = cross_entropy(logits, y)
    grads = []
    for i in reversed(range(len(weights))):
        grads[:0] = [grad.T @ activations[i], grad.sum(0)]
        if i > 0:                           # no gradient for the input itself
            grad = (grad @ weights[i]) * (activations[i] > 0)
    return loss, grads


def numpy_step(params, x, y, loss_and_grads=numpy_loss_and_grads, lr=LR):
    """``step()``: the floor's training step, updating ``params`` in place."""
    def step():
        loss, grads = loss_and_grads(params, x, y)
        for param, grad in zip(params, grads):
            param -= lr * grad
        return loss
    return step


# ---- the case ------------------------------------------------------------------------
# The eager engine's targets are guard rails a change must not cross; the compiled step
# (teachgrad.compile) carries the speed goal: the numpy floor itself.
EAGER_VS_FLOOR, EAGER_VS_TORCH, COMPILED_VS_FLOOR = 2.0, 1.35, 1.1


def contenders(module=None):
    """Eager, compiled, the numpy floor and torch: the same step of ``module``'s network
    (this one's, or ``cnn``'s) from the same weights."""
    module = module or sys.modules[__name__]
    params, x, y = module.make_data()

    def make_step():
        return module.framework_step(teachgrad, params, x, y)[1]
    eager, compiled = counts.compiled_twin(make_step)
    steps = {"teachgrad": eager, "compiled": compiled,
             "numpy": numpy_step([p.copy() for p in params], x, y, module.numpy_loss_and_grads)}
    if timing.torch is not None:
        steps["torch"] = module.framework_step(timing.torch, params, x, y)[1]
    return steps


def run(repeats):
    absent = timing.missing(teachgrad, "nn.Linear", "nn.ReLU", "nn.Sequential",
                            "nn.CrossEntropyLoss", "optim.SGD")
    if absent:
        return [timing.skip_row("MLP step", "teachgrad lacks " + ", ".join(absent))]
    steps = contenders()
    times = timing.interleaved(steps, repeats, warmup=5, number=5)
    rows = [timing.ratio_row("MLP step vs numpy floor", times["teachgrad"], times["numpy"],
                             EAGER_VS_FLOOR, times.ratio_spread("teachgrad", "numpy")),
            timing.ratio_row("MLP step, compiled, vs numpy floor", times["compiled"],
                             times["numpy"], COMPILED_VS_FLOOR,
                             times.ratio_spread("compiled", "numpy"))]
    if "torch" in times:
        rows.append(timing.ratio_row("MLP step vs torch", times["teachgrad"], times["torch"],
                                     EAGER_VS_TORCH, times.ratio_spread("teachgrad", "torch")))
        rows.append(timing.info_row("MLP step, compiled, vs torch",
                                    timing.fmt_time(times["compiled"]),
                                    timing.fmt_time(times["torch"]),
                                    f"{times['compiled'] / times['torch']:.2f}×"))
        floor, torch = times["numpy"], times["torch"]
        rows.append(timing.info_row("MLP step: numpy floor vs torch", timing.fmt_time(floor),
                                    timing.fmt_time(torch), f"{floor / torch:.2f}×"))
    rows.append(counts.row("MLP step", steps["teachgrad"], steps["compiled"], timing))
    return rows


def profile_target():
    params, x, y = make_data()
    return framework_step(teachgrad, params, x, y)[1]
