"""Case 2: per-operation overhead -- a 400-step scalar chain ``acc = (acc * w + x).tanh()``
and its backward. Every tensor holds one number, so the time is all bookkeeping:
creating tensors and nodes, saving inputs, the engine loop. Time per operation =
one forward + backward / (3 operations x 400 steps)."""
import teachgrad

from benchmarks import counts, timing

STEPS = 400
OPS_PER_STEP = 3          # mul, add, tanh


def chain(lib, w, x, steps=STEPS):
    acc = lib.tensor(0.5)
    for _ in range(steps):
        acc = (acc * w + x).tanh()
    return acc


def chain_step(lib, steps=STEPS):
    """``run()``: build the chain forward, backward through it; returns acc."""
    w = lib.tensor(0.9, requires_grad=True)
    x = lib.tensor(0.1, requires_grad=True)

    def run():
        w.grad = x.grad = None
        acc = chain(lib, w, x, steps)
        acc.backward()
        return acc
    return run


EAGER_VS_TORCH, COMPILED_VS_TORCH = 3.5, 1.0      # a guard rail, and the compiled goal


def contenders():
    eager, compiled = counts.compiled_twin(lambda: chain_step(teachgrad))
    runs = {"teachgrad": eager, "compiled": compiled}
    if timing.torch is not None:
        runs["torch"] = chain_step(timing.torch)
    return runs


def run(repeats):
    runs = contenders()
    counted = counts.row("Scalar chain", runs["teachgrad"], runs["compiled"], timing)
    if timing.torch is None:
        return [timing.skip_row("Scalar chain, per op, vs torch", "torch absent"), counted]
    times = timing.interleaved(runs, repeats, warmup=2)
    per_op = {name: t / (STEPS * OPS_PER_STEP) for name, t in times.items()}
    return [timing.ratio_row("Scalar chain, per op (fwd+bwd), vs torch",
                             per_op["teachgrad"], per_op["torch"], EAGER_VS_TORCH,
                             times.ratio_spread("teachgrad", "torch")),
            timing.ratio_row("Scalar chain, compiled, per op, vs torch",
                             per_op["compiled"], per_op["torch"], COMPILED_VS_TORCH,
                             times.ratio_spread("compiled", "torch")),
            counted]


def profile_target():
    return chain_step(teachgrad)
