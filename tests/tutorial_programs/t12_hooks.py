# Looking inside backward: module hooks, tensor hooks and hooks on saved tensors.
import torch
import torch.nn as nn

torch.manual_seed(10)
model = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 1))


def report(module, grad_input, grad_output):
    print(type(module).__name__, "grad_input", [tuple(g.shape) if g is not None else None
                                                for g in grad_input],
          "grad_output", [tuple(g.shape) for g in grad_output])


handles = [layer.register_full_backward_hook(report) for layer in model]
x = torch.randn(5, 4, requires_grad=True)
out = model(x)
print("output node:", out.grad_fn.name())
out.sum().backward()
for handle in handles:
    handle.remove()

h = x * 2
h.register_hook(lambda grad: print("grad of h:", tuple(grad.shape), f"{grad.sum().item():.4f}"))
h.sum().backward()

packed = []
with torch.autograd.graph.saved_tensors_hooks(lambda t: packed.append(tuple(t.shape)) or t,
                                              lambda t: t):
    loss = model(x).pow(2).sum()
print("packed shapes:", packed)
loss.backward()
print("x.grad total:", f"{x.grad.sum().item():.4f}")
