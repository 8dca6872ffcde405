"""Chapter 03 — the engine: run the graph from the output back to the leaves, without recursion.

1. Count, for each node reachable from the roots, how many edges point at it.
2. A node runs when every gradient for it has arrived (its count is zero); among ready nodes
   the most recently created runs first, as in PyTorch.
3. Running a node: its hooks see the gradient (chapter 04), `backward` gives one gradient per
   input, each is summed back to its input's shape (broadcasting) and added into the buffer
   of the node it flows to. An AccumulateGrad adds it into its leaf's `.grad`.
Both walks use an explicit stack or heap, never recursion: a 100,000-deep chain is fine.
"""
import heapq
import itertools

from . import grad_mode, graph, leaves, tensor


def backward(tensors, grad_tensors, retain_graph=None, create_graph=False):
    """tensor.backward(): the roots' gradients flow into the leaves' `.grad`."""
    keep_graph = create_graph if retain_graph is None else retain_graph
    run_backward(*roots_and_gradients(tensors, grad_tensors), keep_graph, create_graph)


def roots_and_gradients(tensors, grad_tensors):
    """The nodes backward starts from, and the gradient each starts with."""
    for i, t in enumerate(tensors):
        if not t.requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not "
                               "have a grad_fn")
    roots = [t.grad_fn or leaves.accumulator(t) for t in tensors]
    return roots, [root_gradient(t, g) for t, g in zip(tensors, grad_tensors)]


def root_gradient(output, gradient):
    """The gradient backward starts from: `gradient`, or 1 for a one-element output.

    Without `gradient`, an output of more than one element raises PyTorch's RuntimeError
    ("grad can be implicitly created only for scalar outputs"); a `gradient` of another shape
    raises its "Mismatch in shape: grad_output[0] has a shape of ..." error."""
    raise NotImplementedError("chapter 03: return the starting gradient, or raise PyTorch's errors")


def count_dependencies(roots):
    """{node: number of edges pointing at it} over every node reachable from `roots`,
    found with a to-do list (a loop), never with recursion."""
    raise NotImplementedError("chapter 03: walk the graph with a to-do list and count incoming edges")


def run_backward(roots, grads, keep_graph, create_graph, capture=None):
    """Run every node once, in dependency order, starting from `roots` with `grads`.

    Count the dependencies; put each root's gradient in its buffer (add_to_buffer). A node is
    ready when its count is 0: keep ready nodes in a heap ordered by -sequence_nr (the newest
    first, as PyTorch). Run the next ready one with call_node(node, its buffer, keep_graph,
    capture) and send each gradient it returns along its edge of next_functions (none along
    (None, 0)), into the next node's buffer, counting that node's dependencies down.
    Recording is on during the run only if `create_graph`; `capture` is grad()'s (06)."""
    previous = grad_mode.is_grad_enabled()
    grad_mode.set_enabled(create_graph)
    try:
        raise NotImplementedError("chapter 03: run ready nodes newest first; pass gradients down the edges")
    finally:
        grad_mode.set_enabled(previous)


def add_to_buffer(buffers, node, grad):
    """Gradients reaching a node along several edges are summed before it runs."""
    buffers[node] = grad if node not in buffers else buffers[node] + grad


def call_node(node, grad, keep_graph, capture=None):
    """The tensor hooks (chapter 04), then the node's backward, then (unless keep_graph) its
    saved tensors are let go (chapter 06); each resulting gradient is summed back to the shape
    of the input it belongs to."""
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
    """Sum a gradient back to the shape of a broadcast input: over the leading dims the input
    lacked and over the dims where the input had size 1, e.g. (2, 3) -> (3,) or (2, 1).
    Written with yourgrad's sum and reshape (so create_graph records it)."""
    raise NotImplementedError("chapter 03: sum over the broadcast dims, then reshape to shape")
