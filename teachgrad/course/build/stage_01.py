"""Chapter 01's build checks: a tensor over a numpy array, eager operations, printing."""
from teachgrad.course.build.compare import checks_list, dtype_name, raised

CHECKS, check = checks_list("01")


@check("eager arithmetic: a * 2, + - / ** and unary minus, with numbers and tensors",
       "each operator computes at once with numpy on the two arrays (a number becomes a "
       "tensor of the other operand's dtype)")
def arithmetic(torch):
    a = torch.tensor([1.0, 2.0, 3.0])
    b = a * 2
    return {"a * 2": b, "b + a": b + a, "b - a": b - a, "b / a": b / a, "a ** 2": a ** 2,
            "-a": -a, "10 - a": 10 - a, "6 / a": 6 / a, "2 * a": 2 * a, "a + 0.5": a + 0.5}


@check("exp, log, tanh, sigmoid and relu compute at once",
       "numpy has exp, log and tanh; sigmoid is 1 / (1 + exp(-x)); relu keeps the positive part")
def pointwise(torch):
    a = torch.tensor([1.0, 2.0, 3.0])
    s = torch.tensor([-1.0, 0.0, 2.0])
    return {"a.exp()": a.exp(), "a.log()": a.log(), "s.tanh()": s.tanh(),
            "s.sigmoid()": s.sigmoid(), "s.relu()": s.relu(), "a.exp().dtype": dtype_name(a.exp())}


@check("sum and mean: of all elements, over one dim, with keepdim",
       "numpy's sum and mean take axis= and keepdims=; a reduction of everything is a 0-d tensor")
def reductions(torch):
    X = torch.tensor([[1., 2., 3.], [4., 5., 6.]])
    return {"X.sum()": X.sum(), "X.mean()": X.mean(), "X.sum(0)": X.sum(0),
            "X.sum(1, keepdim=True)": X.sum(1, keepdim=True), "X.mean(1)": X.mean(1)}


@check("matmul, reshape/view, t, transpose and basic indexing",
       "A @ p is numpy's matmul; t() and transpose swap dims; x[1:] and x[0] are numpy's basic "
       "indexing")
def shapes_and_products(torch):
    A = torch.tensor([[1., 2.], [3., 4.], [5., 6.]])
    p = torch.tensor([1.0, -1.0])
    m = torch.tensor([[1., 2., 3.], [4., 5., 6.]])
    return {"A @ p": A @ p, "A.t() @ A": A.t() @ A, "m.reshape(3, 2)": m.reshape(3, 2),
            "m.view(6)": m.view(6), "m.t()": m.t(), "m.transpose(0, 1)": m.transpose(0, 1),
            "m[0]": m[0], "m[1, 1:]": m[1, 1:], "m[:, 2]": m[:, 2], "m[1][0]": m[1][0]}


@check("PyTorch's dtype rule and type promotion, float64 reductions included",
       "Python floats give float32 (PyTorch's default dtype), Python ints int64; a numpy array "
       "— and a numpy number, which is what numpy's sum of everything returns — keeps its "
       "dtype")
def dtypes(torch):
    f = torch.tensor([1.0, 2.0])
    i = torch.tensor([1, 2])
    d = torch.tensor([1.0, 2.0], dtype=torch.float64)
    return {"f.dtype": dtype_name(f), "i.dtype": dtype_name(i), "d.dtype": dtype_name(d),
            "(f + d).dtype": dtype_name(f + d), "(d * 2).dtype": dtype_name(d * 2),
            "zeros(2).dtype": dtype_name(torch.zeros(2)),
            "d.sum().dtype": dtype_name(d.sum()), "d.mean().dtype": dtype_name(d.mean()),
            "d.sum(0).dtype": dtype_name(d.sum(0)), "(i / 2).dtype": dtype_name(i / 2),
            "(i * 2.5).dtype": dtype_name(i * 2.5), "(i * 2).dtype": dtype_name(i * 2),
            "i.exp().dtype": dtype_name(i.exp()), "(f * i).dtype": dtype_name(f * i),
            "tensor(3.5).item()": torch.tensor(3.5).item(), "f.tolist()": f.tolist()}


@check("only floating-point tensors may require grad",
       "an integer tensor with requires_grad=True raises PyTorch's RuntimeError")
def integer_requires_grad(torch):
    p = torch.tensor([1.0, 2.0], requires_grad=True)
    return {"p.requires_grad": p.requires_grad,
            "tensor([1, 2], requires_grad=True)":
                raised(lambda: torch.tensor([1, 2], requires_grad=True))}


@check("shape, ndim, numel and size",
       "they all come from the numpy array (shape is a tuple of ints)")
def sizes(torch):
    m = torch.zeros(2, 3)
    return {"m.shape": tuple(m.shape), "m.ndim": m.ndim, "m.numel()": m.numel(),
            "m.size(1)": m.size(1), "ones(3).shape": tuple(torch.ones(3).shape),
            "tensor(5.0).shape": tuple(torch.tensor(5.0).shape),
            "zeros(()).shape": tuple(torch.zeros(()).shape)}


@check("broadcasting: (3, 1) + (4,), and the error for shapes that do not fit",
       "align shapes on the right; a dim of size 1 (or a missing one) stretches. Shapes that do "
       "not fit raise PyTorch's RuntimeError 'The size of tensor a ...', not numpy's ValueError; "
       "its dimension counts the dims of the longer shape")
def broadcasting(torch):
    col = torch.ones(3, 1)
    row = torch.tensor([0.0, 1.0, 2.0, 3.0])
    m = torch.zeros(2, 3)
    v = torch.tensor([10.0, 20.0])
    return {"col + row": col + row, "col * row": col * row,
            "m + v": raised(lambda: m + v), "v * m": raised(lambda: v * m),
            "zeros(4, 2, 3) + zeros(5, 3)":
                raised(lambda: torch.zeros(4, 2, 3) + torch.zeros(5, 3)),
            "zeros(5, 1) * zeros(4, 2, 3)":
                raised(lambda: torch.zeros(5, 1) * torch.zeros(4, 2, 3))}


@check("printing like PyTorch",
       "tensor(...) around numpy's array2string with ', ' between numbers; 4 decimals unless all "
       "numbers are whole; dtype= for float64; rows of a matrix aligned under each other")
def printing(torch):
    examples = {"tensor([2., 4., 6.])": torch.tensor([1.0, 2.0, 3.0]) * 2,
                "tensor([[1., 2.], [3., 4.]])": torch.tensor([[1.0, 2.0], [3.0, 4.0]]),
                "tensor([1.5, 2.25, 1000.])": torch.tensor([1.5, 2.25, 1000.0]),
                "tensor([0.1, 0.25])": torch.tensor([0.1, 0.25]),
                "tensor(3.5)": torch.tensor(3.5), "tensor([1, 2])": torch.tensor([1, 2]),
                "a float64 tensor": torch.tensor([1.0, 2.0], dtype=torch.float64),
                "a tensor that requires grad": torch.tensor([1.0, -2.0], requires_grad=True)}
    return {f"repr of {text}": repr(t).replace("teachgrad.", "torch.")  # PyTorch's words
            for text, t in examples.items()}
