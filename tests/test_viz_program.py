"""viz.draw_program: a teachgrad.compile program drawn with instructions as boxes and
buffers as arrows, alone or beside the backward graph of the same step."""
import re

import pytest

import teachgrad
from teachgrad import viz
from teachgrad.viz.program import DYNAMIC_TITLE, STATIC_TITLE, ProgramScene


def compiled_sgd_step():
    """(w, x, compiled step) of ``loss = (w * x).sum(); backward; SGD``, traced and replayed."""
    w = teachgrad.tensor([1.0, -2.0], requires_grad=True)
    x = teachgrad.tensor([3.0, 4.0])
    optimizer = teachgrad.optim.SGD([w], lr=0.5)

    def step():
        optimizer.zero_grad()
        loss = (w * x).sum()
        loss.backward()
        optimizer.step()
        return loss

    compiled = teachgrad.compile(step)
    for _ in range(3):
        compiled()
    return w, x, compiled


def boxes_of(scene, role):
    return [box for box in scene.boxes.values() if box.role == role]


def arrows_into(scene, box_id, role="buffer"):
    return sorted(arrow.label[0].text for arrow in scene.arrows
                  if arrow.head == box_id and arrow.role == role)


def test_every_instruction_is_a_box_named_by_its_call():
    _, _, step = compiled_sgd_step()
    program = step.program
    scene = ProgramScene(program)
    instructions = boxes_of(scene, "instruction")
    assert [box.rows[0].text for box in instructions] == \
        [instruction.name for instruction in program.instructions]
    assert "multiply" in [box.rows[0].text for box in instructions]
    first = program.instructions[0]
    assert [row.text for row in instructions[0].rows[1:]] == \
        [f"v{i}: {program.values[i].type_string()}" for i in first.outputs]


def test_each_buffer_read_is_an_arrow_from_the_box_that_fills_it():
    _, _, step = compiled_sgd_step()
    program = step.program
    scene = ProgramScene(program)
    for number, instruction in enumerate(program.instructions):
        assert arrows_into(scene, f"i{number}") == \
            sorted(f"v{i}" for i in dict.fromkeys(instruction.uses()))
    fills = {value_id: f"i{n}" for n, instruction in enumerate(program.instructions)
             for value_id in instruction.outputs}
    fills.update({value.id: f"p{value.id}" for value in program.inputs()})
    for arrow in scene.arrows:
        if arrow.role == "buffer":
            assert arrow.tail == fills[int(arrow.label[0].text[1:])]


def test_inputs_outputs_and_the_in_place_update():
    w, _, step = compiled_sgd_step()
    program = step.program
    scene = ProgramScene(program)
    inputs = {box.rows[0].text: box.id for box in boxes_of(scene, "program_input")}
    assert set(inputs) == {f"input {value.name}" for value in program.inputs()}
    assert arrows_into(scene, "preturn") == sorted(f"v{i}" for i in program.outputs)
    (write,) = [arrow for arrow in scene.arrows if arrow.role == "writes"]   # SGD's p -= lr * g
    (w_value,) = [value for value in program.inputs() if value.tensor is w]
    assert write.head == inputs[f"input {w_value.name}"]
    assert write.label[0].text == f"v{w_value.id}"
    assert program.instructions[int(write.tail[1:])].name == "subtract"


def test_a_branch_is_a_check_box():
    w = teachgrad.ones(2, requires_grad=True)

    def step(x):
        loss = (x * w).sum()
        return (loss * 2 if loss > 0 else loss).detach()   # (a graph is not replayed)

    compiled = teachgrad.compile(step)
    for _ in range(3):
        compiled(teachgrad.tensor([1.0, 2.0]))
    (check,) = boxes_of(ProgramScene(compiled.program), "check")
    assert check.rows[1].text.startswith("check bool(v") and check.rows[1].text.endswith("True")


def test_a_long_program_is_cut_with_a_count_of_what_is_left_out():
    _, _, step = compiled_sgd_step()
    scene = ProgramScene(step.program, max_instructions=2)
    assert len(boxes_of(scene, "instruction")) == 2
    left_out = len(step.program.instructions) - 2
    assert [box.rows[0].text for box in boxes_of(scene, "summary")] == \
        [f"… {left_out:,} more instructions"]


def test_beside_the_backward_graph_of_the_same_step():
    w, x, step = compiled_sgd_step()
    loss = (w * x).sum()
    drawing = viz.draw_program(step.program, beside=loss, names={"w": w, "loss": loss})
    text = str(drawing)
    assert text.startswith(f"{DYNAMIC_TITLE}:\nSumBackward0  loss")
    assert "MulBackward0" in text and "AccumulateGrad  w" in text
    assert text.endswith(f"{STATIC_TITLE}:\n{step.program}")
    for title in (DYNAMIC_TITLE, STATIC_TITLE):
        assert f"<B>{title}</B>" in drawing.source
    box_ids = [found for found in re.findall(r"^\s+(\w+) \[", drawing.source, re.MULTILINE)
               if found not in ("graph", "node", "edge")]
    assert len(box_ids) == len(set(box_ids))        # the two frames share no box


def test_the_drawing_lays_out_as_svg():
    pytest.importorskip("graphviz")
    _, _, step = compiled_sgd_step()
    drawing = viz.draw_program(step.program)
    assert str(drawing) == str(step.program)
    try:
        svg = drawing.svg()
    except viz.drawing.DotMissing:
        pytest.skip("graphviz's dot program is not installed")
    assert svg.count('class="node"') == len(ProgramScene(step.program).boxes) + 1  # + legend


def test_a_constant_kept_from_the_trace_has_a_box_of_its_own():
    np = pytest.importorskip("numpy")
    from teachgrad.compile.program import Instruction, Program, Ref, Value

    program = Program()
    program.add_value(Value(0, (2,), np.dtype("float32"), "input")).name = "x"
    program.add_value(Value(1, (2,), np.dtype("float32"), "constant",
                            constant=np.ones(2, np.float32)))
    added = program.add(Instruction(np.add, (Ref(0), Ref(1)), {}))
    added.outputs.append(program.add_value(Value(2, (2,), np.dtype("float32"), "op")).id)
    program.outputs.append(2)
    scene = ProgramScene(program)
    (constant,) = boxes_of(scene, "program_constant")
    assert [row.text for row in constant.rows] == ["constant", "v1: f32[2]"]
    assert arrows_into(scene, "i0") == ["v0", "v1"]
    assert [arrow.tail for arrow in scene.arrows if arrow.head == "i0"] == ["p0", "p1"]
    assert arrows_into(scene, "preturn") == ["v2"]
