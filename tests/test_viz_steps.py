"""teachgrad.viz.backward_steps and teachgrad.viz.explain: both use the real engine."""
import re
import sys
import xml.etree.ElementTree as ET

import pytest
from test_viz import l1_to_l4, needs_dot

import teachgrad as torch
import teachgrad.viz as tv
from teachgrad.autograd import engine
from teachgrad.viz import style
from teachgrad.viz.drawing import INSTALL_HINT


def engine_order(root):
    """The nodes in the order the engine runs them, seen through its own callback."""
    order = []
    task = engine.GraphTask([root._gradient_edge()], [torch.ones_like(root)],
                            retain_graph=True, create_graph=False)
    engine.run_backward(task, on_node_run=lambda node, grads_in, grads_out: order.append(node))
    return order


def visible_labels(source):
    """Each node's and edge's label with the rows written in the background colour removed."""
    labels = []
    for label in re.findall(r"label=<(.*?)>(?:, \w+=|\])", source):
        rows = [row for row in label.split("<BR/>") if "<FONT COLOR" not in row]
        labels.append(" | ".join(re.sub(r"<[^>]+>", "", row) for row in rows))
    return labels


# ---- backward_steps ---------------------------------------------------------------------

def test_steps_follow_the_engines_order_and_accumulate_like_backward():
    t = l1_to_l4()
    steps = tv.backward_steps(t["loss"], names=t, retain_graph=True)
    assert [step.node for step in steps.steps] == engine_order(t["loss"])
    assert len(steps) == 8
    names = [type(step.node).__name__ for step in steps.steps]
    # the engine runs the most recent node first and a leaf's AccumulateGrad as soon as it is ready
    assert names == ["MeanBackward0", "MulBackward0", "MulBackward0", "AccumulateGrad",
                     "AddBackward0", "AccumulateGrad", "MulBackward0", "AccumulateGrad"]
    assert t["w1"].grad.item() == 28.0 * 2       # backward_steps, then engine_order: twice
    assert t["w2"].grad.item() == 8.0 * 2


def test_steps_text_shows_the_gradients_sent_and_accumulated():
    t = l1_to_l4()
    text = str(tv.backward_steps(t["loss"], names=t))
    assert text.splitlines()[:2] == [
        "step 1  MeanBackward0 (loss) receives 1.",
        "        sends [[0.25, 0.25], [0.25, 0.25]] to MulBackward0 (l4)"]
    assert "step 7  MulBackward0 (l1) receives [[7., 7.], [7., 7.]]" in text
    assert text.endswith("step 8  AccumulateGrad (w1) receives 28.\n"
                         "        w1.grad += 28.  ->  28.")


def test_without_retain_graph_steps_free_the_saved_tensors_like_backward():
    t = l1_to_l4()
    tv.backward_steps(t["loss"], names=t)
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        t["loss"].backward()


def test_frames_keep_their_labels_and_reveal_one_step_at_a_time():
    t = l1_to_l4()
    steps = tv.backward_steps(t["loss"], names=t)
    sources = [frame.source for frame in steps]
    assert len(sources) == 8
    # the same text in every frame (so the layout does not move), only colours change
    without_colour = {re.sub(r'<FONT COLOR="[^"]*">|</FONT>|, (color|penwidth)="[^"]*"', "", s)
                      for s in sources}
    assert len(without_colour) == 1
    for shown, source in enumerate(sources, start=1):
        visible_steps = [label for label in visible_labels(source) if "step " in label]
        assert len(visible_steps) == shown
        assert source.count(f'color="{style.RUNNING}"') == 1
    first = visible_labels(sources[0])
    assert "[[0.25, 0.25], [0.25, 0.25]]" in first and "28." not in " ".join(first)
    assert "+= 28." in visible_labels(sources[-1])
    assert str(steps[0]) == str(steps).split("\nstep 2")[0]
    with pytest.raises(IndexError):
        steps[8]


def test_steps_of_a_tensor_without_grad_raise_like_backward():
    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad"):
        tv.backward_steps(torch.ones(2).sum())


@needs_dot
def test_steps_show_as_a_grid_of_svg_frames():
    t = l1_to_l4()
    bundle = tv.backward_steps(t["loss"], names=t)._repr_mimebundle_()
    assert set(bundle) == {"text/html", "text/plain"}
    page = bundle["text/html"]
    assert page.count("<svg") == 8 and page.count("<tr>") == 3      # 3 columns
    for svg in re.findall(r"<svg.*?</svg>", page, flags=re.S):
        ET.fromstring(svg)


