"""``teachgrad.distributed``: PyTorch as built without its distributed package.

``is_available()`` is False, as it is in such a build, so a program that asks first (or
checks ``RANK`` in its environment, as nanoGPT does) runs in one process. Starting a
process group refuses as PyTorch does for a backend it lacks, and what needs a group gets
PyTorch's error for a group never initialised.
"""


def is_available():
    return False


def is_initialized():
    return False


def init_process_group(backend=None, *args, **kwargs):
    name = {"nccl": "NCCL", "gloo": "Gloo", "mpi": "MPI"}.get(str(backend).lower(), backend)
    raise RuntimeError(f"Distributed package doesn't have {name} built in "
                       "(teachgrad runs in one process)")


def default_group():
    raise ValueError("Default process group has not been initialized, please make sure to "
                     "call init_process_group.")


def _needs_a_group(*args, **kwargs):
    return default_group()


get_rank = get_world_size = barrier = destroy_process_group = _needs_a_group
all_reduce = all_gather = broadcast = reduce = _needs_a_group
