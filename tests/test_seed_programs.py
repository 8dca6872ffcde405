"""Seed-article acceptance tests.

1. ``test_program_matches_torch``: every program in ``tests/seed_programs``
   (one per code example of the five seed articles) is run twice in a
   subprocess, once with real torch and once with teachgrad standing in for
   torch (through ``seed_programs/_run_with_teachgrad.py``); the two stdouts
   must be equal after normalising only the package's own name where a
   message names it (``torch.float64``, ``torch::autograd::CopySlices``,
   ``torch.autograd.set_detect_anomaly``) and hex addresses.  Test ids carry ``nn`` / ``random`` for programs that need
   ``torch.nn`` or bit-exact random numbers, so ``-k "not nn"`` or
   ``-k "not random"`` leaves them out.

2. ``test_hand_*``: torch-free checks of the numbers the articles derive by
   hand, asserted directly on teachgrad.  Tests that need ``teachgrad.nn``
   have ``nn`` in their name.

Run:  .venv/bin/python -m pytest tests/test_seed_programs.py -q [-n 4] [-k "not nn"]
Self-test (teachgrad replaced by torch, to check the tests themselves):
      TEACHGRAD_SELFTEST=1 .venv/bin/python -m pytest tests/test_seed_programs.py -q
"""
import difflib
import math
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PROGRAM_DIR = HERE / "seed_programs"
LAUNCHER = PROGRAM_DIR / "_run_with_teachgrad.py"
PYTHON = sys.executable
TIMEOUT = 300

SELFTEST = os.environ.get("TEACHGRAD_SELFTEST") == "1"

# make a source checkout of teachgrad importable without installation
_SOURCE_DIRS = [p for p in (ROOT / "src", ROOT) if p.is_dir()]
for _p in reversed(_SOURCE_DIRS):
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))

if SELFTEST:  # the project's self-test convention (see tests/differential.py)
    import torch
    import torch.autograd
    import torch.nn
    import torch.nn.functional
    import torch.optim

    sys.modules["teachgrad"] = torch
    for _sub in ("autograd", "nn", "nn.functional", "optim"):
        sys.modules["teachgrad." + _sub] = sys.modules["torch." + _sub]


def _import_teachgrad():
    """teachgrad, or skip while it is missing or still an empty namespace package."""
    tg = pytest.importorskip("teachgrad")
    if getattr(tg, "__file__", None) is None and not SELFTEST:
        pytest.skip("teachgrad has no __init__.py yet (empty namespace package)")
    return tg


# ---------------------------------------------------------------------------
# programs
# ---------------------------------------------------------------------------

_NEEDS = re.compile(r"^\s*#?\s*needs:\s*(.+?)\s*$")


def _needs(path):
    """Words of the ``# needs: ...`` header line(s) of a program."""
    found = set()
    with open(path, encoding="utf-8") as f:
        for _, line in zip(range(30), f):
            m = _NEEDS.match(line)
            if m:
                found.update(w for w in re.split(r"[\s,]+", m.group(1)) if w)
    return found


PROGRAMS = sorted(PROGRAM_DIR.glob("a[0-9]_*.py"))


def _program_id(path):
    needs = _needs(path)
    tags = [tag for tag in ("nn", "random") if tag in needs]
    return "-".join(tags + [path.stem])


def _env():
    env = dict(os.environ)
    extra = [str(p) for p in _SOURCE_DIRS]
    if env.get("PYTHONPATH"):
        extra.append(env["PYTHONPATH"])
    env["PYTHONPATH"] = os.pathsep.join(extra)
    env["PYTHONIOENCODING"] = "utf-8"
    env["PYTHONHASHSEED"] = "0"
    return env


