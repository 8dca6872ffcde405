"""The passes over a traced program, each on its own; the listing; the counts."""
import numpy as np
import pytest

import teachgrad
from benchmarks import cnn, mlp
from teachgrad.compile import counting, exercises, passes
from teachgrad.compile.compiled import PASSES, CompiledFunction
from teachgrad.compile.program import Instruction, Ref

SIZES = (6, 5, 4, 3)


def traced_mlp(passes_to_run=()):
    """A small MLP's step, compiled with only ``passes_to_run``; returns it and the
    eager twin (model, step) from the same weights."""
    params, x, y = mlp.make_data(SIZES, batch=4)
    eager = mlp.framework_step(teachgrad, params, x, y, sizes=SIZES)
    model, step = mlp.framework_step(teachgrad, params, x, y, sizes=SIZES)
    compiled = CompiledFunction(step, passes=passes_to_run)
    compiled(), compiled()
    eager[1](), eager[1]()
    return compiled, model, eager


def replays_like_eager(compiled, model, eager, steps=5):
    eager_model, eager_step = eager
    for _ in range(steps):
        if eager_step().detach().numpy().tobytes() != compiled().numpy().tobytes():
            return False
    return all(p.detach().numpy().tobytes() == q.detach().numpy().tobytes()
               for p, q in zip(eager_model.parameters(), model.parameters()))


def names(program):
    return [i.name for i in program.instructions]


# ---- common subexpressions ----------------------------------------------------------------
def traced(step, steps=2):
    compiled = CompiledFunction(step, passes=())
    for _ in range(steps):
        compiled()
    return compiled.trace.copy()


def test_common_subexpressions_reuse_the_first_result():
    w = teachgrad.ones(3, requires_grad=True)
    x = teachgrad.tensor([1.0, 2.0, 3.0])

    def step():
        w.grad = None
        loss = ((x * 2).exp() * w).sum() + ((x * 2).exp() * w).sum()   # the same twice
        loss.backward()
        return loss
    program = traced(step)
    exps = names(program).count("exp")
    removed = passes.eliminate_common_subexpressions(program)
    assert exps == 2 and names(program).count("exp") == 1
    assert removed >= 4                     # x * 2, exp, (...) * w, sum: each once again
    assert passes.eliminate_common_subexpressions(program) == 0
    first = next(i for i in program.instructions if i.name == "exp").outputs[0]
    assert sum(first in i.uses() for i in program.instructions) > 1    # its readers, and the copy's


def test_common_subexpressions_respect_a_write_in_between():
    w = teachgrad.ones(3, requires_grad=True)
    x = teachgrad.tensor([1.0, 2.0, 3.0])

    def step():
        w.grad = None
        before = (x.exp() * w).sum()
        with teachgrad.no_grad():
            x.add_(1)                       # x changes between the two exps
        loss = before + (x.exp() * w).sum()
        loss.backward()
        with teachgrad.no_grad():
            x.sub_(1)
        return loss
    program = traced(step)
    assert names(program).count("exp") == 2
    passes.eliminate_common_subexpressions(program)
    assert names(program).count("exp") == 2


def test_common_subexpressions_leave_a_result_written_into_later():
    program = traced(step_with_dead_code())
    program.instructions = program.instructions * 2          # every call made twice
    written = program.instructions[0].outputs[0]             # ... and the first result
    program.instructions.append(Instruction(np.add, (Ref(written), 1.0), {"out": (Ref(written),)},
                                            mutates=(written,)))
    passes.eliminate_common_subexpressions(program)
    assert sum(written in i.outputs for i in program.instructions) == 2


def test_common_subexpressions_share_equal_views_of_memory_written_into():
    x = teachgrad.tensor([1.0, 2.0, 3.0, 4.0])

    def step():
        running = x * 2
        running.add_(1)                     # written into: the fresh result is kept apart...
        return (running[1:3] * running[1:3]).sum()     # ... but two equal views of it are not
    program = traced(step)
    slices = names(program).count("__getitem__")
    passes.eliminate_common_subexpressions(program)
    assert slices == 2 and names(program).count("__getitem__") == 1
    assert names(program).count("add") == 1             # (the write itself stays)
    replayed = CompiledFunction(step, passes=(passes.eliminate_common_subexpressions,))
    assert [replayed().item() for _ in range(3)] == [step().item()] * 3 == [74.0] * 3


