"""Hand-made tests of the teachgrad core: expected values derived by hand, no torch needed.

These run on any machine with teachgrad installed.  With TEACHGRAD_SELFTEST=1 they run against
torch instead (see tests/differential.py), which checks the expectations themselves.
"""

import gc
import os
import subprocess
import sys
import textwrap
import warnings
import weakref

import numpy as np
import pytest

try:
    from . import differential as D
except ImportError:
    import differential as D

tg = pytest.importorskip("teachgrad")
PKG = tg.__name__   # "teachgrad" (or "torch" in self-test mode), for dtype=... in reprs


def name(t):
    return None if t.grad_fn is None else type(t.grad_fn).__name__


# --------------------------------------------------------------------------------------------
# the seed example
# --------------------------------------------------------------------------------------------

def seed_graph():
    inp = tg.ones(2, 2)
    w1 = tg.tensor(2.0, requires_grad=True)
    w2 = tg.tensor(3.0, requires_grad=True)
    w3 = tg.tensor(4.0, requires_grad=True)
    l1 = inp * w1          # every entry 1*2 = 2
    l2 = l1 + w2           # 2 + 3 = 5
    l3 = l1 * w3           # 2 * 4 = 8
    l4 = l2 * l3           # 5 * 8 = 40
    loss = l4.mean()       # mean of four 40s = 40
    return inp, w1, w2, w3, l1, l2, l3, l4, loss


def test_seed_example_forward_and_grads():
    inp, w1, w2, w3, l1, l2, l3, l4, loss = seed_graph()
    assert loss.item() == 40.0
    loss.backward()
    # dloss/dl4 = 1/4 per entry (mean of 4).  dl4/dl2 = l3 = 8, dl4/dl3 = l2 = 5.
    # w2: 4 entries * 1/4 * 8 * dl2/dw2(=1)              = 8
    # w3: 4 entries * 1/4 * 5 * dl3/dw3(=l1=2)           = 10
    # w1: dl4/dl1 = l3*dl2/dl1 + l2*dl3/dl1 = 8*1 + 5*4 = 28; times dl1/dw1 = inp = 1;
    #     4 entries * 1/4 * 28                           = 28
    assert w1.grad.item() == 28.0
    assert w2.grad.item() == 8.0
    assert w3.grad.item() == 10.0
    assert inp.grad is None
    assert tuple(w1.grad.shape) == ()
    assert str(w1.grad.dtype).split(".")[-1] == "float32"


def test_seed_example_flags_and_node_names():
    inp, w1, w2, w3, l1, l2, l3, l4, loss = seed_graph()
    assert (inp.is_leaf, inp.requires_grad) == (True, False)
    assert (w1.is_leaf, w1.requires_grad, w1.grad_fn) == (True, True, None)
    assert [t.is_leaf for t in (l1, l2, l3, l4, loss)] == [False] * 5
    assert [t.requires_grad for t in (l1, l2, l3, l4, loss)] == [True] * 5
    assert [name(t) for t in (l1, l2, l3, l4, loss)] == \
        ["MulBackward0", "AddBackward0", "MulBackward0", "MulBackward0", "MeanBackward0"]
    # l4 = l2 * l3: two edges, to the nodes that made l2 and l3, each the node's output 0
    (n2, i2), (n3, i3) = l4.grad_fn.next_functions
    assert (n2 is l2.grad_fn, i2, n3 is l3.grad_fn, i3) == (True, 0, True, 0)
    # l1 = inp * w1: inp needs no gradient -> (None, 0); w1 -> its AccumulateGrad node
    (a, ia), (b, ib) = l1.grad_fn.next_functions
    assert (a, ia) == (None, 0)
    assert type(b).__name__ == "AccumulateGrad" and ib == 0
    assert b.variable is w1
    # the AccumulateGrad node of w1 is shared by every use of w1 that is alive
    assert l1.grad_fn.next_functions[1][0] is b


