"""teachgrad.viz draws any graph made of PyTorch's public attributes: teachgrad's, the
student's yourgrad (the reference in solutions/yourgrad), torch's own, and a toy library
written here with nothing but those attributes.

The same program runs on each library; the drawings must say the same thing.
"""
import importlib.util
import re
import sys
import types
from pathlib import Path

import numpy as np
import pytest

import teachgrad
import teachgrad.viz as tv

ROOT = Path(__file__).resolve().parents[1]


def load_package(folder, name):
    """The package in ``folder`` imported as ``name`` (and forgotten afterwards), so that no
    `import yourgrad` elsewhere in this process finds it in sys.modules."""
    spec = importlib.util.spec_from_file_location(name, folder / "__init__.py",
                                                  submodule_search_locations=[str(folder)])
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        for key in [k for k in sys.modules if k == name or k.startswith(name + ".")]:
            del sys.modules[key]


@pytest.fixture(scope="module")
def yourgrad():
    """The reference yourgrad (solutions/yourgrad)."""
    yield from load_package(ROOT / "solutions" / "yourgrad", "yourgrad_for_viz_tests")


@pytest.fixture(scope="module")
def stubs():
    """The student's yourgrad before any chapter is written (exercises/yourgrad)."""
    yield from load_package(ROOT / "exercises" / "yourgrad", "yourgrad_stubs_for_viz_tests")


def small_network(lib):
    """A weight, an input, a constant: two products, a sigmoid, a sum; every tensor named."""
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    w = lib.tensor([[0.5], [-1.0]], requires_grad=True)
    c = lib.tensor([3.0, 4.0])
    wx = w * x
    z = wx * c
    h = z.sigmoid()
    loss = h.sum()
    return dict(x=x, w=w, c=c, wx=wx, z=z, h=h, loss=loss)


TREE_BEFORE_BACKWARD = """\
SumBackward0  loss
└─ SigmoidBackward0  h
   │  saved result: h (2, 2), v0
   └─ MulBackward0  z
      │  saved other: c (2,), v0
      └─ MulBackward0  wx
         │  saved self: w (2, 1), v0
         │  saved other: x (2,), v0
         ├─ AccumulateGrad  w
         └─ AccumulateGrad  x"""

FORWARD = """\
w: (2, 1) [[0.5], [-1.]]  leaf, requires grad
x: (2,) [1., 2.]  leaf, requires grad
c: (2,) [3., 4.]  leaf, no grad
wx = mul(w, x): (2, 2) [[0.5, 1.], [-1., -2.]]
z = mul(wx, c): (2, 2) [[1.5, 4.], [-3., -8.]]
h = sigmoid(z): (2, 2) [[0.8176, 0.982], [0.04743, 0.0003354]]
loss = sum(h): scalar 1.847  (root)"""


def test_teachgrad_draws_the_small_network_as_written_by_hand():
    t = small_network(teachgrad)
    assert tv.tree(t["loss"], names=t, show_saved=True) == TREE_BEFORE_BACKWARD
    assert tv.draw_forward(t["loss"], names=t).text == FORWARD


def test_yourgrad_and_torch_draw_exactly_what_teachgrad_draws(yourgrad):
    torch = pytest.importorskip("torch")
    reference = small_network(teachgrad)
    for lib in (yourgrad, torch):
        t = small_network(lib)
        for draw in (tv.draw, tv.draw_backward, tv.draw_forward):
            options = {} if draw is tv.draw_forward else {"show_saved": True}
            mine, theirs = draw(t["loss"], names=t, **options), \
                draw(reference["loss"], names=reference, **options)
            assert (mine.source, mine.text) == (theirs.source, theirs.text), lib.__name__


def test_the_drawing_only_reads_the_graph(yourgrad):
    torch = pytest.importorskip("torch")
    for lib in (teachgrad, yourgrad, torch):
        t = small_network(lib)
        tv.draw(t["loss"], names=t, show_saved=True)
        assert [t[n]._version for n in t] == [0] * len(t)
        assert t["x"].grad is None and t["w"].grad is None
        t["loss"].backward()          # nothing was freed or changed by the drawing
        assert np.allclose(np.asarray(t["x"].grad.tolist()), [0.08819, 0.03398], atol=1e-5)


