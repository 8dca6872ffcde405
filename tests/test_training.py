"""Training end to end: small networks on teachgrad's datasets reach a stated accuracy in a
fixed number of seeded steps, and a whole training run follows torch's step for step."""
import numpy as np
import pytest

import teachgrad as tg
from teachgrad import datasets, nn


def _accuracy(model, features, labels):
    model.eval()
    with tg.no_grad():
        predicted = model(features).argmax(1)
    model.train()
    return (predicted == labels).float().mean().item()


def test_mlp_learns_two_moons():
    """A 2-16-16-2 MLP with Adam: at least 95% accuracy on fresh points after 300 steps."""
    tg.manual_seed(0)
    features, labels = datasets.two_moons(400, noise=0.15)
    test_features, test_labels = datasets.two_moons(400, noise=0.15)
    model = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU(),
                          nn.Linear(16, 2))
    optimizer = tg.optim.Adam(model.parameters(), lr=0.02)
    loss_fn = nn.CrossEntropyLoss()
    loader = tg.utils.data.DataLoader(tg.utils.data.TensorDataset(features, labels),
                                      batch_size=40, shuffle=True)
    steps = 0
    while steps < 300:
        for x, y in loader:
            optimizer.zero_grad()
            loss_fn(model(x), y).backward()
            optimizer.step()
            steps += 1
    assert _accuracy(model, test_features, test_labels) >= 0.95


def test_logistic_layer_learns_iris():
    """One Linear layer (softmax regression) with SGD + momentum, a StepLR schedule and
    gradient clipping: at least 95% accuracy on the 150 flowers after 200 full-batch steps."""
    tg.manual_seed(0)
    features, labels = datasets.iris()
    centred = features - features.mean(0)
    features = centred / (centred ** 2).mean(0).sqrt()
    model = nn.Linear(4, 3)
    optimizer = tg.optim.SGD(model.parameters(), lr=0.5, momentum=0.9)
    scheduler = tg.optim.lr_scheduler.StepLR(optimizer, step_size=100, gamma=0.5)
    for _ in range(200):
        optimizer.zero_grad()
        nn.functional.cross_entropy(model(features), labels).backward()
        nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        optimizer.step()
        scheduler.step()
    assert _accuracy(model, features, labels) >= 0.95


def test_small_cnn_learns_shapes():
    """Conv-BatchNorm-ReLU-MaxPool, Conv-ReLU-MaxPool, then Linear, with AdamW: at least
    95% accuracy on 300 new 16x16 images after 10 epochs of 600."""
    tg.manual_seed(0)
    images, labels = datasets.shapes(600, size=16)
    test_images, test_labels = datasets.shapes(300, size=16)
    model = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                          nn.MaxPool2d(2), nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(),
                          nn.MaxPool2d(2), nn.Flatten(), nn.Dropout(0.1), nn.Linear(16 * 4 * 4, 3))
    optimizer = tg.optim.AdamW(model.parameters(), lr=0.01)
    loader = tg.utils.data.DataLoader(tg.utils.data.TensorDataset(images, labels),
                                      batch_size=50, shuffle=True)
    for _ in range(10):
        for x, y in loader:
            optimizer.zero_grad()
            nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
    assert _accuracy(model, test_images, test_labels) >= 0.95


def test_a_training_run_follows_torch_step_for_step():
    """The same program with ``import teachgrad as torch`` and with torch: same seed, so the
    same initial weights, shuffles and dropout masks; losses and weights agree throughout."""
    torch = pytest.importorskip("torch")
    features, labels = datasets.two_moons(64, noise=0.2, shuffle=False)

    def run(lib):
        lib.manual_seed(1)
        model = lib.nn.Sequential(lib.nn.Linear(2, 8), lib.nn.Tanh(), lib.nn.Dropout(0.2),
                                  lib.nn.Linear(8, 1))
        optimizer = lib.optim.Adam(model.parameters(), lr=0.05, weight_decay=1e-3)
        data = lib.utils.data.TensorDataset(lib.tensor(features.numpy()),
                                            lib.tensor(labels.numpy()).float())
        losses = []
        for _ in range(3):
            for x, y in lib.utils.data.DataLoader(data, batch_size=16, shuffle=True):
                optimizer.zero_grad()
                loss = lib.nn.functional.binary_cross_entropy_with_logits(model(x)[:, 0], y)
                loss.backward()
                lib.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                optimizer.step()
                losses.append(loss.item())
        return losses, [p.detach().numpy().copy() for p in model.parameters()]
    our_losses, our_weights = run(tg)
    their_losses, their_weights = run(torch)
    np.testing.assert_allclose(our_losses, their_losses, rtol=1e-4)
    for ours, theirs in zip(our_weights, their_weights):
        np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-5)


def _tiny_cnn(lib):
    class TinyCnn(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = lib.nn.Conv2d(3, 3, kernel_size=2, stride=2)
            self.relu = lib.nn.ReLU(inplace=True)
            self.pool = lib.nn.MaxPool2d(kernel_size=2, stride=2)

        def forward(self, images):
            return self.pool(self.relu(self.conv(images)))
    return TinyCnn()


def test_tiny_cnn_of_the_seed_article_matches_torch():
    """Same seed: same weights, images, loss, gradients and backward graph as torch 2.13."""
    torch = pytest.importorskip("torch")
    results = []
    for lib in (tg, torch):
        lib.manual_seed(0)
        cnn = _tiny_cnn(lib)
        images, labels = lib.rand((1, 3, 4, 4)), lib.rand((1, 3, 1, 1))
        loss = lib.nn.BCELoss()(cnn(images), labels)
        pool = loss.grad_fn.next_functions[0][0]
        relu = pool.next_functions[0][0]
        conv = relu.next_functions[0][0]
        names = [type(node).__name__ for node in (loss.grad_fn, pool, relu, conv)]
        names.append([type(n).__name__ if n else None for n, _ in conv.next_functions])
        assert conv.next_functions[1][0].variable is cnn.conv.weight
        loss.backward()
        results.append((names, loss.item(), cnn.conv.weight.grad.numpy().copy(),
                        cnn.conv.bias.grad.numpy().copy()))
    (our_names, our_loss, *our_grads), (their_names, their_loss, *their_grads) = results
    assert our_names == their_names == [
        "BinaryCrossEntropyBackward0", "MaxPool2DWithIndicesBackward0", "ReluBackward0",
        "ConvolutionBackward0", [None, "AccumulateGrad", "AccumulateGrad"]]
    assert our_loss == pytest.approx(their_loss, rel=1e-6)
    for ours, theirs in zip(our_grads, their_grads):
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-7)


def test_eval_mode_and_no_grad_do_different_things():
    model = nn.Sequential(nn.Linear(3, 4), nn.Dropout(0.5), nn.BatchNorm1d(4))
    x = tg.ones(5, 3)
    model.eval()
    out = model(x)
    assert out.requires_grad and type(out.grad_fn).__name__ == "NativeBatchNormBackward0"
    assert tg.equal(model(x), out)                       # no dropout, running statistics
    with tg.no_grad():
        model.train()
        out = model(x)
    assert not out.requires_grad and out.grad_fn is None
    assert model[2].num_batches_tracked.item() == 1      # but training-mode behaviour ran
