"""teachgrad.viz: the forward, backward and side-by-side drawings and the text tree.

The DOT text is parsed back into nodes and edges, so these tests check the
structure of each drawing (names, edges, roles, colours), not its bytes.
"""
import os
import re
import shutil
import subprocess
import sys
import textwrap
import time
import xml.etree.ElementTree as ET

import pytest

import teachgrad as torch
import teachgrad.viz as tv
from teachgrad.viz import style
from teachgrad.viz.drawing import INSTALL_HINT, DotMissing

needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="graphviz's dot is missing")


# ---- reading DOT back ---------------------------------------------------------------

def parse_dot(source):
    """Nodes as {id: attributes} (label as plain text, rows joined by " | ") and edges
    as a list of (tail, head, attributes)."""
    nodes, edges = {}, []
    for line in source.splitlines():
        match = re.match(r"\s*(\w+)(?: -> (\w+))?(?: \[(.*)\])?$", line)
        if not match or match.group(1) in ("graph", "node", "edge"):
            continue
        tail, head, attr_text = match.group(1), match.group(2), match.group(3) or ""
        attrs = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', attr_text))
        label = re.match(r"label=<(.*?)>(?:, \w+=|$)", attr_text)
        if label:
            attrs["label"] = label_text(label.group(1))
        if head is None:
            nodes[tail] = attrs
        else:
            edges.append((tail, head, attrs))
    return nodes, edges


def label_text(html_label):
    """The visible text of an HTML-like label: rows joined by " | ", hidden rows dropped."""
    rows = re.split(r"<BR/>", html_label)
    visible = [row for row in rows if "<FONT COLOR" not in row]
    text = " | ".join(re.sub(r"<[^>]+>", "", row) for row in visible)
    return (text.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"')
            .replace("&#x27;", "'").replace("&amp;", "&"))


def by_label(nodes):
    """label -> id, for nodes whose label is unique."""
    return {attrs["label"]: node_id for node_id, attrs in nodes.items() if "label" in attrs}


def gradient_flows(source):
    """The backward edges as (from label, to label): the way the gradient flows."""
    nodes, edges = parse_dot(source)
    return sorted((nodes[head]["label"], nodes[tail]["label"])
                  for tail, head, attrs in edges if attrs.get("dir") == "back"
                  and nodes[tail].get("label", "").startswith(("Mul", "Add", "Mean", "Acc",
                                                               "Sig")))


def parses_as_svg(drawing):
    root = ET.fromstring(drawing.svg().encode("utf-8"))
    assert root.tag.endswith("svg")


# ---- the seed examples ---------------------------------------------------------------

def l1_to_l4():
    """The example of the course's first chapter; names come from this function's locals."""
    input = torch.ones(2, 2)
    w1 = torch.tensor(2.0, requires_grad=True)
    w2 = torch.tensor(3.0, requires_grad=True)
    w3 = torch.tensor(4.0, requires_grad=True)
    l1 = input * w1
    l2 = l1 + w2
    l3 = l1 * w3
    l4 = l2 * l3
    loss = l4.mean()
    return dict(input=input, w1=w1, w2=w2, w3=w3, l1=l1, l2=l2, l3=l3, l4=l4, loss=loss)


L1_L4_FORWARD = """\
input: (2, 2) [[1., 1.], [1., 1.]]  leaf, no grad
w1: scalar 2.  leaf, requires grad
w2: scalar 3.  leaf, requires grad
w3: scalar 4.  leaf, requires grad
l1 = mul(input, w1): (2, 2) [[2., 2.], [2., 2.]]
l2 = add(l1, w2): (2, 2) [[5., 5.], [5., 5.]]
l3 = mul(l1, w3): (2, 2) [[8., 8.], [8., 8.]]
l4 = mul(l2, l3): (2, 2) [[40., 40.], [40., 40.]]
loss = mean(l4): scalar 40.  (root)"""