def test_cnn_backward_reuses_the_forward_unfold():
    params, x, y = cnn.make_data(batch=2, size=10)
    model, step = cnn.framework_step(teachgrad, params, x, y, size=10)
    program = traced(step, steps=3)
    unfolds = names(program).count("stack")       # im2col: one per convolution and pass
    passes.eliminate_common_subexpressions(program)
    assert unfolds == 4 and names(program).count("stack") == 2


def test_common_subexpressions_keep_results_bit_for_bit():
    compiled, model, eager = traced_mlp((passes.eliminate_common_subexpressions,))
    assert replays_like_eager(compiled, model, eager)


# ---- dead-code elimination ---------------------------------------------------------------
def step_with_dead_code():
    w = teachgrad.ones(3, requires_grad=True)
    x = teachgrad.tensor([1.0, 2.0, 3.0])

    def step():
        w.grad = None
        unused = (x * 2).exp()                # computed, never read
        loss = (x * w).sum()
        loss.backward()
        return loss
    return step


def test_dead_code_elimination_drops_what_nobody_reads():
    compiled = CompiledFunction(step_with_dead_code(), passes=())
    compiled(), compiled()
    program = compiled.trace.copy()
    assert "exp" in names(program)
    removed = passes.eliminate_dead_code(program)
    assert removed == 3 and "exp" not in names(program)    # the constant 2, x * 2, exp
    assert names(program).count("multiply") == names(compiled.trace).count("multiply") - 1
    assert passes.eliminate_dead_code(program) == 0                # nothing left to drop


def test_dead_code_elimination_keeps_updates_and_checks():
    compiled, model, eager = traced_mlp()
    program = compiled.trace.copy()
    updates = [i for i in program.instructions if i.mutates]
    checks = [i for i in program.instructions if i.expect is not None]
    passes.eliminate_dead_code(program)
    assert all(i in program.instructions for i in updates + checks)
    assert updates and checks


def test_dead_code_elimination_keeps_results_bit_for_bit():
    compiled, model, eager = traced_mlp((passes.eliminate_dead_code,))
    assert replays_like_eager(compiled, model, eager)


# ---- forwarding identities ---------------------------------------------------------------
def transposes_of_transposes(program):
    made_by = {i.outputs[0]: i for i in program.instructions if len(i.outputs) == 1}
    return [i for i in program.instructions if i.name == "transpose"
            and getattr(made_by.get(i.args[0].id), "name", None) == "transpose"]


def test_forward_identities_drops_transposes_of_transposes_and_the_seed_times_one():
    compiled, model, eager = traced_mlp()
    program = compiled.trace.copy()
    twice, ones = len(transposes_of_transposes(program)), names(program).count("ones")
    removed = passes.forward_identities(program)
    assert twice == 5 and transposes_of_transposes(program) == []   # W.t().t(), grad.t().t()
    assert removed == twice + 2                                       # and the seed's 1 * grad,
    assert "reshape" not in names(program)                            # a reshape to its shape
    passes.eliminate_dead_code(program)
    assert names(program).count("ones") == ones - 1
    assert passes.forward_identities(program) == 0


def test_forward_identities_keeps_results_bit_for_bit():
    compiled, model, eager = traced_mlp((passes.forward_identities, passes.eliminate_dead_code))
    assert len(compiled.program.instructions) < len(compiled.trace.instructions)
    assert replays_like_eager(compiled, model, eager)


def test_forward_identities_keeps_a_product_with_one_whose_memory_is_written_later():
    x = teachgrad.tensor([1.0, 2.0, 3.0])

    def step():
        one = teachgrad.ones(())
        product = one * x                   # x * 1, fresh memory...
        product.add_(1)                     # ... written into: x must not change
        return product.sum()
    program = traced(step)
    assert passes.forward_identities(program) == 0
    replayed = CompiledFunction(step, passes=(passes.forward_identities,))
    assert [replayed().item() for _ in range(3)] == [9.0] * 3 and x.tolist() == [1, 2, 3]


def test_forward_identities_keeps_a_returned_product_with_one():
    x = teachgrad.tensor([1.0, 2.0, 3.0])

    def step():
        return teachgrad.ones(()) * x       # returned: a tensor of its own memory, as eager
    replayed = CompiledFunction(step, passes=(passes.forward_identities,))
    results = [replayed() for _ in range(3)]
    with teachgrad.no_grad():
        results[-1].add_(1)
    assert x.tolist() == [1, 2, 3] and results[-1].tolist() == [2, 3, 4]


