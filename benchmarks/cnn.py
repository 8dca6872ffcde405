"""Case 3: one training step of a small CNN (batch 32, 1x28x28): conv 3x3 -> 8 channels,
ReLU, 2x2 max-pool, conv 3x3 -> 16, ReLU, 2x2 max-pool, linear -> 10, cross-entropy, SGD.

teachgrad and torch run the same program (``mlp.training_step``); the numpy floor does
the same math by hand, each convolution as one matrix product over its input's windows
(im2col).
"""
import sys

import numpy as np

import teachgrad

from benchmarks import counts, mlp, timing

BATCH = 32
CHANNELS = (1, 8, 16)
CLASSES = 10


def flat_features(size=28):
    for _ in CHANNELS[1:]:
        size = (size - 2) // 2              # a 3x3 convolution without padding, then a 2x2 pool
    return CHANNELS[-1] * size * size


def make_data(batch=BATCH, size=28, seed=0):
    rng = np.random.default_rng(seed)
    shapes = [(c_out, c_in, 3, 3) for c_in, c_out in zip(CHANNELS[:-1], CHANNELS[1:])]
    shapes.append((CLASSES, flat_features(size)))
    params = []
    for shape in shapes:
        bound = 1 / np.sqrt(np.prod(shape[1:]))
        params.append(rng.uniform(-bound, bound, shape).astype(np.float32))
        params.append(rng.uniform(-bound, bound, shape[0]).astype(np.float32))
    x = rng.standard_normal((batch, CHANNELS[0], size, size)).astype(np.float32)
    y = rng.integers(0, CLASSES, batch)
    return params, x, y


def build_model(lib, size=28):
    nn = lib.nn
    return nn.Sequential(nn.Conv2d(1, 8, 3), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(8, 16, 3), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(flat_features(size), CLASSES))


def framework_step(lib, params, x, y, size=28):
    model = build_model(lib, size)
    mlp.load_weights(lib, model, params)
    return model, mlp.training_step(lib, model, x, y)


# ---- the numpy floor -----------------------------------------------------------------
def im2col(x, size):
    """Each output position's input window as a column: n x (c * size * size) x (h * w)."""
    n, c, h, w = x.shape
    h, w = h - size + 1, w - size + 1
    shifted = [x[:, :, i:i + h, j:j + w] for i in range(size) for j in range(size)]
    return np.stack(shifted, axis=2).reshape(n, -1, h * w)


def conv(x, w, b):
    """A 3x3 convolution (stride 1, no padding) as one batched matrix product."""
    columns = im2col(x, w.shape[2])
    size = x.shape[2] - w.shape[2] + 1
    out = w.reshape(len(w), -1) @ columns + b[:, None]
    return out.reshape(len(x), len(w), size, size), columns


def conv_backward(grad, columns, w, input_shape=None):
    """Gradients of weight, bias and (if ``input_shape`` is given) the input."""
    grad = grad.reshape(grad.shape[0], grad.shape[1], -1)           # n x o x (h * w)
    grad_w = (grad @ columns.transpose(0, 2, 1)).sum(0).reshape(w.shape)
    grad_b = grad.sum((0, 2))
    if input_shape is None:
        return None, grad_w, grad_b
    n, c, height, width = input_shape
    size = w.shape[2]
    h, w_ = height - size + 1, width - size + 1
    grad_columns = (w.reshape(len(w), -1).T @ grad).reshape(n, c, size * size, h, w_)
    grad_x = np.zeros(input_shape, np.float32)
    for k in range(size * size):                                    # col2im: add windows back
        i, j = divmod(k, size)
        grad_x[:, :, i:i + h, j:j + w_] += grad_columns[:, :, k]
    return grad_x, grad_w, grad_b


OFFSETS = ((0, 0), (0, 1), (1, 0), (1, 1))     # the four positions of a 2x2 window


def pool(x):
    """2x2 max-pool: the maximum of four strided slices (an odd last row/column is dropped)."""
    h, w = x.shape[2] // 2 * 2, x.shape[3] // 2 * 2
    corners = [x[:, :, i:h:2, j:w:2] for i, j in OFFSETS]
    return np.maximum(np.maximum(corners[0], corners[1]), np.maximum(corners[2], corners[3]))


def pool_backward(grad, x, out):
    # Every maximum of a window gets the gradient. Ties happen only between ReLU's zeros,
    # where the ReLU's backward zeroes the gradient anyway: the result equals torch's.
    h, w = out.shape[2] * 2, out.shape[3] * 2
    grad_x = np.zeros_like(x)
    for i, j in OFFSETS:
        grad_x[:, :, i:h:2, j:w:2] = grad * (x[:, :, i:h:2, j:w:2] == out)
    return grad_x


def numpy_loss_and_grads(params, x, y):
    w1, b1, w2, b2, w3, b3 = params
    h1, windows1 = conv(x, w1, b1)
    a1 = np.maximum(h1, 0)
    p1 = pool(a1)
    h2, windows2 = conv(p1, w2, b2)
    a2 = np.maximum(h2, 0)
    p2 = pool(a2)
    flat = p2.reshape(len(x), -1)
    loss, grad = mlp.cross_entropy(flat @ w3.T + b3, y)
    grad_w3, grad_b3 = grad.T @ flat, grad.sum(0)
    grad = (grad @ w3).reshape(p2.shape)
    grad = pool_backward(grad, a2, p2) * (a2 > 0)
    grad, grad_w2, grad_b2 = conv_backward(grad, windows2, w2, p1.shape)
    grad = pool_backward(grad, a1, p1) * (a1 > 0)
    _, grad_w1, grad_b1 = conv_backward(grad, windows1, w1)
    return loss, [grad_w1, grad_b1, grad_w2, grad_b2, grad_w3, grad_b3]


# ---- the case ------------------------------------------------------------------------
NEEDS = ("nn.Conv2d", "nn.MaxPool2d", "nn.Flatten", "nn.Linear", "nn.ReLU", "nn.Sequential",
         "nn.CrossEntropyLoss", "optim.SGD")


EAGER_VS_TORCH, COMPILED_VS_FLOOR = 1.5, 1.15      # a guard rail, and the compiled goal


def contenders():
    return mlp.contenders(sys.modules[__name__])


def run(repeats):
    absent = timing.missing(teachgrad, *NEEDS)
    if absent:
        return [timing.skip_row("CNN step", "teachgrad lacks " + ", ".join(absent))]
    steps = contenders()
    times = timing.interleaved(steps, repeats, warmup=3, number=2)
    rows = []
    if "torch" in times:
        rows.append(timing.ratio_row("CNN step vs torch", times["teachgrad"], times["torch"],
                                     EAGER_VS_TORCH, times.ratio_spread("teachgrad", "torch")))
    rows.append(timing.info_row("CNN step vs numpy floor", timing.fmt_time(times["teachgrad"]),
                                timing.fmt_time(times["numpy"]),
                                f"{times['teachgrad'] / times['numpy']:.2f}×"))
    rows.append(timing.ratio_row("CNN step, compiled, vs numpy floor", times["compiled"],
                                 times["numpy"], COMPILED_VS_FLOOR,
                                 times.ratio_spread("compiled", "numpy")))
    rows.append(counts.row("CNN step", steps["teachgrad"], steps["compiled"], timing))
    return rows


def profile_target():
    params, x, y = make_data()
    return framework_step(teachgrad, params, x, y)[1]
