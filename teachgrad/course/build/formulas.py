"""One build check per backward formula, on the lecture's kind of example and on random ones.

Each formula check draws a few cases from a generator seeded by the check's title (the same
cases on every run and on both sides): random shapes (broadcast pairs, non-square matrices,
negative entries for relu), and each time a different choice of which inputs require grad —
an input that needs no gradient next to one that does is where `needs_input_grad` mistakes
show. For each case the check starts backward from a random gradient (``out.backward(g)``, so
only the formula under test runs) and reports

- the gradient of each input that requires grad (compared with teachgrad's, entry by entry),
- the output's node name, and
- whether that gradient agrees with central differences of the package's own forward
  (float64, so the test does not depend on teachgrad at all).
"""
import zlib

import numpy as np

from teachgrad.course.build.compare import checks_list, name

CASES = 3               # random cases per formula, beside the lecture-sized one
EPS, RTOL, ATOL = 1e-6, 1e-4, 1e-6

BROADCAST_PAIRS = [((2, 3), (2, 3)), ((2, 3), (3,)), ((2, 1), (1, 3)), ((3, 2), ()),
                   ((4, 1, 2), (3, 1)), ((1, 3), (2, 1))]


def values(rng, shape, positive=False):
    """Random numbers of a shape, away from 0 (and positive if asked)."""
    signs = 1.0 if positive else rng.choice([-1.0, 1.0], shape)
    return np.asarray(rng.uniform(0.5, 2.0, shape) * signs, np.float64)


def shape_text(shape):
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


def central_differences(torch, function, arrays, index, weights):
    """d/d arrays[index] of sum(function(*arrays) * weights), one entry at a time."""
    def value(moved):
        tensors = [torch.tensor(a, dtype=torch.float64) for a in moved]
        return float((function(*tensors) * torch.tensor(weights)).sum().item())
    x = arrays[index]
    numerical = np.zeros(x.shape)
    for k in np.ndindex(x.shape):
        above, below = x.copy(), x.copy()
        above[k] += EPS
        below[k] -= EPS
        numerical[k] = (value(arrays[:index] + [above] + arrays[index + 1:])
                        - value(arrays[:index] + [below] + arrays[index + 1:])) / (2 * EPS)
    return numerical


def agreement(analytical, numerical):
    """'agrees', or where the first entry that disagrees sits."""
    if analytical is None:
        return "no gradient"
    analytical = np.asarray(analytical)
    if analytical.shape != numerical.shape:
        return f"shape {shape_text(analytical.shape)} is not the input's"
    wrong = ~np.isclose(analytical, numerical, RTOL, ATOL)
    if not wrong.any():
        return "agrees"
    return f"differs at entry {tuple(int(i) for i in np.argwhere(wrong)[0])}"


def as_array(t):
    array = getattr(t, "array", None)
    return np.asarray(array if array is not None else t.detach().numpy())


def run_case(torch, label, function, arrays, needs):
    """What one case shows: gradients, node name, agreement with central differences."""
    inputs = [torch.tensor(a, dtype=torch.float64, requires_grad=flag)
              for a, flag in zip(arrays, needs)]
    out = function(*inputs)
    weights = np.asarray(np.random.default_rng(zlib.crc32(label.encode())).uniform(
        -1, 1, out.shape), np.float64)
    out.backward(torch.tensor(weights))
    seen = {f"{label}: node": name(out.grad_fn)}
    for i, (t, flag) in enumerate(zip(inputs, needs)):
        if flag:
            seen[f"{label}: grad of input {i}"] = t.grad
            numerical = central_differences(torch, function, arrays, i, weights)
            seen[f"{label}: grad of input {i} against central differences"] = agreement(
                None if t.grad is None else as_array(t.grad), numerical)
    return seen


def add_formula_checks(check, formulas):
    """Register one check per formula of `formulas`, {title: (hint, cases)}."""
    for title, (hint, cases) in formulas.items():
        formula_check(check, title, hint, cases)