L1_L4_TREE_AFTER_BACKWARD = """\
MeanBackward0  loss
└─ MulBackward0  l4
   ├─ AddBackward0  l2
   │  ├─ MulBackward0  l1  [b4]
   │  │  └─ AccumulateGrad  w1  grad 28.
   │  └─ AccumulateGrad  w2  grad 8.
   └─ MulBackward0  l3
      ├─ MulBackward0  l1  [b4, see above]
      └─ AccumulateGrad  w3  grad 10."""


def test_forward_of_l1_to_l4_lists_tensors_and_operations_in_order():
    t = l1_to_l4()
    drawing = tv.draw_forward(t["loss"], names=t)
    assert str(drawing) == L1_L4_FORWARD
    nodes, edges = parse_dot(drawing.source)
    ids = by_label(nodes)
    assert nodes[ids["input | (2, 2) | [[1., 1.], [1., 1.]]"]]["style"] == "filled,rounded,dashed"
    for leaf in ("w1 | scalar 2.", "w2 | scalar 3.", "w3 | scalar 4."):
        assert nodes[ids[leaf]]["fillcolor"] == style.LEAF
    assert nodes[ids["loss | scalar 40."]]["fillcolor"] == style.ROOT
    assert nodes[ids["l2 | (2, 2) | [[5., 5.], [5., 5.]]"]]["fillcolor"] == style.WHITE
    operations = [a["label"] for a in nodes.values() if a.get("shape") == "ellipse"]
    assert sorted(operations) == ["add", "mean", "mul", "mul", "mul"]
    assert all(nodes[n]["fillcolor"] == style.OPERATION for n in nodes
               if nodes[n].get("shape") == "ellipse")
    labels = {node_id: a["label"].split(" | ")[0] for node_id, a in nodes.items() if "label" in a}
    flows = sorted((labels[tail], labels[head]) for tail, head, _ in edges)
    # every operation has its inputs in and its output out; check the two that share l1
    l1_users = [head for tail, head, _ in edges if labels[tail] == "l1"]
    assert sorted(labels[op] for op in l1_users) == ["add", "mul"]
    assert ("input", "mul") in flows and ("w1", "mul") in flows and ("mean", "loss") in flows
    assert len(edges) == 4 * 3 + 2         # 4 binary ops (2 in, 1 out), mean (1 in, 1 out)


def test_backward_of_l1_to_l4_has_pytorch_nodes_and_next_functions_edges():
    t = l1_to_l4()
    drawing = tv.draw_backward(t["loss"], names=t)
    nodes, _ = parse_dot(drawing.source)
    titles = sorted(a["label"].split(" | ")[0] for a in nodes.values()
                    if a.get("shape") == "box" and "rounded" not in a.get("style", ""))
    assert titles == ["AccumulateGrad"] * 3 + ["AddBackward0", "MeanBackward0"] + \
        ["MulBackward0"] * 3
    assert gradient_flows(drawing.source) == sorted([
        ("MeanBackward0 | loss", "MulBackward0 | l4"),
        ("MulBackward0 | l4", "AddBackward0 | l2"),
        ("MulBackward0 | l4", "MulBackward0 | l3"),
        ("AddBackward0 | l2", "MulBackward0 | l1"),
        ("AddBackward0 | l2", "AccumulateGrad"),
        ("MulBackward0 | l3", "MulBackward0 | l1"),
        ("MulBackward0 | l3", "AccumulateGrad"),
        ("MulBackward0 | l1", "AccumulateGrad"),
    ])
    ids = by_label(nodes)
    assert nodes[ids["MeanBackward0 | loss"]]["fillcolor"] == style.ROOT
    assert nodes[ids["MulBackward0 | l3"]]["fillcolor"] == style.BACKWARD
    assert all(a["fillcolor"] == style.LEAF and a["peripheries"] == "2"
               for a in nodes.values() if a.get("label") == "AccumulateGrad")
    assert not any("input" in a.get("label", "") for a in nodes.values())   # needs no grad


