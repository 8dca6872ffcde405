"""Chapter 08's build checks: Function, its ctx, saved tensors, needs_input_grad, gradcheck."""
from teachgrad.course.build.compare import checks_list, links, name, raised

CHECKS, check = checks_list("08")


def functions(torch):
    """Lecture 08's Functions (and a few more), written against `torch`."""
    Function = torch.autograd.Function
    found = {"modes": [], "contexts": []}

    class MyExp(Function):
        @staticmethod
        def forward(ctx, x):
            found["modes"].append(torch.is_grad_enabled())
            found["contexts"].append(ctx)
            result = x.exp()
            ctx.save_for_backward(result)
            return result

        @staticmethod
        def backward(ctx, grad_output):
            result, = ctx.saved_tensors
            return grad_output * result

    class MyMul(Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a * b

        @staticmethod
        def backward(ctx, grad_output):
            a, b = ctx.saved_tensors
            found["needs"] = ctx.needs_input_grad
            return (grad_output * b if ctx.needs_input_grad[0] else None,
                    grad_output * a if ctx.needs_input_grad[1] else None)

    class MyScale(Function):
        @staticmethod
        def forward(ctx, x, factor):
            ctx.factor = factor                     # a number: a plain attribute
            return x * factor

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output * ctx.factor, None   # None for the number

    class MyCube(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, grad_output):
            x, = ctx.saved_tensors
            return grad_output * 3 * x ** 2

    class CubeWrong(MyCube):
        @staticmethod
        def backward(ctx, grad_output):
            x, = ctx.saved_tensors
            return grad_output * 3 * x              # wrong: the square is missing

    class MulForgot(MyMul):
        @staticmethod
        def backward(ctx, grad_output):
            a, b = ctx.saved_tensors
            return grad_output * b                  # the gradient for b is missing

    class SaveNumber(MyScale):
        @staticmethod
        def forward(ctx, x, factor):
            ctx.save_for_backward(x, factor)
            return x * factor

    return found, MyExp, MyMul, MyScale, MyCube, CubeWrong, MulForgot, SaveNumber


def number_first(torch, found):
    """A Function whose number comes BEFORE its tensor: apply(0.1, x)."""
    class ScaleBy(torch.autograd.Function):
        @staticmethod
        def forward(ctx, factor, x):
            ctx.factor = factor
            return x * factor

        @staticmethod
        def backward(ctx, grad_output):
            found["needs, number first"] = ctx.needs_input_grad
            return None, grad_output * ctx.factor
    return ScaleBy


def neighbours(x):
    """x[1:] * x[:2]: three inputs, two outputs — a Jacobian that is not square, so a
    transposed one cannot pass."""
    return x[1:] * x[:2]


@check("Function.apply records one node named after the class, which is also the ctx",
       "apply makes the node (a subclass named <Function>Backward), runs forward with recording "
       "off on it as ctx, and records it when an input requires grad")
def apply_records(torch):
    found, MyExp, *_ = functions(torch)
    a = torch.tensor(2.0, requires_grad=True)
    y = MyExp.apply(a)
    x = torch.tensor([0.0, 0.5, 1.0], requires_grad=True)
    w = torch.tensor(2.0, requires_grad=True)
    MyExp.apply(x * w).mean().backward()
    x2 = torch.tensor([0.0, 0.5, 1.0], requires_grad=True)
    w2 = torch.tensor(2.0, requires_grad=True)
    (x2 * w2).exp().mean().backward()
    return {"y": y, "node": name(y.grad_fn), "y.is_leaf": y.is_leaf, "links": links(y.grad_fn),
            "ctx is the node": found["contexts"][0] is y.grad_fn,
            "grad mode inside forward": found["modes"][0], "x.grad": x.grad,
            "x.grad as with exp()": x2.grad, "w.grad": w.grad,
            "without grad": name(MyExp.apply(torch.tensor(1.0)).grad_fn)}


@check("ctx.needs_input_grad, non-tensor arguments, and their None gradients",
       "needs_input_grad has one flag per forward argument; edges exist for the tensor "
       "arguments only, and backward's None for a number is dropped")
def inputs(torch):
    found, MyExp, MyMul, MyScale, *_ = functions(torch)
    weight = torch.tensor([1.0, 2.0], requires_grad=True)
    prod = MyMul.apply(weight, torch.tensor([3.0, 4.0]))
    needs = prod.grad_fn.needs_input_grad
    prod.sum().backward()
    v = torch.tensor([-2.0, 0.5, 3.0], requires_grad=True)
    scaled = MyScale.apply(v, 0.1)
    scaled.sum().backward()
    ScaleBy = number_first(torch, found)
    r = torch.tensor([1.0, -1.0], requires_grad=True)
    by = ScaleBy.apply(0.5, r)
    by_needs = by.grad_fn.needs_input_grad
    by.sum().backward()
    constant = torch.tensor([1.0, 2.0])
    mixed = MyMul.apply(constant, weight)
    mixed.sum().backward()
    return {"needs_input_grad": tuple(needs), "as seen in backward": tuple(found["needs"]),
            "weight.grad": weight.grad, "MyMul links": links(prod.grad_fn),
            "MyScale links": links(scaled.grad_fn), "v.grad": v.grad,
            "apply(0.5, r): needs_input_grad": tuple(by_needs),
            "apply(0.5, r): as seen in backward": tuple(found["needs, number first"]),
            "apply(0.5, r): links": links(by.grad_fn), "r.grad": r.grad,
            "MyMul(constant, weight): as seen in backward": tuple(found["needs"])}


@check("PyTorch's errors: saving a number, a wrong number of gradients, a saved tensor "
       "changed in place",
       "save_for_backward takes tensors only; backward must return one gradient per forward "
       "argument; saved tensors are version-checked like any other")
def errors(torch):
    found, MyExp, MyMul, MyScale, MyCube, CubeWrong, MulForgot, SaveNumber = functions(torch)
    m1 = torch.tensor([1.0, 2.0], requires_grad=True)
    m2 = torch.tensor([3.0, 4.0], requires_grad=True)
    base = torch.tensor([0.5, -0.4, 2.0], requires_grad=True)
    h = base * 1.0
    cubes = MyCube.apply(h)
    h.add_(1)
    return {"save_for_backward(x, 0.1)": raised(lambda: SaveNumber.apply(m1, 0.1)),
            "one gradient for two inputs":
                raised(lambda: MulForgot.apply(m1, m2).sum().backward()),
            "saved input changed in place": raised(cubes.sum().backward)}


@check("second derivatives through a Function (create_graph)",
       "backward is written with yourgrad operations: under create_graph it is recorded, and "
       "the saved result carries the Function's node")
def twice(torch):
    found, MyExp, *_ = functions(torch)
    t = torch.tensor(1.0, requires_grad=True)
    first, = torch.autograd.grad(MyExp.apply(t), t, create_graph=True)
    second, = torch.autograd.grad(first, t)
    return {"first": first, "second": second}


@check("gradcheck: True for a right backward, PyTorch's GradcheckError for a wrong one",
       "compare the Jacobian from backward (one grad() call per output element) with central "
       "differences (eps=1e-6) using rtol=1e-3, atol=1e-5; numerical row k is input entry k, "
       "analytical column j is output entry j: both give a (inputs, outputs) Jacobian")
def gradchecks(torch):
    found, MyExp, MyMul, MyScale, MyCube, CubeWrong, *_ = functions(torch)
    xd = torch.tensor([0.5, 2.0, 3.0], dtype=torch.float64, requires_grad=True)
    wd = torch.tensor([1.0, -1.0, 0.5], dtype=torch.float64, requires_grad=True)
    return {"MyCube": torch.autograd.gradcheck(MyCube.apply, (xd,)),
            "x[1:] * x[:2] (3 inputs, 2 outputs)": torch.autograd.gradcheck(neighbours, (xd,)),
            "CubeWrong's error, whole first line":
                raised(lambda: torch.autograd.gradcheck(CubeWrong.apply, (wd,))),
            "MyMul": torch.autograd.gradcheck(MyMul.apply, (xd, wd)),
            "CubeWrong": raised(lambda: torch.autograd.gradcheck(CubeWrong.apply, (xd,))),
            "CubeWrong, raise_exception=False":
                torch.autograd.gradcheck(CubeWrong.apply, (xd,), raise_exception=False)}
