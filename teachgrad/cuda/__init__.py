"""``teachgrad.cuda``: there is no GPU, as in a PyTorch built without CUDA.

``is_available()`` is False and seeding is a no-op, so tutorial code that checks for
a GPU runs on the CPU; anything that needs a GPU raises PyTorch's error.
"""
from teachgrad import devices


def is_available():
    return False


def device_count():
    return 0


def manual_seed(seed):
    """Seeds the GPUs' generators: there are none, so nothing happens (as in PyTorch)."""


manual_seed_all = manual_seed


def empty_cache():
    """Frees cached GPU memory: there is none, so nothing happens (as in PyTorch)."""


def _no_cuda(*args, **kwargs):
    return devices.check("cuda")


current_device = get_device_name = synchronize = _no_cuda