def test_accumulate_grad_is_linked_to_its_leaf_which_shows_grad_after_backward():
    t = l1_to_l4()
    before = parse_dot(tv.draw_backward(t["loss"], names=t).source)[0]
    assert "w1 | scalar 2." in by_label(before)
    t["loss"].backward()
    drawing = tv.draw_backward(t["loss"], names=t)
    assert str(drawing) == L1_L4_TREE_AFTER_BACKWARD
    nodes, edges = parse_dot(drawing.source)
    ids = by_label(nodes)
    leaf = ids["w1 | scalar 2. | grad 28."]
    (accumulate,) = [head for tail, head, a in edges if tail == leaf]
    assert nodes[accumulate]["label"] == "AccumulateGrad"
    mul_l1 = ids["MulBackward0 | l1"]
    assert (accumulate, mul_l1) in [(tail, head) for tail, head, _ in edges]
    hidden = tv.draw_backward(t["loss"], names=t, show_grads=False)
    assert "grad 28." not in hidden.source and "grad 28." not in str(hidden)


def test_sigmoid_saves_its_result_named_like_the_output():
    x = torch.ones(2, 2, requires_grad=True)
    y = torch.sigmoid(x)
    forward = tv.draw_forward(y)
    assert str(forward) == ("x: (2, 2) [[1., 1.], [1., 1.]]  leaf, requires grad\n"
                            "y = sigmoid(x): (2, 2) [[0.7311, 0.7311], [0.7311, 0.7311]]  (root)")
    backward = tv.draw_backward(y, show_saved=True)
    assert str(backward) == ("SigmoidBackward0  y\n"
                             "│  saved result: y (2, 2), v0\n"
                             "└─ AccumulateGrad  x")
    nodes, edges = parse_dot(backward.source)
    (saved,) = [n for n, a in nodes.items() if a.get("shape") == "note"]
    assert nodes[saved]["label"] == "saved result | y (2, 2) | v0"
    assert nodes[saved]["fillcolor"] == style.SAVED
    assert (saved, by_label(nodes)["SigmoidBackward0 | y"]) in [(t, h) for t, h, _ in edges]


def test_detach_cuts_the_graph_and_a_detached_input_shows_as_a_named_constant():
    x = torch.ones(2, 2, requires_grad=True)
    y = torch.sigmoid(x)
    d = y.detach()
    assert str(tv.draw_backward(d)) == "no backward graph: nothing here requires grad"
    assert "no backward graph: d requires no grad" in tv.draw_backward(d).source
    z = (d * x).sum()
    forward = tv.draw_forward(z)
    assert str(forward).splitlines()[0] == \
        "d: (2, 2) [[0.7311, 0.7311], [0.7311, 0.7311]]  leaf, no grad"
    nodes, _ = parse_dot(forward.source)
    named_d = [a for a in nodes.values() if a.get("label", "").startswith("d |")]
    assert named_d and named_d[0]["style"] == "filled,rounded,dashed"
    y.detach_()
    assert str(tv.draw_forward(y)) == \
        "y: (2, 2) [[0.7311, 0.7311], [0.7311, 0.7311]]  leaf, no grad  (root)"
    assert str(tv.tree(y)) == "no backward graph: nothing here requires grad"


def test_draw_puts_both_graphs_side_by_side_with_links_to_grad_fn():
    t = l1_to_l4()
    drawing = tv.draw(t["loss"], names=t)
    assert str(drawing) == ("forward:\n" + L1_L4_FORWARD + "\n\nbackward:\n"
                            + L1_L4_TREE_AFTER_BACKWARD.replace("  grad 28.", "")
                            .replace("  grad 8.", "").replace("  grad 10.", ""))
    assert "subgraph cluster_forward {" in drawing.source
    assert "subgraph cluster_backward {" in drawing.source
    nodes, edges = parse_dot(drawing.source)
    links = [(nodes[tail]["label"].split(" | ")[0], nodes[head]["label"])
             for tail, head, a in edges if a.get("style") == "dashed" and a.get("minlen") == "0"]
    assert ("loss", "MeanBackward0 | loss") in links
    assert ("l1", "MulBackward0 | l1") in links
    assert ("w1", "AccumulateGrad") in links
    assert len(links) == 8          # 5 results + 3 leaves; the input has no grad_fn


# ---- names --------------------------------------------------------------------------

