"""The forward and the backward graph of one computation, side by side.

A dashed arrow goes from each tensor to its ``grad_fn`` (from a leaf to its
``AccumulateGrad``): the only link between the two graphs that PyTorch keeps.
"""
from teachgrad.viz import naming
from teachgrad.viz.backward import BackwardScene
from teachgrad.viz.dot import Scene, dot_source
from teachgrad.viz.drawing import Drawing
from teachgrad.viz.forward import ForwardScene
from teachgrad.viz.graph_walk import walk
from teachgrad.viz.text import tree_text

LINK_NOTE = "dashed arrows: from a tensor to its grad_fn (a leaf: to its AccumulateGrad)"


def combined_scene(forward, backward):
    """One scene with the two graphs as clusters, and the tensor -> grad_fn links."""
    scene = Scene()
    for cluster, part in (("forward", forward), ("backward", backward)):
        for box in part.boxes.values():
            box.cluster = cluster
            scene.boxes[box.id] = box
        scene.arrows.extend(part.arrows)
        scene.notes.extend(part.notes)
    scene.notes.append(LINK_NOTE)
    graph = backward.graph
    for (kind, node, *_), tensor_id in forward.tensor_ids.items():
        if kind in ("output", "leaf") and graph.is_kept(node):
            scene.arrow(tensor_id, graph.node_id(node), "grad_fn")
    return scene


def draw(*roots, names=None, show_saved=False, show_grads=True, legend=True, max_nodes=60):
    """Draw the forward graph (left) and the backward graph (right) of ``roots``.

    The options are those of ``draw_backward``; the text form is the forward
    listing followed by the backward tree.
    """
    names = naming.resolve(names, roots)
    graph = walk(roots, max_nodes)
    forward = ForwardScene(graph, names, show_grads)
    backward = BackwardScene(graph, names, show_saved, show_grads, leaf_boxes=False)
    text = ("forward:\n" + forward.text + "\n\nbackward:\n"
            + tree_text(graph, names, show_saved, show_grads))
    return Drawing(dot_source(combined_scene(forward, backward), legend), text)
