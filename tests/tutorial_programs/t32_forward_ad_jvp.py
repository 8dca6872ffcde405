# Forward-mode AD with dual tensors, after PyTorch's "Forward-mode Automatic Differentiation"
# tutorial: one forward pass gives the Jacobian-vector product; a custom Function gets a jvp.
import torch
import torch.autograd.forward_ad as fwAD

torch.manual_seed(0)


def show(tensor):
    """Values at 4 decimals, the same on every CPU."""
    return [round(v, 4) + 0.0 for v in tensor.flatten().tolist()]  # (+ 0.0: no -0.0)

primal = torch.randn(10, 10, dtype=torch.float64)
tangent = torch.randn(10, 10, dtype=torch.float64)


def fn(x, y):
    return x ** 2 + y ** 2


with fwAD.dual_level():
    dual_input = fwAD.make_dual(primal, tangent)
    assert fwAD.unpack_dual(dual_input).tangent is tangent
    plain_tensor = torch.randn(10, 10, dtype=torch.float64)
    dual_output = fn(dual_input, plain_tensor)
    jvp = fwAD.unpack_dual(dual_output).tangent
    print("jvp == 2 * primal * tangent:", torch.allclose(jvp, 2 * primal * tangent))
    print("corner of the jvp:", show(jvp[:2, :2]))

print("tangent gone after the level:", fwAD.unpack_dual(dual_output).tangent is None)

model = torch.nn.Sequential(torch.nn.Linear(5, 3), torch.nn.Tanh())
inputs = torch.randn(2, 5)
direction = torch.randn(2, 5)
with fwAD.dual_level():
    out = model(fwAD.make_dual(inputs, direction))
    print("through nn.Linear and Tanh:", show(fwAD.unpack_dual(out).tangent))


class Fn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, foo):
        result = torch.exp(foo)
        ctx.result = result
        return result

    @staticmethod
    def jvp(ctx, gI):
        gO = gI * ctx.result
        del ctx.result
        return gO


x = torch.randn(4, dtype=torch.float64, requires_grad=True)
t = torch.randn(4, dtype=torch.float64)
with fwAD.dual_level():
    y = Fn.apply(fwAD.make_dual(x, t))
    print("custom Function's jvp:", show(fwAD.unpack_dual(y).tangent))
print("gradcheck with forward AD:", torch.autograd.gradcheck(
    Fn.apply, (x,), check_forward_ad=True, check_backward_ad=False, check_undefined_grad=False,
    check_batched_grad=False))
