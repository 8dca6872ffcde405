"""Chapter 10 — from dynamic to static: trace a function once, replay the recorded program.

While `trace` runs the function, `ops.apply` reports each operation to the Program being
recorded: a list of instructions over numbered values (v0, v1, ... the inputs first) and
constants (c0, c1, ...: numbers and outside tensors, frozen as they were). Replaying it runs
forward and backward without building a graph. Python's `if`, `for` and `while` are not
operations: the program knows only the branch the example took.
"""
import re

import numpy as np

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
        """One operation that ran: name each input (a value of the program, or else a new
        constant holding a copy of its array), name the output v<next>, append the instruction."""
        raise NotImplementedError("chapter 10: name inputs (new ones become constants) and the output")

    def __call__(self, *inputs):
        """Replay on new inputs: forward with each node's numpy `forward`, keeping what its
        formula saves; then, from a gradient of 1, the nodes' `backward` in reverse order with
        recording off (gradients summed back to their input's shape, engine.sum_to). Returns
        (output, [gradient of each input])."""
        raise NotImplementedError("chapter 10: run forward instruction by instruction, then backward")

    def __str__(self):
        lines = [f"def program({', '.join(self.inputs)}):"]
        lines += [f"    {name} = constant of shape {tuple(array.shape)}"
                  for name, array in self.constants.items()]
        lines += [f"    {out} = {op_name(node_class)}({', '.join(names)})"
                  for node_class, _, names, out in self.instructions]
        return "\n".join(lines + [f"    return {self.output}"])


def op_name(node_class):
    """The operation a node class records: MulBackward0 -> mul."""
    return re.sub(r"Backward\d*$", "", node_class.__name__).lower()


def trace(function, *example_inputs):
    """Run `function` once on (fresh copies of) the example inputs while ops.apply reports to a
    new Program (the module's `recording`, put back to None even if the function raises);
    the program's output is the value the function returned."""
    raise NotImplementedError("chapter 10: record a run of the function into a new Program")
