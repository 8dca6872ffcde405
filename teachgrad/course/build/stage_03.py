"""Chapter 03's build checks: backward, the chain rule, the engine's order, broadcasting."""
import numpy as np

import teachgrad
from teachgrad.course.build.compare import checks_list
from teachgrad.course.build.formulas import STAGE_03, add_formula_checks

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


def weight_grads(weights):
    return {f"w{i}.grad": w.grad for i, w in enumerate(weights, 1)}


@check("backward through the lecture's four-weight graph",
       "each node's backward multiplies the incoming gradient by its local derivative; the "
       "AccumulateGrad of a leaf stores what arrives in .grad")
def four_weight_backward(torch):
    x, weights, l4, loss = four_weights(torch)
    loss.backward()
    return {"loss": loss, **weight_grads(weights), "x.grad": x.grad}


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
    (A * p).sum(1).backward(torch.tensor([1.0, 0.0, 2.0]))
    return {**weight_grads(weights), "u.grad": u.grad, "p.grad": p.grad}


@check("a node runs once, after every gradient meant for it has arrived",
       "run a node only when its dependency count (count_dependencies) has come down to 0: an "
       "asymmetric diamond (one short path, one long) and a leaf reached along two paths")
def diamond(torch):
    x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    w = torch.tensor(1.5, requires_grad=True)
    a = x * w
    long_path = ((a * 2 + 1) * a - 3) ** 2
    (a + long_path).sum().backward()
    v = torch.tensor([1.0, 2.0], requires_grad=True)
    (v * 2 + v * 3 - v ** 2).sum().backward()
    u = torch.tensor(2.0, requires_grad=True)
    b = u * 3
    (b * b + b).backward()
    return {"x.grad": x.grad, "w.grad": w.grad, "v.grad (used three times)": v.grad,
            "u.grad": u.grad}


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


add_formula_checks(check, STAGE_03)