def formula_check(check, title, hint, cases):
    """Register a check that runs `cases(rng)`: a list of (label, function, arrays, needs)."""
    def scenario(torch):
        rng = np.random.default_rng(zlib.crc32(title.encode()))
        seen = {}
        for k, (label, function, arrays, needs) in enumerate(cases(rng), 1):
            seen.update(run_case(torch, f"case {k}, {label}", function, arrays, needs))
        return seen
    scenario.__name__ = scenario.__qualname__ = "formula: " + title
    check(title, hint)(scenario)
    return scenario


# ---------------------------------------------------------------- the cases of each formula

NEEDS_PAIRS = [(True, True), (True, False), (False, True)]


def binary(symbol, operation, positive_right=False):
    """Cases of a broadcasting operation: random shape pairs, each needs-pattern in turn."""
    def cases(rng):
        found = []
        for k in range(CASES):
            left, right = BROADCAST_PAIRS[rng.integers(len(BROADCAST_PAIRS))]
            if k % 2:
                left, right = right, left
            arrays = [values(rng, left), values(rng, right, positive_right)]
            label = f"a {shape_text(left)} {symbol} b {shape_text(right)}"
            found.append((label, operation, arrays, NEEDS_PAIRS[k]))
        return found
    return cases


def with_numbers(symbol, operations, positive=False):
    """Cases where a number meets a tensor: `2 - x`, `x - 2` ... (reflected operators)."""
    def cases(rng):
        return [(f"{text} with x {shape_text(shape)}", operation,
                 [values(rng, shape, positive)], (True,))
                for text, operation in operations.items()
                for shape in [tuple(rng.integers(1, 4, rng.integers(1, 3)))]]
    return cases


def unary(text, operation, positive=False):
    def cases(rng):
        shapes = [(3,)] + [tuple(rng.integers(1, 4, rng.integers(1, 4))) for _ in range(CASES)]
        return [(f"{text} of x {shape_text(s)}", operation, [values(rng, s, positive)], (True,))
                for s in shapes]
    return cases


def combined(*makers):
    def cases(rng):
        return [case for make in makers for case in make(rng)]
    return cases


def reductions(method):
    """x.sum(dim, keepdim) or x.mean(...): all elements, one dim, two dims, keepdim or not."""
    def cases(rng):
        found = []
        for dim, keepdim in [(None, False), (1, False), (0, True), ((0, 2), False),
                             (-1, True)]:
            shape = tuple(int(n) for n in rng.integers(2, 4, 3))
            label = f"x {shape_text(shape)}.{method}(dim={dim}, keepdim={keepdim})"
            if dim is None:
                def operation(x): return getattr(x, method)()
            else:
                def operation(x, dim=dim, keepdim=keepdim):
                    return getattr(x, method)(dim=dim, keepdim=keepdim)
            found.append((label, operation, [values(rng, shape)], (True,)))
        return found
    return cases


def powers(rng):
    return [(f"x {shape_text(s)} ** {p}", lambda x, p=p: x ** p,
             [values(rng, s, positive=True)], (True,))
            for p, s in [(2, (3,)), (3, (2, 2)), (0.5, (2, 3)), (-1, (4,)), (-1.5, (3, 1))]]


def views(rng):
    found = []
    for _ in range(CASES):
        shape = (2, 3, 2)
        new = [(3, 4), (12,), (2, 6), (6, 1, 2)][rng.integers(4)]
        found.append((f"x {shape_text(shape)}.view{new}", lambda x, new=new: x.view(*new),
                      [values(rng, shape)], (True,)))
        found.append((f"x {shape_text(shape)}.reshape{new}",
                      lambda x, new=new: x.reshape(new), [values(rng, shape)], (True,)))
    return found


def transposes(rng):
    found = [("x (2, 3).t()", lambda x: x.t(), [values(rng, (2, 3))], (True,))]
    for d0, d1 in [(0, 1), (0, 2), (1, 2)]:
        found.append((f"x (2, 3, 4).transpose({d0}, {d1})",
                      lambda x, d0=d0, d1=d1: x.transpose(d0, d1),
                      [values(rng, (2, 3, 4))], (True,)))
    return found


SLICES = {"x[1:]": lambda x: x[1:], "x[0]": lambda x: x[0], "x[:, 2]": lambda x: x[:, 2],
          "x[1, 1:]": lambda x: x[1, 1:], "x[::2]": lambda x: x[::2],
          "x[-1]": lambda x: x[-1], "x[:2, ::2]": lambda x: x[:2, ::2]}


