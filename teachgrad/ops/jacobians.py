"""Whole derivatives of a function, as ``torch.autograd.functional`` gives them:
``vjp``, ``jvp``, ``jacobian``, ``hessian``, ``hvp`` and ``vhp``.

Each is a few calls of ``autograd.grad``: a Jacobian is one backward per output
element, a Hessian is the Jacobian of the gradient (built with ``create_graph``), and
a Hessian-vector product is the gradient of ``gradient · v`` — no Hessian is formed.
They live with the ops because they stack and reshape tensors; ``ops/__init__.py``
makes them attributes of ``teachgrad.autograd.functional``, where PyTorch has them.
"""
from teachgrad import creation
from teachgrad.autograd import forward_ad, functional
from teachgrad.ops.shape import stack
from teachgrad.tensor import Tensor

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


def _as_tuple(value, what, function_name):
    if isinstance(value, Tensor):
        return False, (value,)
    if isinstance(value, tuple) and all(isinstance(v, Tensor) for v in value):
        return True, value
    raise TypeError(f"The {what} given to {function_name} must be either a Tensor or a tuple "
                    f"of Tensors but the value at index 0 has type {type(value)}.")


def _fresh(inputs, create_graph):
    """The inputs as tensors that require grad. Under create_graph they stay connected to
    the caller's graph (a view); otherwise they are new leaves, as in PyTorch."""
    if create_graph:
        return tuple(x.view_as(x) if x.requires_grad else x.detach().requires_grad_()
                     for x in inputs)
    return tuple(x.detach().requires_grad_() for x in inputs)


def _results(tensors, create_graph):
    return tuple(t if create_graph or t is None else t.detach() for t in tensors)


def _gradients(outputs, inputs, grad_outputs, create_graph, strict, output_index=0):
    """``autograd.grad`` with zeros for inputs the outputs do not use (or, with ``strict``,
    PyTorch's error)."""
    grads = functional.grad(outputs, inputs, grad_outputs, retain_graph=True,
                            create_graph=create_graph, allow_unused=True)
    result = []
    for i, (g, x) in enumerate(zip(grads, inputs)):
        if g is None:
            if strict:
                raise RuntimeError(f"Output {output_index} of the user-provided function is "
                                   f"independent of input {i}. This is not allowed in strict "
                                   f"mode.")
            g = creation.zeros_like(x)
        result.append(g)
    return tuple(result)


def _call(func, inputs, function_name):
    outputs = func(*inputs)
    return _as_tuple(outputs, "outputs of the user-provided function", function_name)


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """``v`` times the Jacobian of ``func`` at ``inputs``: one backward from ``v``."""
    is_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
    inputs = _fresh(inputs, create_graph)
    out_is_tuple, outputs = _call(func, inputs, "vjp")
    if v is None:
        if any(o.numel() != 1 for o in outputs):
            raise RuntimeError("The vector v can only be None if the user-provided function "
                               "returns a single Tensor with a single element.")
        v = tuple(creation.ones_like(o) for o in outputs)
    else:
        v = _as_tuple(v, "v", "vjp")[1]
    grads = _gradients(outputs, inputs, v, create_graph, strict)
    return _shaped(_results(outputs, create_graph), out_is_tuple), \
        _shaped(_results(grads, create_graph), is_tuple)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """The Jacobian of ``func`` times ``v``, by the double-backward trick: the gradient of
    ``u · J`` with respect to ``u`` is ``J v`` once dotted with ``v``."""
    is_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
    inputs = _fresh(inputs, create_graph)
    out_is_tuple, outputs = _call(func, inputs, "jvp")
    v = _vector_for_inputs(v, inputs, "jvp")
    u = tuple(creation.zeros_like(o).requires_grad_() for o in outputs)
    u_jacobian = _gradients(outputs, inputs, u, True, strict)
    grads = _gradients(u_jacobian, u, v, create_graph, strict)
    return _shaped(_results(outputs, create_graph), out_is_tuple), \
        _shaped(_results(grads, create_graph), out_is_tuple)


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """d outputs / d inputs, one backward per output element (``strategy="reverse-mode"``)
    or one forward-mode pass per input element (``"forward-mode"``, which PyTorch allows
    only with ``vectorize=True``). Each block has the output's shape followed by the
    input's shape. (``vectorize`` changes how PyTorch batches the passes, not the result:
    here every pass is its own.)"""
    _check_strategy(strategy, vectorize, create_graph, strict)
    if strategy == "forward-mode":
        return _forward_mode_jacobian(func, inputs)
    is_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
    inputs = _fresh(inputs, create_graph)
    out_is_tuple, outputs = _call(func, inputs, "jacobian")
    blocks = []
    for j, output in enumerate(outputs):
        rows = [_gradients((element,), inputs, None, create_graph, strict, j)
                for element in output.reshape(-1)]
        blocks.append(tuple(
            _block(rows, k, output.shape + x.shape, x) for k, x in enumerate(inputs)))
    blocks = [_results(block, create_graph) for block in blocks]
    return _nested(blocks, out_is_tuple, is_tuple)


