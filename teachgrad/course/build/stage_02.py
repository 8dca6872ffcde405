"""Chapter 02's build checks: grad_fn, next_functions, AccumulateGrad, saved tensors, and the
walk that counts each node's incoming edges."""
import gc
import weakref
from collections import Counter

import teachgrad
from teachgrad.course.build.compare import checks_list, links, name

CHECKS, check = checks_list("02")


def node_names(y):
    """The names of all nodes of y's backward graph, each once (lecture 01's walk)."""
    names, seen, todo = [], set(), [y.grad_fn]
    while todo:
        node = todo.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        names.append(name(node))
        todo.extend(next_node for next_node, _ in node.next_functions)
    return names


def cost_example(torch):
    x = torch.tensor([1.0, 2.0, 3.0])
    w = torch.tensor(0.5, requires_grad=True)
    bias = torch.tensor(-1.0, requires_grad=True)
    z = x * w
    y = z + bias
    cost = (y * y).mean()
    return x, w, bias, z, y, cost


@check("an operation on a tensor that requires grad records its grad_fn",
       "record the node only when some input requires grad; the result then requires grad "
       "and is no leaf")
def records(torch):
    a = torch.tensor(2.0, requires_grad=True)
    b = a.exp()
    c = torch.tensor(2.0).exp()
    return {"b": b, "b.grad_fn.name()": name(b.grad_fn), "a.grad_fn": name(a.grad_fn),
            "c.grad_fn": name(c.grad_fn), "b.requires_grad": b.requires_grad,
            "c.requires_grad": c.requires_grad, "b.is_leaf": b.is_leaf, "a.is_leaf": a.is_leaf,
            "c.is_leaf": c.is_leaf, "repr(b)": repr(b)}


@check("next_functions of the lecture's cost = ((x * w + bias) ** 2).mean()",
       "one (node, input_nr) pair per input, in the order of the inputs; (None, 0) for an input "
       "that needs no gradient, the leaf's AccumulateGrad for a leaf that does")
def cost_links(torch):
    x, w, bias, z, y, cost = cost_example(torch)
    square = cost.grad_fn.next_functions[0][0]
    first, second = square.next_functions[0][0], square.next_functions[1][0]
    return {"cost": cost, "cost.grad_fn": name(cost.grad_fn),
            "cost.grad_fn links": links(cost.grad_fn), "square links": links(square),
            "y links": links(y.grad_fn), "z links": links(z.grad_fn),
            "y * y: both links lead to one node": first is second,
            "y * y: that node is y.grad_fn": first is y.grad_fn,
            "x.grad_fn": name(x.grad_fn)}


@check("numbers and tensors that need no grad get (None, 0)",
       "a number is wrapped as a tensor that needs no gradient, so its edge is (None, 0)")
def constants(torch):
    x, w, bias, z, y, cost = cost_example(torch)
    return {"bias + z links": links((bias + z).grad_fn), "2 * w links": links((2 * w).grad_fn),
            "w * 3 links": links((w * 3).grad_fn), "w - 1 links": links((w - 1).grad_fn),
            "x * w + x links": links((x * w + x).grad_fn)}


@check("one AccumulateGrad per leaf, whose variable is the leaf",
       "keep a weak reference to the leaf's AccumulateGrad on the leaf and give the same node "
       "back while it lives; its next_functions is empty")
def accumulate_grad(torch):
    x, w, bias, z, y, cost = cost_example(torch)
    acc_w = z.grad_fn.next_functions[1][0]
    acc_bias = y.grad_fn.next_functions[1][0]
    a = torch.tensor(2.0, requires_grad=True)
    y1, y2 = a.exp(), a.exp()
    return {"name": name(acc_w), "acc_w.variable is w": acc_w.variable is w,
            "acc_w.next_functions": tuple(acc_w.next_functions),
            "(bias * 3) reuses bias's node": (bias * 3).grad_fn.next_functions[0][0] is acc_bias,
            "two exp() calls: the same node": y1.grad_fn is y2.grad_fn,
            "two exp() calls: the same leaf node":
                y1.grad_fn.next_functions[0][0] is y2.grad_fn.next_functions[0][0]}


@check("a leaf's AccumulateGrad goes away with its graph",
       "keep only a weak reference to the AccumulateGrad on the leaf (weakref.ref), so that the "
       "graph that holds the node is what keeps it alive")
def accumulator_freed(torch):
    v = torch.tensor(1.0, requires_grad=True)
    y1, y2 = v * 2, v * 3
    node = y1.grad_fn.next_functions[0][0]
    shared = node is y2.grad_fn.next_functions[0][0]
    ref = weakref.ref(node)
    del node, y1, y2
    gc.collect()
    return {"shared by both products": shared, "freed with the graph": ref() is None}


@check("requires_grad spreads from inputs to results",
       "a result requires grad when any input does, and only then")
def spreading(torch):
    x = torch.ones(2, 2)
    w = torch.tensor(2.0, requires_grad=True)
    b = x * w
    c = b + 1
    d = (c * x).sum()
    e = x.exp() * 2
    return {f"{label}.{flag}": getattr(t, flag)
            for label, t in {"x": x, "w": w, "b": b, "c": c, "d": d, "e": e}.items()
            for flag in ("requires_grad", "is_leaf")}


