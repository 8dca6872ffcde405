"""The two entry points to the engine: ``backward`` (accumulate into ``.grad``)
and ``grad`` (return the gradients, touch no ``.grad``)."""
import sys
import warnings

from teachgrad.autograd import anomaly, engine


def _as_tuple(x):
    if x is None:
        return ()
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _root_gradients(outputs, grad_outputs):
    """One starting gradient per output: given, or 1 for a scalar output."""
    from teachgrad import creation
    grad_outputs = _as_tuple(grad_outputs) or (None,) * len(outputs)
    if len(grad_outputs) != len(outputs):
        raise RuntimeError(f"grad requires the same number of grad_outputs as outputs: got "
                           f"{len(grad_outputs)} grad_outputs and {len(outputs)} outputs")
    grads = []
    for i, (out, grad) in enumerate(zip(outputs, grad_outputs)):
        if grad is None:
            if out.requires_grad and out.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            grad = creation.ones_like(out)
        elif grad.shape != out.shape:
            raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {grad.shape} "
                               f"and output[{i}] has a shape of {out.shape}.")
        elif not grad.requires_grad:
            grad = grad.detach().clone()     # the caller keeps theirs; the engine gets its own
        grads.append(grad)
    for i, out in enumerate(outputs):
        # (a view made under no_grad may say requires_grad, yet its gradient goes nowhere)
        if not out.requires_grad or out._gradient_edge()[0] is None:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not "
                               "have a grad_fn")
    return grads


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Compute the gradients of ``tensors`` and add them into the leaves' ``.grad``."""
    outputs = _as_tuple(tensors)
    root_grads = _root_gradients(outputs, grad_tensors)
    if retain_graph is None:
        retain_graph = create_graph
    input_edges = None
    if inputs is not None:
        inputs = _as_tuple(inputs)
        if not inputs:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
        input_edges = {t._gradient_edge(): t for t in inputs}
    if create_graph:
        _warn_once_about_the_cycle()
    task = engine.GraphTask([out._gradient_edge() for out in outputs], root_grads,
                            retain_graph, create_graph, inputs=input_edges)
    engine.run_backward(task)


_warned_about_the_cycle = []      # PyTorch gives this warning once per process


def _warn_once_about_the_cycle():
    """A ``.grad`` with a graph can hold its own leaf: PyTorch warns about the cycle."""
    if not _warned_about_the_cycle:
        _warned_about_the_cycle.append(True)
        warnings.warn("Using backward() with create_graph=True will create a reference cycle "
                      "between the parameter and its gradient which can cause a memory leak. We "
                      "recommend using autograd.grad when creating the graph to avoid this. If "
                      "you have to use this function, make sure to reset the .grad fields of your "
                      "parameters to None after use to break the cycle and avoid the leak.",
                      UserWarning, stacklevel=_stacklevel_of_caller())


def _stacklevel_of_caller():
    """The ``stacklevel`` that points a warning at the first frame outside teachgrad."""
    frame, level = sys._getframe(1), 1
    while frame is not None and anomaly.in_teachgrad(frame.f_code.co_filename):
        frame, level = frame.f_back, level + 1
    return level


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, materialize_grads=False):
    """The gradients of ``outputs`` with respect to ``inputs``, as a tuple.
    (``only_inputs``, as old programs such as WGAN-GP's pass it, changes nothing.)"""
    if not only_inputs:
        warnings.warn("only_inputs argument is deprecated and is ignored now (defaults to "
                      "True). To accumulate gradient for other parts of the graph, please use "
                      "torch.autograd.backward.", FutureWarning, stacklevel=2)
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when "
                         "materialize_grads=True, but got: allow_unused=False.")
    outputs, inputs = _as_tuple(outputs), _as_tuple(inputs)
    for t in inputs:
        if not t.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    root_grads = _root_gradients(outputs, grad_outputs)
    if retain_graph is None:
        retain_graph = create_graph
    if allow_unused is None:
        allow_unused = materialize_grads
    input_edges = [t._gradient_edge() for t in inputs]
    task = engine.GraphTask([out._gradient_edge() for out in outputs], root_grads,
                            retain_graph, create_graph, inputs=dict(zip(input_edges, inputs)),
                            capture=True)
    engine.run_backward(task)
    results = []
    for i, (t, edge) in enumerate(zip(inputs, input_edges)):
        g = task.captured.get(edge)
        if g is None and not allow_unused:
            raise RuntimeError(f"The differentiated Tensor at index {i} appears to not have "
                               "been used in the graph. Set allow_unused=True if this is the "
                               "desired behavior.")
        if g is None and materialize_grads:
            from teachgrad import creation
            g = creation.zeros_like(t)
        results.append(g)
    return tuple(results)
