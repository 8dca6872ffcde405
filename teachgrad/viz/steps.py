"""Backward, one node at a time, in the order the engine really runs the nodes.

``backward_steps(loss)`` *is* ``loss.backward()``: it runs the real engine,
hooks and all, and the leaves' ``.grad`` accumulate exactly as after
``loss.backward()`` (so calling both accumulates twice). The engine reports
each node it runs; each report becomes one frame: the node running now has a
thick blue outline, every arrow a gradient has already travelled carries that
gradient, and ``+=`` marks a leaf receiving its share.

All frames have the same labels, the ones not yet reached written in the
background colour, so graphviz lays every frame out the same way and the
animation does not jump.
"""
import html
import io

from teachgrad.autograd import engine, functional
from teachgrad.viz import labels, naming, public, style
from teachgrad.viz.backward import BackwardScene
from teachgrad.viz.dot import Row, dot_source
from teachgrad.viz.drawing import INSTALL_HINT, Drawing, DotMissing, output_path, run_dot
from teachgrad.viz.graph_walk import walk

GRID_NOTE = ("Blue outline: the node the engine runs in this step. An arrow shows the gradient "
             "it carries once it has been computed; grey arrows carry nothing yet.")
GRID_FRAME_SIZE = "4,5"      # inches: three frames side by side fit a notebook


class Step:
    """What the engine did at one node: the gradients that came in and went out."""

    def __init__(self, number, node, grads_in, grads_out):
        self.number = number
        self.node = node
        self.grads_in = [labels.brief(g) if g is not None else None for g in grads_in]
        self.grads_out = [labels.brief(g) if g is not None else None for g in grads_out]
        self.leaf_grad = None
        if public.is_accumulate(node) and node.variable.grad is not None:
            self.leaf_grad = labels.brief(node.variable.grad)


def run_recorded(root, gradient, retain_graph):
    """Run backward from ``root`` through the real engine; return its steps in order."""
    steps = []

    def record(node, grads_in, grads_out):
        steps.append(Step(len(steps) + 1, node, grads_in, grads_out))

    (root_grad,) = functional._root_gradients((root,), gradient)
    task = engine.GraphTask([root._gradient_edge()], [root_grad], retain_graph,
                            create_graph=False)
    engine.run_backward(task, on_node_run=record)
    return steps