def _check_strategy(strategy, vectorize, create_graph, strict):
    """PyTorch's refusals, in its order."""
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". '
                             'Hint: If your function has more outputs than inputs, '
                             '"forward-mode" tends to be more performant. Otherwise, prefer to '
                             'use "reverse-mode".')
    if strict and vectorize:
        raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and "
                           "`vectorized=True` are not supported together. Please either set "
                           "`strict=False` or `vectorize=False`.")
    if strategy == "forward-mode" and not vectorize:
        raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse "
                                  "Hessian isonly implemented for `vectorize=True`.")
    if strategy == "forward-mode" and create_graph:
        raise NotImplementedError("torch.autograd.functional.jacobian: `create_graph=True` and "
                                  "`strategy=\"forward-mode\"` are not supported together "
                                  "(yet). Please either set `create_graph=False` or "
                                  "`strategy=\"reverse-mode\"`.")


def _forward_mode_jacobian(func, inputs):
    """One forward pass per input element, with a one-hot tangent: one column each."""
    is_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
    inputs = tuple(x.detach() for x in inputs)
    columns = []            # per input: the outputs' tangents, one tuple per element
    for k, x in enumerate(inputs):
        per_element = []
        for unit in creation.eye(x.numel(), dtype=x.dtype):
            level = forward_ad.open_level()
            try:
                duals = list(inputs)
                duals[k] = forward_ad.make_dual(x, unit.reshape(x.shape), level=level)
                out_is_tuple, outputs = _call(func, duals, "jacobian")
                per_element.append(tuple(_tangent_or_zeros(o, level) for o in outputs))
            finally:
                forward_ad.close_level()
        columns.append(per_element)
    blocks = [[stack([column[j] for column in per_element], dim=-1).reshape(
                   output.shape + x.shape).detach()
               for x, per_element in zip(inputs, columns)]
              for j, output in enumerate(outputs)]
    # (PyTorch's forward-mode path gives lists where its reverse mode gives tuples)
    if not out_is_tuple:
        return blocks[0] if is_tuple else blocks[0][0]
    return [block for block in blocks] if is_tuple else tuple(block[0] for block in blocks)


def _tangent_or_zeros(output, level):
    tangent = forward_ad.unpack_dual(output, level=level).tangent
    return creation.zeros_like(output) if tangent is None else tangent


def _block(rows, k, shape, x):
    if not rows:
        return creation.zeros(shape, dtype=x.dtype)
    return stack([row[k] for row in rows]).reshape(shape)


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """The Jacobian of the gradient of a function with one scalar output (with
    ``outer_jacobian_strategy="forward-mode"``, forward over reverse)."""
    is_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")

    def gradient(*xs):
        xs = tuple(x if x.requires_grad else    # (forward mode: x is a dual, not a stand-in)
                   forward_ad.carry_tangents(x, x.detach().requires_grad_()) for x in xs)
        out_is_tuple, outputs = _call(func, xs, "hessian")
        _check_single_element(out_is_tuple, outputs, "hessian")
        return _gradients(outputs, xs, None, True, strict)

    return jacobian(gradient if is_tuple else lambda x: gradient(x)[0],
                    inputs if is_tuple else inputs[0], create_graph, strict, vectorize,
                    outer_jacobian_strategy)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """The Hessian of a scalar function times ``v``, without forming the Hessian: the
    gradient of ``(gradient · v)``."""
    return _hessian_product(func, inputs, v, create_graph, strict, "hvp")


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """``v`` times the Hessian (the same numbers as ``hvp``: a Hessian is symmetric)."""
    return _hessian_product(func, inputs, v, create_graph, strict, "vhp")


def _hessian_product(func, inputs, v, create_graph, strict, function_name):
    is_tuple, inputs = _as_tuple(inputs, "inputs", function_name)
    inputs = _fresh(inputs, create_graph)
    out_is_tuple, outputs = _call(func, inputs, function_name)
    _check_single_element(out_is_tuple, outputs, function_name)
    v = _vector_for_inputs(v, inputs, function_name)
    gradient = _gradients(outputs, inputs, None, True, strict)
    products = _gradients(gradient, inputs, v, create_graph, strict)
    return _results(outputs, create_graph)[0], _shaped(_results(products, create_graph), is_tuple)


def _vector_for_inputs(v, inputs, function_name):
    """``v`` as a tuple; it may be left out only for a single one-element input."""
    if v is not None:
        return _as_tuple(v, "v", function_name)[1]
    if any(x.numel() != 1 for x in inputs):
        raise RuntimeError("The vector v can only be None if the input to the user-provided "
                           "function is a single Tensor with a single element.")
    return tuple(creation.ones_like(x) for x in inputs)


def _check_single_element(out_is_tuple, outputs, function_name):
    if out_is_tuple:
        raise RuntimeError(f"The function given to {function_name} should return a single "
                           f"Tensor")
    if outputs[0].numel() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {function_name} "
                           f"should contain a single element")


def _shaped(tensors, as_tuple):
    return tuple(tensors) if as_tuple else tensors[0]


def _nested(blocks, out_is_tuple, in_is_tuple):
    """PyTorch's nesting: a tensor, a tuple over inputs or outputs, or a tuple of tuples."""
    if not out_is_tuple:
        return _shaped(blocks[0], in_is_tuple)
    return tuple(_shaped(block, in_is_tuple) for block in blocks)
