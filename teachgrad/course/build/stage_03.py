"""Chapter 03's build checks: backward, the chain rule, broadcasting, accumulation."""
from collections import Counter

import numpy as np

import teachgrad
from teachgrad.course.build.compare import checks_list, name, raised

CHECKS, check = checks_list("03")

DEEP = 100_000          # a chain this deep breaks any recursive walk of the graph


def lecture_graph(torch):
    """Lectures 03 and 04's graph, loss = mean((x*w1 + w2) * (x*w1 * w3)), tensors by name."""
    x = torch.ones(2, 2)
    w1 = torch.tensor(2.0, requires_grad=True)
    w2 = torch.tensor(3.0, requires_grad=True)
    w3 = torch.tensor(4.0, requires_grad=True)
    l1 = x * w1
    l2 = l1 + w2
    l3 = l1 * w3
    l4 = l2 * l3
    return {"input": x, "w1": w1, "w2": w2, "w3": w3, "l1": l1, "l2": l2, "l3": l3, "l4": l4,
            "loss": l4.mean()}


def four_weights(torch):
    t = lecture_graph(torch)
    return t["input"], (t["w1"], t["w2"], t["w3"]), t["l4"], t["loss"]


def ramp(torch, shape):
    """A tensor of different numbers (1.5, -0.5, 0.5, 1.5, ...) of the given shape."""
    numbers = np.arange(int(np.prod(shape))) % 3 - 0.5
    return torch.tensor(numbers.reshape(shape).tolist())


def weight_grads(weights):
    return {f"w{i}.grad": w.grad for i, w in enumerate(weights, 1)}


@check("backward through the lecture's four-weight graph",
       "each node's backward multiplies the incoming gradient by its local derivative; the "
       "AccumulateGrad of a leaf stores what arrives in .grad")
def four_weight_backward(torch):
    x, weights, l4, loss = four_weights(torch)
    loss.backward()
    return {"loss": loss, **weight_grads(weights), "x.grad": x.grad}


@check("every node's backward formula gives PyTorch's gradient",
       "write each op's derivative with yourgrad operations; an input that needs no gradient "
       "gets None")
def formulas(torch):
    x = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
    w = torch.tensor([1.0, -1.0, 0.5], requires_grad=True)
    M = torch.tensor([[1., 2., 3.], [0., -1., 1.]], requires_grad=True)
    N = torch.tensor([[2., 0.], [1., 1.], [0., 3.]], requires_grad=True)
    outputs = {"x + w": x + w, "x - w": x - w, "x * w": x * w, "x / w": x / w,
               "x ** 3": x ** 3, "-x": -x, "x.exp()": x.exp(), "x.log()": x.log(),
               "(x - 1).tanh()": (x - 1).tanh(), "(x - 1).sigmoid()": (x - 1).sigmoid(),
               "(x - 1).relu()": (x - 1).relu(), "M @ x": M @ x, "M @ N": M @ N,
               "M.sum(1)": M.sum(1), "M.mean(0, keepdim=True)": M.mean(0, keepdim=True),
               "M.t()": M.t(), "M.transpose(0, 1)": M.transpose(0, 1),
               "M.reshape(3, 2)": M.reshape(3, 2), "M[1, 1:]": M[1, 1:], "M[:, 0]": M[:, 0]}
    seen = {}
    for text, out in outputs.items():
        for t in (x, w, M, N):
            t.grad = None
        (out * ramp(torch, out.shape)).sum().backward()
        for label, t in {"x": x, "w": w, "M": M, "N": N}.items():
            seen[f"{label}.grad after ({text})"] = t.grad
    return seen


@check("gradients of broadcast inputs are summed back to their shape",
       "broadcasting stretched b (3,) and c (2, 1) to (2, 3): sum the gradient over the "
       "stretched dims, so a gradient always has its tensor's shape")