class BackwardSteps:
    """The frames of one backward run. ``len()`` is the number of steps;
    ``steps[k]`` is the drawing after step ``k + 1``; in a notebook all frames
    show as a grid; ``.render("steps.gif")`` writes an animation."""

    def __init__(self, graph, names, steps, legend=True, columns=3):
        self.graph, self.names, self.steps = graph, names, steps
        self.legend, self.columns = legend, columns
        self.step_of = {step.node: step for step in steps}

    def __len__(self):
        return len(self.steps)

    def __getitem__(self, index):
        count = len(self.steps)
        if not -count <= index < count:
            raise IndexError(f"step index {index} out of range for {count} steps")
        shown = index % count + 1
        return Drawing(self.frame_source(shown, self.legend), self.text(shown))

    def __iter__(self):
        return (self[index] for index in range(len(self)))

    # ---- the text form ---------------------------------------------------------
    def _called(self, node):
        if not self.graph.is_kept(node):
            return labels.node_title(node)
        facts = labels.NodeFacts(node, self.graph, self.names, show_grads=False)
        return f"{facts.title} ({facts.subject})" if facts.subject else facts.title

    def step_lines(self, step):
        received = ", ".join(g for g in step.grads_in if g is not None) or "no gradient"
        lines = [f"step {step.number}  {self._called(step.node)} receives {received}"]
        if step.leaf_grad is not None:
            leaf = self.names.of(step.node.variable) or "leaf"
            lines.append(f"        {leaf}.grad += {received}  ->  {step.leaf_grad}")
        for (next_node, _), grad in zip(step.node.next_functions, step.grads_out):
            if next_node is not None and grad is not None:
                lines.append(f"        sends {grad} to {self._called(next_node)}")
        return lines

    def text(self, upto=None):
        """The steps as lines of text (all of them, or the first ``upto``)."""
        steps = self.steps[:upto]
        shown = steps[:len(self.graph.nodes)]
        lines = [line for step in shown for line in self.step_lines(step)]
        if len(steps) > len(shown):
            lines.append(f"… {len(steps) - len(shown):,} more steps")
        return "\n".join(lines)

    def __str__(self):
        return self.text()

    __repr__ = __str__

    # ---- the frames ------------------------------------------------------------
    def frame_source(self, shown, legend, size=None):
        """The DOT text of the frame after step ``shown`` (counting from 1); ``size``
        is graphviz's maximum size in inches, e.g. ``"4,5"``."""
        scene = BackwardScene(self.graph, self.names, show_grads=False)
        done = {step.node for step in self.steps[:shown]}
        running = self.steps[shown - 1].node
        for node in self.graph.nodes:
            step = self.step_of.get(node)
            if step is None:
                continue
            box = scene.boxes[self.graph.node_id(node)]
            box.rows.append(Row(f"step {step.number}", hidden=node not in done))
            if node is running:
                box.attrs.update(color=style.RUNNING, penwidth="3")
            if node in scene.leaf_ids:
                leaf_box = scene.boxes[scene.leaf_ids[node]]
                leaf_box.rows.append(Row(f".grad = {step.leaf_grad}", hidden=node not in done))
        for arrow in scene.arrows:
            self._show_gradient(arrow, done, running)
        scene.notes.append("thick blue outline: the node running in this step")
        return dot_source(scene, legend, size)

    def _show_gradient(self, arrow, done, running):
        if arrow.role not in ("gradient", "accumulate"):
            return
        node, position = arrow.key
        step = self.step_of.get(node)
        if step is None:
            arrow.attrs.update(color=style.MUTED)
            return
        if arrow.role == "gradient":
            grad = step.grads_out[position]
        else:
            grad = None if step.grads_in[0] is None else "+= " + step.grads_in[0]
        if grad is not None:
            arrow.label = [Row(grad, hidden=node not in done)]
        if node not in done:
            arrow.attrs.update(color=style.MUTED)
        elif node is running:
            arrow.attrs.update(penwidth="2.5")

    # ---- showing and writing ---------------------------------------------------
    def _grid_html(self):
        cells = []
        for shown, step in enumerate(self.steps[:len(self.graph.nodes)], start=1):
            source = self.frame_source(shown, legend=False, size=GRID_FRAME_SIZE)
            svg = run_dot(source, "svg").decode("utf-8")
            caption = html.escape(f"step {shown}: {self._called(step.node)}")
            cells.append(f'<td style="vertical-align:top;text-align:center">'
                         f'{svg[svg.index("<svg"):]}<br/>{caption}</td>')
        rows = ["<tr>" + "".join(cells[i:i + self.columns]) + "</tr>"
                for i in range(0, len(cells), self.columns)]
        more = len(self.steps) - len(cells)
        foot = f"<p>… {more:,} more steps</p>" if more > 0 else ""
        return f"<p>{html.escape(GRID_NOTE)}</p><table>{''.join(rows)}</table>{foot}"

    def _repr_mimebundle_(self, include=None, exclude=None):
        try:
            return {"text/html": self._grid_html(), "text/plain": self.text()}
        except DotMissing:
            return {"text/plain": self.text() + "\n" + INSTALL_HINT}

    def render(self, path, format=None, seconds_per_step=1.0):
        """Write an animated GIF (``steps.gif``), or one file per frame for svg, png
        or pdf (``steps.png`` -> ``steps-01.png``, ...). Returns the paths written.

        A GIF needs Pillow (it comes with matplotlib); without it, PNG frames are
        written instead.
        """
        path, format = output_path(path, format, default="gif")
        if format == "gif":
            try:
                return [self._write_gif(path, seconds_per_step)]
            except ImportError:
                format = "png"
        written = []
        for shown in range(1, len(self.steps) + 1):
            frame = path.with_name(f"{path.stem}-{shown:02d}.{format}")
            frame.write_bytes(run_dot(self.frame_source(shown, self.legend), format))
            written.append(str(frame))
        return written

    def _write_gif(self, path, seconds_per_step):
        from PIL import Image
        frames = [Image.open(io.BytesIO(run_dot(self.frame_source(shown, self.legend), "png")))
                  for shown in range(1, len(self.steps) + 1)]
        width = max(frame.width for frame in frames)
        height = max(frame.height for frame in frames)
        canvas = []
        for frame in frames:
            page = Image.new("RGB", (width, height), "white")
            page.paste(frame.convert("RGB"), (0, 0))
            canvas.append(page)
        canvas[0].save(path, save_all=True, append_images=canvas[1:],
                       duration=int(seconds_per_step * 1000), loop=0)
        return str(path)


def backward_steps(root, gradient=None, retain_graph=False, names=None, legend=True,
                   max_nodes=60):
    """Run ``root.backward(gradient, retain_graph)`` for real and keep one frame per
    node the engine runs, in the engine's own order.

    The leaves' ``.grad`` accumulate as after ``root.backward()``; with
    ``retain_graph=False`` (the default, as in backward) the saved tensors are
    freed afterwards, exactly as they would be.
    """
    names = naming.resolve(names, [root])
    graph = walk([root], max_nodes)
    return BackwardSteps(graph, names, run_recorded(root, gradient, retain_graph), legend)