@needs_dot
def test_render_writes_an_animated_gif_or_one_file_per_frame(tmp_path, monkeypatch):
    from PIL import Image
    t = l1_to_l4()
    steps = tv.backward_steps(t["loss"], names=t)
    (gif,) = steps.render(tmp_path / "steps.gif")
    with Image.open(gif) as image:
        assert image.n_frames == 8
    frames = steps.render(tmp_path / "steps.svg")
    assert [p.rsplit("/", 1)[1] for p in frames] == [f"steps-{k:02d}.svg" for k in range(1, 9)]
    for frame in frames:
        ET.parse(frame)
    monkeypatch.setitem(sys.modules, "PIL", None)       # as if Pillow were not installed
    fallback = steps.render(tmp_path / "anim.gif")
    assert len(fallback) == 8 and fallback[0].endswith("anim-01.png")


def test_steps_without_dot_show_text_and_how_to_install(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    t = l1_to_l4()
    steps = tv.backward_steps(t["loss"], names=t)
    assert steps._repr_mimebundle_() == {"text/plain": str(steps) + "\n" + INSTALL_HINT}


# ---- explain ----------------------------------------------------------------------------

def inplace_error():
    a = torch.tensor([1.0, 3.0], requires_grad=True)
    b = a + 2
    loss = (b * b).mean()
    b[0] = 1000.0
    try:
        loss.backward()
    except RuntimeError as error:
        return error
    raise AssertionError("backward should have raised")


def test_explain_says_what_happened_and_highlights_the_node_and_the_saved_tensor():
    error = inplace_error()
    drawing = tv.explain(error)
    sentence = str(drawing).splitlines()[0]
    assert re.match("MulBackward0 saved its input `(self|other)` [(]shape [(]2,[)]", sentence)
    assert "at version 0" in sentence and "version 1 now" in sentence
    assert "changed in place" in sentence
    lines = str(drawing).splitlines()
    assert lines[2] == "MulBackward0  <- needed a saved tensor that was changed in place"
    assert "saved self: (2,), saved v0, now v1 (stale)" in lines[3]
    assert 'color="' + style.ALERT + '", penwidth="3"' in drawing.source     # the failed node
    assert drawing.source.count(f'fillcolor="{style.STALE}"') == 2        # b*b saved b twice
    assert "changed in place since" in drawing.source
    assert "MulBackward0 saved its" in drawing.source                     # the title


def test_explain_names_the_changed_tensor_and_draws_the_inplace_operation():
    a = torch.tensor([1.0, 3.0], requires_grad=True)
    b = a + 2
    loss = (b * b).mean()
    b[0] = 1000.0                      # b's grad_fn becomes CopySlices
    try:
        loss.backward()
    except RuntimeError as error:
        assert error.tensor is b
        drawing = tv.explain(error, names={"a": a, "b": b})
    sentence = str(drawing).splitlines()[0]
    assert "that tensor (`b`) was then changed in place" in sentence
    assert "now recorded as its grad_fn, CopySlices" in sentence
    assert "CopySlices  b  <- the in-place change" in str(drawing).splitlines()
    assert 'style="filled,dashed,bold"' in drawing.source                 # the in-place node


@pytest.mark.parametrize("how", ["detach", "no_grad"])
def test_explain_does_not_blame_the_node_that_made_a_tensor_changed_unrecorded(how):
    w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    h = w * 2
    loss = (h * w).sum()
    if how == "detach":
        h.detach()[0] = 100.0          # same version counter, but no node records the change
    else:
        with torch.no_grad():
            h[0] = 100.0
    try:
        loss.backward()
    except RuntimeError as error:
        drawing = tv.explain(error, names={"h": h, "w": w})
    sentence = str(drawing).splitlines()[0]
    assert "(`h`) was then changed in place without any node recording it" in sentence
    assert "now recorded as its grad_fn" not in sentence
    assert not any("<- the in-place change" in line for line in str(drawing).splitlines())


@needs_dot
def test_explain_renders_valid_svg():
    ET.fromstring(tv.explain(inplace_error()).svg().encode("utf-8"))


def test_explain_refuses_other_errors():
    with pytest.raises(TypeError, match="explain\\(\\) takes the error raised by backward"):
        tv.explain(ValueError("something else"))
