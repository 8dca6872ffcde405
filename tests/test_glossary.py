"""The glossary and the then-and-now page: every term in English and Chinese (traditional
forms included), pointing at chapters that exist, with anchors the chapters' links reach; and
every outdated claim of the seed articles set against what the chapter it names shows."""
import json
import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
GLOSSARY = NOTEBOOKS / "glossary.md"
THEN_AND_NOW = NOTEBOOKS / "seeds_then_and_now.md"
CHINESE = re.compile(r"[\u4e00-\u9fff]")

# Simplified characters of the glossary whose traditional form differs, and those that are the
# same in both scripts. A new entry with a character in neither list fails until it is sorted.
TRADITIONAL = dict(zip(
    "义优传冻则动卫参变叶号后图对导广张归态扑执据数断无时暂机构标检测点环离积类级结编节视计评译试调踪边运钩链间阵阶随静",
    "義優傳凍則動衛參變葉號後圖對導廣張歸態撲執據數斷無時暫機構標檢測點環離積類級結編節視計評譯試調蹤邊運鉤鏈間陣階隨靜"))
SAME_IN_BOTH = set("一上下中估位作保先函分刻前剪加化升即原反可向器地型失子存守定就差序度建式微心截批拓推提播"
                   "操文有本查根梯模比求法活版理用留的直矩禁算累自行裁要象追退通量雅需非高")


def table_rows(path, first_cell=r"\S"):
    lines = path.read_text(encoding="utf-8").splitlines()
    return [[cell.strip() for cell in line.strip().strip("|").split("|")] for line in lines
            if re.match(rf"\| ?{first_cell}", line) and not line.startswith("| ---")]


def rows():
    """The glossary's entries: [english, chinese, gloss, meaning, chapters]."""
    return table_rows(GLOSSARY)[1:]


