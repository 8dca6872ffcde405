"""Chapter 03 — the engine: from the outputs back to the leaves, with loops, never recursion."""
import heapq
import itertools

from . import grad_mode, graph, leaves, tensor

def backward(tensors, grad_tensors, retain_graph=None, create_graph=False, capture=None):
    """tensor.backward() and autograd.grad(): from the tensors' nodes, with their gradients."""
    for i, t in enumerate(tensors):
        if not t.requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not "
                               "have a grad_fn")
    roots = [graph.gradient_edge(t)[0] for t in tensors]
    grads = [root_gradient(t, g) for t, g in zip(tensors, grad_tensors)]
    keep_graph = create_graph if retain_graph is None else retain_graph
    run_backward(roots, grads, keep_graph, create_graph, capture)

def root_gradient(output, gradient):
    """Where backward starts: `gradient` if it has the output's shape, ones for a one-element
    output given none; any other case is refused (refuse_root_gradient)."""
    if gradient is None and output.numel() == 1:
        return tensor.ones(*output.shape, dtype=output.dtype)
    if gradient is not None and gradient.shape == output.shape:
        return gradient
    refuse_root_gradient(output, gradient)

def refuse_root_gradient(output, gradient):
    """Raise PyTorch's RuntimeError: no gradient for an output of several elements, "grad can
    be implicitly created only for scalar outputs"; a gradient of another shape, "Mismatch in
    shape: grad_output[0] has a shape of torch.Size([2]) and output[0] has a shape of
    torch.Size([3])." (the two shapes as lists)."""
    ### BEGIN SOLUTION chapter 06: raise the error that fits: no gradient, or a wrong shape
    if gradient is None:
        raise RuntimeError("grad can be implicitly created only for scalar outputs")
    raise RuntimeError(f"Mismatch in shape: grad_output[0] has a shape of "
                       f"torch.Size({list(gradient.shape)}) and output[0] has a shape of "
                       f"torch.Size({list(output.shape)}).")
    ### END SOLUTION

def count_dependencies(roots):
    """{node: number of edges pointing at it} for each node reachable from `roots` by one
    edge or more, with a loop and a to-do list; a root nothing points at is not a key."""
    ### BEGIN SOLUTION chapter 02: walk the graph with a to-do list and count incoming edges
    counts, seen, todo = {}, set(roots), list(roots)
    while todo:
        node = todo.pop()
        for next_node, _ in node.next_functions:
            if next_node is None:
                continue
            counts[next_node] = counts.get(next_node, 0) + 1
            if next_node not in seen:
                seen.add(next_node)
                todo.append(next_node)
    return counts
    ### END SOLUTION

def run_backward(roots, grads, keep_graph, create_graph, capture=None):
    """Run each node once, from `roots` with `grads`: put those in the nodes' buffers
    (add_to_buffer); keep the nodes whose dependencies are counted down to 0 in a heap by
    -sequence_nr (newest first); run the next with call_node(node, its buffer, keep_graph,
    capture) and add each gradient it returns into the buffer of its edge's node (not None)."""
    previous = grad_mode.is_grad_enabled()
    grad_mode.set_enabled(create_graph)
    try:
        ### BEGIN SOLUTION chapter 03: run ready nodes newest first; pass gradients down the edges
        dependencies = count_dependencies(roots)
        buffers, ready, tie = {}, [], itertools.count()
        for root, grad in zip(roots, grads):
            add_to_buffer(buffers, root, grad)
        for root in dict.fromkeys(roots):
            if dependencies.get(root, 0) == 0:
                heapq.heappush(ready, (-root.sequence_nr, next(tie), root))
        while ready:
            node = heapq.heappop(ready)[2]
            grads_in = call_node(node, buffers.pop(node), keep_graph, capture)
            for (next_node, _), grad in zip(node.next_functions, grads_in):
                if next_node is None:
                    continue
                add_to_buffer(buffers, next_node, grad)
                dependencies[next_node] -= 1
                if dependencies[next_node] == 0:
                    heapq.heappush(ready, (-next_node.sequence_nr, next(tie), next_node))
        ### END SOLUTION
    finally:
        grad_mode.set_enabled(previous)

def add_to_buffer(buffers, node, grad):
    """Gradients reaching a node along several edges are summed before it runs."""
    buffers[node] = grad if node not in buffers else buffers[node] + grad

def call_node(node, grad, keep_graph, capture=None):
    """Hooks (04), the node's backward, its saved tensors freed unless keep_graph (06), sum_to."""
    if node.pre_hooks or node.retained is not None:
        grad = leaves.call_tensor_hooks(node, grad)
    if capture is not None:
        if node in capture:
            capture[node] = grad
        if isinstance(node, graph.AccumulateGrad):
            return ()
    grads_in = node.backward(grad)
    if not keep_graph:
        for saved in node.saved.values():
            saved.release()
    return [None if g is None else sum_to(g, shape)
            for g, shape in zip(grads_in, node.input_shapes)]

def sum_to(grad, shape):
    """A broadcast input's gradient summed back to its shape: over the leading dims it lacked
    and where it had size 1, e.g. (2, 3) -> (3,) or (2, 1); with yourgrad's sum and reshape."""
    ### BEGIN SOLUTION chapter 03: sum over the broadcast dims, then reshape to shape
    if grad.shape == tuple(shape):
        return grad
    lead = grad.ndim - len(shape)
    dims = tuple(range(lead)) + tuple(lead + i for i, size in enumerate(shape)
                                      if size == 1 and grad.shape[lead + i] != 1)
    return grad.sum(dim=dims, keepdim=True).reshape(tuple(shape))
    ### END SOLUTION
