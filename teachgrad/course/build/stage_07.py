"""Chapter 07's build checks: no_grad, enable_grad, set_grad_enabled (also after an error);
backward records nothing; .data against detach()."""
from teachgrad.course.build.compare import checks_list, name, raised

CHECKS, check = checks_list("07")


def flags(**tensors):
    return {f"{label}.{flag}": getattr(t, flag) for label, t in tensors.items()
            for flag in ("requires_grad", "is_leaf")}


@check("nothing is recorded inside no_grad(), and the mode comes back after it",
       "__enter__ remembers the mode and switches it off, __exit__ puts it back — also when the "
       "block raises")
def no_grad_block(torch):
    w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with torch.no_grad():
        a = w * 2
        b = (a * w).sum()
        inside = torch.is_grad_enabled()
    seen = {"a": a, "inside": inside, "after": torch.is_grad_enabled(), **flags(a=a, b=b),
            "b.grad_fn": name(b.grad_fn), "b.backward()": raised(b.backward)}
    try:
        with torch.no_grad():
            raise ValueError("something went wrong inside the block")
    except ValueError:
        seen["after a failed block"] = torch.is_grad_enabled()
    return seen


@check("no_grad and enable_grad as decorators, with and without parentheses",
       "calling the switch on a function returns a wrapper that runs it inside a fresh copy "
       "of the switch — so the mode comes back even when the function raises")
def decorators(torch):
    w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)

    @torch.no_grad()
    def predict(x):
        return (x * w).sum()

    @torch.no_grad
    def predict_bare(x):
        return (x * w).sum()

    @torch.enable_grad()
    def recorded(x):
        return (x * w).sum()

    @torch.no_grad()
    def failing(x):
        raise ValueError("a decorated function that fails")

    with torch.no_grad():
        inside = recorded(torch.ones(3))
    seen = {**flags(out=predict(torch.ones(3)), bare=predict_bare(torch.ones(3)), inside=inside),
            "mode after the calls": torch.is_grad_enabled()}
    try:
        failing(w)
    except ValueError:
        seen["mode after a decorated function raised"] = torch.is_grad_enabled()
    with torch.no_grad():
        try:
            torch.enable_grad()(failing.__wrapped__)(w)
        except ValueError:
            seen["inside no_grad, after an enable_grad function raised"] = \
                torch.is_grad_enabled()
    return seen


@check("enable_grad inside no_grad; set_grad_enabled(flag)",
       "enable_grad switches recording on for its block; set_grad_enabled sets the mode it is "
       "given at once and puts the old one back at the end of the block")
def nested(torch):
    w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with torch.no_grad():
        a = w * 2
        with torch.enable_grad():
            b = w * 2
            c = a * w
        d = b * w
    seen = flags(a=a, b=b, c=c, d=d)
    for train in (True, False):
        with torch.set_grad_enabled(train):
            out = (torch.ones(3) * w).sum()
        seen[f"set_grad_enabled({train}): requires_grad"] = out.requires_grad
    seen["mode at the end"] = torch.is_grad_enabled()
    return seen


@check("updates under no_grad: a leaf changed in place stays a leaf",
       "in no_grad an in-place change of a leaf that requires grad is allowed and not recorded; "
       "it still bumps the version")
def updates(torch):
    w = torch.tensor([1.0, -1.0, 0.5], requires_grad=True)
    data = torch.tensor([[1.0, 2.0, 0.5], [0.0, -1.0, 1.0], [2.0, 1.0, -1.0]])
    target = torch.tensor([1.0, -1.0, 2.0])
    seen = {}
    for step in range(3):
        loss = (((data * w).sum(1) - target) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            w -= 0.1 * w.grad
        w.grad = None
        seen[f"loss {step}"] = loss
        seen[f"w._version after step {step}"] = w._version
    return {**seen, "w": w, **flags(w=w), "w.grad_fn": name(w.grad_fn)}


@check("backward runs its formulas with recording off (unless create_graph)",
       "the engine switches grad mode off while the nodes compute gradients, so a gradient "
       "has no graph of its own")
def backward_records_nothing(torch):
    x = torch.tensor(1.5, requires_grad=True)
    (x * x).tanh().backward()
    y = torch.tensor(1.5, requires_grad=True)
    (y * y).tanh().backward(create_graph=True)
    return {"x.grad": x.grad, "x.grad.requires_grad": x.grad.requires_grad,
            "x.grad.grad_fn": name(x.grad.grad_fn), "with create_graph": y.grad.requires_grad}


@check(".data has a counter of its own: a change through it is not caught",
       "t.data is a new tensor over the same array with a fresh version counter (detach() "
       "shares it): the change reaches the numbers but not the saved result's check, so the "
       "gradient is silently wrong")
def data_alias(torch):
    x = torch.tensor([-2.0, 0.0, 3.0], requires_grad=True)
    y = x.sigmoid()
    y.data.zero_()
    y.sum().backward()
    return {"y after y.data.zero_()": y, "y._version after .data": y._version,
            "x.grad (silently wrong)": x.grad}
