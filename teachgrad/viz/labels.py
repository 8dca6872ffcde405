"""How tensors and nodes are written in drawings and text forms.

The same words appear in the SVG and in the text form, so what a student reads
in the picture is what the notebook tests compare.
"""
import re

from teachgrad import dtypes
from teachgrad.viz import public

FEW_VALUES = 6    # tensors with at most this many elements show their values


def shape_text(shape):
    """``(2, 2)``, ``(3,)`` or ``scalar``."""
    if len(shape) == 0:
        return "scalar"
    return str(tuple(int(size) for size in shape))


def number_text(value):
    """A number the way PyTorch prints it: ``2.``, ``0.7311``, ``3``, ``True``."""
    if isinstance(value, float):
        if value.is_integer() and abs(value) < 1e8:
            return f"{value:.0f}."
        return f"{value:.4g}"
    return str(value)


def values_text(values):
    """Nested lists of numbers (from ``tensor.tolist()``) written on one line."""
    if isinstance(values, list):
        return "[" + ", ".join(values_text(v) for v in values) + "]"
    return number_text(values)


def tensor_facts(tensor=None, shape=None):
    """What is shown of a tensor: its shape (and dtype, when not the default), then
    the values when it is small. Without the tensor object, only its shape."""
    if tensor is None:
        return [shape_text(shape) if shape is not None else "shape unknown"]
    facts = [shape_text(tensor.shape)]
    dtype = public.dtype_name(tensor.dtype)
    if dtype != dtypes.get_default_dtype().name:
        facts[0] += " " + dtype
    if public.numel(tensor) <= FEW_VALUES:
        facts.append(values_text(public.values(tensor)))
    return facts


def box_lines(facts):
    """``tensor_facts`` as the lines of a box: on one line when that line is short."""
    line = " ".join(facts)
    return [line] if len(line) <= 20 else facts


def brief(tensor):
    """The values of a small tensor, else its shape: how gradients are shown."""
    return tensor_facts(tensor)[-1]


def grad_text(tensor):
    """``grad 28.`` for a tensor whose gradient is stored, else None (never warns)."""
    if tensor is None or not (tensor.is_leaf or public.retains_grad(tensor)) \
            or tensor.grad is None:
        return None
    return "grad " + brief(tensor.grad)


node_title = public.node_title


def operation_name(node):
    """The forward operation a backward node records: ``MulBackward0`` -> ``mul``."""
    base = re.sub(r"Backward\d*$", "", node_title(node))
    base = re.sub(r"(\d)D", r"\1d", base)            # MaxPool2D... -> max_pool2d_...
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", base).lower()


def hook_marks(node):
    """Words for what runs at this node besides its backward: retain_grad and hooks."""
    if public.is_accumulate(node):
        tensor_hooks = len(getattr(node.variable, "_hooks", None) or ())
    else:
        tensor_hooks = sum(len(hooks) for hooks in
                           (getattr(node, "_tensor_pre_hooks", None) or {}).values())
    marks = []
    if getattr(node, "_retains_grad_hooks", None):
        marks.append("retains grad")
    for count, word in ((tensor_hooks, "tensor hook"),
                        (len(getattr(node, "_pre_hooks", None) or ()), "pre-hook"),
                        (len(getattr(node, "_post_hooks", None) or ()), "hook")):
        if count:
            marks.append(f"{word} ×{count}")
    return marks


def saved_name(node, saved, names):
    """The variable name of a saved tensor, when it can be known without unpacking a bad one."""
    if saved.is_output:
        return names.output(node)[0]
    return None if saved.tensor is None else names.of(saved.tensor)


def saved_facts(node, names):
    """``(slot, Saved, "l2 (2, 2)", "v0")`` for each tensor the node saved."""
    facts = []
    for saved in public.saved_tensors(node):
        name = saved_name(node, saved, names)
        shape = shape_text(saved.shape) if saved.shape is not None else ""
        what = " ".join(word for word in (name, shape) if word) or "a tensor"
        facts.append((saved.slot, saved, what, saved.status))
    return facts


class NodeFacts:
    """What is written about one backward node, in the drawing and in the text form.

    ``subject`` is the name of the tensor the node made (for AccumulateGrad: of its
    leaf), or that tensor's shape when it has no name.
    """

    def __init__(self, node, graph, names, show_grads):
        self.title = node_title(node)
        if public.is_accumulate(node):
            self.tensor = node.variable
            self.name = names.of(self.tensor)
            shape = self.tensor.shape
        else:
            outputs = [names.output(node, nr) for nr in range(public.num_outputs(node))]
            self.name, self.tensor = outputs[0]
            if len(outputs) > 1:        # split, unbind...: every piece that has a name
                self.name = ", ".join(name for name, _ in outputs if name) or None
            shape = graph.output_shapes.get((node, 0))
            if self.tensor is not None:
                shape = self.tensor.shape
        self.subject = self.name or (shape_text(shape) if shape is not None else "")
        self.marks = hook_marks(node)
        self.grad = grad_text(self.tensor) if show_grads else None

    def line(self):
        """``MulBackward0  l1`` with its marks, for the text tree."""
        words = [self.title, self.subject, *self.marks]
        if self.grad:
            words.append(self.grad)
        return "  ".join(word for word in words if word)