def test_seed_example_reprs():
    *_, l4, loss = seed_graph()
    assert repr(loss) == "tensor(40., grad_fn=<MeanBackward0>)"
    loss.backward()
    assert repr(loss.detach()) == "tensor(40.)"


# --------------------------------------------------------------------------------------------
# reprs
# --------------------------------------------------------------------------------------------

REPRS = [
    (lambda: tg.tensor(40.0), "tensor(40.)"),
    (lambda: tg.tensor([10.0, 5.0, 2.0, 3.0], requires_grad=True), "tensor([10.,  5.,  2.,  3.], requires_grad=True)"),
    (lambda: tg.ones(2, 2, requires_grad=True).sigmoid(),
     "tensor([[0.7311, 0.7311],\n        [0.7311, 0.7311]], grad_fn=<SigmoidBackward0>)"),
    (lambda: tg.tensor([1, 2, 3]), "tensor([1, 2, 3])"),
    (lambda: tg.tensor([[1, 2], [3, 4]]), "tensor([[1, 2],\n        [3, 4]])"),
    (lambda: tg.tensor(3), "tensor(3)"),
    (lambda: tg.tensor([1.5, 2.25]), "tensor([1.5000, 2.2500])"),
    (lambda: tg.tensor([-1.0, 2.0]), "tensor([-1.,  2.])"),
    (lambda: tg.tensor([1e-5, 1e5]), "tensor([1.0000e-05, 1.0000e+05])"),
    (lambda: tg.tensor([True, False]), "tensor([ True, False])"),
    (lambda: tg.tensor([1.0, 2.0], dtype=tg.float64), f"tensor([1., 2.], dtype={PKG}.float64)"),
    (lambda: tg.tensor(2.0, dtype=tg.float64, requires_grad=True) * 2,
     f"tensor(4., dtype={PKG}.float64, grad_fn=<MulBackward0>)"),
    (lambda: tg.tensor([]), "tensor([])"),
]


@pytest.mark.parametrize("make, expected", REPRS, ids=[e for _, e in REPRS])
def test_repr(make, expected):
    assert repr(make()) == expected


# --------------------------------------------------------------------------------------------
# values of the main ops, by hand
# --------------------------------------------------------------------------------------------

def test_broadcast_gradient_is_summed_back():
    a = tg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = tg.tensor([[1.0, 1.0, 1.0], [2.0, 2.0, 2.0]], requires_grad=True)
    (a * b).sum().backward()
    # d/da_j sum_ij a_j b_ij = sum_i b_ij = 1 + 2 = 3 ; d/db_ij = a_j
    assert a.grad.tolist() == [3.0, 3.0, 3.0]
    assert b.grad.tolist() == [[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]]


def test_matmul_2d_grads_and_node():
    A = tg.tensor([[1.0, 2.0]], requires_grad=True)      # 1x2
    B = tg.tensor([[3.0], [4.0]], requires_grad=True)    # 2x1
    C = A @ B                                            # [[1*3 + 2*4]] = [[11]]
    assert C.tolist() == [[11.0]]
    assert name(C) == "MmBackward0"
    C.sum().backward()
    # dC/dA = B^T = [[3, 4]] ; dC/dB = A^T = [[1], [2]]
    assert A.grad.tolist() == [[3.0, 4.0]]
    assert B.grad.tolist() == [[1.0], [2.0]]


def test_max_with_dim_returns_values_and_indices():
    x = tg.tensor([[1.0, 5.0, 2.0], [7.0, 0.0, 3.0]], requires_grad=True)
    values, indices = x.max(dim=1)
    assert values.tolist() == [5.0, 7.0] and indices.tolist() == [1, 0]
    values.sum().backward()
    # the gradient goes only to the maximal entry of each row
    assert x.grad.tolist() == [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]


def test_softmax_rows_sum_to_one_and_grad_of_sum_is_zero():
    x = tg.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
    s = x.softmax(-1)
    assert abs(sum(s.tolist()[0]) - 1.0) < 1e-6
    s.sum().backward()    # sum of a softmax is constant 1, so its gradient is 0
    assert all(abs(g) < 1e-6 for g in x.grad.tolist()[0])


