"""teachgrad.func: function transforms, as ``torch.func``.

A transform takes a function and returns a function: ``grad(f)`` computes f's gradient,
``vmap(f)`` runs f on a batch, and they compose (``vmap(grad(loss))`` gives one gradient per
example, ``jacfwd(jacrev(f))`` the Hessian). Reverse mode (``grad``, ``vjp``, ``jacrev``) is
built on ``autograd.grad``, forward mode (``jvp``, ``jacfwd``) on ``autograd.forward_ad``;
``vmap`` runs the function once per example and stacks the results (see ``vmap.py``).
"""
from teachgrad.func.forward import hessian, jacfwd, jvp
from teachgrad.func.functional_call import functional_call
from teachgrad.func.reverse import grad, grad_and_value, jacrev, vjp
from teachgrad.func.vmap import vmap

__all__ = ["functional_call", "grad", "grad_and_value", "hessian", "jacfwd", "jacrev", "jvp",
           "vjp", "vmap"]
