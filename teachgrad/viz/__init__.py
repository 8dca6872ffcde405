"""teachgrad.viz: drawings of the forward and backward graphs, made from the live objects.

    import teachgrad.viz as tv
    tv.draw_forward(loss)                  # tensors and operations
    tv.draw_backward(loss, show_saved=True)  # grad_fn nodes, next_functions, saved tensors
    tv.draw(loss)                          # both, side by side
    tv.draw_beside(example, teachgrad, yourgrad)  # one example's graph in two libraries
    tv.draw_program(step.program, beside=loss)  # a teachgrad.compile program as a graph
    tv.backward_steps(loss)                # backward one node at a time (runs backward)
    tv.explain(error)                      # what the in-place error of backward means
    print(tv.tree(loss))                   # the backward graph as text, no graphviz needed

Every drawing shows as SVG in a notebook, has ``.source`` (DOT), ``.render(path)``
and a stable text form, ``str(drawing)``. Tensors are labelled with the caller's
variable names (or ``names={"w": w}``), and the graph is read only through what
PyTorch also exposes: ``grad_fn``, ``next_functions``, ``name()``, ``variable``, saved
tensors (``teachgrad.viz.public``). So the same drawing works on a teachgrad tensor, on one of
the student's ``yourgrad`` and on a real ``torch`` tensor.
"""
from teachgrad.viz.backward import draw_backward
from teachgrad.viz.beside import draw_beside
from teachgrad.viz.drawing import Drawing
from teachgrad.viz.explain import explain
from teachgrad.viz.forward import draw_forward
from teachgrad.viz.program import draw_program
from teachgrad.viz.side_by_side import draw
from teachgrad.viz.steps import BackwardSteps, backward_steps
from teachgrad.viz.text import tree

__all__ = ["BackwardSteps", "Drawing", "backward_steps", "draw", "draw_backward",
           "draw_beside", "draw_forward", "draw_program", "explain", "tree"]