def slices(rng):
    return [(f"{text} of x (3, 4)", operation, [values(rng, (3, 4))], (True,))
            for text, operation in SLICES.items()]


def products(kind):
    def cases(rng):
        found = []
        for k in range(CASES):
            n, inner, m = (int(v) for v in rng.permutation([2, 3, 4]))
            right = (inner, m) if kind == "mm" else (inner,)
            found.append((f"A {shape_text((n, inner))} @ B {shape_text(right)}",
                          lambda a, b: a @ b, [values(rng, (n, inner)), values(rng, right)],
                          NEEDS_PAIRS[k]))
        return found
    return cases


STAGE_03 = {
    "formula of a + b (and x + 2, 2 + x)": (
        "each input gets the incoming gradient (summed back to its shape by sum_to); an input "
        "that needs no gradient gets None",
        combined(binary("+", lambda a, b: a + b),
                 with_numbers("+", {"x + 2": lambda x: x + 2, "2 + x": lambda x: 2 + x}))),
    "formula of a - b (and x - 2, 2 - x, -x)": (
        "a gets the incoming gradient, b its negative; 2 - x is recorded as RsubBackward1",
        combined(binary("-", lambda a, b: a - b),
                 with_numbers("-", {"x - 2": lambda x: x - 2, "2 - x": lambda x: 2 - x,
                                    "-x": lambda x: -x}))),
    "formula of a * b (and 2 * x)": (
        "a's gradient is the incoming one times the saved b, and the other way round; "
        "compute only what needs_input_grad asks for",
        combined(binary("*", lambda a, b: a * b),
                 with_numbers("*", {"2 * x": lambda x: 2 * x, "x * 3": lambda x: x * 3}))),
    "formula of x ** p": (
        "p * x ** (p - 1) times the incoming gradient, x the saved input, p a number "
        "(also negative or fractional)", powers),
    "formula of sum, over all elements or some dims": (
        "every element gets the gradient of the sum it went into: put back the reduced dims "
        "(size 1) and stretch to the input's shape", reductions("sum")),
    "formula of mean, over all elements or some dims": (
        "as sum, divided by the number of elements each mean took (not by the whole input's "
        "size)", reductions("mean")),
}

STAGE_05 = {
    "formula of exp (from the saved result)": (
        "exp's derivative is exp itself: the saved result times the incoming gradient",
        unary("exp", lambda x: x.exp())),
    "formula of log (from the saved input)": (
        "the incoming gradient divided by the saved input", unary("log", lambda x: x.log(), True)),
    "formula of relu, negative inputs included": (
        "1 where the saved result is positive, 0 elsewhere — negative inputs get no gradient",
        unary("relu", lambda x: x.relu())),
    "formula of view and reshape": (
        "give the gradient the input's shape back", views),
    "formula of t() and transpose": (
        "swap the same two dims of the gradient back", transposes),
    "formula of slicing: x[i], x[a:b], x[::2]": (
        "zeros of the input's shape with the gradient copied into the slots the slice took "
        "(CopySlices)", slices),
}

STAGE_06 = {
    "formula of tanh (from the saved result)": (
        "1 - tanh(x)**2, from the saved result, in yourgrad operations",
        unary("tanh", lambda x: x.tanh())),
    "formula of sigmoid (from the saved result)": (
        "s * (1 - s) with s the saved result, in yourgrad operations",
        unary("sigmoid", lambda x: x.sigmoid())),
    "formula of a / b (and x / 2, 2 / x)": (
        "a gets grad / b, b gets -grad * a / b**2; 2 / x is recorded as x.reciprocal() * 2",
        combined(binary("/", lambda a, b: a / b, positive_right=True),
                 with_numbers("/", {"x / 2": lambda x: x / 2, "2 / x": lambda x: 2 / x},
                              positive=True))),
}

STAGE_09 = {
    "formula of A @ B (mm), non-square": (
        "A's gradient is grad @ B.t(), B's is A.t() @ grad — check the shapes: (n, k) @ (k, m)",
        products("mm")),
    "formula of A @ v (mv), non-square": (
        "A's gradient is the outer product of grad and v, v's is A.t() @ grad",
        products("mv")),
}
