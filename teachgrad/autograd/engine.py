"""The backward engine: runs the graph's nodes from the roots down to the leaves.

1. Count, for every node reachable from the roots, how many edges point at it.
2. Start with the roots. A node runs once all gradients for it have arrived
   (its count has dropped to zero); among ready nodes the most recently created
   runs first, as in PyTorch.
3. Running a node: its tensor hooks and pre-hooks see the incoming gradients,
   the node computes one gradient per input edge, post-hooks see both, and
   each gradient is added into the buffer of the node it flows to.

The walk is a loop with an explicit stack and heap, never recursion, so a
graph 100,000 nodes deep is fine.
"""
import heapq
import sys

import numpy as np

from teachgrad.autograd import anomaly, grad_mode
from teachgrad.autograd.graph import AccumulateGrad
from teachgrad.ieee import quiet_numpy


class GraphTask:
    """One call of backward() or grad(): its roots, options, and the gradients in flight.

    ``inputs`` (a dict from gradient edge to tensor) limits the work to the nodes
    that lead to those tensors. With ``capture=True`` (``autograd.grad``) their
    gradients are returned in ``captured`` and no ``.grad`` is touched.
    """

    def __init__(self, root_edges, root_grads, retain_graph, create_graph, inputs=None,
                 capture=False):
        self.root_edges = root_edges
        self.root_grads = root_grads
        self.retain_graph = retain_graph
        self.create_graph = create_graph
        self.inputs = inputs
        self.capture = capture
        self.captured = {}
        self.executes = None               # the nodes allowed to run, when inputs are given
        self.detect_anomaly = anomaly.is_anomaly_enabled()


def run_backward(task, on_node_run=None):
    """Execute a GraphTask. ``on_node_run(node, grads_in, grads_out)`` observes each step."""
    roots = [node for node, _ in task.root_edges if node is not None]
    dependencies = count_dependencies(roots)
    if task.inputs is not None:
        task.executes = nodes_to_execute(roots, task.inputs, run_leaf_targets=not task.capture)
    buffers = {}
    root_grads = list(task.root_grads)
    for i, (node, input_nr) in enumerate(task.root_edges):
        move_to_buffer(buffers, node, input_nr, root_grads, i)

    ready = []
    for node in dict.fromkeys(roots):       # (each root once, in order)
        if dependencies.get(node, 0) == 0:
            heapq.heappush(ready, ReadyNode(node))
    with grad_mode.set_grad_enabled(task.create_graph):
        while ready:
            node = heapq.heappop(ready).node
            grads_in = buffers.pop(node, None) or [None] * node._num_outputs
            grads_out = run_node(task, node, grads_in)
            if on_node_run is not None:
                on_node_run(node, grads_in, grads_out)
            del grads_in        # gone before its outputs move on, as in PyTorch (see move_to_buffer)
            for i, (next_node, input_nr) in enumerate(node.next_functions):
                if next_node is None:
                    continue
                if grads_out[i] is not None:
                    move_to_buffer(buffers, next_node, input_nr, grads_out, i)
                dependencies[next_node] -= 1
                if dependencies[next_node] == 0:
                    heapq.heappush(ready, ReadyNode(next_node))
    return task


class ReadyNode:
    """An entry of the ready queue, ordered by the node's sequence number alone: among nodes
    with equal numbers (all the AccumulateGrad nodes) the heap's own steps decide, as in
    PyTorch's queue (a std::priority_queue, which on Linux works like Python's heapq)."""
    __slots__ = ("priority", "node")

    def __init__(self, node):
        self.priority = -node._sequence_number      # heapq pops the smallest first
        self.node = node

    def __lt__(self, other):
        return self.priority < other.priority


def count_dependencies(roots):
    """How many edges point at each node reachable from the roots (iterative walk)."""
    dependencies = {}
    seen = set(roots)
    stack = list(seen)
    while stack:
        node = stack.pop()
        for next_node, _ in node.next_functions:
            if next_node is None:
                continue
            dependencies[next_node] = dependencies.get(next_node, 0) + 1
            if next_node not in seen:
                seen.add(next_node)
                stack.append(next_node)
    return dependencies


