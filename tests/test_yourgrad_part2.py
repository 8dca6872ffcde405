"""Part 2 of the build checks (chapters 06-10) against broken copies of the reference yourgrad:
each is caught by the check that should catch it (test_yourgrad.py runs every stage's checks
on the reference and on the stubs)."""
import pytest

from test_yourgrad import block, broken_copy, line_of, run_quietly, shallow_chain  # noqa: F401

RERUN_INSTEAD_OF_REPLAY = '''\
        inputs = [type(x)(x.array, requires_grad=True) for x in inputs]
        output = self.function(*inputs)
        output.backward()
        return output.detach(), [x.grad for x in inputs]
'''

BROKEN = {
    "saved tensors never freed": (
        "engine.py", [("            saved.release()\n", "            pass\n")],
        "06", "06 backward frees the saved tensors", "second loss.backward(): missing error"),
    "a no_grad that still records": (
        "grad_mode.py", [("        set_enabled(self.mode)\n", "        set_enabled(True)\n")],
        "07", "07 nothing is recorded inside no_grad()", "inside: yours is True"),
    "a Function node not named after its class": (
        "function.py", [('type(f"{cls.__name__}Backward"', 'type("BackwardFunction"')],
        "08", "08 Function.apply records one node named after the class",
        "node: yours is 'BackwardFunction'"),
    "an SGD without momentum buffer": (
        "optim.py", [("                if self.momentum:\n", "                if False:\n")],
        "09", "09 SGD with momentum", "value differs"),
    "a tracer that runs the function again": (
        "tracer.py", [(block("tracer.py", "run forward instruction by instruction"),
                       RERUN_INSTEAD_OF_REPLAY),
                      ("    program.output = program.number[id(output)]\n",
                       "    program.output, program.function = program.number[id(output)], "
                       "function\n")],
        "10", "10 the branch is frozen", "replayed output: value differs"),
}


@pytest.mark.parametrize("what", BROKEN)
def test_a_broken_copy_is_caught_by_the_right_check(tmp_path, capsys, what):
    file, patches, stage, title, words = BROKEN[what]
    package = broken_copy(tmp_path, file, *patches)
    result, lines = run_quietly(capsys, stage, package)
    assert not result
    line = line_of(lines, title)
    assert line.startswith("✘ ") and words in line and " — hint: " in line, line
    assert all(line.startswith("✔ ") for line in lines if line.split()[1] < stage), \
        "a broken later chapter must not fail an earlier chapter's checks"


def test_the_training_check_catches_plain_sgd(tmp_path, capsys):
    package = broken_copy(tmp_path, "optim.py",
                          ("                if self.momentum:\n", "                if False:\n"))
    result, lines = run_quietly(capsys, "09", package)
    line = line_of(lines, "09 the chapter's two-moons training run")
    assert line.startswith("✘ ") and "first 20 losses: value differs" in line, line