def test_names_argument_replaces_the_callers_names():
    t = l1_to_l4()
    drawing = tv.draw_forward(t["loss"], names={"weight": t["w1"], "total": t["loss"]})
    lines = str(drawing).splitlines()
    assert "weight: scalar 2.  leaf, requires grad" in lines
    assert lines[-1].startswith("total = mean(t")
    assert "l1" not in str(drawing)                 # not in names=, so shown by shape
    assert "t2 = mul(t0, weight): (2, 2)" in lines


def test_names_come_from_the_callers_local_variables():
    def compute():
        a = torch.tensor([1.0, 2.0], requires_grad=True)
        doubled = a * 2
        total = doubled.sum()
        return tv.tree(total)

    assert compute() == ("SumBackward0  total\n"
                         "└─ MulBackward0  doubled\n"
                         "   └─ AccumulateGrad  a")


def test_unnamed_tensors_show_their_shape_and_names_must_be_tensors():
    a = torch.ones(3, requires_grad=True)
    assert tv.tree((a * 2).sum(), names={}) == \
        "SumBackward0  scalar\n└─ MulBackward0  (3,)\n   └─ AccumulateGrad  (3,)"
    with pytest.raises(TypeError, match="names= maps names to tensors"):
        tv.draw_backward(a, names={"a": 3})


def test_retain_grad_and_hooks_are_marked_on_the_node_that_runs_them():
    t = l1_to_l4()
    t["l1"].retain_grad()
    t["l2"].register_hook(lambda grad: grad)
    t["w1"].register_hook(lambda grad: grad)
    t["loss"].grad_fn.register_prehook(lambda grads: None)
    t["loss"].backward()
    lines = str(tv.draw_backward(t["loss"], names=t)).splitlines()
    assert lines[0] == "MeanBackward0  loss  pre-hook ×1"
    assert "AddBackward0  l2  tensor hook ×1" in lines[2]
    assert "MulBackward0  l1  retains grad  grad [[7., 7.], [7., 7.]]" in lines[3]
    assert "AccumulateGrad  w1  tensor hook ×1  grad 28." in lines[4]


# ---- saved tensors: stale and freed -------------------------------------------------

def saved_boxes(drawing):
    nodes, _ = parse_dot(drawing.source)
    return [a for a in nodes.values() if a.get("shape") == "note"]


def test_saved_tensor_changed_in_place_is_stale_and_red():
    a = torch.tensor([1.0, 3.0], requires_grad=True)
    b = a + 2
    loss = (b * b).mean()
    fresh = saved_boxes(tv.draw_backward(loss, show_saved=True))
    assert [box["label"] for box in fresh] == ["saved self | b (2,) | v0",
                                               "saved other | b (2,) | v0"]
    b[0] = 1000.0
    drawing = tv.draw_backward(loss, show_saved=True)
    stale = saved_boxes(drawing)
    assert [box["label"] for box in stale] == ["saved self | (2,) | saved v0, now v1 (stale)",
                                               "saved other | (2,) | saved v0, now v1 (stale)"]
    assert all(box["fillcolor"] == style.STALE for box in stale)
    assert "saved other: (2,), saved v0, now v1 (stale)" in str(drawing)


def test_saved_tensors_are_freed_by_backward_unless_retain_graph():
    t = l1_to_l4()
    t["loss"].backward(retain_graph=True)
    kept = saved_boxes(tv.draw_backward(t["loss"], names=t, show_saved=True))
    assert len(kept) == 5 and all(box["label"].endswith("| v0") for box in kept)
    t["loss"].backward()
    freed = saved_boxes(tv.draw_backward(t["loss"], names=t, show_saved=True))
    assert len(freed) == 5
    assert all(box["label"].endswith("| freed") and box["fillcolor"] == style.FREED
               and "dotted" in box["style"] for box in freed)
    assert "saved self: (2, 2), freed" in str(tv.tree(t["loss"], names=t, show_saved=True))


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, power):
        ctx.save_for_backward(x, None)
        return x ** 3

    @staticmethod
    def backward(ctx, grad):
        x, _ = ctx.saved_tensors
        return 3 * x ** 2 * grad, None


