"""Predict, then run: every answer is folded in the stored lectures, and check.predict never
reveals the answer before the student has written a guess."""
from pathlib import Path

import nbformat
import pytest

import teachgrad as torch
from teachgrad.course import check, predict_cells

ROOT = Path(__file__).resolve().parents[1]
LECTURES = sorted((ROOT / "notebooks").rglob("*.ipynb"))


def notebook(*cells):
    """A notebook from ("md", text) / ("code", text) pairs."""
    make = {"md": nbformat.v4.new_markdown_cell, "code": nbformat.v4.new_code_cell}
    return nbformat.v4.new_notebook(cells=[make[kind](text) for kind, text in cells])


@pytest.mark.parametrize("path", LECTURES, ids=lambda p: p.name)
def test_every_prompt_in_the_stored_lectures_has_a_folded_answer(path):
    nb = nbformat.read(path, as_version=4)
    assert predict_cells.problems(nb) == []


def test_the_prompts_are_found_in_their_spellings():
    for prompt in ("**Predict, then run.** How many?", "**Predict, then\nrun:** what?",
                   "Read this. **Predict:** which one?"):
        assert predict_cells.asks_for_prediction(nbformat.v4.new_markdown_cell(prompt))
    assert not predict_cells.asks_for_prediction(
        nbformat.v4.new_markdown_cell("We predicted it above; now run it."))


def test_apply_folds_the_answer_and_skips_the_guess_cell():
    nb = notebook(("md", "**Predict, then run.** How many links?"),
                  ("code", "guess = ...\ncheck.predict(guess, lambda: 2)"),
                  ("code", "print(2)"),
                  ("code", "print('not an answer')"))
    predict_cells.apply(nb)
    guess, answer, other = nb.cells[1:]
    assert answer.metadata["tags"] == ["predict"]
    assert answer.metadata["jupyter"]["outputs_hidden"] is True
    assert "tags" not in guess.metadata and "jupyter" not in guess.metadata
    assert "tags" not in other.metadata
    assert predict_cells.problems(nb) == []


def test_apply_keeps_other_tags_and_removes_stale_folds():
    nb = notebook(("md", "**Predict:** what does it raise?"), ("code", "1 / 0"),
                  ("md", "Moving on."), ("code", "x = 1"))
    nb.cells[1].metadata["tags"] = ["raises-exception"]
    nb.cells[3].metadata["tags"] = ["predict"]
    nb.cells[3].metadata["jupyter"] = {"outputs_hidden": True}
    assert len(predict_cells.problems(nb)) == 2
    predict_cells.apply(nb)
    assert nb.cells[1].metadata["tags"] == ["raises-exception", "predict"]
    assert "tags" not in nb.cells[3].metadata and "jupyter" not in nb.cells[3].metadata
    once = nbformat.writes(nb)
    predict_cells.apply(nb)
    assert nbformat.writes(nb) == once


def test_a_prompt_without_an_answer_is_reported():
    nb = notebook(("md", "**Predict, then run.** What happens?"), ("md", "It raises."))
    assert predict_cells.problems(predict_cells.apply(nb)) == [
        "cell 0: a prediction prompt with no code cell before the next markdown cell"]
    nb = notebook(("code", "x = 1"), ("md", "**Predict:** and now?"))
    assert predict_cells.problems(nb)[0].startswith("cell 1: a prediction prompt")


def test_the_command_reports_and_folds(tmp_path, capsys):
    path = tmp_path / "lecture.ipynb"
    nbformat.write(notebook(("md", "**Predict:** x?"), ("code", "x = 1")), path)
    assert predict_cells.main(["--check", str(tmp_path)]) == 1
    assert predict_cells.main([str(tmp_path)]) == 0
    assert predict_cells.main(["--check", str(path)]) == 0
    assert "is not tagged" in capsys.readouterr().out


def test_predict_reveals_nothing_before_a_guess(capsys):
    y = torch.tensor(2.0, requires_grad=True) * 3
    asked = []
    result = check.predict(..., lambda: asked.append(1) or y.grad_fn)
    assert result.status == check.NOT_ATTEMPTED and asked == []
    assert capsys.readouterr().out.strip() == check.PREDICT_FIRST


def test_predict_right_and_wrong_without_printing_the_answer(capsys):
    y = torch.tensor(2.0, requires_grad=True) * 3
    assert check.predict("MulBackward0", lambda: y.grad_fn)
    wrong = check.predict("AddBackward0", lambda: y.grad_fn)
    assert wrong.status == check.WRONG and "MulBackward0" not in wrong.message
    count = check.predict(3, lambda: len(y.grad_fn.next_functions))
    assert count.status == check.WRONG and "2" not in count.message
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("✔ right") and out[1].startswith("✘ your prediction")


def test_predict_with_a_dict_names_the_entry_and_waits_for_every_entry():
    truth = {"x.is_leaf": True, "y.is_leaf": False}
    half = check.predict({"x.is_leaf": True, "y.is_leaf": ...}, truth)
    assert half.status == check.NOT_ATTEMPTED and "1 of 2" in half.message
    wrong = check.predict({"x.is_leaf": True, "y.is_leaf": True}, truth)
    assert wrong.status == check.WRONG and "y.is_leaf" in wrong.message
    assert check.predict({"x.is_leaf": True, "y.is_leaf": False}, truth)
