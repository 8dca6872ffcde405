"""Chapter 10's build checks: a tracer that turns a run into a static program, and replays it.

teachgrad has no such tracer: on its side a check computes what the replay must give — the
branch taken while tracing, differentiated by teachgrad's autograd."""
import teachgrad
from teachgrad.course.build.compare import checks_list, name
from teachgrad.course.build.stage_09 import moon_net, two_moons

CHECKS, check = checks_list("10")


def squares(x):
    return (x * x).sum()


def exponentials(x):
    return x.exp().sum()


def f(x):
    """Lecture 10's function: Python chooses the branch from the data."""
    if x.sum() > 0:
        return squares(x)
    return exponentials(x)


def replay(torch, function, frozen, example, x):
    """(output, [input gradient]) from the student's traced program — or, on teachgrad, from
    `frozen`, the code path the example took."""
    if torch is not teachgrad:
        return torch.trace(function, example)(x)
    x = x.detach().requires_grad_()
    out = frozen(x)
    out.backward()
    return out.detach(), [x.grad]


def needed(program):
    """The names of the instructions the program's output depends on, in order."""
    wanted, kept = {program.output}, []
    for node_class, _, inputs, out in reversed(program.instructions):
        if out in wanted:
            wanted.update(inputs)
            kept.append(node_class.__name__)
    return kept[::-1]


@check("trace records the operations that ran, into a program that prints",
       "while tracing, ops.apply hands each operation to Program.record: inputs are values of "
       "the program or new constants, the output gets the next number")
def records(torch):
    example = torch.tensor([1.0, 2.0], requires_grad=torch is teachgrad)
    if torch is teachgrad:
        out = f(example)
        nodes, todo = set(), [out.grad_fn]
        while todo:
            node = todo.pop()
            if node is not None and node not in nodes and name(node) != "AccumulateGrad":
                nodes.add(node)
                todo.extend(n for n, _ in node.next_functions)
        return {"operations the output needs": [name(n) for n in sorted(
                    nodes, key=lambda n: n._sequence_nr())],
                "printed: a line per instruction and constant, a header and a return": True}
    program = torch.trace(f, example)
    lines = str(program).splitlines()
    return {"operations the output needs": needed(program),
            "printed: a line per instruction and constant, a header and a return":
                len(lines) == len(program.instructions) + len(program.constants) + 2
                and lines[0].startswith("def ") and lines[-1].strip().startswith("return")}


@check("the replay runs forward and backward on new inputs",
       "replay each instruction's forward on numpy, then each node's backward in reverse order "
       "from a gradient of 1, summing what reaches each value")
def replays(torch):
    example = torch.tensor([1.0, 2.0])
    x_same = torch.tensor([3.0, -1.0])
    out, (grad,) = replay(torch, f, squares, example, x_same)
    return {"output": out, "gradient": grad}


@check("the branch is frozen to the one taken while tracing",
       "the program knows only the operations that ran: an `if` on the data is decided once, "
       "at trace time, so the replay must NOT call the Python function again")
def frozen(torch):
    out, (grad,) = replay(torch, f, squares, torch.tensor([1.0, 2.0]), torch.tensor([-1.0, -2.0]))
    return {"replayed output": out, "replayed gradient": grad}


@check("the replay builds no dynamic graph",
       "replay on plain arrays and run the formulas with recording off: nothing it returns has "
       "a grad_fn")
def no_graph(torch):
    out, (grad,) = replay(torch, f, squares, torch.tensor([1.0, 2.0]),
                          torch.tensor([1.0, 1.0], requires_grad=True))
    return {"output.grad_fn": name(out.grad_fn), "output.requires_grad": out.requires_grad,
            "gradient.requires_grad": grad.requires_grad}


@check("a traced network: weights become constants, the replay matches the model",
       "tensors from outside the function (weights, numbers) are recorded as constants with "
       "their values at trace time")
def network(torch):
    X, y, batches = two_moons()
    model = moon_net(torch)

    def score(x):
        return model(x).sum()
    out, (grad,) = replay(torch, score, score, torch.tensor(X[:4]), torch.tensor(X[4:12]))
    return {"output": out, "gradient for the inputs": grad}


@check("constants are frozen at trace time",
       "record a copy of an outside tensor's array when it first appears: changing the tensor "
       "after tracing must not change the program")
def constants_frozen(torch):
    scale = torch.tensor([2.0, -1.0])

    def scaled(x):
        return (x * scale).sum()
    example, x = torch.tensor([1.0, 1.0]), torch.tensor([3.0, 4.0])
    if torch is teachgrad:
        frozen_scale = scale.clone()
        out, (grad,) = replay(torch, scaled, lambda t: (t * frozen_scale).sum(), example, x)
    else:
        program = torch.trace(scaled, example)
        scale.array[...] = [100.0, 100.0]
        out, (grad,) = program(x)
    return {"replayed output": out, "replayed gradient": grad}


@check("broadcasting inside a traced program",
       "the replay's backward sums each gradient back to its value's shape (engine.sum_to), as "
       "the engine does")
def broadcast(torch):
    bias = torch.tensor([[1.0], [-2.0]])

    def shifted(x):
        return ((x + bias) * x).sum()
    out, (grad,) = replay(torch, shifted, shifted, torch.tensor([1.0, 2.0, 3.0]),
                          torch.tensor([0.5, -1.0, 2.0]))
    return {"output": out, "gradient": grad}


@check("after a function that raises while traced, nothing is recorded any more",
       "reset the tracer's recording to None in a `finally:`, so that an error during tracing "
       "does not leave later operations being recorded")
def reset_after_error(torch):
    def failing(x):
        x * 2
        raise ValueError("the traced function fails")
    try:
        if torch is not teachgrad:
            torch.trace(failing, torch.tensor([1.0]))
        else:
            failing(torch.tensor([1.0]))
    except ValueError:
        pass
    recording = None if torch is teachgrad else torch.tracer.recording
    return {"recording after the error": recording is None}
