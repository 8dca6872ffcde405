"""Recurrent layers: the cells ``RNNCell``, ``LSTMCell``, ``GRUCell`` (one time step) and the
layers ``RNN``, ``LSTM``, ``GRU`` (a whole sequence, stacked layers, one or two directions).

A cell is a few lines that read like PyTorch's documentation (``*`` is elementwise, σ the
sigmoid; ``x W_ih^T + b_ih`` is split in quarters or thirds, one per gate):

* RNN:  h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)                         (or relu)
* LSTM: i, f, g, o = σ(.), σ(.), tanh(.), σ(.) of (x W_ih^T + b_ih + h W_hh^T + b_hh);
  c' = f * c + i * g;  h' = o * tanh(c')
* GRU:  r = σ(x W_ir^T + b_ir + h W_hr^T + b_hr),  z = σ(x W_iz^T + b_iz + h W_hz^T + b_hz),
  n = tanh(x W_in^T + b_in + r * (h W_hn^T + b_hn));  h' = (1 - z) * n + z * h

Which graph PyTorch builds (torch 2.13 on the CPU), and so which one teachgrad builds:

* The cells, RNN and GRU are composed of ordinary ops (PyTorch's C++ ``RNN.cpp``). A layer
  projects the inputs of all the time steps at once (one ``AddmmBackward0`` ->
  ``ViewBackward0`` -> ``UnbindBackward0``, one piece per step); each step then adds
  ``h W_hh^T + b_hh`` (an ``AddmmBackward0`` of its own), cuts the gates with
  ``unsafe_chunk`` (``UnsafeSplitBackward0``: the pieces are not views) and applies the cell.
  The steps' outputs are stacked (``StackBackward0``), the two directions concatenated
  (``CatBackward0``). teachgrad builds the very same graph with the same ops.
* LSTM in float32 goes through oneDNN instead: one ``MkldnnRnnLayerBackward0`` node per layer
  and direction, which runs every step at once (see ``teachgrad/ops/rnn.py``: its backward is
  back-propagation through time, written with teachgrad ops, so double backward works, as it
  does in PyTorch). A float64 LSTM, an LSTM with ``proj_size`` (PyTorch warns once that
  oneDNN does not support it) and an empty input take the composed path, as in PyTorch.
  PyTorch also takes it under ``torch.backends.mkldnn.flags(enabled=False)``; teachgrad has
  no such switch. ``LSTMCell`` is always composed.
* ``batch_first``: the input is transposed to (seq, batch, ...) first; the output goes back
  with an in-place ``transpose_`` for RNN and GRU (``TransposeBackward1``, ``_version`` 1),
  with ``transpose`` for LSTM. The cells' in-place ops are PyTorch's too (an LSTM cell's c
  has ``_version`` 1, a GRU cell's h' 2), and every op runs in PyTorch's order: the engine
  runs ready nodes by creation number, so hooks fire in the same order.

Weights start as PyTorch's do: every parameter from U(-1/sqrt(hidden_size),
1/sqrt(hidden_size)), drawn in the order of ``named_parameters()``.
"""
import math
import numbers
import warnings

from teachgrad import creation, dtypes
from teachgrad.nn import functional as F
from teachgrad.nn import init
from teachgrad.nn.module import Module
from teachgrad.nn.parameter import Parameter
from teachgrad.ops import pointwise, shape
from teachgrad.ops.rnn import mkldnn_rnn_layer

ACTIVATIONS = {"tanh": pointwise.tanh, "relu": pointwise.relu}


# ---- one time step ----------------------------------------------------------------------
def input_part(x, w_ih, b_ih):
    """x W_ih^T + b_ih. A layer computes it for all its steps at once, then gives each step
    its piece with ``w_ih=None`` (PyTorch's ``pre_compute_input``)."""
    return x if w_ih is None else F.linear(x, w_ih, b_ih)


def rnn_cell(x, h, w_ih, w_hh, b_ih=None, b_hh=None, nonlinearity="tanh"):
    """h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)."""
    return ACTIVATIONS[nonlinearity](F.linear(h, w_hh, b_hh) + input_part(x, w_ih, b_ih))


def lstm_cell(x, state, w_ih, w_hh, b_ih=None, b_hh=None, w_hr=None):
    """(h, c) -> (h', c'); with ``w_hr`` (``proj_size``), h' is projected: h' W_hr^T."""
    h, c = state
    gates = F.linear(h, w_hh, b_hh) + input_part(x, w_ih, b_ih)
    i, f, g, o = gates.unsafe_chunk(4, 1)
    i, f, g, o = i.sigmoid(), f.sigmoid(), g.tanh(), o.sigmoid()
    c = (f * c).add_(i * g)           # c = f * c + i * g (in place, as PyTorch: c._version 1)
    h = o * c.tanh()
    if w_hr is not None:
        h = h.matmul(w_hr.t())
    return h, c


