"""The build checks against deliberately broken copies of the reference yourgrad
(tests/broken_yourgrad/copies.py): each plausible mistake is caught in the stage where the
student writes that code — by the check meant for it, with every earlier stage still ✔ — and
each harmless rewrite passes every check of every stage."""
import pytest

from broken_yourgrad.copies import BROKEN, HARMLESS
from test_yourgrad import block, broken_copy, line_of, run_quietly, shallow_chain  # noqa: F401
import teachgrad
from teachgrad.course import build

LAST = build.STAGES[-1]


def patches(file, changes):
    """The (old, new) pairs of a copy; "BLOCK:<words>" stands for a whole solution block."""
    return [(block(file, old[len("BLOCK:"):]) if old.startswith("BLOCK:") else old, new)
            for old, new in changes]


def test_there_are_at_least_sixty_mistakes_in_every_stage():
    assert len(BROKEN) >= 60
    assert {stage for stage, *_ in BROKEN.values()} == set(build.STAGES)


@pytest.mark.parametrize("what", BROKEN)
def test_a_mistake_is_caught_in_its_own_stage(tmp_path, capsys, what):
    stage, file, changes, title = BROKEN[what]
    package = broken_copy(tmp_path, file, *patches(file, changes))
    result, lines = run_quietly(capsys, stage, package)
    assert not result
    line = line_of(lines, title)
    assert line.startswith(f"✘ {stage} ") and " — hint: " in line, line
    earlier = [line for line in lines if line.split()[1] < stage]
    assert all(line.startswith("✔ ") for line in earlier), \
        "a later chapter's mistake must not fail an earlier chapter's checks:\n" + \
        "\n".join(line for line in earlier if not line.startswith("✔ "))


@pytest.mark.parametrize("what", HARMLESS)
def test_a_harmless_rewrite_passes_every_check(tmp_path, capsys, what):
    file, changes = HARMLESS[what]
    package = broken_copy(tmp_path, file, *patches(file, changes))
    result, lines = run_quietly(capsys, LAST, package)
    assert result, "\n".join(line for line in lines if not line.startswith("✔ "))


def test_a_wrong_line_says_where_not_what(tmp_path, capsys):
    """A formula's wrong line names the case and the entry that differs — never a number of
    the gradient it should have been."""
    stage, file, changes, title = BROKEN["pow's exponent not lowered by one"]
    lines = run_quietly(capsys, stage, broken_copy(tmp_path, file, *changes))[1]
    line = line_of(lines, title)
    assert "case 1, x (3,) ** 2: grad of input 0: value differs at entry (" in line, line
    what_differs = line.split(" — hint: ")[0]
    scenario = next(c.scenario for c in build.checks_of(stage) if title in c.name)
    for value in scenario(teachgrad).values():
        if hasattr(value, "shape"):
            for number in value.detach().numpy().ravel().tolist():
                assert f"{number:.3g}" not in what_differs, line