def test_each_term_has_a_chinese_name_a_chinese_gloss_a_meaning_and_real_chapters():
    chapters = {path.name[:2] for path in NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")}
    entries = rows()
    assert len(entries) >= 50
    for english, chinese, gloss, meaning, where in entries:
        assert english and len(meaning.split()) >= 5, english
        assert CHINESE.search(chinese), f"{english}: no Chinese term"
        assert len(CHINESE.findall(gloss)) >= 5, f"{english}: no Chinese gloss"
        cited = set(re.findall(r"\d\d", where))
        assert cited and cited <= chapters, f"{english}: chapters {where}"


def traditional(simplified):
    unknown = [c for c in simplified if CHINESE.match(c) and c not in TRADITIONAL
               and c not in SAME_IN_BOTH]
    assert not unknown, f"sort {unknown} into TRADITIONAL or SAME_IN_BOTH"
    return "".join(TRADITIONAL.get(c, c) for c in simplified)


def test_every_term_whose_traditional_form_differs_carries_it():
    for entry in rows():
        for term in entry[1].split("，"):
            simplified, _, bracket = term.strip().partition(" (")
            expected = traditional(simplified)
            if expected == simplified:
                assert not bracket, f"{term}: the same in both scripts, no brackets needed"
            else:
                assert bracket.rstrip(")") == expected, f"{term}: traditional form {expected}"


def test_the_terms_of_the_articles_and_the_issue_are_there():
    terms = " ".join(row[1] for row in rows())
    for term in ("自动求导", "自动微分", "叶子", "非叶子节点", "中间节点", "Function 节点", "计算图",
                 "动态图", "链式法则", "反向传播", "钩子", "版本计数器", "版本号", "原位操作",
                 "inplace 操作", "梯度累积", "梯度累加", "拓扑序", "根节点", "有向无环图", "广播",
                 "标量", "数据类型", "类型提升", "梯度裁剪", "冻结参数", "微调", "直通估计器",
                 "中心差分", "批归一化", "暂退法", "随机失活", "图中断", "守卫", "即时编译",
                 "即刻执行", "自定义 autograd 函数", "葉子張量", "保留計算圖", "上下文對象"):
        assert term in terms, term
    assert "即时执行" not in terms      # eager execution is not JIT (即时编译)
    by_english = {row[0].split("</a>")[-1]: row[1] for row in rows()}
    assert by_english["`inference_mode`"] == "推理模式"
    assert "推理" not in by_english["eval mode"]


def anchors():
    return re.findall(r'<a id="([^"]+)"></a>', GLOSSARY.read_text(encoding="utf-8"))


def test_anchors_are_unique_slugs_of_the_terms():
    found = anchors()
    assert len(found) == len(set(found))
    for row in rows():
        for term in row[0].split("</a>")[-1].split(", "):
            slug = re.sub(r"[^a-z0-9]+", "-", term.lower()).strip("-")
            assert slug in found, term


def markdown_sources():
    """(name, markdown text) of every lecture, appendix and page in notebooks/."""
    for path in sorted(NOTEBOOKS.rglob("*.ipynb")):
        notebook = nbformat.read(path, as_version=4)
        yield path, "\n".join(c.source for c in notebook.cells if c.cell_type == "markdown")
    for path in sorted(NOTEBOOKS.rglob("*.md")):
        yield path, path.read_text(encoding="utf-8")


def test_every_link_into_the_glossary_reaches_an_entry():
    found = set(anchors())
    links = 0
    for path, text in markdown_sources():
        for slug in re.findall(r"glossary\.md#([\w-]+)", text):
            links += 1
            assert slug in found, f"{path.name}: glossary.md#{slug} has no entry"
    assert links >= 10          # the chapters' summaries link their key terms


def test_chapter_00_links_the_glossary_and_the_then_and_now_page():
    notebook = nbformat.read(NOTEBOOKS / "00_start_here.ipynb", as_version=4)
    text = "\n".join(c.source for c in notebook.cells if c.cell_type == "markdown")
    assert "(glossary.md)" in text and "(seeds_then_and_now.md)" in text
    assert "notebooks/seeds_then_and_now.md" in (ROOT / "README.md").read_text(encoding="utf-8")


def claims():
    """The then-and-now page's claim rows: (articles, claim, today, link target)."""
    for cells in table_rows(THEN_AND_NOW, first_cell=r"[A-E](, [A-E])* \|"):
        if len(cells) == 4:
            target = re.search(r"\]\(([^)]+\.ipynb)\)", cells[3])
            yield cells[0], cells[1], cells[2], target and target.group(1)


def notebook_text(path):
    """A notebook's sources and stored text outputs, as one string."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    parts = []
    for cell in notebook["cells"]:
        parts.append("".join(cell["source"]))
        for output in cell.get("outputs", []):
            parts.append("".join(output.get("text", "")))
            parts.append("".join(output.get("data", {}).get("text/plain", "")))
            parts.append(output.get("evalue", ""))
    return "\n".join(parts)


CLAIMS = list(claims())


@pytest.mark.parametrize("articles, claim, today, target", CLAIMS, ids=lambda v: str(v)[:30])
def test_each_changed_claim_points_at_a_chapter_that_shows_it(articles, claim, today, target):
    assert target, f"{claim}: no chapter link"
    text = notebook_text(NOTEBOOKS / target)
    quoted = [q.replace("...", "").strip() for q in re.findall(r"`([^`]+)`", today)]
    assert quoted, f"{claim}: quote what 2.13 shows"
    shown = [q for q in quoted if q and q in text]
    assert shown, f"{target} shows none of {quoted}"


def test_the_then_and_now_page_covers_the_issues_examples():
    assert len(CLAIMS) >= 15
    assert {a.strip() for row in CLAIMS for a in row[0].split(",")} == set("ABCDE")
    page = THEN_AND_NOW.read_text(encoding="utf-8")
    for old in ("ReluBackward1", "ThnnConv2DBackward", "moved into the graph interior",
                "clip_grad_norm_", "create_graph=True", "Variable"):
        assert old in page, old
