"""cuDNN's switches. Tutorials set ``deterministic`` and ``benchmark`` for reproducible
runs; on the CPU they change nothing, as in PyTorch without CUDA."""
enabled = True
deterministic = False
benchmark = False


def is_available():
    return False