@check("node names of each operation (PyTorch's names)",
       "the node of x + w is AddBackward0, x.sum() SumBackward0, x.sum(0) SumBackward1, x[0] "
       "SelectBackward0, x[1:] SliceBackward0 ... — the class name is the node's name(); a "
       "number on the left is recorded as PyTorch records it (2 - x, 2 / x)")
def names(torch):
    x = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
    w = torch.tensor([1.0, -1.0, 0.5], requires_grad=True)
    M = torch.ones(3, 3, requires_grad=True)
    outputs = {"x + w": x + w, "x - w": x - w, "x * w": x * w, "x / w": x / w, "x ** 2": x ** 2,
               "-x": -x, "x.log()": x.log(), "M @ x": M @ x, "M @ M": M @ M, "x.exp()": x.exp(),
               "x.sigmoid()": x.sigmoid(), "x.tanh()": x.tanh(), "x.relu()": x.relu(),
               "x.sum()": x.sum(), "M.sum(0)": M.sum(0), "x.mean()": x.mean(),
               "M.mean(1)": M.mean(1), "x[1:]": x[1:], "x[0]": x[0], "x.view(3, 1)": x.view(3, 1),
               "M.reshape(9)": M.reshape(9), "M.t()": M.t(),
               "M.transpose(0, 1)": M.transpose(0, 1), "2 - x": 2 - x, "x - 2": x - 2,
               "2 / x": 2 / x, "x / 2": x / 2, "2 * x": 2 * x, "2 + x": 2 + x,
               "x + 2": x + 2, "M.sum((0, 1))": M.sum((0, 1))}
    seen = {f"{text} node": name(out.grad_fn) for text, out in outputs.items()}
    seen["2 / x links"] = links((2 / x).grad_fn)
    seen["2 - x links"] = links((2 - x).grad_fn)
    return seen


@check("saved tensors: _saved_self, _saved_other, _saved_result",
       "save only what the formula needs, for the inputs that need a gradient: x * w keeps w for "
       "x's gradient and x for w's; exp keeps its result")
def saved(torch):
    x, w, bias, z, y, cost = cost_example(torch)
    square = cost.grad_fn.next_functions[0][0]
    a = torch.tensor(2.0, requires_grad=True)
    b = a.exp()
    return {"z.grad_fn._saved_self is x": z.grad_fn._saved_self is x,
            "y * y saved y as self": square._saved_self is y,
            "y * y saved y as other": square._saved_other is y,
            "b.grad_fn._saved_result": b.grad_fn._saved_result,
            "b.grad_fn._saved_result is b": b.grad_fn._saved_result is b}


@check("a dynamic graph: lecture 01's recurrent forward, a node per step",
       "each call builds a new graph from the operations that ran: a loop of 2 or 3 steps and "
       "either branch of the if")
def recurrent(torch):
    w = torch.tensor(0.8, requires_grad=True)
    b = torch.tensor(0.5, requires_grad=True)

    def forward(seq):
        h = torch.zeros(())
        for i in range(len(seq)):
            h = (w * h + seq[i]).tanh()
        return h * b if h > 0 else (h - b) ** 2

    y_short = forward(torch.tensor([0.5, 1.0]))
    y_long = forward(torch.tensor([0.5, -1.0, -2.0]))
    return {"y_short": y_short, "y_long": y_long, "y_short nodes": node_names(y_short),
            "y_long nodes": node_names(y_long)}


def count_dependencies(torch, roots):
    """The package's count_dependencies(roots), as sorted (node name, incoming edges) pairs."""
    engine = teachgrad.autograd.engine if torch is teachgrad else torch.engine
    counts = engine.count_dependencies(roots)
    return sorted(Counter((name(n), c) for n, c in counts.items()).items())


@check("count_dependencies: the incoming edges of every node, with a loop",
       "walk from the roots with a to-do list, visit each node once, and add 1 for each edge "
       "that points at a node (l1 is used twice, so its node waits for two gradients); a root "
       "that nothing points at is not a key")
def dependencies(torch):
    from teachgrad.course.build import stage_03
    x, weights, l4, loss = stage_03.four_weights(torch)
    v = torch.tensor([1.0, 2.0], requires_grad=True)
    a = v * 2
    long_path = ((a + 1) * a) ** 2
    short = (a + long_path).sum()
    y = v * 3
    z = y * y
    deep = v.sum()
    for _ in range(stage_03.DEEP if torch is not teachgrad else 10):
        deep = deep * 1.0
    counts = (teachgrad.autograd.engine if torch is teachgrad else torch.engine
              ).count_dependencies([deep.grad_fn])
    return {"a 100,000-deep chain: every node counted once": sorted(set(counts.values())),
            "the four-weight graph": count_dependencies(torch, [loss.grad_fn]),
            "an asymmetric diamond": count_dependencies(torch, [short.grad_fn]),
            "two roots, one below the other": count_dependencies(torch, [z.grad_fn, y.grad_fn])}
