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
        ### BEGIN SOLUTION chapter 10: name inputs (new ones become constants) and the output
        for t in inputs:
            if id(t) not in self.number:
                self.number[id(t)] = f"c{len(self.constants)}"
                self.constants[self.number[id(t)]] = t.array.copy()
                self.seen.append(t)
        self.number[id(output)] = f"v{len(self.inputs) + len(self.instructions)}"
        self.seen.append(output)
        self.instructions.append((node_class, params, [self.number[id(t)] for t in inputs],
                                  self.number[id(output)]))
        ### END SOLUTION

    def __call__(self, *inputs):
        """(output, [input gradients]): each node's numpy `forward`, keeping what it saves; from a
        gradient of 1, the `backward`s in reverse order, unrecorded, summed back (engine.sum_to)."""
        ### BEGIN SOLUTION chapter 10: run forward instruction by instruction, then backward
        values = {name: tensor.Tensor(array) for name, array in self.constants.items()}
        values.update(zip(self.inputs, (tensor.Tensor(x.array) for x in inputs)))
        nodes = []
        for node_class, params, names, out in self.instructions:
            node, args = node_class(**params), [values[name] for name in names]
            values[out] = tensor.Tensor(node.forward(*(a.array for a in args)))
            node.needs_input_grad = (True,) * len(args)
            node.input_shapes = tuple(a.shape for a in args)
            node.save_for_backward(args, values[out])
            nodes.append(node)
        output = values[self.output]
        grads = {self.output: tensor.ones(*output.shape, dtype=output.dtype)}
        with grad_mode.no_grad():
            for node, (_, _, names, out) in zip(reversed(nodes), reversed(self.instructions)):
                if out in grads:
                    for name, g, shape in zip(names, node.backward(grads[out]), node.input_shapes):
                        g = engine.sum_to(g, shape)
                        grads[name] = g if name not in grads else grads[name] + g
        return output, [grads.get(name) for name in self.inputs]
        ### END SOLUTION

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
    ### BEGIN SOLUTION chapter 10: record a run of the function into a new Program
    global recording
    inputs = [tensor.Tensor(x.array.copy()) for x in example_inputs]
    program = recording = Program(inputs)
    try:
        output = function(*inputs)
    finally:
        recording = None
    program.output = program.number[id(output)]
    return program
    ### END SOLUTION
