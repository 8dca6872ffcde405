# Minimising a function with L-BFGS and a closure.
import torch

torch.set_default_dtype(torch.float64)
point = torch.tensor([-1.2, 1.0], requires_grad=True)
optimizer = torch.optim.LBFGS([point], lr=1, max_iter=50, line_search_fn="strong_wolfe")


def closure():
    optimizer.zero_grad()
    loss = (1 - point[0]) ** 2 + 100 * (point[1] - point[0] ** 2) ** 2
    loss.backward()
    return loss


for outer in range(3):
    loss = optimizer.step(closure)
    state = optimizer.state[point]
    print(outer, f"loss {loss.item():.3e}", "evaluations", state["func_evals"],
          "point", [round(v, 6) for v in point.tolist()])