def broadcast(torch):
    X = torch.tensor([[1., 2., 3.], [4., 5., 6.]])
    b = torch.zeros(3, requires_grad=True)
    c = torch.zeros(2, 1, requires_grad=True)
    (X * b + c).sum().backward()
    s = torch.tensor(2.0, requires_grad=True)
    (X * s).sum().backward()
    return {"b.grad": b.grad, "c.grad": c.grad, "s.grad (0-d)": s.grad}


@check("backward(gradient) for a non-scalar output",
       "the gradient given is where backward starts instead of 1 (a vector-Jacobian product)")
def vector_jacobian(torch):
    x, weights, l4, loss = four_weights(torch)
    l4.backward(torch.full((2, 2), 0.25))
    u = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (u * u).backward(torch.tensor([1.0, 0.1, 0.01]))
    A = torch.tensor([[1., 2.], [3., 4.], [5., 6.]])
    p = torch.tensor([1.0, -1.0], requires_grad=True)
    (A @ p).backward(torch.tensor([1.0, 0.0, 2.0]))
    return {**weight_grads(weights), "u.grad": u.grad, "p.grad": p.grad}


@check("PyTorch's errors: a non-scalar output without gradient, a gradient of the wrong "
       "shape, an output that does not require grad",
       "backward() without gradient only works for one-element outputs; the gradient must have "
       "the output's shape; and there must be a graph to go back through")
def backward_errors(torch):
    x, weights, l4, loss = four_weights(torch)
    u = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = u * u
    return {"l4.backward()": raised(lambda: l4.backward()),
            "y.backward(a gradient of shape (2,))":
                raised(lambda: y.backward(torch.tensor([1.0, 1.0]))),
            "(x * 2).sum().backward() with x not requiring grad":
                raised(lambda: (x * 2).sum().backward())}


@check("gradients accumulate in .grad over backward calls",
       "AccumulateGrad adds to a .grad that is already there; it stores the gradient only "
       "when .grad is None")
def accumulation(torch):
    q = torch.tensor(1.5, requires_grad=True)
    (q * q).backward()
    (3 * q).backward()
    w = torch.tensor(1.0, requires_grad=True)
    seen = {"q.grad": q.grad}
    for step in range(3):
        ((3 * w - 6) ** 2).backward()
        seen[f"w.grad after step {step}"] = w.grad.clone()     # teachgrad adds in place
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    (x * 2 + x * 3).sum().backward()
    seen["x.grad of (x * 2 + x * 3).sum()"] = x.grad
    x, weights, l4, loss = four_weights(torch)
    loss.backward(retain_graph=True)
    loss.backward()
    seen.update(weight_grads(weights))
    return seen


@check("dependency counts: a node runs after all its gradients have arrived",
       "count_dependencies(roots) walks the graph once and counts, for each node, the edges "
       "pointing at it (l1 is used twice, so its node waits for two gradients)")
def dependencies(torch):
    x, weights, l4, loss = four_weights(torch)
    engine = teachgrad.autograd.engine if torch is teachgrad else torch.engine
    counts = engine.count_dependencies([loss.grad_fn])
    return {"(node, incoming edges)": sorted(Counter((name(n), c) for n, c in counts.items())
                                             .items())}


@check("a 100,000-deep chain runs backward",
       "Python allows about a thousand nested calls: count and order the nodes with a loop and "
       "a to-do list of your own, never with a function that calls itself")
def deep_chain(torch):
    depth = DEEP if torch is not teachgrad else 10      # teachgrad's answer is the same at 10
    x = torch.tensor(1.0, requires_grad=True)
    t = x
    for _ in range(depth):
        t = t * 1.0
    t.backward()
    return {"x.grad": x.grad}


@check("lecture 01's double_until_one: one graph per input",
       "each call records the multiplications that actually ran")
def double_until_one(torch):
    seen = {}
    for start in (0.15, 0.3, 0.7, 1.2):
        x = torch.tensor(start, requires_grad=True)
        y = x
        while y < 1:
            y = y * 2
        if y.grad_fn is not None:
            y.backward()
        seen[f"x.grad from x = {start}"] = x.grad
    return seen
