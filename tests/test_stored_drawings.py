"""Stored drawings never go stale silently.

nbval leaves the SVG bytes out of its comparison (they depend on graphviz's version) but
compares the DOT source stored beside each drawing (``text/vnd.graphviz``), so a change in
what teachgrad.viz draws fails there. This file closes the other half: each stored SVG must be
the picture of the DOT stored with it. The SVG is laid out again from that DOT with this
machine's ``dot``, and both are compared by what graphviz's version does not change: the
elements' titles, the texts, the colours and the size of the viewBox's contents' list.
"""
import json
import re
import shutil
from pathlib import Path

import pytest

from teachgrad.viz.drawing import DOT_MIME, fit_width, run_dot

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted([*(ROOT / "notebooks").rglob("*.ipynb"), *(ROOT / "solutions").glob("*.ipynb")])


def stored_drawings(path):
    """(cell index, stored SVG, stored DOT or None) for each SVG output of a notebook."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    for index, cell in enumerate(cells):
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if "image/svg+xml" in data:
                dot = data.get(DOT_MIME)
                yield index, "".join(data["image/svg+xml"]), dot and "".join(dot)


_ELEMENT = re.compile(r'<title>([^<]*)</title>|<text[^>]*>([^<]*)</text>|'
                      r'(?:fill|stroke)="(#[0-9a-fA-F]{6}|[a-z]+)"')


def what_graphviz_keeps(svg):
    """The parts of an SVG that come from the DOT source, not from graphviz's layout: the
    titles of nodes and edges, every text, and every colour, in document order."""
    body = svg[svg.index("<svg"):]
    kept = [next(group for group in match.groups() if group is not None)
            for match in _ELEMENT.finditer(body)]
    return [part for part in kept if not part.startswith("%")]   # the graph's own name: %0, %3


def all_drawings():
    for path in NOTEBOOKS:
        for index, svg, dot in stored_drawings(path):
            yield pytest.param(svg, dot, id=f"{path.relative_to(ROOT)}-cell{index}")


DRAWINGS = list(all_drawings())


def test_the_course_has_drawings():
    assert len(DRAWINGS) >= 40


@pytest.mark.skipif(shutil.which("dot") is None, reason="graphviz's dot is installed by make setup")
@pytest.mark.parametrize("svg, dot", DRAWINGS)
def test_each_stored_svg_is_the_picture_of_its_stored_dot(svg, dot):
    assert dot is not None, "an SVG stored without its DOT source: re-run the notebook"
    fresh = fit_width(run_dot(dot, "svg").decode("utf-8"))
    assert what_graphviz_keeps(svg) == what_graphviz_keeps(fresh)


def test_the_comparison_sees_a_change_of_label_colour_and_edge():
    dot = 'digraph { a [label="MulBackward0", fillcolor="#d9d9d9", style=filled]; a -> b }'
    kept = what_graphviz_keeps(run_dot(dot, "svg").decode("utf-8"))
    for changed in (dot.replace("Mul", "Add"), dot.replace("#d9d9d9", "#e69f00"),
                    dot.replace("a -> b", "b -> a")):
        assert what_graphviz_keeps(run_dot(changed, "svg").decode("utf-8")) != kept