def gru_cell(x, h, w_ih, w_hh, b_ih=None, b_hh=None):
    """h' = (1 - z) * n + z * h, computed as PyTorch does: (h - n) * z + n."""
    x_r, x_z, x_n = input_part(x, w_ih, b_ih).unsafe_chunk(3, 1)
    h_r, h_z, h_n = F.linear(h, w_hh, b_hh).unsafe_chunk(3, 1)
    r = (h_r + x_r).sigmoid()
    z = (h_z + x_z).sigmoid()
    n = (x_n + h_n * r).tanh()
    return (h - n).mul_(z).add_(n)    # (in place, as PyTorch: h'._version is 2)


# ---- the cells as modules -----------------------------------------------------------------
class RNNCellBase(Module):
    """The parameters of a cell: ``weight_ih`` (chunks * hidden, input), ``weight_hh``
    (chunks * hidden, hidden), ``bias_ih`` and ``bias_hh`` (chunks * hidden)."""

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        factory_kwargs = {"device": device, "dtype": dtype}
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        gates = num_chunks * hidden_size
        self.weight_ih = Parameter(creation.empty(gates, input_size, **factory_kwargs))
        self.weight_hh = Parameter(creation.empty(gates, hidden_size, **factory_kwargs))
        self.bias_ih = Parameter(creation.empty(gates, **factory_kwargs)) if bias else None
        self.bias_hh = Parameter(creation.empty(gates, **factory_kwargs)) if bias else None
        self.reset_parameters()

    def reset_parameters(self):
        bound = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -bound, bound)

    def extra_repr(self):
        text = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            text += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            text += f", nonlinearity={self.nonlinearity}"
        return text

    def _check_dims(self, input, states, names):
        """PyTorch's checks in Python: 1-D (one sample) or 2-D (a batch) tensors."""
        cell = type(self).__name__
        if input.dim() not in (1, 2):
            raise ValueError(f"{cell}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        for state, name in zip(states, names):
            if state is not None and state.dim() not in (1, 2):
                raise ValueError(f"{cell}: Expected {name} to be 1D or 2D, got {state.dim()}D "
                                 "instead")

    def _check_sizes(self, input, states):
        """PyTorch's checks in C++."""
        if input.shape[1] != self.weight_ih.shape[1]:
            raise RuntimeError(f"input has inconsistent input_size: got {input.shape[1]} "
                               f"expected {self.weight_ih.shape[1]}")
        for label, state in enumerate(states):
            if input.shape[0] != state.shape[0]:
                raise RuntimeError(f"Input batch size {input.shape[0]} doesn't match "
                                   f"hidden{label} batch size {state.shape[0]}")
            if state.shape[1] != self.hidden_size:
                raise RuntimeError(f"hidden{label} has inconsistent hidden_size: got "
                                   f"{state.shape[1]}, expected {self.hidden_size}")

    def _zeros(self, input):
        return creation.zeros(input.shape[0], self.hidden_size, dtype=input.dtype)


class RNNCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None,
                 dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device,
                         dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        self._check_dims(input, [hx], ["hidden"])
        batched = input.dim() == 2
        input = input if batched else input.unsqueeze(0)
        hx = self._zeros(input) if hx is None else hx if batched else hx.unsqueeze(0)
        if self.nonlinearity not in ACTIVATIONS:
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        self._check_sizes(input, [hx])
        h = rnn_cell(input, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh,
                     self.nonlinearity)
        return h if batched else h.squeeze(0)


class LSTMCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device,
                         dtype=dtype)

    def forward(self, input, hx=None):
        self._check_dims(input, hx or [], ["hx[0]", "hx[1]"])
        batched = input.dim() == 2
        input = input if batched else input.unsqueeze(0)
        if hx is None:
            zeros = self._zeros(input)
            hx = (zeros, zeros)
        elif not batched:
            hx = (hx[0].unsqueeze(0), hx[1].unsqueeze(0))
        self._check_sizes(input, hx)
        h, c = lstm_cell(input, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device,
                         dtype=dtype)

    def forward(self, input, hx=None):
        self._check_dims(input, [hx], ["hidden"])
        batched = input.dim() == 2
        input = input if batched else input.unsqueeze(0)
        hx = self._zeros(input) if hx is None else hx if batched else hx.unsqueeze(0)
        self._check_sizes(input, [hx])
        h = gru_cell(input, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return h if batched else h.squeeze(0)


# ---- the layers -------------------------------------------------------------------------
GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}
_projection_warned = [False]        # PyTorch warns once per process (TORCH_WARN_ONCE)


