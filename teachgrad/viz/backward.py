"""The backward graph as PyTorch stores it: ``grad_fn`` nodes and ``next_functions``.

Nodes carry PyTorch's names (``MulBackward0``). An arrow goes from a node to
each node in its ``next_functions``: the way the gradient flows. The drawing is
laid out with the leaves at the top, like the forward graph, so the two can be
read side by side. Each ``AccumulateGrad`` is linked to its leaf tensor, which
shows its ``.grad`` once backward has run; inputs that need no gradient have no
node at all, exactly as in ``next_functions`` (``(None, 0)``).
"""
from teachgrad.viz import labels, naming, public
from teachgrad.viz.dot import Row, Scene, dot_source
from teachgrad.viz.drawing import Drawing
from teachgrad.viz.graph_walk import walk
from teachgrad.viz.text import tree_text

GRADIENT_NOTE = "arrows: the gradient flows along next_functions"


def node_role(node, graph):
    if public.is_accumulate(node):
        return "accumulate"
    return "root_grad_fn" if graph.is_root(node) else "grad_fn"


def node_rows(facts, node):
    """A node's name, its output's name (or shape), its hooks, a retained gradient.
    An AccumulateGrad shows only its name and hooks: its leaf has a box of its own."""
    if public.is_accumulate(node):
        return [Row(facts.title)] + [Row(mark) for mark in facts.marks]
    rows = [Row(facts.title), Row(facts.subject, bold=facts.name is not None)]
    rows.extend(Row(mark) for mark in facts.marks)
    if facts.grad:
        rows.append(Row(facts.grad))
    return rows


def leaf_rows(facts):
    rows = [Row(facts.name, bold=True)] if facts.name else []
    rows.extend(Row(line) for line in labels.box_lines(labels.tensor_facts(facts.tensor)))
    if facts.grad:
        rows.append(Row(facts.grad))
    return rows


class BackwardScene(Scene):
    """The scene of a backward graph, remembering which box stands for what.

    ``leaf_boxes=False`` leaves out the leaf tensors (the side-by-side view links
    AccumulateGrad to the forward drawing's leaves instead).
    """

    summary_id = "bmore"     # the box that stands for the nodes left out

    def __init__(self, graph, names, show_saved=False, show_grads=True, leaf_boxes=True):
        super().__init__()
        self.graph = graph
        self.leaf_ids = {}      # AccumulateGrad node -> id of its leaf tensor's box
        self.saved_ids = {}     # (node, slot) -> id of the box of that saved tensor
        self.notes.append(GRADIENT_NOTE)
        for node in graph.nodes:
            self._add_node(node, names, show_saved, show_grads, leaf_boxes)
        for node in graph.nodes:
            self._add_gradient_arrows(node)
        if graph.hidden:
            self.box(self.summary_id, "summary", [Row(f"… {graph.hidden:,} more nodes")])

    def _add_node(self, node, names, show_saved, show_grads, leaf_boxes):
        node_id = self.graph.node_id(node)
        facts = labels.NodeFacts(node, self.graph, names, show_grads)
        self.box(node_id, node_role(node, self.graph), node_rows(facts, node))
        if public.is_accumulate(node) and leaf_boxes:
            leaf_id = "v" + node_id[1:]
            role = "root" if any(node.variable is t for t in self.graph.root_tensors) else "leaf"
            self.box(leaf_id, role, leaf_rows(facts))
            self.arrow(leaf_id, node_id, "accumulate", key=(node, "accumulate"))
            self.leaf_ids[node] = leaf_id
        if show_saved:
            for slot, saved, what, status in labels.saved_facts(node, names):
                saved_id = f"s{len(self.saved_ids)}"
                self.box(saved_id, saved.state,
                         [Row(f"saved {slot}", bold=True), Row(what), Row(status)])
                self.arrow(saved_id, node_id, "saved")
                self.saved_ids[node, slot] = saved_id

    def _add_gradient_arrows(self, node):
        node_id = self.graph.node_id(node)
        leads_to_hidden = False
        for position, (next_node, _) in enumerate(node.next_functions):
            if next_node is None:
                continue
            if self.graph.is_kept(next_node):
                self.arrow(self.graph.node_id(next_node), node_id, "gradient",
                           key=(node, position))
            else:
                leads_to_hidden = True
        if leads_to_hidden:
            self.arrow(self.summary_id, node_id, "summary", dir="back")


def no_graph_scene(roots, names):
    """What to draw for tensors that do not require grad: a note saying so."""
    scene = Scene()
    described = ", ".join(names.of(t) or labels.shape_text(t.shape) for t in roots)
    scene.box("none", "summary", [Row(f"no backward graph: {described} requires no grad")])
    return scene


def draw_backward(*roots, names=None, show_saved=False, show_grads=True, legend=True,
                  max_nodes=60):
    """Draw the backward graph behind ``roots``.

    ``names``: a dict of name -> tensor for the labels (default: the caller's
    variables). ``show_saved``: show each saved tensor beside the node that
    saved it, with its version (red when changed in place since, grey once
    freed by backward). ``show_grads``: show the leaves' ``.grad`` (and that of
    tensors that retain it). At most ``max_nodes`` nodes are drawn.
    """
    names = naming.resolve(names, roots)
    graph = walk(roots, max_nodes)
    scene = BackwardScene(graph, names, show_saved, show_grads) if graph.nodes \
        else no_graph_scene(roots, names)
    text = tree_text(graph, names, show_saved, show_grads)
    return Drawing(dot_source(scene, legend), text)
