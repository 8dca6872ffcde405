"""Each check helper, fed a wrong answer of each kind it is meant to catch, prints a ✘ line.

Issue 18 found four ways the checks could praise or mislead: a custom backward that ignores
the gradient from above passed ``check.gradients``; a dict answer named only its first wrong
key; the author's hint gave way to PyTorch advice for any crash; and some lines read badly
("the values of m has wrong values"). Each is pinned down here, beside one wrong answer of
every kind for every helper.
"""
import pytest

import teachgrad as torch
from teachgrad.course import check

try:
    from .test_course_tooling import Cube
except ImportError:
    from test_course_tooling import Cube


def line_of(capsys, call):
    """Run a check; return (result, the one line it printed)."""
    result = call()
    lines = capsys.readouterr().out.splitlines()
    assert lines == [result.message]
    return result, lines[0]


class CubeIgnoringGradOutput(Cube):
    @staticmethod
    def backward(ctx, grad_output):
        x, = ctx.saved_tensors
        return 3 * x ** 2


class CubeWithWrongFactor(Cube):
    @staticmethod
    def backward(ctx, grad_output):
        x, = ctx.saved_tensors
        return grad_output * 2 * x ** 2


# ---------------------------------------------------------------- the four flaws

def test_a_backward_that_ignores_grad_output_is_caught(capsys):
    x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    assert line_of(capsys, lambda: check.gradients(Cube.apply, x))[0]
    result, line = line_of(capsys, lambda: check.gradients(CubeIgnoringGradOutput.apply, x))
    assert not result
    assert line.startswith("✘ backward's gradient of input 0: wrong values at 3 of 3 entries "
                           "(compared with finite differences)")
    assert "backward must multiply by the gradient it receives from above" in line


def test_gradcheck_agrees_with_the_check_on_that_backward():
    x = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64, requires_grad=True)
    assert not torch.autograd.gradcheck(CubeIgnoringGradOutput.apply, (x,), raise_exception=False)


def test_a_dict_answer_reports_every_wrong_key(capsys):
    expected = {k: i for i, k in enumerate("abcdefghi")}
    answer = dict(expected, a=10, c=10, e=10, h=10)
    result, line = line_of(capsys, lambda: check.value(answer, expected, name="your predictions"))
    assert line == "✘ 4 of 9 entries of your predictions are off: a, c, e, h"
    one_wrong = dict(expected, d=10)
    assert line_of(capsys, lambda: check.value(one_wrong, expected))[1] == \
        "✘ your answer['d']: wrong value"


def recurse(depth):
    return recurse(depth + 1)


def test_the_authors_hint_stays_when_the_students_code_crashes(capsys):
    hint = "walk the graph with a loop and a stack"
    result, line = line_of(capsys, lambda: check.value(lambda: recurse(0), 1, hint=hint))
    assert line == f"✘ your answer went too deep (RecursionError) — hint: {hint}"
    assert "PyTorch" not in line
    result, line = line_of(capsys, lambda: check.value(lambda: [][1], 1, hint=hint))
    assert line == f"✘ your answer raised IndexError: list index out of range — hint: {hint}"


def test_pytorchs_words_are_mentioned_only_for_teachgrads_own_errors(capsys):
    mismatched = lambda: torch.ones(2) @ torch.ones(3)          # noqa: E731
    result, line = line_of(capsys, lambda: check.value(mismatched, 1))
    assert line.startswith("✘ your answer raised RuntimeError: inconsistent tensor size")
    assert line.endswith("hint: read the error's first words: they are the same as PyTorch's")
    result, line = line_of(capsys, lambda: check.value(lambda: {}["x"], 1))
    assert line == "✘ your answer raised KeyError: 'x'"
    result, line = line_of(capsys, lambda: check.value(lambda: recurse(0), 1))
    assert "PyTorch" not in line and "a loop" in line


@pytest.mark.parametrize("name", ["the values of m", "Softplus's values"])
def test_lines_read_well_whatever_the_name(capsys, name):
    line = line_of(capsys, lambda: check.value(torch.ones(3), torch.zeros(3), name=name))[1]
    assert line.startswith(f"✘ {name}: wrong values at 3 of 3 entries")
    assert " has " not in line


# ---------------------------------------------------------------- every helper, every kind

