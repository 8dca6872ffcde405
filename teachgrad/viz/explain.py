"""Explain the error backward raises for a tensor changed in place after it was saved.

The error carries ``error.saved`` (the SavedTensor whose version moved on) and
``error.node`` (the node whose backward needed it). The drawing is the backward
graph from that node on, with the node outlined in red, the stale saved tensor
in red beside it, and one sentence saying what happened.
"""
import textwrap

from teachgrad.viz import labels, naming, public, style
from teachgrad.viz.backward import BackwardScene
from teachgrad.viz.dot import Row, dot_source
from teachgrad.viz.drawing import Drawing
from teachgrad.viz.graph_walk import Graph
from teachgrad.viz.text import tree_text


def slot_of(node, saved):
    """The name under which ``node`` saved ``saved`` (``self``, ``other``, ``result``)."""
    return next((s.slot for s in public.saved_tensors(node) if s.record is saved), None)


def what_happened(node, saved, changer=None, tensor_name=None):
    """One sentence: which node needed which tensor, and what became of it."""
    slot = slot_of(node, saved)
    if saved.is_output:
        needed = "its own result"
    else:
        needed = f"its input `{slot}`" if slot else "one of its inputs"
    which = f"that tensor (`{tensor_name}`)" if tensor_name else "that tensor"
    if changer is not None:
        by = f", by the operation now recorded as its grad_fn, {labels.node_title(changer)}"
    else:
        by = " without any node recording it, under no_grad or through detach()"
    return (f"{labels.node_title(node)} saved {needed} (shape {labels.shape_text(saved.shape)}, at version "
            f"{saved.saved_version}) to compute its gradient, but {which} was then changed "
            f"in place{by} (it is at version {saved.current_version} now), so backward stopped "
            "rather than compute the gradient from the wrong values.")


def explain(error, names=None, legend=True, max_nodes=60):
    """Draw what went wrong in backward's in-place error, with a sentence saying it."""
    saved, node = getattr(error, "saved", None), getattr(error, "node", None)
    if saved is None or node is None:
        raise TypeError("explain() takes the error raised by backward for a tensor modified "
                        "in place (it carries .saved and .node); got "
                        f"{type(error).__name__}: {error}")
    changed = getattr(error, "tensor", None)
    names = naming.resolve(names, [changed] if changed is not None else [])
    changer = changed.grad_fn if changed is not None else None
    if changer is not None and changer._sequence_nr() <= node._sequence_nr():
        changer = None    # the tensor's grad_fn is older than the save: the change was not recorded
    roots = [(node, 0)] + ([(changer, 0)] if changer is not None and changer is not node else [])
    graph = Graph(roots, max_nodes)
    tensor_name = names.of(changed) if changed is not None else None
    sentence = what_happened(node, saved, changer, tensor_name)
    scene = BackwardScene(graph, names, show_saved=True, show_grads=False)
    scene.title = [Row(line) for line in textwrap.wrap(sentence, 80)]
    scene.boxes[graph.node_id(node)].role = "failed"
    if changer is not None and changer in graph.number:
        scene.boxes[graph.node_id(changer)].role = "inplace"
    saved_id = scene.saved_ids.get((node, slot_of(node, saved)))
    for arrow in scene.arrows:
        if arrow.tail == saved_id:
            arrow.label = [Row("changed in place since")]
            arrow.attrs.update(style="bold", color=style.ALERT)
    mark = {node: "<- needed a saved tensor that was changed in place"}
    if changer is not None:
        mark[changer] = "<- the in-place change"
    text = sentence + "\n\n" + tree_text(graph, names, show_saved=True, show_grads=False,
                                         marks=mark)
    return Drawing(dot_source(scene, legend), text)
