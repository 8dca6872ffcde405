"""Passes over a traced program, each a short function that rewrites it in place.

* ``eliminate_common_subexpressions``: a call made again on the same values (the
  backward re-deriving what the forward computed) reuses the first call's result.
* ``forward_identities``: a call whose result is one of its arguments over again (a
  transpose of a transpose, a product with 1) is dropped; what read it reads the argument.
* ``eliminate_dead_code``: drop the calls whose results nobody reads.
* ``fuse_mm_bias``: a ``matmul`` followed by the add of a bias becomes one instruction
  that adds the bias into the product's memory.
* ``plan_memory``: give each fresh result a buffer allocated once, and let results whose
  lifetimes do not overlap share one (memory planning).
"""
import numpy as np

from teachgrad.compile.program import Ref


def eliminate_common_subexpressions(program):
    """An instruction that repeats an earlier one -- the same function on the same values
    and constants -- is dropped, and what read its results reads the earlier ones. Only
    where sharing cannot show: neither result is reshaped in place or returned, neither is
    ever written into unless it is a view (two equal views see the same memory whatever is
    written into it), and nothing wrote into the arguments in between. Returns how many
    went."""
    values = program.values
    written = program.written_roots()
    kept_apart = {i.reshapes for i in program.instructions} | set(program.outputs)
    seen, renamed, kept, last_written = {}, {}, [], {}
    for instruction in program.instructions:
        instruction.args = _renamed(instruction.args, renamed)
        instruction.kwargs = _renamed(instruction.kwargs, renamed)
        key = _call_key(instruction, values, kept_apart, written)
        earlier, position = seen.get(key, (None, None))
        if earlier is not None and not any(last_written.get(values[r].root, -1) > position
                                           for r in instruction.uses()):
            for later_id, first_id in zip(instruction.outputs, earlier.outputs):
                renamed[later_id] = first_id
                for value in values:
                    if value.root == later_id:
                        value.root = values[first_id].root
            continue
        for m in instruction.mutates:
            last_written[values[m].root] = len(kept)
        if key is not None:
            seen[key] = (instruction, len(kept))
        kept.append(instruction)
    removed = len(program.instructions) - len(kept)
    program.instructions = kept
    return removed


def _call_key(instruction, values, kept_apart, written):
    """What makes two calls the same, or None if the call may not be shared."""
    if (instruction.mutates or instruction.reshapes is not None or instruction.expect is not None
            or not instruction.outputs
            or any(o in kept_apart or values[o].root == o and o in written
                   for o in instruction.outputs)):
        return None
    try:
        return (instruction.func, _key(instruction.args), _key(instruction.kwargs))
    except TypeError:                   # an argument that cannot be compared cheaply
        return None


def _key(obj):
    if isinstance(obj, Ref):
        return ("v", obj.id)
    if isinstance(obj, (tuple, list)):
        return (type(obj), tuple(_key(item) for item in obj))
    if isinstance(obj, dict):
        return (dict, tuple((name, _key(item)) for name, item in obj.items()))
    if isinstance(obj, slice):
        return (slice, _key((obj.start, obj.stop, obj.step)))
    if isinstance(obj, np.ndarray):
        return ("array", id(obj))       # the same constant array, not an equal one
    hash(obj)                           # (TypeError if it cannot be a key)
    return (type(obj), obj)             # 1, 1.0 and True are different arguments


def _renamed(obj, renamed):
    if isinstance(obj, Ref):
        return Ref(renamed[obj.id]) if obj.id in renamed else obj
    if isinstance(obj, (tuple, list)):
        return type(obj)(_renamed(item, renamed) for item in obj)
    if isinstance(obj, dict):
        return {key: _renamed(item, renamed) for key, item in obj.items()}
    if isinstance(obj, slice):
        return slice(*_renamed((obj.start, obj.stop, obj.step), renamed))
    return obj