# ---- fusing a matmul with its bias add ---------------------------------------------------
def test_fuse_mm_bias_fuses_each_linear_layer():
    compiled, model, eager = traced_mlp()
    program = compiled.trace.copy()
    assert names(program).count("matmul_add") == 0
    matmuls = names(program).count("matmul")
    assert passes.fuse_mm_bias(program) == 3                       # three Linear layers
    assert names(program).count("matmul_add") == 3
    assert names(program).count("matmul") == matmuls - 3          # the backward's stay


def test_fuse_mm_bias_leaves_a_product_read_elsewhere():
    w, b = teachgrad.ones(3, 2, requires_grad=True), teachgrad.ones(2, requires_grad=True)
    x = teachgrad.ones(4, 3)

    def step():
        w.grad = b.grad = None
        product = x @ w
        loss = ((product + b) * product).sum()     # the product is read twice
        loss.backward()
        return loss
    compiled = CompiledFunction(step, passes=())
    compiled(), compiled()
    program = compiled.trace.copy()
    assert passes.fuse_mm_bias(program) == 0


def test_fused_step_is_bit_for_bit():
    compiled, model, eager = traced_mlp((passes.fuse_mm_bias,))
    assert "matmul_add" in names(compiled.program)
    assert replays_like_eager(compiled, model, eager)


def test_matmul_add_equals_numpy():
    rng = np.random.default_rng(0)
    x, w, b = (rng.standard_normal(s).astype(np.float32) for s in ((4, 3), (3, 5), (5,)))
    assert passes.matmul_add(x, w, b).tobytes() == (x @ w + b).tobytes()
    out = np.empty((4, 5), np.float32)
    assert passes.matmul_add(x, w, b, out=out) is out


# ---- memory planning ---------------------------------------------------------------------
def placed_values(program):
    """[(first byte, end byte, first instruction, last instruction)] of each planned value."""
    last = {}
    for n, instruction in enumerate(program.instructions):
        for value_id in instruction.uses() + instruction.outputs:
            last[program.values[value_id].root] = n
    placed = []
    for n, instruction in enumerate(program.instructions):
        if instruction.buffer is not None:
            offset, shape, dtype = program.buffers[instruction.buffer]
            size = int(np.prod(shape)) * np.dtype(dtype).itemsize
            placed.append((offset, offset + size, n, last[instruction.outputs[0]]))
    return placed


def overlapping(a, b):
    return a[0] < b[1] and b[0] < a[1]


def test_plan_memory_shares_bytes_only_between_values_alive_at_different_times():
    compiled, model, eager = traced_mlp()
    program = compiled.trace.copy()
    one_each = passes.plan_memory(program, reuse=False)
    placed = placed_values(program)
    assert one_each >= sum(end - start for start, end, _, _ in placed)
    assert not any(overlapping(a, b) for a in placed for b in placed if a is not b)
    shared = passes.plan_memory(program)
    assert 0 < shared < one_each / 2 and shared == program.arena_size
    placed = placed_values(program)
    shapes = {program.values[i.outputs[0]].shape for i in program.instructions
              if i.buffer is not None}
    assert len(shapes) > 1
    reused = 0
    for a in placed:
        for b in placed:
            if a is not b and overlapping(a, b) and a[2] < b[2]:
                reused += 1
                assert a[3] < b[2]          # the last reader came before the next writer
    assert reused > 0
    assert all(start % passes.ALIGNMENT == 0 for start, _, _, _ in placed)


def test_buffers_are_views_of_one_arena():
    compiled, model, eager = traced_mlp(PASSES)
    program = compiled.program
    buffers = program.allocate()
    assert len(buffers) == len(program.buffers)
    base = buffers[0].base
    while base.base is not None:
        base = base.base
    assert base.nbytes == program.arena_size
    for array, (offset, shape, dtype) in zip(buffers, program.buffers):
        assert array.shape == tuple(shape) and array.dtype == dtype and array.flags.c_contiguous
        assert array.__array_interface__["data"][0] - base.__array_interface__["data"][0] == offset


def test_plan_memory_never_plans_what_escapes():
    compiled, model, eager = traced_mlp(PASSES)
    program = compiled.program
    planned = {program.values[i.outputs[0]].root for i in program.instructions
               if i.buffer is not None}
    assert not planned & {program.values[o].root for o in program.outputs}


def test_planned_step_is_bit_for_bit():
    compiled, model, eager = traced_mlp((passes.plan_memory,))
    assert compiled.program.buffers
    assert replays_like_eager(compiled, model, eager)


