"""The course's website: what the staging step does to the pages, and the link check that fails
the build. (The build itself runs in `make site`, before `make test-browser` opens a page.)"""
from pathlib import Path

import nbformat
import pytest

from teachgrad.course import site

ROOT = Path(__file__).resolve().parent.parent
REPO = "https://example.org/course"


@pytest.fixture(scope="module")
def staged(tmp_path_factory):
    return site.stage(tmp_path_factory.mktemp("site"), repository=REPO)


def test_the_site_has_every_lecture_appendix_and_page_in_chapter_order(staged):
    pages = site.course_pages()
    lectures = [p.name for p in pages if p.parent == Path("notebooks") and p.suffix == ".ipynb"]
    assert lectures == sorted(p.name for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    assert Path("notebooks/glossary.md") in pages
    assert Path("notebooks/seeds_then_and_now.md") in pages
    index = (staged / "index.md").read_text(encoding="utf-8")
    assert "## Course map" in index and "## Get started" not in index
    toc = [line for line in index.splitlines() if line.startswith("notebooks/")]
    assert toc[:len(lectures)] == [f"notebooks/{name[:-6]}" for name in lectures]
    assert all((staged / f"{entry}.ipynb").exists() or (staged / f"{entry}.md").exists()
               for entry in toc)


def test_predictions_are_folded_and_chapters_link_their_exercises(staged):
    for page in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        original = nbformat.read(page, as_version=4)
        shown = nbformat.read(staged / "notebooks" / page.name, as_version=4)
        links = shown.cells[1].source
        assert links.startswith("Open this chapter:") and "mybinder.org" in links
        assert f"{REPO}/blob/main/notebooks/{page.name}" in links
        assert f"{REPO}/blob/main/exercises/{page.name}" in links
        folded = [c for c in original.cells if "predict" in c.metadata.get("tags", [])]
        hidden = [c for c in shown.cells if "hide-output" in c.metadata.get("tags", [])]
        assert len(hidden) == len(folded)


def test_links_to_files_off_the_site_go_to_the_repository():
    on_site = {Path("notebooks/02_x.ipynb"), Path("notebooks/deeper/02_y.ipynb")}
    page = Path("notebooks/deeper/02_y.ipynb")
    text = ("[back](../02_x.ipynb) [stage](../../solutions/yourgrad/graph.py#L3) "
            "[ex](../../exercises/02_x.ipynb) [web](https://pytorch.org) [here](#top)")
    assert site.retarget(text, page, on_site, REPO) == (
        f"[back](../02_x.ipynb) [stage]({REPO}/blob/main/solutions/yourgrad/graph.py#L3) "
        f"[ex]({REPO}/blob/main/exercises/02_x.ipynb) [web](https://pytorch.org) [here](#top)")


def write(path, html):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"<html><body>{html}</body></html>", encoding="utf-8")


def test_the_link_check_finds_a_missing_page_and_a_missing_anchor(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path.parent)          # a relative folder, as `make site` gives it
    tmp_path = Path(tmp_path.name)
    write(tmp_path / "index.html", '<a href="notebooks/a.html#goal">a</a>'
                                   '<a href="https://example.org/x.html">far</a>')
    write(tmp_path / "notebooks" / "a.html", '<h2 id="goal">Goal</h2><a href="#goal">up</a>'
                                             '<a href="glossary.html#leaf-tensor">leaf</a>'
                                             '<a href="b.html">b</a>')
    write(tmp_path / "notebooks" / "glossary.html", '<a id="version-counter"></a>')
    assert site.broken_links(tmp_path) == [
        "notebooks/a.html: glossary.html#leaf-tensor (no such anchor)",
        "notebooks/a.html: b.html"]
    write(tmp_path / "notebooks" / "b.html", "")
    write(tmp_path / "notebooks" / "glossary.html", '<a id="leaf-tensor"></a>')
    assert site.broken_links(tmp_path) == []
