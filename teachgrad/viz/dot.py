"""A drawing as plain data (boxes and arrows), and the DOT text graphviz reads.

Every drawing is first a ``Scene``; the step-through frames and the side-by-side
view are scenes changed or combined before they are written out. Labels are
graphviz's HTML-like labels with all text escaped, so a name containing quotes,
``<``, ``>``, ``&`` or braces shows as written and the SVG stays valid XML.
"""
import html
import re
from dataclasses import dataclass, field

from teachgrad.viz import style

NOT_IN_AN_ID = re.compile(r"\W")     # what a cluster's DOT id cannot hold (its title can)


@dataclass
class Row:
    """One line of a label."""
    text: str
    bold: bool = False
    hidden: bool = False    # written in the background colour: it keeps its place, unseen


@dataclass
class Box:
    id: str
    role: str               # a key of style.NODE_ROLES
    rows: list
    attrs: dict = field(default_factory=dict)     # changes to the role's look
    cluster: str = None


@dataclass
class Arrow:
    tail: str
    head: str
    role: str               # a key of style.EDGE_ROLES
    label: list = field(default_factory=list)
    attrs: dict = field(default_factory=dict)
    key: tuple = None       # what it stands for, e.g. (node, position) for a gradient edge


class Scene:
    """The boxes and arrows of one drawing, in the order they were added."""

    def __init__(self, title=None):
        self.title = title          # a list of rows shown above the drawing, or None
        self.boxes = {}
        self.arrows = []
        self.notes = []             # lines at the foot of the legend

    def box(self, box_id, role, rows, **attrs):
        self.boxes[box_id] = Box(box_id, role, list(rows), attrs)
        return self.boxes[box_id]

    def arrow(self, tail, head, role, label=(), key=None, **attrs):
        self.arrows.append(Arrow(tail, head, role, list(label), attrs, key))
        return self.arrows[-1]


# ---- writing DOT ---------------------------------------------------------------

def html_label(rows, background=style.WHITE):
    """Rows as an HTML-like label: ``<w1<BR/>scalar 2.>``, every row escaped."""
    parts = []
    for row in rows:
        text = html.escape(row.text) if row.text else " "
        if row.bold:
            text = f"<B>{text}</B>"
        if row.hidden:
            text = f'<FONT COLOR="{background}">{text}</FONT>'
        parts.append(text)
    return "<" + "<BR/>".join(parts) + ">"


def attribute_list(attrs):
    """``[shape="box", label=<...>]``; HTML labels go unquoted, other values quoted."""
    items = []
    for name, value in attrs.items():
        value = str(value)
        if not (name == "label" and value.startswith("<")):
            value = '"' + value.replace('"', '\\"') + '"'
        items.append(f"{name}={value}")
    return "[" + ", ".join(items) + "]"


def box_line(box):
    attrs = {**style.NODE_ROLES[box.role][0], **box.attrs}
    attrs = {"label": html_label(box.rows, style.fill_of(attrs)), **attrs}
    return f"{box.id} {attribute_list(attrs)}"


def arrow_line(arrow):
    attrs = {**style.EDGE_ROLES[arrow.role], **arrow.attrs}
    if arrow.label:
        attrs = {"label": html_label(arrow.label), **attrs}
    text = f"{arrow.tail} -> {arrow.head}"
    return f"{text} {attribute_list(attrs)}" if attrs else text


def legend_line(scene):
    """One table node listing the roles this scene uses, and the scene's notes."""
    rows = ['<TR><TD COLSPAN="2" ALIGN="LEFT"><B>legend</B></TD></TR>']
    used = {box.role for box in scene.boxes.values()}
    for role, (attrs, meaning) in style.NODE_ROLES.items():
        if role in used:
            border = next((s for s in ("dashed", "dotted", "rounded")
                           if s in attrs.get("style", "")), "solid")
            rows.append(f'<TR><TD BORDER="1" WIDTH="28" BGCOLOR="{style.fill_of(attrs)}" '
                        f'COLOR="{attrs.get("color", style.INK)}" STYLE="{border}"> </TD>'
                        f'<TD ALIGN="LEFT">{html.escape(meaning)}</TD></TR>')
    for note in scene.notes:
        rows.append(f'<TR><TD COLSPAN="2" ALIGN="LEFT">{html.escape(note)}</TD></TR>')
    table = ('<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="2" CELLPADDING="2">'
             + "".join(rows) + "</TABLE>>")
    return f'legend {attribute_list({"label": table, "shape": "plaintext", "fontsize": "10"})}'


def dot_source(scene, legend=True, size=None):
    """The DOT text of a scene; boxes with a ``cluster`` are grouped and titled by it.
    ``size`` is graphviz's maximum size in inches (``"4,5"``), or None."""
    graph_attrs = dict(style.GRAPH)
    if scene.title:
        graph_attrs.update(label=html_label(scene.title), labelloc="t")
    if size:
        graph_attrs["size"] = size
    lines = ["digraph {", f"  graph {attribute_list(graph_attrs)}",
             f"  node {attribute_list(style.NODE)}", f"  edge {attribute_list(style.EDGE)}"]
    clusters = {}
    for box in scene.boxes.values():
        clusters.setdefault(box.cluster, []).append(box)
    for cluster, boxes in clusters.items():
        if cluster is None:
            lines.extend("  " + box_line(box) for box in boxes)
            continue
        title = {"label": html_label([Row(cluster, bold=True)]), **style.CLUSTER}
        lines.append(f"  subgraph cluster_{NOT_IN_AN_ID.sub('_', cluster)} {{")
        lines.append(f"    graph {attribute_list(title)}")
        lines.extend("    " + box_line(box) for box in boxes)
        lines.append("  }")
    lines.extend("  " + arrow_line(arrow) for arrow in scene.arrows)
    if legend and scene.boxes:          # alone on the bottom rank: under the graph, not beside
        lines.append("  {rank=sink; " + legend_line(scene) + "}")
    lines.append("}")
    return "\n".join(lines) + "\n"