def test_freed_saved_tensors_after_backward(yourgrad):
    """teachgrad keeps a record of what was freed (its shape); torch's and yourgrad's saved
    tensors only raise PyTorch's error when read, so the drawing says 'freed' without a shape
    (the output, `result` by PyTorch's convention, keeps its name)."""
    torch = pytest.importorskip("torch")
    freed = {}
    for lib in (teachgrad, yourgrad, torch):
        t = small_network(lib)
        t["loss"].backward()
        freed[lib] = [line.strip("│ ") for line in
                      str(tv.tree(t["loss"], names=t, show_saved=True)).splitlines()
                      if "saved" in line]
    assert freed[teachgrad] == ["saved result: h (2, 2), freed", "saved other: (2,), freed",
                                "saved self: (2, 1), freed", "saved other: (2,), freed"]
    assert freed[yourgrad] == freed[torch] == [
        "saved result: h, freed", "saved other: a tensor, freed",
        "saved self: a tensor, freed", "saved other: a tensor, freed"]


def changed_in_place(lib):
    a = lib.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
    b = a * 2
    e = b.exp()
    e.add_(1)                 # exp saved its result, now at version 1
    return e


def test_a_stale_saved_tensor_reads_the_same_on_torch_as_on_teachgrad():
    torch = pytest.importorskip("torch")
    lines = [str(tv.tree(changed_in_place(lib), show_saved=True)).splitlines()
             for lib in (teachgrad, torch)]
    assert lines[0] == lines[1]
    assert lines[0][2] == "   │  saved result: (1, 3), saved v0, now v1 (stale)"


def test_a_stale_saved_tensor_on_yourgrad(yourgrad):
    line = str(tv.tree(changed_in_place(yourgrad), show_saved=True)).splitlines()[2]
    assert line.startswith("   │  saved result: ") and "stale" in line


def test_a_torch_custom_function_shows_its_saved_tensors_by_position():
    torch = pytest.importorskip("torch")

    class MyExp(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y, x)
            return y

        @staticmethod
        def backward(ctx, grad):
            y, _ = ctx.saved_tensors
            return grad * y

    a = torch.tensor([1.0, 2.0], requires_grad=True)
    y = MyExp.apply(a)
    assert str(tv.tree(y, show_saved=True)) == (
        "MyExpBackward  y\n│  saved saved_tensors[0]: y (2,), v0\n"
        "│  saved saved_tensors[1]: a (2,), v0\n└─ AccumulateGrad  a")
    y.sum().backward()
    assert "saved saved_tensors: a tensor, freed" in str(tv.tree(y, show_saved=True))


def test_a_leaf_drawn_alone_or_with_a_graph_that_uses_it(yourgrad):
    """torch hands out no AccumulateGrad for a leaf: the drawing stands one in, or uses the
    real one when another root's graph holds it (one box, not two)."""
    torch = pytest.importorskip("torch")
    drawings = []
    for lib in (teachgrad, yourgrad, torch):
        t = small_network(lib)
        drawings.append((str(tv.tree(t["x"], names=t)),
                         tv.draw_backward(t["x"], t["loss"], names=t).text))
    assert drawings[0] == drawings[1] == drawings[2]
    alone, together = drawings[0]
    assert alone == "AccumulateGrad  x"
    assert together.count("AccumulateGrad  x") == 2 and "[b" in together   # one node, reused


def test_the_callers_variables_name_any_librarys_tensors(yourgrad):
    torch = pytest.importorskip("torch")
    for lib in (yourgrad, torch):
        weight = lib.tensor([2.0], requires_grad=True)
        doubled = weight * 2
        assert str(tv.tree(doubled)) == "MulBackward0  doubled\n└─ AccumulateGrad  weight"
        with pytest.raises(TypeError, match="names= maps names to tensors"):
            tv.tree(doubled, names={"weight": lib})      # a module is not a tensor


# ---- a toy library with nothing but PyTorch's public attributes -----------------------

