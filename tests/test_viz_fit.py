"""Drawings fit a notebook's output area: a wide one is scaled down whole, its legend below."""
import re
import shutil

import pytest

import teachgrad as torch
from teachgrad import viz
from teachgrad.viz.drawing import MAX_WIDTH_PT, fit_width

SVG = '<?xml?>\n<svg width="{w}pt" height="{h}pt"\n viewBox="0.00 0.00 {w}.00 {h}.00">'


def size(svg):
    width, height = re.search(r'<svg width="([\d.]+)pt" height="([\d.]+)pt"', svg).groups()
    return float(width), float(height)


def test_a_wide_drawing_is_scaled_down_in_proportion_and_keeps_its_view_box():
    fitted = fit_width(SVG.format(w=1200, h=300))
    assert size(fitted) == (MAX_WIDTH_PT, 150.0)
    assert 'viewBox="0.00 0.00 1200.00 300.00"' in fitted


def test_a_narrow_drawing_keeps_its_size():
    svg = SVG.format(w=320, h=400)
    assert fit_width(svg) == svg


def test_the_legend_sits_alone_on_the_bottom_rank():
    x = torch.ones(3, requires_grad=True)
    source = viz.draw_backward((x * 2).sum()).source
    assert re.search(r"\{rank=sink; legend \[", source)


@pytest.mark.skipif(shutil.which("dot") is None, reason="graphviz's dot is not installed")
def test_a_long_chain_drawn_side_by_side_fits():
    x = torch.ones(2, requires_grad=True)
    y = x
    for _ in range(12):
        y = y.exp() * 0.5 + x
    width, _ = size(viz.draw(y.sum()).svg())
    assert width <= MAX_WIDTH_PT