def test_comparison_gives_bool_without_graph():
    x = tg.tensor([1.0, 3.0], requires_grad=True)
    m = x > 2
    assert m.tolist() == [False, True]
    assert str(m.dtype).split(".")[-1] == "bool"
    assert (m.requires_grad, m.grad_fn, m.is_leaf) == (False, None, True)


def test_higher_order_derivatives_of_cube():
    x = tg.tensor(2.0, requires_grad=True)
    y = x ** 3
    (g1,) = tg.autograd.grad(y, x, create_graph=True)    # 3x^2 = 12
    (g2,) = tg.autograd.grad(g1, x, create_graph=True)   # 6x   = 12
    (g3,) = tg.autograd.grad(g2, x)                      # 6
    assert (g1.item(), g2.item(), g3.item()) == (12.0, 12.0, 6.0)
    assert g1.requires_grad and not g3.requires_grad


def test_gradient_accumulates_until_zeroed():
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    (x * 3).sum().backward()
    (x * 3).sum().backward()          # 3 + 3
    assert x.grad.tolist() == [6.0, 6.0]
    x.grad.zero_()
    (x * x).sum().backward()          # 2x
    assert x.grad.tolist() == [2.0, 4.0]


# --------------------------------------------------------------------------------------------
# in-place operations, versions, errors
# --------------------------------------------------------------------------------------------

def test_versions_views_and_data():
    x = tg.tensor([1.0, 2.0, 3.0])
    assert x._version == 0
    x.add_(1)
    assert x._version == 1
    v = x[1:]                 # a view shares the counter
    v.mul_(2)
    assert (x._version, v._version) == (2, 2)
    d = x.detach()            # so does detach()
    d.zero_()
    assert (x._version, d._version) == (3, 3)
    data = x.data             # .data gets a fresh counter
    data.fill_(5.0)
    assert (x._version, data._version) == (3, 1)
    assert x.tolist() == [5.0, 5.0, 5.0]     # ... but shares the memory


def test_inplace_modification_of_saved_output_is_detected():
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()               # ExpBackward0 saves its output y (at version 0)
    y.add_(1)                 # y is now at version 1
    with pytest.raises(RuntimeError) as info:
        y.sum().backward()
    msg = str(info.value)
    assert msg.startswith("one of the variables needed for gradient computation has been modified by an "
                          "inplace operation")
    assert "is at version 1; expected version 0 instead" in msg


def test_op_that_saved_nothing_is_not_affected():
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    a = x * 1
    b = a + 10                # AddBackward0 saves nothing
    a.mul_(100)
    b.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]


def test_inplace_on_leaf_requiring_grad_raises_at_once():
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="^a leaf Variable that requires grad is being used in an in-place"):
        x.add_(1)
    with pytest.raises(RuntimeError, match="^a view of a leaf Variable that requires grad is being used in an"):
        x[0].mul_(2)
    assert x.tolist() == [1.0, 2.0] and x._version == 0
    with tg.no_grad():
        x.add_(1)             # allowed under no_grad
    assert x.tolist() == [2.0, 3.0] and x._version == 1 and x.is_leaf


def test_setitem_gives_copyslices_and_right_grads():
    x = tg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 2                 # [2, 4, 6]
    y[0] = 10.0               # [10, 4, 6]; entry 0 no longer depends on x
    assert name(y) == "CopySlices" and y._version == 1
    assert y.tolist() == [10.0, 4.0, 6.0]
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 2.0, 2.0]


def test_second_backward_without_retain_graph_raises():
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    s = x.exp().sum()
    s.backward(retain_graph=True)
    s.backward()              # second pass allowed: the graph was retained; grads add up
    assert [round(g, 4) for g in x.grad.tolist()] == [round(2 * 2.718281828, 4), round(2 * 7.389056099, 4)]
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second time"):
        s.backward()