class ToyTensor:
    def __init__(self, values, grad_fn=None, requires_grad=False):
        self.array = np.asarray(values, dtype=np.float32)
        self.shape, self.dtype = self.array.shape, self.array.dtype
        self.grad_fn, self.requires_grad = grad_fn, requires_grad or grad_fn is not None
        self.is_leaf, self.grad, self._version = grad_fn is None, None, 0
        self.data = self.array


class ToyAccumulateGrad:
    next_functions = ()

    def __init__(self, variable):
        self.variable = variable

    def name(self):
        return "toy::AccumulateGrad"


class ToyMulBackward0:
    def __init__(self, a, b):
        self.next_functions = tuple((ToyAccumulateGrad(t) if t.requires_grad else None, 0)
                                    for t in (a, b))
        self._saved_self, self._saved_other = a, b     # PyTorch's names of inputs 0 and 1

    def name(self):
        return "MulBackward0"


def toy_mul(a, b):
    out = ToyTensor(a.array * b.array)
    out.grad_fn, out.requires_grad, out.is_leaf = ToyMulBackward0(a, b), True, False
    return out


def test_a_graph_of_public_attributes_only_is_drawn_like_teachgrads():
    w, c = ToyTensor([2.0, 3.0], requires_grad=True), ToyTensor([4.0, 5.0])
    y = toy_mul(w, c)
    assert str(tv.tree(y, names={"w": w, "c": c, "y": y}, show_saved=True)) == (
        "MulBackward0  y\n│  saved self: w (2,), v0\n│  saved other: c (2,), v0\n"
        "└─ AccumulateGrad  w")
    assert tv.draw_forward(y).text == (
        "w: (2,) [2., 3.]  leaf, requires grad\nc: (2,) [4., 5.]  leaf, no grad\n"
        "y = mul(w, c): (2,) [8., 15.]  (root)")


# ---- one example, several libraries, side by side -------------------------------------

def one_product(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    w = torch.tensor(3.0, requires_grad=True)
    xw = x * w
    y = xw.sum()
    return {"x": x, "w": w, "xw": xw, "y": y}


ONE_PRODUCT_TREE = """\
SumBackward0  y
└─ MulBackward0  xw
   │  saved self: x (2,), v0
   │  saved other: w scalar, v0
   ├─ AccumulateGrad  x
   └─ AccumulateGrad  w"""


def test_draw_beside_frames_each_librarys_graph_under_its_name(yourgrad):
    torch = pytest.importorskip("torch")
    drawing = tv.draw_beside(one_product, teachgrad, yourgrad, torch, show_saved=True)
    assert drawing.text == "\n\n".join(f"{name}:\n{ONE_PRODUCT_TREE}" for name in
                                        ("teachgrad", "yourgrad_for_viz_tests", "torch"))
    frames = re.findall(r"subgraph cluster_(\w+) \{\n    graph \[label=<<B>([\w.]+)</B>>",
                        drawing.source)
    assert frames == [("teachgrad", "teachgrad"),
                      ("yourgrad_for_viz_tests", "yourgrad_for_viz_tests"), ("torch", "torch")]
    boxes = re.findall(r"^    (l\d\w+) \[", drawing.source, re.MULTILINE)
    assert len(boxes) == len(set(boxes)) == 3 * 8        # 4 nodes, 2 leaves, 2 saved each


def test_draw_beside_says_what_is_not_built_yet_and_never_raises(stubs):
    def broken(torch):
        if torch is teachgrad:
            return one_product(torch)
        raise TypeError("unsupported operand type(s) for *: 'Tensor' and 'Tensor'\nmore")

    library = types.ModuleType("mine")        # only its name is read
    assert tv.draw_beside(one_product, teachgrad, stubs).text.split("\n\n")[1] == (
        "yourgrad_stubs_for_viz_tests:\nnot built yet (chapter 01: store the array in "
        "self.array with PyTorch's dtype rule)")
    drawing = tv.draw_beside(broken, teachgrad, library)
    assert drawing.text.split("\n\n")[1] == (
        "mine:\nTypeError: unsupported operand type(s) for *: 'Tensor' and 'Tensor'")
    assert "cluster_mine" in drawing.source and "TypeError" in drawing.source
