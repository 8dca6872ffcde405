"""The check of chapter 10's exercise: a constant-folding pass, written by the student.

``fold_constants(program)`` computes, once and now, every instruction whose arguments
are all constants (``asarray(30)``, ``ones(())``, and what is computed from them alone),
and turns its result into a constant of the program; it returns how many it folded.
"""
import numpy as np

import teachgrad
from teachgrad.compile.compiled import CompiledFunction


def exercise_step():
    """A tiny classifier's training step, traced without passes: the program to fold."""
    teachgrad.manual_seed(0)
    model = teachgrad.nn.Linear(4, 3)
    optimizer = teachgrad.optim.SGD(model.parameters(), lr=0.1)
    x, y = teachgrad.randn(5, 4), teachgrad.tensor([0, 2, 1, 1, 0])

    def step():
        optimizer.zero_grad()
        loss = teachgrad.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        return loss
    compiled = CompiledFunction(step, passes=())
    compiled(), compiled()
    return compiled


def foldable(program, instruction):
    """Could ``instruction`` be computed once, now? (Only constants in, one result out,
    nothing written -- and no later instruction writes into its result.)"""
    values = program.values
    return (len(instruction.outputs) == 1 and not instruction.mutates
            and instruction.expect is None and instruction.reshapes is None
            and all(values[i].origin == "constant" for i in instruction.uses())
            and values[instruction.outputs[0]].root not in program.written_roots())


def _replay(program, inputs):
    """Run ``program`` on copies of ``inputs``: (its outputs, the inputs it changed)."""
    arrays = [a.copy() for a in inputs]
    outputs = program.lower()(arrays, program.allocate())
    return [np.asarray(o).tobytes() for o in outputs] + [a.tobytes() for a in arrays]


def check_fold_constants(fold_constants):
    """Print one line per check (✔ or ✘, as teachgrad.course.check does); True if all pass."""
    program = exercise_step().trace
    inputs = [v.snapshot for v in program.inputs()]
    expected = _replay(program, inputs)
    before = len(program.instructions)
    folded_program = program.copy()
    try:
        count = fold_constants(folded_program)
    except NotImplementedError:
        print("… not attempted yet — replace raise NotImplementedError() with your code")
        return False
    except Exception as error:
        print(f"✘ fold_constants raised {type(error).__name__}: {error} (an instruction that "
              "reads an input cannot be computed now: its value comes with each call)")
        return False
    after = len(folded_program.instructions)
    left = [folded_program.describe(i) for i in folded_program.instructions
            if foldable(folded_program, i)]
    checks = [
        (after < before, f"instructions folded: {before} -> {after}",
         "nothing was folded: look for instructions whose arguments are all constants"),
        (count == before - after, f"fold_constants returned {count}, the number folded",
         f"fold_constants returned {count}, but {before - after} instructions went"),
        (not left, "nothing foldable is left",
         f"still foldable: {left[0] if left else ''} (fold in order: a folded result is "
         "a constant for the instructions after it)"),
    ]
    try:
        same = _replay(folded_program, inputs) == expected
        problem = "the folded program computes something else (did you fold an instruction "\
                  "that reads an input, or a constant written into later?)"
    except Exception as error:               # a broken program: say so, in one line
        same, problem = False, f"the folded program fails: {type(error).__name__}: {error}"
    checks.append((same, "the folded program gives the same bits as before", problem))
    for passed, good, bad in checks:
        print(("✔ " + good) if passed else ("✘ " + bad))
    return all(passed for passed, _, _ in checks)