def forward_identities(program):
    """Drop an instruction whose result is, bit for bit and in layout, one of its arguments
    -- ``transpose(transpose(x))``, ``reshape(x, x.shape)``, ``multiply(ones(()), x)`` (the
    backward's seed 1 times a gradient) -- and let what read its result read that argument.
    Not where the two could be told apart: a value reshaped in place, a product that is
    returned or whose memory or whose argument's memory is written into later, a view
    returned in place of a value returned too. Returns how many went."""
    values = program.values
    last_write = {values[m].root: n for n, i in enumerate(program.instructions)
                  for m in i.mutates}
    reshaped = {i.reshapes for i in program.instructions}
    made_by, renamed, kept = {}, {}, []
    for n, instruction in enumerate(program.instructions):
        instruction.args = _renamed(instruction.args, renamed)
        instruction.kwargs = _renamed(instruction.kwargs, renamed)
        instruction.mutates = tuple(renamed.get(m, m) for m in instruction.mutates)
        same = _identity_of(instruction, made_by, values,
                            lambda root: last_write.get(root, -1) > n)     # written later?
        result = instruction.outputs[0] if instruction.outputs else None
        if same is not None and not {result, same} & reshaped and (
                result not in program.outputs
                or instruction.name != "multiply" and same not in program.outputs):
            renamed[result] = same
            program.outputs = [same if o == result else o for o in program.outputs]
            for value in values:
                if value.root == result:
                    value.root = values[same].root
            continue
        made_by.update((value_id, instruction) for value_id in instruction.outputs)
        kept.append(instruction)
    removed = len(program.instructions) - len(kept)
    program.instructions = kept
    return removed


def _identity_of(instruction, made_by, values, written_later):
    """The id of the argument ``instruction``'s result repeats, or None."""
    args = instruction.args
    if (instruction.kwargs or instruction.mutates or instruction.expect is not None
            or len(instruction.outputs) != 1 or not args or not isinstance(args[0], Ref)):
        return None
    result, name = values[instruction.outputs[0]], instruction.name
    if name == "transpose" and len(args) == 1:
        inner = made_by.get(args[0].id)
        if inner is not None and inner.name == "transpose" and len(inner.args) == 1 \
                and not inner.kwargs and isinstance(inner.args[0], Ref):
            return inner.args[0].id
    if name == "reshape" and len(args) == 2 and _shape(args[1]) == values[args[0].id].shape:
        return args[0].id
    if name == "multiply" and len(args) == 2 and all(isinstance(a, Ref) for a in args):
        for one, other in (args, args[::-1]):
            kept = values[other.id]
            if (_is_one(made_by.get(one.id), result.dtype)
                    and (kept.shape, kept.dtype) == (result.shape, result.dtype)
                    and not written_later(kept.root) and not written_later(result.id)):
                return other.id
    return None


def _shape(shape):
    return tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)


def _is_one(instruction, dtype):
    """Is it ``ones(())`` of ``dtype``, a 1 that multiplies nothing?"""
    return (instruction is not None and instruction.name == "ones" and instruction.args == ((),)
            and np.dtype(instruction.kwargs.get("dtype", np.float64)) == dtype)


def eliminate_dead_code(program):
    """Keep an instruction only if something after it needs it: a kept instruction or an
    output reads its result (or the view whose shape it sets), it writes into memory read
    later (or into an input), or it is a branch check. Walks backwards, so whole dead
    chains go at once."""
    values = program.values
    used = set(program.outputs)
    read_roots = {values[i].root for i in program.outputs} | {v.id for v in program.inputs()}
    kept = []
    for instruction in reversed(program.instructions):
        if (instruction.expect is not None or instruction.reshapes in used
                or any(o in used for o in instruction.outputs)
                or any(values[m].root in read_roots for m in instruction.mutates)):
            kept.append(instruction)
            for value_id in instruction.uses():
                used.add(value_id)
                read_roots.add(values[value_id].root)
    removed = len(program.instructions) - len(kept)
    program.instructions = kept[::-1]
    return removed


def matmul_add(x, w, bias, out=None):
    """``x @ w + bias`` with the bias added in place into the product: one buffer."""
    out = np.matmul(x, w, out=out)
    return np.add(out, bias, out=out)


matmul_add.numpy_calls = 2


def _use_counts(program):
    counts = dict.fromkeys(range(len(program.values)), 0)
    for instruction in program.instructions:
        for value_id in instruction.uses():
            counts[value_id] += 1
    for value_id in program.outputs:
        counts[value_id] += 1
    return counts


def fuse_mm_bias(program):
    """``p = matmul(x, w)`` followed by the add of a bias into ``p`` (``add(p, b, out=p)``,
    or ``y = add(p, b)`` where nothing else reads ``p``) -> one ``matmul_add(x, w, b)``."""
    values, counts = program.values, _use_counts(program)
    producer = {i.outputs[0]: n for n, i in enumerate(program.instructions)
                if i.name == "matmul" and len(i.outputs) == 1 and not i.kwargs and i.fresh_out}
    fused = 0
    for n, add in enumerate(program.instructions):
        product = _bias_add_of(add, producer, values, counts)
        if product is None:
            continue
        first = producer.pop(product)
        matmul = program.instructions[first]
        if _touched_between(program, first, n, matmul.uses(), product):
            continue
        bias = add.args[1] if add.args[0].id == product else add.args[0]
        matmul.func, matmul.args = matmul_add, (*matmul.args, bias)
        if not add.mutates:                 # y = add(p, b): y is the result
            matmul.outputs = add.outputs
        program.instructions[n], program.instructions[first] = matmul, None
        fused += 1
    program.instructions = [i for i in program.instructions if i is not None]
    return fused