def test_custom_function_saved_tensors_are_drawn_by_position():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = Cube.apply(x, 3)
    assert [s.freed for s in y.grad_fn._raw_saved_tensors if s is not None] == [False]
    fresh = saved_boxes(tv.draw_backward(y, names={"x": x, "y": y}, show_saved=True))
    assert [box["label"] for box in fresh] == ["saved saved_tensors[0] | x (2,) | v0"]
    y.sum().backward()
    text = str(tv.tree(y, names={"x": x, "y": y}, show_saved=True))
    assert "saved saved_tensors[0]: (2,), freed" in text


# ---- escaping, legend, determinism ----------------------------------------------------

AWKWARD = 'w"<b>&amp;{x}\\n'


def test_labels_are_escaped():
    w = torch.tensor(2.0, requires_grad=True)
    loss = (w * 3).sum()
    for drawing in (tv.draw_forward(loss, names={AWKWARD: w}),
                    tv.draw_backward(loss, names={AWKWARD: w}),
                    tv.draw(loss, names={AWKWARD: w})):
        assert AWKWARD in str(drawing)
        assert "&quot;&lt;b&gt;&amp;amp;{x}\\n" in drawing.source
        assert "<b>" not in drawing.source
        labels = [a["label"] for a in parse_dot(drawing.source)[0].values() if "label" in a]
        assert any(label.startswith(AWKWARD + " | ") for label in labels)


@needs_dot
def test_escaped_labels_render_as_valid_svg_showing_the_name():
    w = torch.tensor(2.0, requires_grad=True)
    drawing = tv.draw_backward((w * 3).sum(), names={AWKWARD: w})
    root = ET.fromstring(drawing.svg().encode("utf-8"))
    texts = ["".join(node.itertext()) for node in root.iter() if node.tag.endswith("text")]
    assert AWKWARD in texts


def test_legend_lists_the_roles_used_and_can_be_hidden():
    t = l1_to_l4()
    with_legend = tv.draw_forward(t["loss"], names=t).source
    legend = next(line for line in with_legend.splitlines() if "legend [" in line)
    for meaning in ("leaf tensor that requires grad", "intermediate tensor", "operation",
                    "root: the tensor backward starts from"):
        assert meaning in legend
    assert "saved tensor" not in legend
    assert "legend" not in tv.draw_forward(t["loss"], names=t, legend=False).source


def test_same_computation_gives_identical_dot_and_text():
    first, second = l1_to_l4(), l1_to_l4()
    for draw in (tv.draw_forward, tv.draw_backward, tv.draw):
        a, b = draw(first["loss"], names=first), draw(second["loss"], names=second)
        assert a.source == b.source and str(a) == str(b)
    assert "0x" not in tv.draw(first["loss"], names=first).source


def test_output_is_identical_across_processes_and_hash_seeds():
    program = textwrap.dedent("""
        import teachgrad as torch, teachgrad.viz as tv
        x = torch.ones(2, 2, requires_grad=True)
        w = torch.tensor(3.0, requires_grad=True)
        loss = (torch.sigmoid(x * w) + x).sum()
        d = tv.draw(loss, show_saved=True)
        print(d.source); print(d)
    """)
    outputs = set()
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                              env=env, check=True)
        outputs.add(done.stdout)
    assert len(outputs) == 1 and "SigmoidBackward0" in outputs.pop()


# ---- large graphs ---------------------------------------------------------------------

def test_max_nodes_draws_a_summary_node():
    x = torch.tensor(1.0, requires_grad=True)
    y = x
    for _ in range(100):
        y = y * 1.0
    drawing = tv.draw_backward(y, max_nodes=10)
    nodes, _ = parse_dot(drawing.source)
    assert len([n for n in nodes if n.startswith("b")]) == 10 + 1      # + the summary
    assert nodes["bmore"]["label"] == "… 91 more nodes"
    assert str(drawing).endswith("└─ …\n… 91 more nodes")
    forward = str(tv.draw_forward(y, max_nodes=10)).splitlines()
    assert forward[0] == "t0: scalar  made by the nodes left out"
    assert forward[1] == "t1: scalar 1.  leaf, no grad"       # y * 1.0: the saved constant
    assert "t2 = mul(t0, t1): scalar" in forward and forward[-1] == "… 91 more nodes"