def test_backward_api_errors():
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="^grad can be implicitly created only for scalar outputs"):
        (x * 2).backward()
    with pytest.raises(RuntimeError, match="^element 0 of tensors does not require grad and does not have a grad_fn"):
        tg.ones(2).sum().backward()
    u = tg.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
        tg.autograd.grad((x * 2).sum(), [x, u])
    assert tg.autograd.grad((x * 2).sum(), [x, u], allow_unused=True)[1] is None
    with pytest.raises(RuntimeError, match="^Only Tensors of floating point"):
        tg.tensor([1, 2], requires_grad=True)


def test_nonleaf_grad_warns_and_retain_grad():
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    z = x * 4
    z.retain_grad()
    (y + z).sum().backward()
    with pytest.warns(UserWarning, match="The .grad attribute of a Tensor that is not a leaf Tensor is being accessed"):
        assert y.grad is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert z.retains_grad and z.grad.tolist() == [1.0, 1.0]


def test_hooks_replace_and_remove():
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    h = x.register_hook(lambda g: g * 2)      # doubles the incoming gradient
    (x * 5).sum().backward()
    assert x.grad.tolist() == [10.0, 10.0]
    h.remove()
    x.grad = None
    (x * 5).sum().backward()
    assert x.grad.tolist() == [5.0, 5.0]


def test_no_grad_and_detach():
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    with tg.no_grad():
        assert not tg.is_grad_enabled()
        y = x * 2
    assert tg.is_grad_enabled()
    assert (y.requires_grad, y.grad_fn, y.is_leaf) == (False, None, True)
    d = x.detach()
    assert (d.requires_grad, d.is_leaf) == (False, True)
    d[0] = 9.0                # shares memory with x
    assert x.tolist() == [9.0, 2.0]


def test_custom_function():
    class Cube(tg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 3 * x * x

    x = tg.tensor([1.0, 2.0], requires_grad=True)
    y = Cube.apply(x)
    assert type(y.grad_fn).__name__ == "CubeBackward"
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 12.0]     # 3x^2


