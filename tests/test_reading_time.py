"""teachgrad.course.reading_time: the counts on tiny hand-made notebooks, the exit status, and
the real course within its budgets (each lecture ≤ 45 minutes, all of them ≤ 6 hours)."""
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from teachgrad.course import reading_time

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


def write_notebook(path, cells):
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(new_notebook(cells=cells), path)
    return path


def words(count):
    return " ".join(["word"] * count)


def code_lines(count):
    return "\n".join(f"x{i} = {i}" for i in range(count))


def test_markdown_words_at_200_a_minute(tmp_path):
    # 300 words in two cells, markdown punctuation and newlines count as separators only
    path = write_notebook(tmp_path / "00_a.ipynb", [
        new_markdown_cell("# Title here\n\n" + words(97)),   # "#", "Title", "here" + 97 = 100
        new_markdown_cell(words(200))])
    assert reading_time.reading_minutes(path) == pytest.approx(1.5)


def test_code_lines_at_6_seconds_blank_lines_and_outputs_not_counted(tmp_path):
    cell = new_code_cell(code_lines(5) + "\n\n   \n" + code_lines(5))  # 10 non-blank lines
    cell.outputs = [nbformat.v4.new_output("stream", text=words(1000))]
    path = write_notebook(tmp_path / "00_a.ipynb", [cell, new_code_cell("")])
    assert reading_time.reading_minutes(path) == pytest.approx(1.0)


def test_words_and_code_add_up(tmp_path):
    path = write_notebook(tmp_path / "00_a.ipynb", [
        new_markdown_cell(words(400)), new_code_cell(code_lines(20))])
    assert reading_time.reading_minutes(path) == pytest.approx(2 + 2)


def test_lectures_exclude_appendices_which_are_listed_apart(tmp_path, capsys):
    write_notebook(tmp_path / "00_a.ipynb", [new_markdown_cell(words(2000))])     # 10 min
    write_notebook(tmp_path / "01_b.ipynb", [new_code_cell(code_lines(300))])     # 30 min
    write_notebook(tmp_path / "deeper" / "01_b_more.ipynb",
                   [new_markdown_cell(words(20000))])                             # 100 min
    write_notebook(tmp_path / "glossary.ipynb", [new_markdown_cell(words(20000))])
    assert [p.name for p in reading_time.lectures(tmp_path)] == ["00_a.ipynb", "01_b.ipynb"]
    assert reading_time.main([str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "| 00_a | 10 |" in out and "| 01_b | 30 |" in out
    assert "**40** of 360" in out
    assert "| deeper/01_b_more | 100 |" in out


def test_a_lecture_over_45_minutes_fails(tmp_path, capsys):
    write_notebook(tmp_path / "00_a.ipynb", [new_markdown_cell(words(9200))])     # 46 min
    assert reading_time.main([str(tmp_path)]) == 1
    assert "| 00_a | 46 ✘ over |" in capsys.readouterr().out


def test_a_course_over_6_hours_fails_though_each_lecture_fits(tmp_path, capsys):
    for number in range(9):                                                       # 9 × 44 min
        write_notebook(tmp_path / f"{number:02d}_a.ipynb", [new_markdown_cell(words(8800))])
    assert reading_time.main([str(tmp_path)]) == 1
    assert "**396** of 360 (6.6 h of 6 h) ✘ over" in capsys.readouterr().out


def test_a_folder_without_lectures_is_an_error(tmp_path):
    with pytest.raises(SystemExit) as exit_info:
        reading_time.main([str(tmp_path)])
    assert exit_info.value.code == 2


def test_the_course_reads_within_its_budget(capsys):
    status = reading_time.main([str(NOTEBOOKS)])
    table = capsys.readouterr().out
    assert status == 0, "over the reading budget:\n" + table
