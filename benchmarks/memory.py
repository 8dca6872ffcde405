"""Case 4: memory. After ``loss.backward()`` (no retain_graph) the saved activations must be
gone, with the cycle collector switched off -- so only reference counting frees memory.

Measured with tracemalloc (numpy reports its array buffers to it), for teachgrad only:

* held: traced memory after backward, with the gradients dropped, minus before forward,
  as a share of what the forward pass still held when it ended (its activations and graph);
* growth: traced memory after 25 further training steps versus before them (after a
  warm-up, see ``WARMUP_STEPS``); ``loss`` is still referenced when ``held`` is read, so
  the graph's nodes (not their saved tensors) are part of it, as in PyTorch.

Each reading first runs one full collection in ``DEBUG_SAVEALL`` mode. That empties
Python's free lists (recycled tuples, dicts, floats: they fill up over the first hundreds
of steps and would otherwise look like growth) but frees nothing else: unreachable
cycles are moved to ``gc.garbage``, still allocated, so a leak through reference cycles
still counts -- and their number is reported. It also empties CPython's type attribute
cache (see ``_clear_type_cache``), which holds no memory of teachgrad's.
"""
import gc
import sys
import tracemalloc

import teachgrad

from benchmarks import cnn, mlp, timing

FURTHER_STEPS = 25
# numpy's and CPython's own caches (small-array and shape buffers, free lists) fill up over
# the first few hundred steps, then they stop: not teachgrad's memory. The growth is read
# after this many steps.
WARMUP_STEPS = 200


def _clear_type_cache():
    """Empty CPython's type attribute cache, as CPython's own leak hunter (regrtest -R) does.

    Each of the cache's 4,096 slots keeps a reference to the name last looked up through
    it. numpy sets ``flags.writeable = False`` on every ``sliding_window_view`` (teachgrad's
    convolution windows) by calling ``setflags`` under a freshly made, not interned name,
    so the cache keeps up to one such 57-byte string per slot. On the CNN, counted from
    step 200 and with the free lists emptied, they added +1,301 B by step 225, +6,972 B by
    step 1,000 and +8,568 B by step 3,000 (0 objects in cycles). With the cache emptied
    too, the same readings are +104 B, +360 B and +360 B: flat after step 500.
    """
    clear = getattr(sys, "_clear_internal_caches", None) or sys._clear_type_cache  # 3.13's name
    clear()


def _traced():
    """Traced bytes, after emptying the free lists and the type cache; cyclic garbage is
    kept, not freed."""
    gc.collect()
    _clear_type_cache()
    return tracemalloc.get_traced_memory()[0]


def measure(module, steps=FURTHER_STEPS, warmup=WARMUP_STEPS):
    """(held share, forward bytes, growth share, growth bytes, cyclic garbage objects)
    for ``mlp`` or ``cnn``."""
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    tracemalloc.start()
    try:
        params, x, y = module.make_data()
        model = module.build_model(teachgrad)
        mlp.load_weights(teachgrad, model, params)
        optimizer = teachgrad.optim.SGD(model.parameters(), lr=mlp.LR)
        loss_fn = teachgrad.nn.CrossEntropyLoss()
        x, y = teachgrad.from_numpy(x), teachgrad.from_numpy(y)

        def step():
            optimizer.zero_grad()
            loss_fn(model(x), y).backward()
            optimizer.step()

        for _ in range(3):
            step()                           # one-time allocations happen here
        optimizer.zero_grad()                # no gradients held before the forward pass
        before = _traced()
        loss = loss_fn(model(x), y)
        forward = _traced() - before
        loss.backward()
        optimizer.zero_grad()                # drop the gradients, tensor objects and all
        held = _traced() - before
        del loss

        for _ in range(warmup):
            step()
        start, cycles = _traced(), len(gc.garbage)
        for _ in range(steps):
            step()
        growth = _traced() - start
        return held / forward, forward, growth / start, growth, len(gc.garbage) - cycles
    finally:
        tracemalloc.stop()
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()


def run(repeats=None):
    rows = []
    for name, module, needs in (("MLP", mlp, ("nn.Linear", "nn.ReLU")), ("CNN", cnn, cnn.NEEDS)):
        absent = timing.missing(teachgrad, *needs, "nn.CrossEntropyLoss", "optim.SGD")
        if absent:
            rows.append(timing.skip_row(f"Memory, {name}", "teachgrad lacks " + ", ".join(absent)))
            continue
        held, forward, growth, grown, cyclic = measure(module)
        rows.append(timing.info_row(f"Memory, {name}: held after backward, beyond grads",
                                    f"{held:.1%} of {forward / 1e6:.2f} MB", target="≤ 5%",
                                    met="yes" if held <= 0.05 else "no"))
        rows.append(timing.info_row(f"Memory, {name}: growth over {FURTHER_STEPS} steps",
                                    f"{growth:.2%} ({grown:+,} B; {cyclic} objects in cycles)",
                                    target="< 1%",
                                    met="yes" if growth < 0.01 else "no"))
    return rows
