"""The backward graph as an indented text tree: no graphviz needed.

This is also the text form of ``draw_backward``: what notebook tests compare.
A node reached along two paths is written out once; the second time it reads
``[b4, see above]``, with the same id as in the DOT source.

    MeanBackward0  loss
    └─ MulBackward0  l4
       ├─ AddBackward0  l2
       ...
"""
from teachgrad.viz import labels, naming
from teachgrad.viz.graph_walk import walk


class Text(str):
    """A string that a notebook shows as it prints (not as a quoted repr)."""

    def __repr__(self):
        return str(self)


def tree_text(graph, names, show_saved=False, show_grads=True, marks=None):
    """The lines of the tree, joined; ``marks`` maps a node to words added to its line."""
    if not graph.nodes:
        return "no backward graph: nothing here requires grad"
    marks = marks or {}
    lines = []
    written = set()
    stack = [(node, "", "") for node, _ in reversed(graph.root_edges)]
    while stack:
        node, head, rest = stack.pop()
        if not graph.is_kept(node):
            lines.append(head + "…")
            continue
        facts = labels.NodeFacts(node, graph, names, show_grads)
        shared = graph.uses.get(node, 0) + graph.is_root(node) > 1
        node_id = graph.node_id(node)
        if node in written:
            lines.append(f"{head}{facts.title}  {facts.subject}  [{node_id}, see above]")
            continue
        written.add(node)
        words = [facts.line(), f"[{node_id}]" if shared else "", marks.get(node, "")]
        lines.append(head + "  ".join(word for word in words if word))
        children = [child for child, _ in node.next_functions if child is not None]
        if show_saved:
            inner = rest + ("│  " if children else "   ")
            lines.extend(f"{inner}saved {slot}: {what}, {status}"
                         for slot, _, what, status in labels.saved_facts(node, names))
        for i in reversed(range(len(children))):
            last = i == len(children) - 1
            stack.append((children[i], rest + ("└─ " if last else "├─ "),
                          rest + ("   " if last else "│  ")))
    if graph.hidden:
        lines.append(f"… {graph.hidden:,} more nodes")
    return "\n".join(lines)


def tree(*roots, names=None, show_saved=False, show_grads=True, max_nodes=60):
    """The backward graph behind ``roots`` as an indented text tree (prints nicely)."""
    names = naming.resolve(names, roots)
    return Text(tree_text(walk(roots, max_nodes), names, show_saved, show_grads))
