"""Chapter 06 — what backward keeps: freeing saved tensors, retain_graph, create_graph, grad().

After a backward without `retain_graph=True`, every node that ran lets go of its saved tensors
(`SavedTensor.release`); reading one again raises PyTorch's "Trying to backward through the
graph a second time" error. With `create_graph=True` the engine records while it runs the
backward formulas — they are yourgrad operations — so the gradient has a graph of its own and
can be differentiated again. `grad()` returns gradients instead of adding them into `.grad`.
"""
from . import engine, graph
from .function import Function, gradcheck  # noqa: F401 (chapter 08: yourgrad.autograd.Function)



def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         allow_unused=False):
    """The gradients of `outputs` with respect to `inputs`, as a tuple; no `.grad` changes.

    Starts like backward (engine.roots_and_gradients), runs the engine with a `capture` dict
    whose keys are the inputs' nodes (graph.gradient_edge) and reads the gradients from it.
    An input that needs no grad raises PyTorch's "One of the differentiated Tensors does not
    require grad"; one the outputs do not depend on raises "The differentiated Tensor at index
    1 appears to not have been used in the graph. Set allow_unused=True if this is the
    desired behavior.", or gives None with `allow_unused=True`. `retain_graph` defaults to
    `create_graph`, as in backward."""
    outputs, inputs = as_list(outputs), as_list(inputs)
    grad_outputs = [None] * len(outputs) if grad_outputs is None else as_list(grad_outputs)
    raise NotImplementedError("chapter 06: run the engine capturing the gradients at the inputs' nodes")


def as_list(tensors):
    return list(tensors) if isinstance(tensors, (list, tuple)) else [tensors]