def nodes_to_execute(roots, input_edges, run_leaf_targets):
    """The nodes that must run for gradients of the requested inputs: those with an
    edge into a node that leads to an input (plus the inputs' own AccumulateGrad
    nodes when their ``.grad`` is to be filled)."""
    targets = {node for node, _ in input_edges}
    leads_to_target = set()
    visited = set()
    stack = [(node, False) for node in set(roots)]
    while stack:                      # post-order walk: children are decided first
        node, children_done = stack.pop()
        if children_done:
            if node in targets or any(n in leads_to_target for n, _ in node.next_functions):
                leads_to_target.add(node)
            continue
        if node in visited:
            continue
        visited.add(node)
        stack.append((node, True))
        stack.extend((n, False) for n, _ in node.next_functions if n is not None and n not in visited)
    executes = {node for node in visited
                if any(n in leads_to_target for n, _ in node.next_functions)}
    if run_leaf_targets:
        executes |= {node for node in targets if isinstance(node, AccumulateGrad)}
    return executes


def move_to_buffer(buffers, node, input_nr, grads, i):
    """Move ``grads[i]`` into the buffer of ``node`` (one slot per node output), adding it to
    the gradient already there.

    As PyTorch's InputBuffer does, the sum is written in place into the gradient already
    there if nothing else holds it (PyTorch asks its ``use_count()``, here
    ``sys.getrefcount``) and no graph of the gradient is being built. That saves a new
    tensor per sum, and it bumps the tensor's version: after ``(x*2 + x*3).sum().backward()``,
    ``x.grad._version`` is 1. The gradient is *moved* (``grads[i]`` becomes None, as
    PyTorch's ``std::move``), so that the list it came from does not count as a holder.
    """
    slots = buffers.get(node)
    if slots is None:
        slots = buffers[node] = [None] * node._num_outputs
    if slots[input_nr] is None:
        slots[input_nr] = grads[i]
    elif grad_mode.is_grad_enabled():
        slots[input_nr] = slots[input_nr] + grads[i]
    elif held_only_here(slots, input_nr):
        add_into(slots[input_nr], grads[i])
    else:
        slots[input_nr] = slots[input_nr] + grads[i]
    grads[i] = None


def add_into(total, grad):
    """``total += grad`` in place, counted as a change of ``total`` (inf + -inf is nan,
    without numpy's warning)."""
    quiet_numpy.run(np.add, total._data, grad._data, out=total._data)
    total._version_counter.bump()


def held_only_here(tensors, i):
    """Is the list ``tensors`` the only holder of ``tensors[i]``, and that tensor the only
    holder of its memory (its own, writable, not a broadcast)? Then adding into it in place
    harms no one."""
    if reference_counts(tensors, i) != _HELD_BY_A_LIST_ALONE:
        return False
    data = tensors[i]._data
    return (data.base is None and data.flags.writeable
            and tensors[i]._version_counter is not grad_mode.INFERENCE)


def reference_counts(tensors, i):
    """``sys.getrefcount`` of ``tensors[i]`` and of its numpy array, as seen from here."""
    return sys.getrefcount(tensors[i]), sys.getrefcount(tensors[i]._data)


class _Probe:
    __slots__ = ("_data",)

    def __init__(self):
        self._data = object()


# What reference_counts says of a tensor that only a list holds. The numbers depend on the
# interpreter (what a call adds to them changed across CPython versions): measured, not assumed.
_HELD_BY_A_LIST_ALONE = reference_counts([_Probe()], 0)


def run_node(task, node, grads):
    """Hooks, then the node itself, then post-hooks; returns one gradient per next edge."""
    if not any_gradient(grads):
        return [None] * len(node.next_functions)    # no gradient reached this node
    if node._tensor_pre_hooks or node._retains_grad_hooks:
        grads = call_tensor_pre_hooks(node, grads)
    for hook in node._pre_hooks.values():
        replaced = hook(tuple(grads))
        if replaced is not None:
            grads = list(replaced)
    if task.inputs is not None:
        deliver_input_grads(task, node, grads)
        if node not in task.executes:
            return [None] * len(node.next_functions)    # it leads to no requested input
    try:
        grads_out = node(*grads)
        if not isinstance(grads_out, tuple):      # a node with one input returns one tensor
            grads_out = (grads_out,)
        grads_out = validate_outputs(node, grads_out)
        if len(grads_out) > 1 and not task.create_graph:
            mark_shared_gradients(grads_out)
        if task.detect_anomaly:
            anomaly.check_for_nan(node, grads_out)
    except Exception:
        if task.detect_anomaly:
            anomaly.report_failed_node(node)
        raise
    for hook in node._post_hooks.values():
        replaced = hook(tuple(grads_out), tuple(grads))
        if replaced is not None:
            grads_out = list(replaced)
    if not task.retain_graph:
        node.release_saved()
    return grads_out


