"""``teachgrad.backends``: the switches tutorials touch for GPU back-ends, none available."""
from teachgrad.backends import cuda, cudnn, mps  # noqa: F401
