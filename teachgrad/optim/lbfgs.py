"""L-BFGS: a quasi-Newton method that steps along ``-H g``, where ``H`` approximates the
inverse Hessian from the last ``history_size`` steps and gradient changes.

``step(closure)`` runs up to ``max_iter`` iterations, calling ``closure`` (which must
recompute the loss and its gradients) whenever it needs a new point. PyTorch's code and
order of operations, so the iterates agree with PyTorch's; with
``line_search_fn="strong_wolfe"`` each step length is searched for (``_strong_wolfe``,
ported from PyTorch, which ported it from Lua torch's ``lswolfe``).
"""
from teachgrad.autograd.grad_mode import enable_grad, no_grad
from teachgrad.ops import shape
from teachgrad.optim.optimizer import Optimizer


class LBFGS(Optimizer):
    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7,
                 tolerance_change=1e-9, history_size=100, line_search_fn=None):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        super().__init__(params, dict(lr=lr, max_iter=max_iter, max_eval=max_eval,
                                      tolerance_grad=tolerance_grad,
                                      tolerance_change=tolerance_change,
                                      history_size=history_size, line_search_fn=line_search_fn))
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    # ---- the parameters seen as one flat vector ----------------------------------------
    def _gather_flat_grad(self):
        return shape.cat([p.new_zeros(p.numel()) if p.grad is None else p.grad.view(-1)
                          for p in self._params], 0)

    def _add_grad(self, step_size, update):
        """Move the parameters by ``step_size * update``."""
        offset = 0
        for p in self._params:
            p.add_(update[offset:offset + p.numel()].view_as(p), alpha=step_size)
            offset += p.numel()

    def _directional_evaluate(self, closure, x, t, d):
        """Loss and flat gradient at ``x + t * d``; the parameters are put back to ``x``."""
        self._add_grad(t, d)
        loss = float(closure())
        flat_grad = self._gather_flat_grad()
        for p, values in zip(self._params, x):
            p.copy_(values)
        return loss, flat_grad

    # ---- one step: up to max_iter iterations ------------------------------------------
    @no_grad()
    def step(self, closure):
        closure = enable_grad()(closure)
        group = self.param_groups[0]
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)
        orig_loss = closure()
        loss, current_evals = float(orig_loss), 1
        state["func_evals"] += 1
        flat_grad = self._gather_flat_grad()
        if flat_grad.abs().max() <= group["tolerance_grad"]:
            return orig_loss
        t, prev_flat_grad = state.get("t"), state.get("prev_flat_grad")
        for n_iter in range(1, group["max_iter"] + 1):
            state["n_iter"] += 1
            d = state["d"] = _descent_direction(state, flat_grad, prev_flat_grad, t,
                                                group["history_size"])
            if prev_flat_grad is None:
                prev_flat_grad = flat_grad.clone()
            else:
                prev_flat_grad.copy_(flat_grad)
            prev_loss = loss
            t = (min(1.0, 1.0 / flat_grad.abs().sum()) * group["lr"] if state["n_iter"] == 1
                 else group["lr"])
            gtd = flat_grad.dot(d)
            if gtd > -group["tolerance_change"]:
                break
            loss, flat_grad, t, evals = self._move(closure, group, loss, flat_grad, t, d, gtd,
                                                   current_evals, last=n_iter == group["max_iter"])
            current_evals += evals
            state["func_evals"] += evals
            if (n_iter == group["max_iter"] or current_evals >= group["max_eval"]
                    or flat_grad.abs().max() <= group["tolerance_grad"]
                    or d.mul(t).abs().max() <= group["tolerance_change"]
                    or abs(loss - prev_loss) < group["tolerance_change"]):
                break
        state.update(t=t, prev_flat_grad=prev_flat_grad, prev_loss=prev_loss)
        return orig_loss

    def _move(self, closure, group, loss, flat_grad, t, d, gtd, current_evals, last):
        """Step along ``d``: by ``t``, or by the length the line search finds. Returns the
        new loss, flat gradient, step length and the number of closure calls made."""
        if group["line_search_fn"] is not None:
            if group["line_search_fn"] != "strong_wolfe":
                raise RuntimeError("only 'strong_wolfe' is supported")
            x_init = [p.clone() for p in self._params]
            loss, flat_grad, t, evals = _strong_wolfe(
                lambda x, step, direction: self._directional_evaluate(closure, x, step,
                                                                       direction),
                x_init, t, d, loss, flat_grad, gtd, max_ls=group["max_eval"] - current_evals)
            self._add_grad(t, d)
            return loss, flat_grad, t, evals
        self._add_grad(t, d)
        if last:                       # the last iteration: no new evaluation
            return loss, flat_grad, t, 0
        loss = float(closure())
        return loss, self._gather_flat_grad(), t, 1