def test_value_catches_each_kind_of_wrong_answer(capsys):
    cases = [
        (torch.ones(2, 3), torch.ones(3), "✘ your answer: shape (2, 3), expected (3,)"),
        (-torch.ones(3), torch.ones(3), "✘ your answer: wrong values at 3 of 3 entries — hint: "
                                        "the sign is flipped"),
        (None, torch.ones(3), "✘ your answer: None, not a tensor of numbers"),
        ([1, 2], {"a": 1}, "✘ your answer: a list, expected a dict"),
        (["a"], ["a", "b"], "✘ your answer: 1 items, expected 2"),
        ("yes", True, "✘ your answer: 'yes', expected True or False"),
        (False, True, "✘ your answer: not right"),
        (3, "MulBackward0", "✘ your answer: an int, expected a str"),
        ("AddBackward0", "MulBackward0", "✘ your answer: not right"),
    ]
    for answer, expected, start in cases:
        result, line = line_of(capsys, lambda: check.value(answer, expected))
        assert not result and line.startswith(start), (line, start)


def test_leaf_flags_catches_a_wrong_prediction(capsys):
    x = torch.ones(2, requires_grad=True)
    y = x * 2
    wrong = {"x": {"is_leaf": True, "requires_grad": True},
             "y": {"is_leaf": True, "requires_grad": True}}
    result, line = line_of(capsys, lambda: check.leaf_flags(wrong, {"x": x, "y": y}))
    assert line.startswith("✘ 1 of 4 predictions is off (look again at y)")


def test_gradients_catches_a_wrong_factor_a_wrong_shape_and_a_wrong_count(capsys):
    x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    result, line = line_of(capsys, lambda: check.gradients(CubeWithWrongFactor.apply, x))
    assert line.startswith("✘ backward's gradient of input 0: wrong values at 3 of 3 entries")
    f = lambda x: (x ** 3).sum()                                  # noqa: E731
    result, line = line_of(capsys, lambda: check.gradients(f, x, answer=lambda x: 2 * x ** 2))
    assert line.startswith("✘ the gradient of x: wrong values at 3 of 3 entries")
    result, line = line_of(capsys, lambda: check.gradients(f, x, answer=lambda x: x.sum()))
    assert line.startswith("✘ the gradient of x: shape (), expected (3,)")
    result, line = line_of(capsys, lambda: check.gradients(
        lambda a, b: (a * b).sum(), x, x.detach().clone().requires_grad_(),
        answer=lambda a, b: (b,)))
    assert line.startswith("✘ 1 gradients given, expected one per input that requires grad")


def test_node_names_catches_a_missing_a_repeated_and_a_misordered_node(capsys):
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    y = (a * 2).sum()
    result, line = line_of(capsys, lambda: check.node_names(["SumBackward0", "MulBackward0"], y))
    assert line.startswith("✘ your 2 nodes are not the graph's: 1 missing")
    nodes = [y.grad_fn, y.grad_fn.next_functions[0][0]]
    accumulate = nodes[1].next_functions[0][0]
    result, line = line_of(capsys, lambda: check.node_names(
        [accumulate, nodes[1], nodes[0]], y, order="topological"))
    assert line.startswith("✘ AccumulateGrad (item 0) comes before MulBackward0 (item 1)")
    result, line = line_of(capsys, lambda: check.node_names(
        [nodes[0], nodes[0], nodes[1], accumulate], y, order="topological"))
    assert line.startswith("✘ SumBackward0 appears twice")


def test_raises_catches_no_error_another_error_and_other_words(capsys):
    result, line = line_of(capsys, lambda: check.raises(lambda: None, RuntimeError))
    assert line.startswith("✘ no error was raised")
    result, line = line_of(capsys, lambda: check.raises(lambda: [][1], RuntimeError))
    assert line.startswith("✘ it raised IndexError, not RuntimeError")
    result, line = line_of(capsys, lambda: check.raises(
        lambda: torch.ones(2) @ torch.ones(3), RuntimeError, "modified by an inplace operation"))
    assert line.startswith("✘ it raised RuntimeError, but not the expected one")


def test_behaves_like_catches_a_wrong_result_and_a_missing_error(capsys):
    def reference(x):
        if x < 0:
            raise ValueError("negative")
        return x * 2

    result, line = line_of(capsys, lambda: check.behaves_like(lambda x: x * 3, reference, [1]))
    assert line.startswith("✘ for case 1 of 1 (1): the result: wrong value")
    result, line = line_of(capsys, lambda: check.behaves_like(lambda x: x * 2, reference, [-1]))
    assert line.startswith("✘ for case 1 of 1 (-1): your function returned, but teachgrad raises "
                           "ValueError")
