"""The course's one colour scheme, and the legend that explains it.

The colours are tints of the Okabe–Ito palette, which readers with any common form of colour
blindness can tell apart. Colour is never the only sign: every role also has its own shape,
border or line style (a bold border for the root, diagonal corners for a stale saved tensor,
a double border for AccumulateGrad, dashes for what needs no grad, dots for what is freed),
and the fills have clearly different grey levels (given in the comments), so a drawing still
reads when printed in black and white.
"""

FONT = "Helvetica"
INK = "#252525"          # lines and text
MUTED = "#969696"        # what has not happened yet, or is gone
WHITE = "#ffffff"

LEAF = "#a6d9f7"         # sky blue tint, grey 81%: leaves, and where they receive their gradient
ROOT = "#e69f00"         # orange, grey 64%: the root, where backward starts (bold border)
OPERATION = "#f7f0a0"    # yellow tint, grey 92%: forward operations (ellipses)
BACKWARD = "#d9d9d9"     # light grey, grey 85%: backward nodes (grad_fn boxes)
SAVED = "#fff7e6"        # cream, grey 97%: saved tensors (note shape)
STALE = "#cc79a7"        # reddish purple, grey 57%: saved tensor changed in place since
                         # (bold border and diagonal corners as well)
FREED = "#f0f0f0"        # pale grey, dotted outline, grey text: freed saved tensor
ALERT = "#d55e00"        # vermilion outline: the node an error or a step is about
RUNNING = "#0072b2"      # blue outline: the node running in this step

GRAPH = {"fontname": FONT, "fontsize": "12", "nodesep": "0.3", "ranksep": "0.35"}
NODE = {"fontname": FONT, "fontsize": "11", "color": INK, "height": "0.3", "margin": "0.1,0.04"}
EDGE = {"fontname": FONT, "fontsize": "10", "color": INK, "arrowsize": "0.7"}
CLUSTER = {"color": MUTED, "style": "rounded"}

# role -> (graphviz attributes, what the legend says)
NODE_ROLES = {
    "leaf": ({"shape": "box", "style": "filled,rounded", "fillcolor": LEAF},
             "leaf tensor that requires grad"),
    "constant": ({"shape": "box", "style": "filled,rounded,dashed", "fillcolor": LEAF},
                 "leaf tensor that needs no grad (dashed)"),
    "tensor": ({"shape": "box", "style": "filled,rounded", "fillcolor": WHITE},
               "intermediate tensor"),
    "root": ({"shape": "box", "style": "filled,rounded,bold", "fillcolor": ROOT},
             "root: the tensor backward starts from"),
    "operation": ({"shape": "ellipse", "style": "filled", "fillcolor": OPERATION},
                  "operation"),
    "root_grad_fn": ({"shape": "box", "style": "filled,bold", "fillcolor": ROOT},
                     "the root's grad_fn: backward starts here"),
    "grad_fn": ({"shape": "box", "style": "filled", "fillcolor": BACKWARD},
                "backward node (a grad_fn)"),
    "accumulate": ({"shape": "box", "style": "filled", "fillcolor": LEAF, "peripheries": "2"},
                   "AccumulateGrad: adds into a leaf's .grad (double border)"),
    "failed": ({"shape": "box", "style": "filled,bold", "fillcolor": BACKWARD, "color": ALERT,
                "penwidth": "3"}, "the node whose backward needed the changed tensor"),
    "inplace": ({"shape": "box", "style": "filled,dashed,bold", "fillcolor": BACKWARD,
                 "color": ALERT, "penwidth": "2"},
                "the in-place operation that changed it (the tensor's grad_fn now)"),
    "saved": ({"shape": "note", "style": "filled", "fillcolor": SAVED},
              "saved tensor, with the version it was saved at"),
    "stale": ({"shape": "note", "style": "filled,bold,diagonals", "fillcolor": STALE,
               "color": ALERT},
              "saved tensor changed in place since: backward fails"),
    "freed": ({"shape": "note", "style": "filled,dotted", "fillcolor": FREED,
               "fontcolor": MUTED}, "saved tensor freed by backward"),
    "summary": ({"shape": "box", "style": "dashed", "fontcolor": MUTED, "color": MUTED},
                "nodes left out (see max_nodes)"),
    # a traced program (viz.draw_program): instructions are boxes, buffers are arrows
    "program_input": ({"shape": "box", "style": "filled,rounded", "fillcolor": LEAF},
                      "input: a tensor's array, read on every call"),
    "program_constant": ({"shape": "box", "style": "filled,rounded,dashed", "fillcolor": WHITE},
                         "constant kept from the trace (dashed)"),
    "instruction": ({"shape": "box", "style": "filled", "fillcolor": OPERATION},
                    "instruction: one numpy call"),
    "check": ({"shape": "hexagon", "style": "filled", "fillcolor": WHITE, "color": ALERT},
              "check: a branch the trace took, tested on every call"),
    "program_output": ({"shape": "box", "style": "filled,rounded,bold", "fillcolor": ROOT},
                       "what the program returns"),
}

EDGE_ROLES = {
    "data": {},                                            # forward: input -> operation -> output
    "gradient": {"dir": "back"},                           # laid out leaves up, arrow = flow
    "accumulate": {"dir": "back", "style": "bold"},        # AccumulateGrad -> its leaf tensor
    "saved": {"style": "dashed", "arrowhead": "none", "color": MUTED},
    "grad_fn": {"style": "dashed", "color": MUTED, "arrowhead": "open",
                "minlen": "0"},                            # may share a rank: side by side
    "summary": {"style": "dashed", "color": MUTED},
    "buffer": {},                                          # a program's value, filled -> read
    "writes": {"style": "bold", "color": ALERT},           # an in-place write into a buffer
}


def fill_of(attrs):
    """The background a label is drawn on (to hide text by writing it in that colour)."""
    return attrs.get("fillcolor", WHITE) if "filled" in attrs.get("style", "") else WHITE