class RNNBase(Module):
    """Parameters and checks shared by RNN, LSTM and GRU. Layer ``k`` has ``weight_ih_lk``,
    ``weight_hh_lk``, ``bias_ih_lk``, ``bias_hh_lk`` (and ``weight_hr_lk`` with
    ``proj_size``); the reverse direction's names end in ``_reverse``."""

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, proj_size=0,
                 device=None, dtype=None):
        super().__init__()
        self._check_settings(input_size, hidden_size, num_layers, bias, batch_first, dropout,
                             proj_size)
        self.mode, self.input_size, self.hidden_size = mode, input_size, hidden_size
        self.num_layers, self.bias, self.batch_first = num_layers, bias, batch_first
        self.dropout, self.bidirectional = float(dropout), bidirectional
        self.proj_size = proj_size
        self._flat_weights_names, self._all_weights = [], []
        for layer in range(num_layers):
            for suffix in ("", "_reverse")[:self._directions()]:
                self._add_layer_weights(layer, suffix, GATES[mode] * hidden_size,
                                        {"device": device, "dtype": dtype})
        self.reset_parameters()

    @staticmethod
    def _check_settings(input_size, hidden_size, num_layers, bias, batch_first, dropout,
                        proj_size):
        if not isinstance(dropout, numbers.Number) or isinstance(dropout, bool) \
                or not 0 <= dropout <= 1:
            raise ValueError("dropout should be a number in range [0, 1] representing the "
                             "probability of an element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so "
                          "non-zero dropout expects num_layers greater than 1, but got "
                          f"dropout={dropout} and num_layers={num_layers}", stacklevel=3)
        for name, value, kind in (("bias", bias, bool), ("batch_first", batch_first, bool),
                                  ("input_size", input_size, int),
                                  ("hidden_size", hidden_size, int)):
            if not isinstance(value, kind):
                raise TypeError(f"{name} should be of type {kind.__name__}, got: "
                                f"{type(value).__name__}")
        for name, value in (("input_size", input_size), ("hidden_size", hidden_size),
                            ("num_layers", num_layers)):
            if value <= 0:
                raise ValueError(f"{name} must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable "
                             "projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")

    def _add_layer_weights(self, layer, suffix, gate_size, factory_kwargs):
        real_hidden = self.proj_size or self.hidden_size
        inputs = self.input_size if layer == 0 else real_hidden * self._directions()
        shapes = {"weight_ih": (gate_size, inputs), "weight_hh": (gate_size, real_hidden)}
        if self.bias:
            shapes.update(bias_ih=(gate_size,), bias_hh=(gate_size,))
        if self.proj_size:
            shapes["weight_hr"] = (self.proj_size, self.hidden_size)
        names = []
        for kind, size in shapes.items():
            names.append(f"{kind}_l{layer}{suffix}")
            setattr(self, names[-1], Parameter(creation.empty(*size, **factory_kwargs)))
        self._flat_weights_names += names
        self._all_weights.append(names)

    def reset_parameters(self):
        bound = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -bound, bound)

    @property
    def all_weights(self):
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    @property
    def _flat_weights(self):
        return [getattr(self, name) for name in self._flat_weights_names]

    def flatten_parameters(self):
        """On a GPU, PyTorch packs the weights into one block for cuDNN; on the CPU it does
        nothing, and nor does teachgrad (programs call it after ``model.to(device)``)."""

    def _directions(self):
        return 2 if self.bidirectional else 1

    def _layer_weights(self, index):
        """(w_ih, w_hh, b_ih, b_hh, w_hr) of layer-and-direction ``index``; None if absent."""
        suffix = self._all_weights[index][0][len("weight_ih"):]        # "_l1" or "_l1_reverse"
        return tuple(getattr(self, kind + suffix, None)
                     for kind in ("weight_ih", "weight_hh", "bias_ih", "bias_hh", "weight_hr"))

    def extra_repr(self):
        text = f"{self.input_size}, {self.hidden_size}"
        for name, default in (("proj_size", 0), ("num_layers", 1), ("bias", True),
                              ("batch_first", False), ("dropout", 0), ("bidirectional", False)):
            if getattr(self, name) != default:
                text += f", {name}={getattr(self, name)}"
        return text

    # ---- PyTorch's checks (in Python) -------------------------------------------------
    def _batched(self, input):
        """``input`` as a batch (unsqueezed if it is one sequence), and whether it was one."""
        if input.dim() not in (2, 3):
            name = self.mode.split("_")[0]
            got = f"{input.dim()}D tensor" if name == "RNN" else f"{input.dim()}D"
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {got} instead")
        batched = input.dim() == 3
        return (input if batched else input.unsqueeze(self._batch_dim())), batched

    def _batch_dim(self):
        return 0 if self.batch_first else 1

    def _zeros(self, input, size):
        return creation.zeros(self.num_layers * self._directions(),
                              input.shape[self._batch_dim()], size, dtype=input.dtype)

    def check_input(self, input):
        weight = self._flat_weights[0]
        if input.dtype != weight.dtype:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype "
                             f"({weight.dtype}). Convert input: input.to({weight.dtype}), or "
                             f"convert model: model.to({input.dtype})")
        if input.dim() != 3:
            raise RuntimeError(f"input must have 3 dimensions, got {input.dim()}")
        if self.input_size != input.shape[-1]:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {input.shape[-1]}")

    def get_expected_hidden_size(self, input):
        return (self.num_layers * self._directions(), input.shape[self._batch_dim()],
                self.proj_size or self.hidden_size)

    def check_hidden_size(self, hx, expected, message="Expected hidden size {}, got {}"):
        if tuple(hx.shape) != expected:
            raise RuntimeError(message.format(expected, list(hx.shape)))

    def check_forward_args(self, input, hidden):
        self.check_input(input)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input))

    # ---- PyTorch's C++ part: the stack of layers ------------------------------------------
    def _stack_layers(self, input, initial_state, run_layer):
        """Run the layers one after the other, both directions of a layer on the same input;
        dropout between layers in training. ``initial_state(index)`` gives the starting
        state of layer-and-direction ``index``; ``run_layer(input, state, weights,
        reverse)`` returns its output sequence and its last state."""
        layer_input, last_states = input, []
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(self._directions()):
                index = layer * self._directions() + direction
                output, state = run_layer(layer_input, initial_state(index),
                                          self._layer_weights(index), reverse=direction == 1)
                outputs.append(output)
                last_states.append(state)
            layer_input = outputs[0] if len(outputs) == 1 else shape.cat(outputs, -1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                layer_input = F.dropout(layer_input, self.dropout, True)
        return layer_input, last_states

    def _composed(self, input, initial_state):
        """The layers built of ordinary ops (PyTorch's ``_rnn_impl``), on (seq, batch, ...):
        the output comes back in that layout, even for ``batch_first``."""
        sequences = input.transpose(0, 1) if self.batch_first else input
        return self._stack_layers(sequences, initial_state, self._run_layer)

    def _run_layer(self, input, state, weights, reverse):
        """One direction of one layer over the sequence (PyTorch's FullLayer): the inputs of
        all the steps are projected at once, then the steps run one after the other."""
        w_ih, w_hh, b_ih, b_hh, w_hr = weights
        x_gates = F.linear(input, w_ih, b_ih).unbind(0)
        if not x_gates:
            raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
        outputs = []
        for x_t in (x_gates[::-1] if reverse else x_gates):
            state = self._step(x_t, state, w_hh, b_hh, w_hr)      # x_t: projected already
            outputs.append(state[0] if isinstance(state, tuple) else state)
        return shape.stack(outputs[::-1] if reverse else outputs), state


class RNN(RNNBase):
    """An Elman RNN: each layer runs ``rnn_cell`` along the sequence."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:       # RNN(input_size, hidden_size, num_layers, nonlinearity, ...)
            nonlinearity, args = args[3], args[:3] + args[4:]
        else:
            nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if nonlinearity not in ACTIVATIONS:
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or "
                             "'relu'.")
        super().__init__(f"RNN_{nonlinearity.upper()}", *args, **kwargs)
        self.nonlinearity = nonlinearity

    def _step(self, x_t, h, w_hh, b_hh, w_hr):
        return rnn_cell(x_t, h, None, w_hh, None, b_hh, self.nonlinearity)

    def forward(self, input, hx=None):
        return _one_hidden_forward(self, input, hx)


class GRU(RNNBase):
    """Each layer runs ``gru_cell`` along the sequence."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def _step(self, x_t, h, w_hh, b_hh, w_hr):
        return gru_cell(x_t, h, None, w_hh, None, b_hh)

    def forward(self, input, hx=None):
        return _one_hidden_forward(self, input, hx)


def _one_hidden_forward(module, input, hx):
    """RNN.forward and GRU.forward: ``(output, h_n)``; h0 defaults to zeros."""
    input, batched = module._batched(input)
    if hx is not None and hx.dim() != (3 if batched else 2):
        kind = "batched 3-D" if batched else "unbatched 2-D"
        raise RuntimeError(f"For {kind} input, hx should also be {3 if batched else 2}-D but "
                           f"got {hx.dim()}-D tensor")
    if hx is None:
        hx = module._zeros(input, module.hidden_size)
    elif not batched:
        hx = hx.unsqueeze(1)
    module.check_forward_args(input, hx)
    layer_hx = hx.unbind(0)
    output, last = module._composed(input, lambda k: layer_hx[k])
    if module.batch_first:
        output.transpose_(0, 1)         # in place, as PyTorch's C++ does for RNN and GRU
    hidden = shape.stack(last, 0)
    if not batched:
        return output.squeeze(module._batch_dim()), hidden.squeeze(1)
    return output, hidden


class LSTM(RNNBase):
    """Each layer runs ``lstm_cell`` along the sequence (in one oneDNN node for float32)."""

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def _step(self, x_t, state, w_hh, b_hh, w_hr):
        return lstm_cell(x_t, state, None, w_hh, None, b_hh, w_hr)

    def check_forward_args(self, input, hidden):
        self.check_input(input)
        self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input),
                               "Expected hidden[0] size {}, got {}")
        cell_size = (*self.get_expected_hidden_size(input)[:2], self.hidden_size)
        self.check_hidden_size(hidden[1], cell_size, "Expected hidden[1] size {}, got {}")

    def forward(self, input, hx=None):
        input, batched = self._batched(input)
        if hx is None:
            hx = (self._zeros(input, self.proj_size or self.hidden_size),
                  self._zeros(input, self.hidden_size))
        else:
            dims = 3 if batched else 2
            if hx[0].dim() != dims or hx[1].dim() != dims:
                kind = "batched 3-D" if batched else "unbatched 2-D"
                raise RuntimeError(f"For {kind} input, hx and cx should also be {dims}-D but "
                                   f"got ({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
            if not batched:
                hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
        self.check_forward_args(input, hx)
        if self._uses_onednn(input):
            output, h_n, c_n = self._onednn(input, *hx)
        else:
            layer_hx, layer_cx = hx[0].unbind(0), hx[1].unbind(0)
            output, last = self._composed(input, lambda k: (layer_hx[k], layer_cx[k]))
            h_n = shape.stack([h for h, c in last], 0)
            c_n = shape.stack([c for h, c in last], 0)
        if self.batch_first:
            output = output.transpose(0, 1)
        if not batched:
            return output.squeeze(self._batch_dim()), (h_n.squeeze(1), c_n.squeeze(1))
        return output, (h_n, c_n)

    def _uses_onednn(self, input):
        """PyTorch's choice on the CPU: oneDNN for float32, unless the LSTM has projections."""
        if input.dtype != dtypes.float32 or input.numel() == 0:
            return False
        if self.proj_size and not _projection_warned[0]:
            _projection_warned[0] = True
            warnings.warn("LSTM with projections is not supported with oneDNN. Using default "
                          "implementation.", stacklevel=2)
        return not self.proj_size

    def _onednn(self, input, hx, cx):
        """PyTorch's ``mkldnn_rnn``: one MkldnnRnnLayerBackward0 node per layer and direction."""
        sequences = (input.transpose(0, 1) if self.batch_first else input).contiguous()
        hx, cx = hx.contiguous(), cx.contiguous()

        def run_layer(layer_input, state, weights, reverse):
            w_ih, w_hh, b_ih, b_hh, _ = weights
            if b_ih is None:      # oneDNN is given zeros for the biases
                b_ih, b_hh = (creation.zeros(w.shape[0], dtype=w.dtype) for w in (w_ih, w_hh))
            output, h, c = mkldnn_rnn_layer(layer_input, w_ih, w_hh, b_ih, b_hh, *state, reverse)
            return output, (h, c)

        output, last = self._stack_layers(sequences, lambda k: (hx[k], cx[k]), run_layer)
        h_n = shape.stack([h for h, c in last], 0)
        c_n = shape.stack([c for h, c in last], 0)
        return output, h_n, c_n