def any_gradient(grads):
    """Is any of ``grads`` a tensor (not None)? (A loop: cheaper than ``any()`` of a generator.)"""
    for grad in grads:
        if grad is not None:
            return True
    return False


def mark_shared_gradients(grads):
    """Mark a tensor that goes down several edges (``a + b`` gives ``grad`` to both): a leaf
    copies such a gradient instead of keeping it as its ``.grad`` (see
    Tensor._accumulate_grad), so no two holders share one gradient that is later added into
    in place. Copying only there, rather than for every extra edge, is what PyTorch does."""
    seen = set()
    for grad in grads:
        if grad is not None:
            if id(grad) in seen:
                grad._sent_down_several_edges = True
            seen.add(id(grad))


def call_tensor_pre_hooks(node, grads):
    """Hooks registered on the node's output tensors (for an AccumulateGrad: on its leaf),
    then their retain_grad hooks."""
    for output_nr, hooks in node._tensor_pre_hooks.items():
        grads[output_nr] = _call_hooks(hooks.values(), grads[output_nr])
    for output_nr, retain in node._retains_grad_hooks.items():
        if grads[output_nr] is not None:
            retain(grads[output_nr])
    return grads


def _call_hooks(hooks, grad):
    """Tensor hooks in order; each may replace the gradient by one of the same size and type."""
    for hook in list(hooks):
        if grad is None:
            break
        replaced = hook(grad)
        if replaced is not None:
            _check_hook_result(hook, grad, replaced)
            grad = replaced
    return grad


def _check_hook_result(hook, grad, replaced):
    name = getattr(hook, "__name__", type(hook).__name__)
    if replaced.shape != grad.shape:
        raise RuntimeError(f"hook '{name}' has changed the size of value")
    if replaced.dtype is not grad.dtype:
        raise RuntimeError(f"hook '{name}' has changed the type of value (was "
                           f"teachgrad.{grad.dtype.legacy_name} got "
                           f"teachgrad.{replaced.dtype.legacy_name})")


def deliver_input_grads(task, node, grads):
    """The gradient arriving at a requested input: kept for grad(), or, for a
    non-leaf given to backward(inputs=...), added into its ``.grad``."""
    for output_nr, grad in enumerate(grads):
        tensor = task.inputs.get((node, output_nr))
        if tensor is None or grad is None:
            continue
        if task.capture:
            task.captured[(node, output_nr)] = grad
        elif not isinstance(node, AccumulateGrad):
            tensor._add_retained_grad(grad)


def validate_outputs(node, grads_out):
    """Check the number, shape and dtype of a node's gradients, as PyTorch's engine does.

    A gradient of a broadcast input arrives with the broadcast shape: it is summed
    back to the input's shape here, in one place for every operation.
    """
    grads_out = list(grads_out)
    if len(grads_out) != len(node.next_functions):
        raise RuntimeError(f"function {node.name()} returned an incorrect number of gradients "
                           f"(expected {len(node.next_functions)}, got {len(grads_out)})")
    for i, (grad, (shape, dtype)) in enumerate(zip(grads_out, node._input_metadata)):
        if grad is None or node.next_functions[i][0] is None:
            continue
        if grad._data.shape == shape and grad._data.dtype == dtype.numpy:
            continue
        if grad._data.shape != shape:
            if not is_expandable_to(shape, grad.shape):
                raise RuntimeError(f"Function {node.name()} returned an invalid gradient at index "
                                   f"{i} - got {list(grad.shape)} but expected shape compatible "
                                   f"with {list(shape)}")
            grad = grad.sum_to_size(shape)
        if grad.dtype is not dtype:
            grad = grad.to(dtype)
        grads_out[i] = grad
    return grads_out


def is_expandable_to(shape, target):
    """Can a tensor of ``shape`` be broadcast (expanded) to ``target``?"""
    if len(shape) > len(target):
        return False
    for size, target_size in zip(reversed(shape), reversed(target)):
        if size != 1 and size != target_size:
            return False
    return True
