"""Chapter 04's build checks: leaves, .grad, retain_grad, hooks, requires_grad, detach."""
from teachgrad.course.build.compare import checks_list, name, raised, warned
from teachgrad.course.build.stage_03 import four_weights, lecture_graph as make_example

CHECKS, check = checks_list("04")


def grads(tensors, *names):
    """The gradients as they are now (teachgrad adds later gradients in place)."""
    return {f"{n}.grad": None if tensors[n].grad is None else tensors[n].grad.clone()
            for n in names}


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
    seen.update({f"w{i}.grad": w.grad for i, w in enumerate(weights, 1)})
    return seen


@check("only leaves keep .grad; reading a non-leaf's warns as PyTorch does",
       "after backward a non-leaf's .grad is None, and reading it gives PyTorch's UserWarning "
       "(unless it retains its gradient)")
def only_leaves(torch):
    t = make_example(torch)
    t["loss"].backward()
    seen = grads(t, "w1", "w2", "w3", "input")
    for label in ("l1", "l4", "loss"):
        value, caught = warned(lambda: t[label].grad)
        seen[f"{label}.grad"], seen[f"warnings reading {label}.grad"] = value, caught
    seen["warnings reading w1.grad"] = warned(lambda: t["w1"].grad)[1]
    return seen


@check("retain_grad() keeps a non-leaf's gradient, and accumulates it",
       "retain_grad marks the tensor (retains_grad) and the engine stores the gradient that "
       "reaches its grad_fn; on a leaf it does nothing")
def retain(torch):
    t = make_example(torch)
    for label in ("l1", "l4", "loss", "w1"):
        t[label].retain_grad()
    seen = {f"{label}.retains_grad": t[label].retains_grad for label in ("l1", "l2", "w1")}
    t["loss"].backward(retain_graph=True)
    seen.update({"after one backward": t["l1"].grad.clone(), **grads(t, "l4", "loss", "w1")})
    t["loss"].backward()
    seen["l1.grad after two backwards"] = t["l1"].grad
    seen["error: retain_grad on a tensor without grad"] = raised(t["input"].retain_grad)
    return seen


@check("tensor hooks see the gradient, in the order backward reaches them",
       "a non-leaf's hooks run just before its grad_fn; each is called with the gradient")
def hooks_observe(torch):
    t = make_example(torch)
    log = []
    for label in ("l1", "l4", "loss"):
        t[label].register_hook(lambda grad, label=label: log.append((label, grad.tolist())))
    t["loss"].backward()
    return {"hook calls (tensor, gradient)": log,
            "error: a hook on a tensor without grad":
                raised(lambda: t["input"].register_hook(print))}


@check("several hooks on one tensor run in the order they were registered",
       "keep a tensor's hooks in a list and call them in turn, each on what the previous one "
       "returned; a leaf's hooks run before the gradient is accumulated, a non-leaf's before "
       "the retained .grad is filled")
def hook_order(torch):
    log = []
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    h = w * 3
    h.retain_grad()
    h.register_hook(lambda grad: log.append(("h first", grad.tolist())) or grad + 1)
    h.register_hook(lambda grad: log.append(("h second", grad.tolist())) or grad * 10)
    w.register_hook(lambda grad: log.append(("w first", grad.tolist())) or grad * -1)
    w.register_hook(lambda grad: log.append(("w second", grad.tolist())))
    (h * h).sum().backward()
    return {"calls (hook, gradient it saw)": log, "h.grad": h.grad, "w.grad": w.grad}


@check("a hook that returns a tensor replaces the gradient; handle.remove() takes it out",
       "what a hook returns (if not None) goes on instead of the gradient: down the graph for a "
       "non-leaf, into .grad for a leaf")
def hooks_replace(torch):
    t = make_example(torch)
    t["l1"].register_hook(lambda grad: grad * -1)
    t["w1"].register_hook(lambda grad: grad * 0.5)
    t["loss"].backward()
    seen = grads(t, "w1", "w2", "w3")
    t = make_example(torch)
    handle = t["l1"].register_hook(lambda grad: grad * 0)
    handle.remove()
    t["loss"].backward()
    seen["w1.grad after handle.remove()"] = t["w1"].grad
    t = make_example(torch)
    t["l1"].retain_grad()
    t["l1"].register_hook(lambda grad: grad * 2)
    t["loss"].backward()
    seen.update({"retained l1.grad after a doubling hook": t["l1"].grad, **grads(t, "w1")})
    return seen


@check("requires_grad can be switched on leaves only",
       "a leaf may switch it (not an integer one); a non-leaf raises PyTorch's RuntimeError, "
       "except requires_grad_(True) which it already is")
def switching(torch):
    v = torch.zeros(3)
    seen = {"before": v.requires_grad}
    v.requires_grad_()
    seen["after requires_grad_()"] = v.requires_grad
    v.requires_grad = False
    seen["after = False"] = v.requires_grad
    w = torch.tensor(2.0, requires_grad=True)
    b = torch.ones(2, 2) * w

    def set_flag(value):
        b.requires_grad = value
    seen.update({"b.requires_grad = False": raised(lambda: set_flag(False)),
                 "b.requires_grad = True": raised(lambda: set_flag(True)),
                 "b.requires_grad_(False)": raised(lambda: b.requires_grad_(False)),
                 "b.requires_grad_(True)": raised(lambda: b.requires_grad_(True)),
                 "an integer tensor's requires_grad_()":
                     raised(lambda: torch.tensor([1, 2, 3]).requires_grad_())})
    return seen


@check("detach() makes a leaf over the same numbers: the graph stops there",
       "a new tensor over the same array that needs no gradient; gradients do not flow past it")
def detaching(torch):
    t = make_example(torch)
    cut = t["l1"].detach()
    start = t["l1"].detach().requires_grad_()
    (start * 3).sum().backward()
    t["l2"].detach().numpy()[0, 0] = 10.0
    return {"cut": cut, "cut.requires_grad": cut.requires_grad, "cut.is_leaf": cut.is_leaf,
            "cut.grad_fn": name(cut.grad_fn), "start.is_leaf": start.is_leaf,
            "start.grad": start.grad, "w1.grad": t["w1"].grad,
            "l2 after writing 10 through l2.detach()": t["l2"]}


@check("four-weight graph: backward twice with retain_graph adds up in .grad",
       "AccumulateGrad adds; retain_grad'ed non-leaves add as well")
def twice(torch):
    x, weights, l4, loss = four_weights(torch)
    l4.retain_grad()
    loss.backward(retain_graph=True)
    loss.backward()
    return {"l4.grad": l4.grad, **{f"w{i}.grad": w.grad for i, w in enumerate(weights, 1)}}
