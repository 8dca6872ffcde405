"""The glossary: every term in English and Chinese, pointing at chapters that exist, linked
from chapter 00."""
import re
from pathlib import Path

import nbformat

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
GLOSSARY = NOTEBOOKS / "glossary.md"
CHINESE = re.compile(r"[\u4e00-\u9fff]")


def rows():
    lines = [line for line in GLOSSARY.read_text(encoding="utf-8").splitlines()
             if line.startswith("| ") and not line.startswith("| ---")]
    return [[cell.strip() for cell in line.strip("|").split("|")] for line in lines[1:]]


def test_each_term_has_a_chinese_name_a_meaning_and_real_chapters():
    chapters = {path.name[:2] for path in NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")}
    entries = rows()
    assert len(entries) >= 30
    for english, chinese, meaning, where in entries:
        assert english and len(meaning.split()) >= 5, english
        assert CHINESE.search(chinese), f"{english}: no Chinese term"
        cited = set(re.findall(r"\d\d", where))
        assert cited and cited <= chapters, f"{english}: chapters {where}"


def test_the_terms_the_seed_articles_use_are_there():
    terms = " ".join(row[1] for row in rows())
    for term in ("叶子", "计算图", "动态图", "链式法则", "反向传播", "钩子", "版本计数器", "原地"):
        assert term in terms, term


def test_chapter_00_links_the_glossary():
    notebook = nbformat.read(NOTEBOOKS / "00_start_here.ipynb", as_version=4)
    assert any("(glossary.md)" in cell.source for cell in notebook.cells
               if cell.cell_type == "markdown")
