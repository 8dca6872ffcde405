"""Chapter 06's build checks: the starting gradient, freed saved tensors, retain_graph,
create_graph, grad(), and the formulas that are differentiated again."""
import weakref

from teachgrad.course.build.compare import checks_list, raised
from teachgrad.course.build.formulas import STAGE_06, add_formula_checks
from teachgrad.course.build.stage_03 import four_weights

CHECKS, check = checks_list("06")


def neuron(torch):
    """Lecture 06's neuron: loss = mean(tanh(x * w + b) ** 2)."""
    x = torch.tensor([1.0, 2.0, 3.0])
    w = torch.tensor(0.5, requires_grad=True)
    b = torch.tensor(-0.5, requires_grad=True)
    u = x * w
    h = (u + b).tanh()
    return x, w, b, u, h, (h * h).mean()


@check("backward frees the saved tensors: a second backward raises PyTorch's error",
       "after a node has run (without retain_graph), release its saved tensors; unpacking a "
       "released one raises 'Trying to backward through the graph a second time ...'")
def freed(torch):
    x, w, b, u, h, loss = neuron(torch)
    loss.backward()
    seen = {"w.grad": w.grad, "b.grad": b.grad, "second loss.backward()": raised(loss.backward),
            "reading h.grad_fn._saved_result": raised(lambda: h.grad_fn._saved_result),
            "reading u.grad_fn._saved_self": raised(lambda: u.grad_fn._saved_self)}
    p = torch.tensor(1.0, requires_grad=True)
    q = torch.tensor(2.0, requires_grad=True)
    total = (p + q) + p                 # additions save nothing: twice is fine
    total.backward()
    total.backward()
    seen.update({"p.grad": p.grad, "q.grad": q.grad})
    return seen


@check("saved tensors are let go after backward (the memory comes back)",
       "release() drops the saved tensor itself, so nothing keeps h alive once backward is done")
def memory(torch):
    x = torch.tensor([1.0, 2.0, 3.0])
    w = torch.tensor(0.5, requires_grad=True)
    h = (x * w).tanh()
    loss, h_ref = (h * h).mean(), weakref.ref(h)
    del h
    alive_before = h_ref() is not None
    loss.backward()
    return {"h alive before backward": alive_before, "h alive after": h_ref() is not None}


@check("retain_graph=True keeps the graph for a second backward",
       "only free the saved tensors when retain_graph is False (its default is create_graph)")
def retained(torch):
    x, w, b, u, h, loss = neuron(torch)
    loss.backward(retain_graph=True)
    first = w.grad.clone()
    loss.backward()
    return {"w.grad after one": first, "w.grad after two": w.grad, "b.grad": b.grad}


@check("grad() returns the gradients and leaves .grad alone",
       "run the engine from the outputs, capture what reaches each input's node, touch no .grad")
def grad_function(torch):
    x, w, b, u, h, loss = neuron(torch)
    grad_w, grad_b = torch.autograd.grad(loss, [w, b])
    x, w2, b2, u, h, loss = neuron(torch)
    grad_h, grad_u = torch.autograd.grad(loss, [h, u])
    _, w3, _, _, h3, _ = neuron(torch)
    (by_vector,) = torch.autograd.grad(h3, w3, grad_outputs=torch.ones(3))
    s = (x * w3).sum()
    return {"grad_w": grad_w, "grad_b": grad_b, "w.grad": w.grad, "grad_h": grad_h,
            "grad_u": grad_u, "with grad_outputs": by_vector,
            "grad_w.requires_grad": grad_w.requires_grad,
            "an unused input": raised(lambda: torch.autograd.grad(s, [w3, b2])),
            "an input without grad": raised(lambda: torch.autograd.grad(s, [x]))}


@check("tanh's first three derivatives with create_graph=True",
       "with create_graph the engine records while it runs the formulas: they are yourgrad "
       "operations, so a gradient has a graph of its own (a saved result keeps its node)")
def tanh_derivatives(torch):
    t = torch.tensor(0.5, requires_grad=True)
    (g1,) = torch.autograd.grad(t.tanh(), t, create_graph=True)
    (g2,) = torch.autograd.grad(g1, t, create_graph=True)
    (g3,) = torch.autograd.grad(g2, t)
    xs = torch.tensor([-1.0, 0.0, 2.0], requires_grad=True)
    (d1,) = torch.autograd.grad((xs ** 3).sum(), xs, create_graph=True)
    (d2,) = torch.autograd.grad(d1.sum(), xs, create_graph=True)
    (d3,) = torch.autograd.grad(d2.sum(), xs)
    return {"tanh'": g1, "tanh''": g2, "tanh'''": g3, "g1.requires_grad": g1.requires_grad,
            "g3.requires_grad": g3.requires_grad,
            "x**3 first": d1, "second": d2, "third": d3}


@check("create_graph without retain_graph: the first graph is gone",
       "retain_graph defaults to create_graph; given False, the tanh node's saved result is "
       "released, so going back through it again raises the second-backward error")
def create_without_retain(torch):
    t = torch.tensor(0.5, requires_grad=True)
    (g,) = torch.autograd.grad(t.tanh(), t, create_graph=True, retain_graph=False)
    xa = torch.tensor(1.0, requires_grad=True)
    (xa ** 3).backward(create_graph=True)
    first = xa.grad
    xa.grad = None
    first.backward()
    return {"g": g, "g.requires_grad": g.requires_grad,
            "grad(g, t)": raised(lambda: torch.autograd.grad(g, t)),
            "f'(1)": first, "f''(1) from first.backward()": xa.grad}


@check("a gradient penalty: score + 0.1 * |d score / d x|^2",
       "the penalty's gradient reaches the weights only through a gradient built with "
       "create_graph=True")
def gradient_penalty(torch):
    def penalised_weight_grad(**flags):
        xi = torch.tensor([1.0, 2.0], requires_grad=True)
        wi = torch.tensor([0.5, -1.0], requires_grad=True)
        score = (xi * wi).sum()
        (grad_x,) = torch.autograd.grad(score, xi, **flags)
        penalty = (grad_x ** 2).sum()
        (score + 0.1 * penalty).backward()
        return wi.grad
    return {"without flags": raised(penalised_weight_grad),
            "with retain_graph=True": penalised_weight_grad(retain_graph=True),
            "with create_graph=True": penalised_weight_grad(create_graph=True)}


@check("PyTorch's errors about the starting gradient, shapes in the message included",
       "backward() without gradient only works for one-element outputs; a gradient given must "
       "have the output's shape, and the message names both shapes; and there must be a graph "
       "to go back through")
def backward_errors(torch):
    x, weights, l4, loss = four_weights(torch)
    u = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = u * u
    m = torch.ones(2, 3, requires_grad=True) * 2
    return {"l4.backward()": raised(lambda: l4.backward()),
            "y.backward(a gradient of shape (2,))":
                raised(lambda: y.backward(torch.tensor([1.0, 1.0]))),
            "m.backward(a gradient of shape (3, 2))":
                raised(lambda: m.backward(torch.ones(3, 2))),
            "grad(y, u, grad_outputs of shape (1,))":
                raised(lambda: torch.autograd.grad(y, u, torch.ones(1))),
            "(x * 2).sum().backward() with x not requiring grad":
                raised(lambda: (x * 2).sum().backward())}


add_formula_checks(check, STAGE_06)