def test_gradcheck():
    x = tg.tensor([0.5, 1.5], dtype=tg.float64, requires_grad=True)
    assert tg.autograd.gradcheck(lambda a: (a * a).sin(), (x,)) is True

    class Wrong(tg.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * a

        @staticmethod
        def backward(ctx, g):
            return g * 3        # d(a^2)/da is 2a, not 3

    with pytest.raises(RuntimeError, match="^Jacobian mismatch for output 0 with respect to input 0"):
        tg.autograd.gradcheck(Wrong.apply, (x,))


# --------------------------------------------------------------------------------------------
# memory: a graph is freed when its last reference goes, without the cycle collector
# --------------------------------------------------------------------------------------------

def _weak(objs):
    refs = []
    for o in objs:
        try:
            refs.append(weakref.ref(o))
        except TypeError:      # e.g. torch's C++ nodes are not weak-referenceable; tensors are
            pass
    return refs


def _build_saved_output_graph(variant):
    x = tg.ones(1000, requires_grad=True)
    y = x.exp()               # ExpBackward0 saves its own output
    z = y.sigmoid()           # SigmoidBackward0 too
    w = z.tanh()              # TanhBackward0 too
    loss = w.sum()
    if variant == "after_backward":
        loss.backward()
    elif variant == "retain_graph":
        loss.backward(retain_graph=True)
    refs = _weak([x, y, z, w, loss, y.grad_fn, z.grad_fn, w.grad_fn, loss.grad_fn])
    if x.grad is not None:
        refs += _weak([x.grad])
    return refs


@pytest.mark.parametrize("variant", ["no_backward", "after_backward", "retain_graph"])
def test_graph_freed_without_cycle_collector(variant):
    gc.collect()
    gc.disable()
    try:
        refs = _build_saved_output_graph(variant)    # every strong reference dies on return
        alive = [type(r()).__name__ for r in refs if r() is not None]
        assert alive == [], f"still alive without gc: {alive}"
        gc.set_debug(gc.DEBUG_SAVEALL)
        found = gc.collect()
        garbage = sorted({type(o).__name__ for o in gc.garbage})
        assert found == 0, f"the graph left cyclic garbage: {garbage}"
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()


def test_intermediate_freed_when_only_its_graph_remains():
    gc.collect()
    gc.disable()
    try:
        x = tg.ones(10, requires_grad=True)
        y = x.exp()
        loss = y.sum()
        loss.backward()       # frees the saved output of exp
        r = weakref.ref(y)
        del y
        assert r() is None, "after backward nothing should keep the intermediate tensor alive"
        del loss
    finally:
        gc.enable()


# --------------------------------------------------------------------------------------------
# a 100,000-deep chain: the engine must be iterative (run in a subprocess so a crash is a failure)
# --------------------------------------------------------------------------------------------

DEEP_CHAIN = textwrap.dedent("""
    import os, sys
    if os.environ.get("TEACHGRAD_SELFTEST") == "1":
        import torch as tg
    else:
        import teachgrad as tg
    sys.setrecursionlimit(1000)          # the default: any recursion over the graph would fail
    x = tg.tensor(1.0, requires_grad=True)
    y = x
    for i in range(100_000):             # 50,000 MulBackward0 and 50,000 AddBackward0 nodes
        y = y * 1.0 if i % 2 else y + 1.0
    loss = y * 2                         # loss = 2 * (x + 50,000)
    loss.backward()
    print(y.item(), x.grad.item())
    del loss, y                          # freeing the chain must not recurse either
    print("freed")
""")


def test_deep_chain_backward_without_recursion_error():
    env = dict(os.environ)
    env.setdefault("PYTHONPATH", "")
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env["PYTHONPATH"] = here + (os.pathsep + env["PYTHONPATH"] if env["PYTHONPATH"] else "")
    proc = subprocess.run([sys.executable, "-c", DEEP_CHAIN], capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stdout.split()
    # y = 1 + 50,000 additions of 1 (the multiplications by 1.0 change nothing) = 50,001
    # dloss/dx = 2 * (d/dx of x + 50,000) = 2
    assert lines == ["50001.0", "2.0", "freed"], proc.stdout


def test_an_operation_keeps_only_the_arrays_it_declares():
    """``keep("name", array)`` needs "name" in the class's kept_names: that is what gives the
    node its ``_saved_name`` attribute."""
    from teachgrad.autograd.operation import Operation

    class Halve(Operation):
        kept_names = ("scale",)

        def forward(self, a):
            self.keep("scale", np.asarray(0.5, dtype=a.dtype))
            return a * 0.5

        def backward(self, grad):
            return grad * self._saved_scale

    class Forgetful(Halve):
        def forward(self, a):
            self.keep("factor", np.asarray(0.5, dtype=a.dtype))
            return a * 0.5

    x = tg.tensor([2.0, 4.0], requires_grad=True)
    y = Halve.apply(x)
    assert y.grad_fn._saved_scale.item() == 0.5
    y.sum().backward()
    assert x.grad.tolist() == [0.5, 0.5]
    with pytest.raises(TypeError, match="kept_names must list 'factor'"):
        Forgetful.apply(x)


def test_every_node_class_keeps_its_name_method():
    """``grad_fn.name()`` works for every kind of node: no class may shadow the method
    with a plain attribute of the same name (a max node once did, with ``name = "max"``)."""
    import teachgrad
    from teachgrad.autograd.graph import Node

    teachgrad.nn.functional          # (import every module that defines nodes)
    classes, pending = [], [Node]
    while pending:
        cls = pending.pop()
        classes.append(cls)
        pending.extend(cls.__subclasses__())
    assert len(classes) > 200
    shadowed = [cls.__name__ for cls in classes if not callable(getattr(cls, "name"))]
    assert shadowed == []
    node = teachgrad.tensor([1.0, 2.0], requires_grad=True).max().grad_fn
    assert node.name() == "MaxBackward1"
