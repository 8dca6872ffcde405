"""The forward graph: tensors, and the operations between them.

PyTorch does not keep the forward graph; it is read back from the backward
graph. Each backward node (except AccumulateGrad) is one operation; the tensor
it made is its output; a leaf that requires grad is ``AccumulateGrad.variable``;
an input that needs no grad appears only as ``(None, 0)`` in ``next_functions``
and is drawn as a dashed leaf, named when the operation saved it. Operations
are listed in the order they ran (their creation order, ``_sequence_nr()``; for a library
that records none, an order in which each operation comes after those it reads).
"""
from teachgrad.viz import labels, naming, public
from teachgrad.viz.dot import Row, Scene, dot_source
from teachgrad.viz.drawing import Drawing
from teachgrad.viz.graph_walk import walk

DATA_NOTE = "arrows: data flows forward, from the inputs to the result"


def run_order(operations):
    """The operations in the order they ran: by ``_sequence_nr()`` where recorded, else
    each after the operations whose results it reads (the backward graph reversed)."""
    numbers = [public.sequence_nr(node) for node in operations]
    if None not in numbers:
        return [node for _, node in sorted(zip(numbers, operations), key=lambda p: p[0])]
    waiting = {node: 0 for node in operations}          # consumers not yet placed
    for node in operations:
        for next_node, _ in node.next_functions:
            if next_node in waiting:
                waiting[next_node] += 1
    ready = [node for node in operations if waiting[node] == 0]
    order = []
    while ready:
        node = ready.pop()
        order.append(node)
        for next_node, _ in node.next_functions:
            if next_node in waiting:
                waiting[next_node] -= 1
                if waiting[next_node] == 0:
                    ready.append(next_node)
    return order[::-1]