def test_a_100000_node_chain_draws_quickly():
    x = torch.tensor(1.0, requires_grad=True)
    y = x
    for _ in range(100_000):
        y = y * 1.0
    start = time.perf_counter()
    drawings = [tv.draw_backward(y), tv.draw_forward(y), tv.draw(y)]
    tree = tv.tree(y)
    assert time.perf_counter() - start < 5
    assert "… 99,941 more nodes" in drawings[0].source      # 100,000 muls + 1 AccumulateGrad
    assert tree.endswith("… 99,941 more nodes")
    assert all(len(d.source) < 50_000 for d in drawings)


# ---- pictures, and the missing dot program ---------------------------------------------

@needs_dot
def test_every_drawing_renders_as_svg_that_parses_as_xml():
    t = l1_to_l4()
    t["loss"].backward(retain_graph=True)
    for drawing in (tv.draw_forward(t["loss"], names=t),
                    tv.draw_backward(t["loss"], names=t, show_saved=True),
                    tv.draw(t["loss"], names=t, show_saved=True),
                    tv.draw_backward(torch.ones(2))):
        parses_as_svg(drawing)
        bundle = drawing._repr_mimebundle_()
        assert set(bundle) == {"image/svg+xml", "text/vnd.graphviz", "text/plain"}
        assert bundle["text/plain"] == str(drawing)
        assert bundle["text/vnd.graphviz"] == drawing.source


@needs_dot
def test_render_writes_svg_png_and_pdf(tmp_path):
    t = l1_to_l4()
    drawing = tv.draw_backward(t["loss"], names=t)
    assert drawing.render(tmp_path / "graph.svg") == str(tmp_path / "graph.svg")
    ET.parse(tmp_path / "graph.svg")
    png = drawing.render(tmp_path / "graph", format="png")
    assert png.endswith("graph.png") and open(png, "rb").read(4) == b"\x89PNG"
    assert open(drawing.render(tmp_path / "graph.pdf"), "rb").read(4) == b"%PDF"


def test_without_dot_a_notebook_shows_the_text_form_and_how_to_install(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))          # an empty folder: no dot program
    t = l1_to_l4()
    drawing = tv.draw_backward(t["loss"], names=t)
    bundle = drawing._repr_mimebundle_()
    assert bundle == {"text/plain": str(drawing) + "\n" + INSTALL_HINT}
    assert "graphviz" in INSTALL_HINT and "\n" not in INSTALL_HINT
    with pytest.raises(DotMissing):
        drawing.render(tmp_path / "graph.svg")


def test_without_the_graphviz_package_the_text_form_still_shows(monkeypatch):
    from teachgrad.viz import drawing as drawing_module
    monkeypatch.setattr(drawing_module, "graphviz", None)
    drawing = tv.draw_forward(torch.ones(2, requires_grad=True) * 2)
    assert drawing._repr_mimebundle_() == {"text/plain": str(drawing) + "\n" + INSTALL_HINT}


def test_a_node_with_several_outputs_is_named_by_all_its_pieces():
    x = torch.arange(6.0).reshape(3, 2).requires_grad_()
    a, b, c = x.unbind()
    y = a * c
    text = str(tv.tree(y, names={"x": x, "a": a, "b": b, "c": c, "y": y}))
    assert text.splitlines()[1:] == ["├─ UnbindBackward0  a, b, c  [b1]",
                                     "│  └─ AccumulateGrad  x",
                                     "└─ UnbindBackward0  a, b, c  [b1, see above]"]


def test_backward_drawing_shows_an_index_nodes_saved_index_tensors():
    import teachgrad
    from teachgrad import viz
    x = teachgrad.arange(6.0).view(2, 3).requires_grad_()
    y = x[:, [0, 2]].sum()
    before = str(viz.draw_backward(y, show_saved=True))
    y.backward()
    after = str(viz.draw_backward(y, show_saved=True))
    assert "saved indices[1]: (2,), v0" in before
    assert "saved indices[1]: (2,), freed" in after
