# Jacobians and Hessians with torch.func, after PyTorch's "Jacobians, Hessians, hvp, vhp"
# tutorial: jacrev and jacfwd agree; hessian is jacfwd(jacrev(f)); a Hessian-vector product
# by forward over reverse needs no Hessian at all.
import torch
from torch.func import hessian, jacfwd, jacrev, jvp, grad

torch.manual_seed(0)


def show(tensor):
    """Values at 4 decimals, the same on every CPU."""
    return [round(v, 4) + 0.0 for v in tensor.flatten().tolist()]  # (+ 0.0: no -0.0)

D = 4
weight = torch.randn(D, D, dtype=torch.float64)
bias = torch.randn(D, dtype=torch.float64)
x = torch.randn(D, dtype=torch.float64)


def predict(weight, bias, x):
    return torch.nn.functional.linear(x, weight, bias).tanh()


jac_rev = jacrev(predict, argnums=2)(weight, bias, x)
jac_fwd = jacfwd(predict, argnums=2)(weight, bias, x)
print("jacobian", tuple(jac_rev.shape), "rev == fwd:", torch.allclose(jac_rev, jac_fwd))
print(show(jac_rev))

both = jacrev(predict, argnums=(0, 1))(weight, bias, x)
print("with respect to weight and bias:", [tuple(j.shape) for j in both])

hess_a = jacfwd(jacrev(predict, argnums=2), argnums=2)(weight, bias, x)
hess_b = hessian(predict, argnums=2)(weight, bias, x)
print("hessian", tuple(hess_a.shape), "same:", torch.allclose(hess_a, hess_b))


def loss(x):
    return predict(weight, bias, x).pow(2).sum()


def hvp(f, primals, tangents):
    return jvp(grad(f), primals, tangents)[1]


v = torch.randn(D, dtype=torch.float64)
print("hvp:", show(hvp(loss, (x,), (v,))))
print("H @ v:", show(hessian(loss)(x) @ v))
