"""A whole LSTM layer as one node: ``MkldnnRnnLayerBackward0``.

For a float32 LSTM on the CPU, PyTorch hands each layer (each direction of each layer) to
oneDNN, which runs all the time steps in one call (``torch.mkldnn_rnn_layer``). Autograd sees
one node per layer, with seven edges: the layer's input, its four weights
(``weight_ih``, ``weight_hh``, ``bias_ih``, ``bias_hh``; zeros that need no gradient when
the LSTM has no bias) and the layer's initial ``h`` and ``c``. The node has three outputs:
the output sequence, the last ``h`` and the last ``c``.

Its backward is back-propagation through time, written with teachgrad ops: the steps are run
forward again to get the gates, then walked from the last one to the first, passing the
gradients of ``h`` and ``c`` from each step to the one before it. Because it is written with
teachgrad ops, a double backward goes through it, as in PyTorch (whose
``mkldnn_rnn_layer_differentiable_backward`` also runs the forward again).
"""
from collections import namedtuple

import numpy as np

from teachgrad import creation
from teachgrad.autograd.grad_mode import no_grad
from teachgrad.autograd.operation import Operation
from teachgrad.ops import linalg, shape
from teachgrad.tensor import Tensor

Step = namedtuple("Step", "t h_prev c_prev i f g o c h")


def lstm_steps(input, w_ih, w_hh, b_ih, b_hh, h, c, reverse):
    """Run an LSTM layer over ``input`` (seq, batch, features), last step first if
    ``reverse``; return what each step saw and made, in the order the steps ran.
    The equations are those of ``nn.LSTMCell``."""
    x_gates = linalg.matmul(input, w_ih.t()) + b_ih
    times = range(input.shape[0] - 1, -1, -1) if reverse else range(input.shape[0])
    steps = []
    for t in times:
        gates = x_gates[t] + linalg.matmul(h, w_hh.t()) + b_hh
        i, f, g, o = gates.unsafe_chunk(4, 1)
        i, f, g, o = i.sigmoid(), f.sigmoid(), g.tanh(), o.sigmoid()
        c_new = f * c + i * g
        h_new = o * c_new.tanh()
        steps.append(Step(t, h, c, i, f, g, o, c_new, h_new))
        h, c = h_new, c_new
    return steps


class MkldnnRnnLayerBackward0(Operation):
    """Inputs: the layer's input (seq, batch, features), weight_ih, weight_hh, bias_ih,
    bias_hh, h0 and c0 (batch, hidden); outputs: the h of every step (in time order), and
    the last h and c. ``reverse`` runs the steps from the last to the first."""
    input_names = ("input", "weight0", "weight1", "weight2", "weight3", "hx_", "cx_")

    def forward(self, input, w_ih, w_hh, b_ih, b_hh, hx, cx, reverse):
        for name in self.input_names:
            self.save(name)
        self._saved_reverse = reverse
        with no_grad():
            steps = lstm_steps(*map(Tensor._make, (input, w_ih, w_hh, b_ih, b_hh, hx, cx)),
                               reverse)
        in_time_order = steps[::-1] if reverse else steps
        output = np.stack([step.h._data for step in in_time_order])
        return output, steps[-1].h._data, steps[-1].c._data

    def backward(self, grad_output, grad_hy, grad_cy):
        x, w_ih, w_hh = self._saved_input, self._saved_weight0, self._saved_weight1
        h0, c0 = self._saved_hx_, self._saved_cx_
        steps = lstm_steps(x, w_ih, w_hh, self._saved_weight2, self._saved_weight3, h0, c0,
                           self._saved_reverse)
        grad_h = creation.zeros_like(h0) if grad_hy is None else grad_hy
        grad_c = creation.zeros_like(c0) if grad_cy is None else grad_cy
        grad_gates, grad_x = [None] * len(steps), [None] * len(steps)
        for step in reversed(steps):            # back through time
            if grad_output is not None:
                grad_h = grad_h + grad_output[step.t]
            tanh_c = step.c.tanh()
            grad_o = grad_h * tanh_c                                 # h = o * tanh(c)
            grad_c = grad_c + grad_h * step.o * (1 - tanh_c * tanh_c)
            grad_i, grad_f, grad_g = grad_c * step.g, grad_c * step.c_prev, grad_c * step.i
            grad_gates[step.t] = shape.cat([grad_i * step.i * (1 - step.i),    # sigmoid' = s(1-s)
                                            grad_f * step.f * (1 - step.f),
                                            grad_g * (1 - step.g * step.g),    # tanh' = 1-tanh²
                                            grad_o * step.o * (1 - step.o)], 1)
            grad_x[step.t] = linalg.mm(grad_gates[step.t], w_ih)         # to this step's input
            grad_h = linalg.mm(grad_gates[step.t], w_hh)                 # to the step before
            grad_c = grad_c * step.f                                    # c = f * c_prev + ...
        return (shape.stack(grad_x), *self._weight_gradients(shape.stack(grad_gates), steps, x),
                grad_h, grad_c)

    def _weight_gradients(self, grad_gates, steps, x):
        """The gradients of the four weights, summed over all the steps and the batch
        (``grad_gates``: seq, batch, 4 * hidden)."""
        h_prev = shape.stack([step.h_prev for step in sorted(steps, key=lambda s: s.t)])
        rows = grad_gates.reshape(-1, grad_gates.shape[-1])
        grad_w_ih = linalg.mm(rows.t(), x.reshape(-1, x.shape[-1]))
        grad_w_hh = linalg.mm(rows.t(), h_prev.reshape(-1, h_prev.shape[-1]))
        grad_bias = rows.sum(0)
        return grad_w_ih, grad_w_hh, grad_bias, grad_bias


def mkldnn_rnn_layer(input, w_ih, w_hh, b_ih, b_hh, hx, cx, reverse):
    """One LSTM layer, one direction: ``(output, h_n, c_n)`` through one node."""
    return MkldnnRnnLayerBackward0.apply(input, w_ih, w_hh, b_ih, b_hh, hx, cx,
                                         reverse=reverse)