def _run(*args):
    return subprocess.run(
        [PYTHON, *map(str, args)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=TIMEOUT,
        env=_env(),
        cwd=str(PROGRAM_DIR),
    )


_PACKAGE_NAME = re.compile(r"\b(?:torch|teachgrad)(?=\.[A-Za-z]|::)")
_HEX = re.compile(r"0x[0-9a-fA-F]+")


def normalise(text):
    """Only what may legitimately differ: the package's name in qualified names, and addresses."""
    text = _PACKAGE_NAME.sub("PACKAGE", text)
    return _HEX.sub("0x?", text)


def _tail(text, n=25):
    lines = text.rstrip().splitlines()
    return "\n".join(lines[-n:]) if lines else "(empty)"


def test_programs_found():
    assert len(PROGRAMS) >= 30, PROGRAMS
    for path in PROGRAMS:
        with open(path, encoding="utf-8") as f:
            code = [ln for ln in f if ln.strip() and not ln.lstrip().startswith("#")]
        assert "import torch" in "".join(code[:3]), f"{path.name}: no early 'import torch'"


def test_program_ids_keep_k_filters_exact():
    # -k matches substrings, so a program without the tag must not contain it
    for path in PROGRAMS:
        needs = _needs(path)
        for tag in ("nn", "random"):
            if tag not in needs:
                assert tag not in path.stem.lower(), (path.name, tag)


@pytest.mark.torch
@pytest.mark.parametrize("program", PROGRAMS, ids=[_program_id(p) for p in PROGRAMS])
def test_program_matches_torch(program):
    pytest.importorskip("torch")
    _import_teachgrad()

    ref = _run(program)
    assert ref.returncode == 0, (
        f"{program.name} fails with real torch (the program itself is broken):\n"
        f"{_tail(ref.stderr)}"
    )
    got = _run(LAUNCHER, program)

    want_out = normalise(ref.stdout)
    got_out = normalise(got.stdout)
    if got_out != want_out or got.returncode != 0:
        diff = "\n".join(
            difflib.unified_diff(
                want_out.splitlines(),
                got_out.splitlines(),
                fromfile=f"torch: {program.name}",
                tofile=f"teachgrad: {program.name}",
                lineterm="",
            )
        ) or "(stdout identical)"
        pytest.fail(
            f"{program.name}: teachgrad differs from torch "
            f"(exit code {got.returncode})\n{diff}\n"
            f"--- teachgrad stderr (tail) ---\n{_tail(got.stderr)}",
            pytrace=False,
        )


# ---------------------------------------------------------------------------
# hand-derived numbers of the articles, asserted on teachgrad (no torch)
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tg():
    return _import_teachgrad()


def val(t):
    return np.asarray(t.detach().numpy(), dtype=float)


def close(t, expected, tol=1e-5):
    np.testing.assert_allclose(val(t), np.asarray(expected, dtype=float), rtol=tol, atol=tol)


def _l_model(tg):
    input = tg.ones([2, 2], requires_grad=False)
    w1 = tg.tensor(2.0, requires_grad=True)
    w2 = tg.tensor(3.0, requires_grad=True)
    w3 = tg.tensor(4.0, requires_grad=True)
    l1 = input * w1
    l2 = l1 + w2
    l3 = l1 * w3
    l4 = l2 * l3
    loss = l4.mean()
    return input, (w1, w2, w3), (l1, l2, l3, l4), loss


def test_hand_l_model_forward(tg):
    # l1 = 1*2 = 2, l2 = 2+3 = 5, l3 = 2*4 = 8, l4 = 5*8 = 40, loss = mean = 40
    _, _, (l1, l2, l3, l4), loss = _l_model(tg)
    close(l1, [[2, 2], [2, 2]])
    close(l2, [[5, 5], [5, 5]])
    close(l3, [[8, 8], [8, 8]])
    close(l4, [[40, 40], [40, 40]])
    close(loss, 40)


def test_hand_l_model_leaf_grads(tg):
    # loss = (1/4) sum l4,  l4 = l2*l3 = (w1+w2) * (w1*w3)   (input = 1)
    # d l4/d w2 = l3 = w1*w3 = 8           per element; 4 elements / 4 -> w2.grad = 8
    # d l4/d w3 = l2*w1 = 5*2 = 10         per element            -> w3.grad = 10
    # d l4/d w1 = l3 + l2*w3 = 8 + 20 = 28 per element            -> w1.grad = 28
    _, (w1, w2, w3), _, loss = _l_model(tg)
    loss.backward()
    close(w1.grad, 28)
    close(w2.grad, 8)
    close(w3.grad, 10)


def test_hand_l_model_retain_grad(tg):
    # d loss/d loss = 1;  d loss/d l4 = 1/4 = 0.25 each
    # d loss/d l1 = 0.25 * (l3 + l2*w3) = 0.25 * (8 + 5*4) = 7 each
    _, _, (l1, l2, l3, l4), loss = _l_model(tg)
    l1.retain_grad()
    l4.retain_grad()
    loss.retain_grad()
    loss.backward()
    close(loss.grad, 1)
    close(l4.grad, [[0.25, 0.25], [0.25, 0.25]])
    close(l1.grad, [[7, 7], [7, 7]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert l2.grad is None  # not retained


def test_hand_l_model_intermediate_grads_are_none(tg):
    _, _, ls, loss = _l_model(tg)
    loss.backward()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert all(t.grad is None for t in ls + (loss,))
    # torch warns once per non-leaf .grad access
    assert [w.category for w in caught] == [UserWarning] * 5


def test_hand_register_hook_order(tg):
    # hooks run as the gradient flows back from the loss: loss, l4, then l1
    _, _, (l1, l2, l3, l4), loss = _l_model(tg)
    seen = []
    l1.register_hook(lambda g: seen.append(("l1", val(g))))
    l4.register_hook(lambda g: seen.append(("l4", val(g))))
    loss.register_hook(lambda g: seen.append(("loss", val(g))))
    loss.backward()
    assert [name for name, _ in seen] == ["loss", "l4", "l1"]
    np.testing.assert_allclose(seen[0][1], 1.0)
    np.testing.assert_allclose(seen[1][1], np.full((2, 2), 0.25))
    np.testing.assert_allclose(seen[2][1], np.full((2, 2), 7.0))


def test_hand_exp(tg):
    # b = e^a, a = 2: b = 7.389056, db/da = e^2
    a = tg.tensor(2.0, requires_grad=True)
    b = a.exp()
    close(b, math.exp(2))
    b.backward()
    close(a.grad, math.exp(2))


def test_hand_is_leaf(tg):
    a = tg.ones([2, 2], requires_grad=True)
    b = a + 2
    assert a.is_leaf and a.grad_fn is None
    assert not b.is_leaf and b.grad_fn is not None and b.requires_grad


def test_hand_version_counter_and_inplace_error(tg):
    # b is saved by b*b; b[0] = 1000 bumps b._version 0 -> 1, so backward fails
    a = tg.tensor([1.0, 3.0], requires_grad=True)
    b = a + 2
    assert b._version == 0
    loss = (b * b).mean()
    b[0] = 1000.0
    assert b._version == 1
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()


def test_hand_inplace_not_needed_by_backward_is_fine(tg):
    # loss = mean(b + 1) never needs b's value: d loss/d a = 1/2 each
    a = tg.tensor([1.0, 3.0], requires_grad=True)
    b = a + 2
    loss = (b + 1).mean()
    b[0] = 1000.0
    loss.backward()
    close(a.grad, [0.5, 0.5])


def test_hand_leaf_inplace_errors(tg):
    a = tg.tensor([10.0, 5.0, 2.0, 3.0], requires_grad=True)
    for op in (lambda: a.add_(10.0), lambda: a.__setitem__(slice(None), 0)):
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
            op()
    assert a.is_leaf
    close(a, [10, 5, 2, 3])


def test_hand_data_fill_fix(tg):
    # a = [10,10,10,10]; loss = mean(a^2); d loss/d a = 2a/4 = a/2 = 5
    a = tg.tensor([10.0, 5.0, 2.0, 3.0], requires_grad=True)
    a.data.fill_(10.0)
    assert a.is_leaf and a.requires_grad
    (a * a).mean().backward()
    close(a.grad, [5, 5, 5, 5])


def test_hand_detach_fill_fix(tg):
    a = tg.tensor([10.0, 5.0, 2.0, 3.0], requires_grad=True)
    a.detach().fill_(10.0)  # shares memory with a
    close(a, [10, 10, 10, 10])
    (a * a).mean().backward()
    close(a.grad, [5, 5, 5, 5])


def test_hand_no_grad_assignment_fix(tg):
    a = tg.tensor([10.0, 5.0, 2.0, 3.0], requires_grad=True)
    with tg.no_grad():
        a[:] = 10.0
    assert a.is_leaf and a.grad_fn is None
    (a * a).mean().backward()
    close(a.grad, [5, 5, 5, 5])


def test_hand_second_backward_raises(tg):
    # mean(a*a): d/da = 2a/2 = a = [3, 1]
    a = tg.tensor([3.0, 1.0], requires_grad=True)
    loss = (a * a).mean()
    loss.backward()
    close(a.grad, [3, 1])
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        loss.backward()


def test_hand_retain_graph_doubles_grad(tg):
    # y = sum(x^2): dy/dx = 2x = [2, 4]; a second pass accumulates to [4, 8]
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward(retain_graph=True)
    close(x.grad, [2, 4])
    y.backward()
    close(x.grad, [4, 8])


def test_hand_create_graph_second_derivative(tg):
    # y = x^3 at x = 2: dy/dx = 3x^2 = 12, d2y/dx2 = 6x = 12
    x = tg.tensor(2.0, requires_grad=True)
    (g,) = tg.autograd.grad(x ** 3, x, create_graph=True)
    close(g, 12)
    assert g.requires_grad
    g.backward()
    close(x.grad, 12)


def test_hand_sigmoid(tg):
    # s(1) = 1/(1+e^-1) = 0.731059; s'(1) = s(1)(1-s(1)) = 0.196612
    x = tg.ones(2, 2, requires_grad=True)
    y = tg.sigmoid(x)
    close(y, np.full((2, 2), 1 / (1 + math.exp(-1))))
    y.sum().backward()
    s = 1 / (1 + math.exp(-1))
    close(x.grad, np.full((2, 2), s * (1 - s)))


def test_hand_requires_grad_flag_rules(tg):
    a = tg.ones(2, 2)
    b = tg.ones(2, 2, requires_grad=True)
    assert (not a.requires_grad) and a.is_leaf
    assert b.requires_grad and b.is_leaf
    assert (a + b).requires_grad and not (a + b).is_leaf
    assert not (a + a).requires_grad and (a + a).is_leaf
    d = b.double()  # an operation: non-leaf
    assert d.requires_grad and not d.is_leaf
    with pytest.raises(RuntimeError, match="you can only change requires_grad flags of leaf variables"):
        (b * 2).requires_grad = False


def test_hand_detach_d2l(tg):
    # z = y*x = x^3: dz/dx = 3x^2 = [3, 12]
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    (x * x * x).sum().backward()
    close(x.grad, [3, 12])
    # z = u*x with u = (x*x).detach() a constant: dz/dx = u = x^2 = [1, 4]
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    y = x * x
    (y.detach() * x).sum().backward()
    close(x.grad, [1, 4])


def test_hand_detach_shares_memory(tg):
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    y = x * x
    u = y.detach()
    z = y * x
    u[0] = 5.0
    close(y, [5, 4])
    assert not u.requires_grad
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()


def test_hand_numpy_requires_grad(tg):
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match=r"Can't call numpy\(\) on Tensor that requires grad"):
        x.numpy()
    np.testing.assert_array_equal(x.detach().numpy(), [1.0, 2.0])


def test_hand_no_grad_flag(tg):
    x = tg.ones(5)
    w = tg.ones(5, 3, requires_grad=True)
    b = tg.zeros(3, requires_grad=True)
    assert (tg.matmul(x, w) + b).requires_grad
    with tg.no_grad():
        z = tg.matmul(x, w) + b
    assert not z.requires_grad and z.grad_fn is None
    close(z, [5, 5, 5])


def test_hand_pow_add_chain(tg):
    # y = x^2 = 1, z = y + 1 = 2; dz/dx = 2x = 2
    x = tg.tensor(1.0, requires_grad=True)
    y = x ** 2
    z = y + 1
    close(y, 1)
    close(z, 2)
    assert x.grad_fn is None and y.requires_grad and z.requires_grad
    z.backward()
    close(x.grad, 2)


def test_hand_nn_bce_with_logits(tg):
    # z = x @ w + b with x = ones(5): z = column sums of w + b = [1, 0, -1]
    # loss = mean(log(1 + e^z)) for y = 0: (1.313262 + 0.693147 + 0.313262) / 3
    # d loss/d z = sigmoid(z) / 3; every row of w.grad equals b.grad
    F = pytest.importorskip("teachgrad.nn.functional")
    x = tg.ones(5)
    y = tg.zeros(3)
    w = tg.tensor([[0.25, -0.5, 0.0],
                   [0.5, 0.25, -0.25],
                   [0.0, 0.75, 0.25],
                   [-0.25, 0.0, 0.5],
                   [0.0, -0.5, -0.5]], requires_grad=True)
    b = tg.tensor([0.5, 0.0, -1.0], requires_grad=True)
    z = tg.matmul(x, w) + b
    close(z, [1, 0, -1])
    loss = F.binary_cross_entropy_with_logits(z, y)
    zz = np.array([1.0, 0.0, -1.0])
    close(loss, np.mean(np.log1p(np.exp(zz))))
    loss.backward()
    sig = 1 / (1 + np.exp(-zz))
    close(b.grad, sig / 3)
    close(w.grad, np.tile(sig / 3, (5, 1)))


def test_hand_nn_clip_grad_norm(tg):
    # grads [3, 4] (norm 5) clipped to max norm 0.5 -> scaled by 0.1: [0.3, 0.4];
    # clip_grad_norm_ returns the norm before clipping (5)
    nn = pytest.importorskip("teachgrad.nn")
    p = nn.Parameter(tg.tensor([1.0, 1.0]))
    (p * tg.tensor([3.0, 4.0])).sum().backward()
    total = nn.utils.clip_grad_norm_([p], 0.5)
    close(total, 5.0)
    close(p.grad, [0.3, 0.4], tol=1e-4)


def test_hand_nn_sgd_step(tg):
    # w = w - lr * w.grad: loss = sum(w * [1, -2]), grad [1, -2], lr 0.5
    # -> [1 - 0.5, 1 + 1] = [0.5, 2]
    nn = pytest.importorskip("teachgrad.nn")
    optim = pytest.importorskip("teachgrad.optim")
    w = nn.Parameter(tg.tensor([1.0, 1.0]))
    opt = optim.SGD([w], lr=0.5)
    opt.zero_grad()
    (w * tg.tensor([1.0, -2.0])).sum().backward()
    opt.step()
    close(w, [0.5, 2.0])
    opt.zero_grad()
    assert w.grad is None or np.all(val(w.grad) == 0)