# ---- the listing and the counts ----------------------------------------------------------
def test_program_prints_one_instruction_a_line_with_shapes():
    compiled, model, eager = traced_mlp(PASSES)
    lines = str(compiled.program).splitlines()
    assert lines[0] == "v0: f32[4, 6] = input x"
    assert lines[1] == "v1: f32[5, 6] = input model.0.weight"
    assert "v4: f32[4, 5] = matmul_add(v0, v2, v3)" in lines
    assert lines[-1].startswith("return v")
    body = [line for line in lines if "= input" not in line and "= constant" not in line]
    assert len(body) == len(compiled.program.instructions) + 1
    assert any(line.endswith("# in place") and line.startswith("subtract(v1,") for line in lines)


def test_counts_are_deterministic_and_compiled_does_less():
    compiled, model, eager = traced_mlp(PASSES)
    calls = [counting.python_calls(eager[1]) for _ in range(2)]
    compiled_calls = [counting.python_calls(compiled) for _ in range(2)]
    assert calls[0] == calls[1] and compiled_calls[0] == compiled_calls[1]
    assert compiled_calls[0] * 4 < calls[0]
    numpy_calls, allocations = counting.numpy_work(compiled.trace)
    compiled_numpy_calls, compiled_allocations = counting.numpy_work(compiled.program)
    assert compiled_numpy_calls <= numpy_calls
    assert compiled_allocations * 2 < allocations
    outputs = len(compiled.program.outputs)                  # 6 grads and the loss
    assert compiled_allocations >= outputs == 7


def test_python_calls_counts_calls():
    def three():
        for _ in range(3):
            abs_value(-1)

    def abs_value(x):
        return -x if x < 0 else x
    assert counting.python_calls(three) == 3


# ---- chapter 10's exercise: the check of a constant-folding pass, fed wrong answers ------
def make_fold(is_foldable, count_offset=0):
    def fold_constants(program):
        kept, folded = [], 0
        for instruction in program.instructions:
            if is_foldable(program, instruction):
                value = program.values[instruction.outputs[0]]
                arrays = {i: program.values[i].constant for i in instruction.uses()}
                value.constant = instruction.run(arrays)
                value.origin, value.root = "constant", value.id
                folded += 1
            else:
                kept.append(instruction)
        program.instructions = kept
        return folded + count_offset
    return fold_constants


def constants_only(program, instruction):          # forgets that zeros(...) is written later
    return (len(instruction.outputs) == 1 and not instruction.mutates
            and instruction.expect is None and instruction.reshapes is None
            and all(program.values[i].origin == "constant" for i in instruction.uses()))


def no_arguments(program, instruction):            # folds only what reads nothing at all
    return exercises.foldable(program, instruction) and instruction.name != "arange"


def test_fold_check_accepts_a_right_pass(capsys):
    assert exercises.check_fold_constants(make_fold(exercises.foldable))
    assert "✘" not in capsys.readouterr().out


def test_fold_check_says_not_attempted_for_the_stub(capsys):
    def fold_constants(program):
        raise NotImplementedError()
    assert not exercises.check_fold_constants(fold_constants)
    assert capsys.readouterr().out.startswith("… not attempted yet")


@pytest.mark.parametrize("wrong, message", [
    (lambda program: 0, "nothing was folded"),
    (make_fold(exercises.foldable, count_offset=1), "but 3 instructions went"),
    (make_fold(constants_only), "computes something else"),
    (make_fold(no_arguments), "still foldable"),
    (make_fold(lambda program, instruction: len(instruction.outputs) == 1 and
               not instruction.mutates and instruction.expect is None), "raised TypeError"),
])
def test_fold_check_refuses_wrong_passes(wrong, message, capsys):
    assert not exercises.check_fold_constants(wrong)
    assert message in capsys.readouterr().out


def test_plan_memory_gives_an_empty_like_its_buffer_and_no_call():
    """relu's gradient writes into ``np.empty_like(grad)``: planned, that memory is a buffer
    of the arena, the replay calls nothing for it, and the counts see no call."""
    compiled, model, eager = traced_mlp(PASSES)
    empties = [i for i in compiled.program.instructions if i.func is np.empty_like]
    assert len(empties) == 2 and all(i.buffer is not None for i in empties)
    source = compiled.program.source
    assert all(f"v{i.outputs[0]} = buffers[{i.buffer}]" in source for i in empties)
    assert "empty_like" in str(compiled.program)          # (the listing still shows it)
    calls, _ = counting.numpy_work(compiled.program)
    assert calls == sum(getattr(i.func, "numpy_calls", 1)
                        for i in compiled.program.instructions) - len(empties)
    assert replays_like_eager(compiled, model, eager)