def _descent_direction(state, flat_grad, prev_flat_grad, t, history_size):
    """``-H g`` by the two-loop recursion over the kept (gradient change, step) pairs."""
    if state["n_iter"] == 1:
        state.update(old_dirs=[], old_stps=[], ro=[], H_diag=1)
        return flat_grad.neg()
    old_dirs, old_stps, ro = state["old_dirs"], state["old_stps"], state["ro"]
    y = flat_grad.sub(prev_flat_grad)
    s = state["d"].mul(t)
    ys = y.dot(s)
    if ys > 1e-10:                     # keep the pair only under positive curvature
        if len(old_dirs) == history_size:
            for history in (old_dirs, old_stps, ro):
                history.pop(0)
        old_dirs.append(y)
        old_stps.append(s)
        ro.append(1.0 / ys)
        state["H_diag"] = ys / y.dot(y)
    al = state.setdefault("al", [None] * history_size)
    q = flat_grad.neg()
    for i in range(len(old_dirs) - 1, -1, -1):
        al[i] = old_stps[i].dot(q) * ro[i]
        q.add_(old_dirs[i], alpha=-al[i])
    r = q.mul(state["H_diag"])
    for i in range(len(old_dirs)):
        be_i = old_dirs[i].dot(r) * ro[i]
        r.add_(old_stps[i], alpha=al[i] - be_i)
    return r


def _cubic_interpolate(x1, f1, g1, x2, f2, g2, bounds=None):
    """The minimiser of the cubic through two points with their values and slopes, kept
    within ``bounds`` (the midpoint if the cubic has none)."""
    xmin_bound, xmax_bound = bounds if bounds is not None else (min(x1, x2), max(x1, x2))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 ** 2 - g1 * g2
    if d2_square < 0:
        return (xmin_bound + xmax_bound) / 2.0
    d2 = d2_square.sqrt()
    if x1 <= x2:
        min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(min_pos, xmin_bound), xmax_bound)


def _strong_wolfe(obj_func, x, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9,
                  max_ls=25):
    """A step length satisfying the strong Wolfe conditions: first a bracket around one,
    then zooming into it. Returns (loss, flat gradient, step, evaluations)."""
    d_norm = d.abs().max()
    g = g.clone()
    f_new, g_new = obj_func(x, t, d)
    ls_func_evals, gtd_new = 1, g_new.dot(d)
    t_prev, f_prev, g_prev, gtd_prev = 0, f, g, gtd
    done, ls_iter = False, 0
    while ls_iter < max_ls:
        if f_new > (f + c1 * t * gtd) or (ls_iter > 1 and f_new >= f_prev):
            break                                   # bracketed
        if abs(gtd_new) <= -c2 * gtd:
            bracket, bracket_f, bracket_g, done = [t], [f_new], [g_new], True
            break
        if gtd_new >= 0:
            break                                   # bracketed
        min_step, max_step = t + 0.01 * (t - t_prev), t * 10
        t_prev, t = t, _cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new,
                                          bounds=(min_step, max_step))
        f_prev, g_prev, gtd_prev = f_new, g_new.clone(), gtd_new
        f_new, g_new = obj_func(x, t, d)
        ls_func_evals, gtd_new, ls_iter = ls_func_evals + 1, g_new.dot(d), ls_iter + 1
    if ls_iter == max_ls:
        bracket, bracket_f, bracket_g = [0, t], [f, f_new], [g, g_new]
    elif not done:
        bracket, bracket_f = [t_prev, t], [f_prev, f_new]
        bracket_g, bracket_gtd = [g_prev, g_new.clone()], [gtd_prev, gtd_new]
    low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[-1] else (1, 0)
    insuf_progress = False
    while not done and ls_iter < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        t = _cubic_interpolate(bracket[0], bracket_f[0], bracket_gtd[0],
                               bracket[1], bracket_f[1], bracket_gtd[1])
        t, insuf_progress = _away_from_the_ends(t, bracket, insuf_progress)
        f_new, g_new = obj_func(x, t, d)
        ls_func_evals, gtd_new, ls_iter = ls_func_evals + 1, g_new.dot(d), ls_iter + 1
        if f_new > (f + c1 * t * gtd) or f_new >= bracket_f[low_pos]:
            # not enough decrease, or not below the lowest point: the new high end
            bracket[high_pos], bracket_f[high_pos] = t, f_new
            bracket_g[high_pos], bracket_gtd[high_pos] = g_new.clone(), gtd_new
            low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
            continue
        if abs(gtd_new) <= -c2 * gtd:
            done = True
        elif gtd_new * (bracket[high_pos] - bracket[low_pos]) >= 0:
            bracket[high_pos], bracket_f[high_pos] = bracket[low_pos], bracket_f[low_pos]
            bracket_g[high_pos], bracket_gtd[high_pos] = bracket_g[low_pos], bracket_gtd[low_pos]
        bracket[low_pos], bracket_f[low_pos] = t, f_new
        bracket_g[low_pos], bracket_gtd[low_pos] = g_new.clone(), gtd_new
    return bracket_f[low_pos], bracket_g[low_pos], bracket[low_pos], ls_func_evals


def _away_from_the_ends(t, bracket, insuf_progress):
    """A trial step too close to an end of the bracket moves to 0.1 of its length from it
    (at once if it is at or beyond an end, else at the second time in a row)."""
    eps = 0.1 * (max(bracket) - min(bracket))
    if min(max(bracket) - t, t - min(bracket)) >= eps:
        return t, False
    if not (insuf_progress or t >= max(bracket) or t <= min(bracket)):
        return t, True
    if abs(t - max(bracket)) < abs(t - min(bracket)):
        return max(bracket) - eps, False
    return min(bracket) + eps, False