def _bias_add_of(add, producer, values, counts):
    """The product ``add`` adds a bias to, if it is a fusable bias add; else None."""
    if add.name != "add" or len(add.args) != 2:
        return None
    refs = [getattr(a, "id", None) for a in add.args]
    product = next((r for r in refs if r in producer), None)
    if product is None or not values[product].fresh:
        return None
    if add.mutates:                         # add(p, b, out=(p,)): in place into the product
        return product if add.mutates == (product,) and list(add.kwargs) == ["out"] else None
    result = values[add.outputs[0]]
    if add.kwargs or counts[product] != 1 or (result.shape, result.dtype) != (
            values[product].shape, values[product].dtype):
        return None
    return product


def _touched_between(program, start, end, operands, product):
    """Between the matmul and its bias add, is an operand written or the product read?"""
    roots = {program.values[v].root for v in operands}
    for instruction in program.instructions[start + 1:end]:
        if instruction is None:
            continue
        if product in instruction.uses() or any(program.values[m].root in roots
                                                for m in instruction.mutates):
            return True
    return False


def plan_memory(program, reuse=True):
    """Give every instruction with a fresh result that does not escape a place in one arena
    of memory allocated once (its ``out=`` is a view of the arena). With ``reuse``, the
    bytes of a dead value -- read by no later instruction -- serve a later result of any
    shape that fits, so the step touches less memory and more of it stays in the CPU's
    cache (memory planning). Returns the arena's size in bytes."""
    values = program.values
    escaping = {values[i].root for i in program.outputs}
    last_use = {}
    for n, instruction in enumerate(program.instructions):
        for value_id in instruction.uses() + instruction.outputs:
            last_use[values[value_id].root] = n
    program.buffers, free, live, top = [], [], {}, 0
    for n, instruction in enumerate(program.instructions):
        if reuse:
            for buffer, root in list(live.items()):
                if last_use[root] < n:                  # dead: its bytes are free again
                    del live[buffer]
                    _release(free, program.buffers[buffer][0], _span(program.buffers[buffer]))
        instruction.buffer = None
        if not instruction.fresh_out or not instruction.outputs:
            continue
        value = values[instruction.outputs[0]]
        if value.root != value.id or value.id in escaping or value.dtype.hasobject:
            continue                    # (an object array cannot live in the arena's bytes)
        offset, top = _place(free, _span((0, value.shape, value.dtype)), top)
        instruction.buffer = len(program.buffers)
        program.buffers.append((offset, value.shape, value.dtype))
        live[instruction.buffer] = value.id
    program.arena_size = top
    return top


ALIGNMENT = 64          # bytes: each buffer starts on a cache line


def _span(buffer):
    """The bytes a buffer ``(offset, shape, dtype)`` takes, rounded up to whole lines."""
    _, shape, dtype = buffer
    size = int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize
    return max(-(-size // ALIGNMENT), 1) * ALIGNMENT


def _place(free, size, top):
    """Where ``size`` bytes go: the smallest free gap that holds them, else the top of the
    arena (grown from a free gap just below it). Returns (offset, new top)."""
    fitting = [gap for gap in free if gap[1] >= size]
    if fitting:
        gap = min(fitting, key=lambda gap: gap[1])
        offset = gap[0]
        gap[0], gap[1] = gap[0] + size, gap[1] - size
        if gap[1] == 0:
            free.remove(gap)
        return offset, top
    if free and free[-1][0] + free[-1][1] == top:       # the gap at the top grows
        offset = free.pop()[0]
    else:
        offset = top
    return offset, offset + size


def _release(free, offset, size):
    """Give ``size`` bytes at ``offset`` back, merged with the free gaps they touch."""
    free.append([offset, size])
    free.sort()
    merged = [free[0]]
    for gap in free[1:]:
        if merged[-1][0] + merged[-1][1] == gap[0]:
            merged[-1][1] += gap[1]
        else:
            merged.append(gap)
    free[:] = merged
