"""``nn.parallel``: the wrappers that spread a model over GPUs, on a machine with none.

``DataParallel`` is what PyTorch makes of it without a GPU: a transparent wrapper whose
forward calls the wrapped module (its parameters appear under ``module.``).
``DistributedDataParallel`` needs a process group, which ``teachgrad.distributed`` never
has, so it refuses as PyTorch does before ``init_process_group``.
"""
from teachgrad.autograd.profiler import record_function
from teachgrad.distributed import default_group
from teachgrad.nn.module import Module


class DataParallel(Module):
    """Runs ``module`` unchanged: there are no devices to scatter the batch over."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.module = module
        self.device_ids = []

    def forward(self, *inputs, **kwargs):
        with record_function("DataParallel.forward"):
            return self.module(*inputs, **kwargs)


class DistributedDataParallel(Module):
    def __init__(self, module, device_ids=None, output_device=None, dim=0, **options):
        super().__init__()
        default_group()                   # raises: no process group is ever initialised


def data_parallel(module, inputs, device_ids=None, output_device=None, dim=0,
                  module_kwargs=None):
    """The functional form: without devices, ``module(*inputs)``."""
    inputs = inputs if isinstance(inputs, tuple) else (inputs,)
    return module(*inputs, **(module_kwargs or {}))
