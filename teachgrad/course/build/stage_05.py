"""Chapter 05's build checks: version counters, in-place operations, the in-place error."""
from teachgrad.course.build.compare import checks_list, links, name, raised
from teachgrad.course.build.formulas import STAGE_05, add_formula_checks

CHECKS, check = checks_list("05")


def versions(**tensors):
    return {f"{label}._version": t._version for label, t in tensors.items()}


def lecture_inputs(torch):
    return (torch.tensor([0.5, 1.0, 2.0], requires_grad=True),
            torch.tensor([1.0, -1.0, 0.5], requires_grad=True))


@check("in-place operations change the tensor itself and bump its version",
       "add_, mul_, zero_, t[i] = v and += write into the tensor's own array, bump its "
       "version counter and return the tensor itself")
def in_place(torch):
    a = torch.tensor([1., 2., 3.])
    same = {"a.add_(1) is a": a.add_(1) is a, "a.mul_(2) is a": a.mul_(2) is a}
    seen = {**same, "a after add_ and mul_": a.clone(), **versions(a=a)}
    same["a.zero_() is a"] = a.zero_() is a
    t = torch.zeros(3)
    alias = t
    t.add_(1)
    t[0] = 5.
    t *= 2
    u = t * 2
    t -= 1
    seen.update({**same, "a after zero_": a, "t": t, "u": u, "t is still alias": t is alias,
                 **versions(t=t, u=u)})
    x, w = lecture_inputs(torch)
    h = x * 1
    h.mul_(w)
    h.sum().backward()
    seen.update({"x.grad after h.mul_(w)": x.grad, "w.grad after h.mul_(w)": w.grad})
    return seen


@check("views share their base's version counter; clone() does not",
       "a slice, view/reshape, t(), transpose and detach() use the SAME counter object as the "
       "tensor they come from; clone() gets its own")
def shared_counters(torch):
    m = torch.zeros(2, 3)
    row, mt, flat, swapped, cut = m[0], m.t(), m.view(6), m.transpose(0, 1), m.detach()
    row.mul_(10)
    row.add_(1)
    seen = {"m": m, **versions(m=m, row=row, mt=mt, flat=flat, swapped=swapped, cut=cut)}
    copy = m.clone()
    copy.add_(100)
    seen.update({"m after copy.add_(100)": m, "copy": copy, **versions(m_=m, copy=copy)})
    return seen


@check("a saved tensor changed in place: backward raises PyTorch's in-place error",
       "a saved tensor remembers its version when saved; unpacking it checks that the counter "
       "has not moved and raises PyTorch's RuntimeError if it has")
def modified_saved_tensor(torch):
    x, w = lecture_inputs(torch)
    h = x * w
    e = h.exp()
    e += 1
    loss = e.log().sum()
    return {"loss": loss, "e": e, **versions(e=e), "e.grad_fn": name(e.grad_fn),
            "e.grad_fn links": links(e.grad_fn), "loss.backward()": raised(loss.backward)}


@check("only saved tensors matter: a + w saves nothing, a * w saves a",
       "a change to a tensor that no formula saved is harmless; each node checks only the "
       "tensors it saved")
def what_is_saved(torch):
    x, w = lecture_inputs(torch)
    a = x * 2
    s = a + w
    a.add_(100)
    s.sum().backward()
    seen = {"x.grad": x.grad, "w.grad": w.grad}
    x, w = lecture_inputs(torch)
    a = x * 2
    m = a * w
    a.add_(100)
    seen["(a * w).sum().backward() after a.add_(100)"] = raised(m.sum().backward)
    x, _ = lecture_inputs(torch)
    y = (x * 1).relu()
    seen["relu then its result changed"] = raised((y.add_(1)).sum().backward)
    return seen


@check("a leaf that requires grad refuses in-place changes",
       "check before changing anything: a leaf that requires grad (while recording is on) "
       "raises PyTorch's RuntimeError, and keeps its values and version")
def leaf_refuses(torch):
    w = torch.tensor([1.0, -1.0, 0.5], requires_grad=True)

    def set_first():
        w[0] = 5.
    return {"w.add_(1)": raised(lambda: w.add_(1)), "w[0] = 5.": raised(set_first),
            "w after both": w, **versions(w=w)}


@check("t[i] = v records CopySlices, and backward goes through it",
       "t[key] = value is an in-place CopySlices: t's old node and value's node become its "
       "next_functions; backward gives value the slots' gradient and t the rest")
def copy_slices(torch):
    x = torch.tensor([1., 2., 3.], requires_grad=True)
    z = torch.tensor(5., requires_grad=True)
    h = x * 2
    held = h
    h[1] = z * z
    seen = {"h": h, "h is held": h is held, **versions(h=h), "h.grad_fn": name(h.grad_fn),
            "h.grad_fn links": links(h.grad_fn)}
    (h * h).sum().backward()
    seen.update({"x.grad": x.grad, "z.grad": z.grad})
    return seen


@check("detach() shares the counter: a change through it is caught",
       "detach() keeps the version counter of its tensor, so the saved result's check sees "
       "the change")
def detach_is_caught(torch):
    x = torch.tensor([-2.0, 0.0, 3.0], requires_grad=True)
    y = x.exp()
    y.detach().zero_()
    return {"y": y, **versions(y=y), "y.sum().backward()": raised(y.sum().backward)}


add_formula_checks(check, STAGE_05)
