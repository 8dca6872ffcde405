"""Chapter 10 — from dynamic to static: trace a function once, replay the recorded program."""
from . import engine, grad_mode, tensor

recording = None                            # the Program being traced (ops.apply reports to it)

class Program:
    def __init__(self, inputs):
        self.number = {id(t): f"v{i}" for i, t in enumerate(inputs)}   # id(tensor) -> name
        self.inputs = [self.number[id(t)] for t in inputs]
        self.seen = list(inputs)            # keeps ids unique while tracing
        self.constants = {}                 # "c0" -> numpy array
        self.instructions = []              # (node_class, params, input names, output name)
        self.output = None

    def record(self, node_class, inputs, params, output):
        """Name each input (a value of the program, or else a new constant: a copy of its
        array) and the output (v<next>), and append the instruction."""
        raise NotImplementedError("chapter 10: name inputs (new ones become constants) and the output")

    def __call__(self, *inputs):
        """(output, [input gradients]): each node's numpy `forward`, keeping what it saves; from a
        gradient of 1, the `backward`s in reverse order, unrecorded, summed back (engine.sum_to)."""
        raise NotImplementedError("chapter 10: run forward instruction by instruction, then backward")

    def __str__(self):
        lines = [f"def program({', '.join(self.inputs)}):"]
        lines += [f"    {name} = constant of shape {tuple(array.shape)}"
                  for name, array in self.constants.items()]
        for node_class, _, names, out in self.instructions:
            operation = node_class.__name__.split("Backward")[0].lower()    # MulBackward0: mul
            lines.append(f"    {out} = {operation}({', '.join(names)})")
        return "\n".join(lines + [f"    return {self.output}"])

def trace(function, *example_inputs):
    """Run `function` once on copies of the example inputs, `recording` into a new Program
    (and None again afterwards, even after an error); its output: what the function returned."""
    raise NotImplementedError("chapter 10: record a run of the function into a new Program")