class ForwardScene(Scene):
    """The scene of a forward graph, plus its text form (``self.text``).

    ``tensor_ids`` maps what a tensor box stands for to its id: ``("output",
    node, output_nr)`` for a tensor an operation made, ``("leaf", accumulate)``
    for a leaf that requires grad, ``("tensor", ...)`` for a constant.
    """

    summary_id = "fmore"     # the box that stands for the nodes left out

    def __init__(self, graph, names, show_grads=False):
        super().__init__()
        self.graph, self.names, self.show_grads = graph, names, show_grads
        self.tensor_ids = {}
        self.refs = {}           # box id -> how the text form calls that tensor
        self.summaries = {}      # box id -> its shape and values, as written
        self.input_lines, self.operation_lines = [], []
        self.notes.append(DATA_NOTE)
        for root in graph.root_tensors:
            if root.grad_fn is None:
                self._leaf_input(root, self._accumulator_of(root))
        operations = [node for node in graph.nodes if not public.is_accumulate(node)]
        for number, node in enumerate(run_order(operations)):
            self._add_operation(f"f{number}", node)
        if graph.hidden:
            self.box(self.summary_id, "summary", [Row(f"… {graph.hidden:,} more nodes")])
        self.text = "\n".join(self.input_lines + self.operation_lines
                              + ([f"… {graph.hidden:,} more nodes"] if graph.hidden else []))

    # ---- tensors -------------------------------------------------------------
    def _tensor_box(self, key, role, name, tensor, shape):
        """The id of the box for ``key``, adding the box the first time."""
        if key in self.tensor_ids:
            return self.tensor_ids[key]
        box_id = f"t{len(self.tensor_ids)}"
        self.tensor_ids[key] = box_id
        self.refs[box_id] = name or box_id
        facts = labels.tensor_facts(tensor, shape)
        self.summaries[box_id] = " ".join(facts)
        rows = [Row(name, bold=True)] if name else []
        rows.extend(Row(line) for line in labels.box_lines(facts))
        grad = labels.grad_text(tensor) if self.show_grads else None
        if grad:
            rows.append(Row(grad))
        self.box(box_id, role, rows)
        return box_id

    def _accumulator_of(self, leaf):
        """The AccumulateGrad the graph holds for a leaf that is a root (None: no grad)."""
        return next((node for node, _ in self.graph.root_edges
                     if public.is_accumulate(node) and node.variable is leaf), None)

    def _is_root(self, tensor):
        return any(tensor is root for root in self.graph.root_tensors)

    def _leaf_input(self, tensor, accumulate):
        """A leaf: keyed by its AccumulateGrad when it requires grad."""
        key = ("leaf", accumulate) if accumulate is not None else ("tensor", id(tensor))
        role = "root" if self._is_root(tensor) else ("leaf" if accumulate else "constant")
        new = key not in self.tensor_ids
        box_id = self._tensor_box(key, role, self.names.of(tensor), tensor, tensor.shape)
        if new:
            flags = "leaf, requires grad" if accumulate else "leaf, no grad"
            root = "  (root)" if role == "root" else ""
            self.input_lines.append(
                f"{self.refs[box_id]}: {self.summaries[box_id]}  {flags}{root}")
        return box_id

    def _constant_input(self, node, position):
        """An input that needs no grad: known only if the operation saved it."""
        tensor = public.saved_input(node, position)
        if tensor is not None:
            return self._leaf_input(tensor, None)
        shape = public.input_shapes(node)[position]
        box_id = self._tensor_box(("tensor", node, position), "constant", None, None, shape)
        self.input_lines.append(f"{box_id}: {self.summaries[box_id]}  leaf, no grad")
        return box_id

    def _output(self, node, output_nr):
        name, tensor = self.names.output(node, output_nr)
        shape = self.graph.output_shapes.get((node, output_nr))
        role = "root" if (node, output_nr) in self.graph.root_edges else "tensor"
        return self._tensor_box(("output", node, output_nr), role, name, tensor, shape)

    def _input(self, node, position):
        next_node, output_nr = node.next_functions[position]
        if next_node is None:
            return self._constant_input(node, position)
        if public.is_accumulate(next_node):
            return self._leaf_input(next_node.variable, next_node)
        first_use = ("output", next_node, output_nr) not in self.tensor_ids
        box_id = self._output(next_node, output_nr)
        if first_use and not self.graph.is_kept(next_node):
            self.arrow(self.summary_id, box_id, "summary")
            self.input_lines.append(
                f"{self.refs[box_id]}: {self.summaries[box_id]}  made by the nodes left out")
        return box_id

    # ---- operations ------------------------------------------------------------
    def _add_operation(self, op_id, node):
        inputs = [self._input(node, position) for position in range(len(node.next_functions))]
        operation = labels.operation_name(node)
        self.box(op_id, "operation", [Row(operation)])
        for input_id in inputs:
            self.arrow(input_id, op_id, "data")
        outputs = [self._output(node, nr) for nr in sorted(self.graph.outputs_used.get(node, {0}))]
        for output_id in outputs:
            self.arrow(op_id, output_id, "data")
        results = "; ".join(self.summaries[output_id] for output_id in outputs)
        root = "  (root)" if any(self.boxes[o].role == "root" for o in outputs) else ""
        self.operation_lines.append(
            f"{', '.join(self.refs[o] for o in outputs)} = {operation}"
            f"({', '.join(self.refs[i] for i in inputs)}): {results}{root}")


def draw_forward(*roots, names=None, legend=True, max_nodes=60):
    """Draw the forward computation behind ``roots``: tensors and operations.

    Leaves (blue; dashed when they need no grad), intermediate tensors (white),
    the roots (orange) and operations (yellow ellipses). Tensors with a name
    in ``names`` (a dict of name -> tensor; default: the caller's variables)
    show it; others show their shape; small tensors show their values.
    """
    names = naming.resolve(names, roots)
    scene = ForwardScene(walk(roots, max_nodes), names)
    return Drawing(dot_source(scene, legend), scene.text)
