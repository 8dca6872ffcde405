"""A traced program drawn as a graph: instructions are the boxes, buffers the arrows.

    step = teachgrad.compile(train_step); step(); step()
    viz.draw_program(step.program)                     # the static program alone
    viz.draw_program(step.program, beside=loss)        # ... beside an eager step's graph

Where the backward graph is a chain of nodes that exists only until ``backward()`` has
walked it, a traced program is a fixed list of numpy calls. Each instruction is a box named
by its numpy function, with the value it makes (``v7: f32[30]``); each arrow is a buffer,
labelled with its value, from the instruction (or input) that fills it to each one that
reads it. A write into memory the program read before (``subtract(v0, v26, out=(v0,))``,
SGD's update) is a bold arrow back to the buffer's owner; a branch the trace took is a check.
The program is read only through what it prints: ``inputs()``, ``instructions``,
``values``, ``outputs`` and ``describe``; the text form is ``str(program)``.
"""
from teachgrad.viz import naming
from teachgrad.viz.backward import BackwardScene
from teachgrad.viz.dot import Row, Scene, dot_source
from teachgrad.viz.drawing import Drawing
from teachgrad.viz.graph_walk import walk
from teachgrad.viz.text import tree_text

STATIC_TITLE = "static: the traced program"
DYNAMIC_TITLE = "dynamic: the backward graph"
BUFFER_NOTE = "program arrows: a buffer (vN), from the call that fills it to each reader"


def value_type(program, value_id):
    return program.values[value_id].type_string()


def instruction_rows(program, instruction):
    """The call's name and what it makes: ``multiply`` / ``v2: f32[30]``."""
    if instruction.expect is not None:
        return [Row("check", bold=True), Row(program.describe(instruction))]
    rows = [Row(instruction.name, bold=True)]
    rows += [Row(f"v{i}: {value_type(program, i)}") for i in instruction.outputs]
    if not instruction.outputs:
        rows.append(Row("in place"))
    return rows


class ProgramScene(Scene):
    """The boxes and arrows of one program; ``owner`` maps a value to the box that fills it."""

    def __init__(self, program, max_instructions=80):
        super().__init__()
        self.program, self.owner = program, {}
        self.notes.append(BUFFER_NOTE)
        for value in program.inputs():
            self._value_box(value, "program_input", f"input {value.name or ''}".rstrip())
        shown = program.instructions[:max_instructions]
        for number, instruction in enumerate(shown):
            self._instruction(f"i{number}", instruction)
        if len(program.instructions) > len(shown):
            hidden = len(program.instructions) - len(shown)
            self.box("pmore", "summary", [Row(f"… {hidden:,} more instructions")])
        self.box("preturn", "program_output", [Row("return", bold=True)])
        for value_id in program.outputs:
            self._read(value_id, "preturn")

    def _value_box(self, value, role, title):
        box_id = f"p{value.id}"
        self.box(box_id, role, [Row(title, bold=True),
                                Row(f"v{value.id}: {value.type_string()}")])
        self.owner[value.id] = box_id

    def _instruction(self, box_id, instruction):
        for value_id in dict.fromkeys(instruction.uses()):
            self._read(value_id, box_id)
        role = "check" if instruction.expect is not None else "instruction"
        self.box(box_id, role, instruction_rows(self.program, instruction))
        for value_id in instruction.outputs:
            self.owner[value_id] = box_id
        for value_id in instruction.mutates:
            self.arrow(box_id, self._box_of(value_id), "writes", label=[Row(f"v{value_id}")],
                       constraint="false")

    def _box_of(self, value_id):
        """The box that fills a value: its instruction, its input or a constant's own box."""
        if value_id not in self.owner:
            value = self.program.values[value_id]
            self._value_box(value, "program_constant", "constant")
        return self.owner[value_id]

    def _read(self, value_id, reader):
        self.arrow(self._box_of(value_id), reader, "buffer", label=[Row(f"v{value_id}")])


def draw_program(program, beside=None, names=None, legend=True, max_instructions=80):
    """Draw a ``teachgrad.compile`` program: one box per instruction, one arrow per buffer
    read. ``beside``: a tensor (say, an eager step's loss) whose backward graph is drawn in
    a frame next to the program's, so the dynamic and the static form of one step can be
    compared; ``names`` labels its tensors as in ``draw_backward``."""
    scene = ProgramScene(program, max_instructions)
    text = str(program)
    if beside is None:
        return Drawing(dot_source(scene, legend), text)
    combined, graph = Scene(), walk([beside], max_instructions)
    tensor_names = naming.resolve(names, [beside])
    backward = BackwardScene(graph, tensor_names)
    for title, part in ((DYNAMIC_TITLE, backward), (STATIC_TITLE, scene)):
        for box in part.boxes.values():
            box.cluster = title
            combined.boxes[box.id] = box
        combined.arrows.extend(part.arrows)
        combined.notes.extend(part.notes)
    backward_text = tree_text(graph, tensor_names)
    return Drawing(dot_source(combined, legend),
                   f"{DYNAMIC_TITLE}:\n{backward_text}\n\n{STATIC_TITLE}:\n{text}")
