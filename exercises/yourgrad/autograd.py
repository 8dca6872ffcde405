"""Chapter 06 — what backward keeps: freed saved tensors, retain_graph, create_graph, grad()."""
from . import engine, graph
from .function import Function, gradcheck  # noqa: F401 (chapter 08: yourgrad.autograd.Function)

def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         allow_unused=False):
    """The gradients of `outputs` with respect to `inputs`, as a tuple, leaving `.grad` alone:
    run engine.backward with a `capture` dict keyed by the inputs' nodes (graph.gradient_edge).
    PyTorch's RuntimeErrors: "One of the differentiated Tensors does not require grad"; for an
    unused input (None with allow_unused) "The differentiated Tensor at index 1 appears to not
    have been used in the graph. Set allow_unused=True if this is the desired behavior."."""
    outputs, inputs = as_list(outputs), as_list(inputs)
    grad_outputs = [None] * len(outputs) if grad_outputs is None else as_list(grad_outputs)
    raise NotImplementedError("chapter 06: run the engine capturing the gradients at the inputs' nodes")

def as_list(tensors):
    return list(tensors) if isinstance(tensors, (list, tuple)) else [tensors]
