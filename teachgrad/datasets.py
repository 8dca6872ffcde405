"""Small datasets for the course's examples: made on the spot, or shipped with teachgrad.
Nothing is downloaded.

* ``two_moons``: two interleaved half circles in the plane, labels 0 and 1;
* ``spirals``: the arms of a spiral, one class per arm;
* ``shapes``: small one-channel images of squares, discs and crosses (labels 0, 1, 2);
* ``iris``: the 150 iris flowers of Fisher (1936), four measurements and three species.

The generated ones draw from teachgrad's random generator, so ``manual_seed``
makes them reproducible. Features are float32 tensors, labels int64 tensors.

The iris data is ``teachgrad/data/iris.csv``, from the UCI Machine Learning
Repository (Fisher, R. A. (1936). Iris [Dataset], https://doi.org/10.24432/C56C76),
under the Creative Commons Attribution 4.0 licence; see ``teachgrad/data/README.md``.
"""
from pathlib import Path

import numpy as np

from teachgrad import creation, random

IRIS_FEATURES = ("sepal_length", "sepal_width", "petal_length", "petal_width")
IRIS_CLASSES = ("Iris-setosa", "Iris-versicolor", "Iris-virginica")
_DATA = Path(__file__).parent / "data"


def _as_tensors(points, labels, shuffle):
    if shuffle:
        order = random.randperm(len(labels))
        points, labels = points[order], labels[order]
    return creation.tensor(points.astype(np.float32)), creation.tensor(labels.astype(np.int64))


def two_moons(n_samples=200, noise=0.1, shuffle=True):
    """Points on two half circles, the second one shifted into the gap of the first,
    plus Gaussian noise of standard deviation ``noise``: (features (n, 2), labels (n,))."""
    n_upper = n_samples // 2
    upper = np.linspace(0, np.pi, n_upper)
    lower = np.linspace(0, np.pi, n_samples - n_upper)
    points = np.concatenate([np.stack([np.cos(upper), np.sin(upper)], axis=1),
                             np.stack([1 - np.cos(lower), 0.5 - np.sin(lower)], axis=1)])
    labels = np.repeat([0, 1], [n_upper, n_samples - n_upper])
    points = points + noise * random.randn((n_samples, 2), dtype=np.float64)
    return _as_tensors(points, labels, shuffle)


def spirals(n_per_class=100, classes=3, noise=0.2, shuffle=True):
    """``classes`` spiral arms from the origin, one class each; ``noise`` blurs the angle."""
    radius = np.tile(np.linspace(0.0, 1.0, n_per_class), classes)
    arm = np.repeat(np.arange(classes), n_per_class)
    angle = (arm + radius) * 4 + noise * random.randn(classes * n_per_class, dtype=np.float64)
    points = np.stack([radius * np.sin(angle), radius * np.cos(angle)], axis=1)
    return _as_tensors(points, arm, shuffle)


def shapes(n_samples=300, size=16, noise=0.05):
    """Images (n, 1, size, size) of one filled square (label 0), disc (1) or cross (2),
    of random size and place, with pixel noise: (images, labels)."""
    labels = random.randint(0, 3, n_samples)
    half = random.uniform(n_samples, size / 6, size / 3, dtype=np.float64)[:, None, None]
    centre = [half + random.uniform(n_samples, 0, 1, dtype=np.float64)[:, None, None]
              * (size - 1 - 2 * half) for _ in range(2)]
    rows, columns = np.mgrid[0:size, 0:size]
    dy, dx = np.abs(rows - centre[0]), np.abs(columns - centre[1])
    square = (dy <= half) & (dx <= half)
    disc = dy ** 2 + dx ** 2 <= half ** 2
    cross = square & ((dy <= half / 3) | (dx <= half / 3))
    drawn = np.choose(labels[:, None, None], [square, disc, cross])
    images = drawn + noise * random.randn((n_samples, size, size), dtype=np.float64)
    return (creation.tensor(images[:, None].astype(np.float32)),
            creation.tensor(labels.astype(np.int64)))


def iris():
    """The iris flowers: (features (150, 4) in centimetres, labels (150,) in 0, 1, 2),
    in the order of ``IRIS_FEATURES`` and ``IRIS_CLASSES``."""
    lines = (_DATA / "iris.csv").read_text().splitlines()[1:]
    rows = [line.split(",") for line in lines]
    features = np.array([[float(v) for v in row[:4]] for row in rows])
    labels = np.array([IRIS_CLASSES.index(row[4]) for row in rows])
    return _as_tensors(features, labels, shuffle=False)
