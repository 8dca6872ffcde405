"""Devices. teachgrad computes on the CPU only, as a PyTorch built without CUDA does.

``teachgrad.device("cpu")``, ``device=`` arguments, ``x.to(device)`` and
``teachgrad.set_default_device`` accept the CPU; asking for ``"cuda"`` raises the
error such a PyTorch raises, so the ``"cuda" if cuda.is_available() else "cpu"``
idiom of tutorials picks the CPU.
"""

DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip",
                "ve", "fpga", "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia",
                "privateuseone")


class device:
    """A place for tensors: ``device("cpu")``, ``device("cuda", 0)``, ``device("cuda:1")``."""

    def __init__(self, type, index=None):
        if isinstance(type, device):
            type, index = type.type, type.index
        elif isinstance(type, int):
            raise RuntimeError("Cannot access accelerator device when none is available.")
        elif ":" in type:
            type, index = _split_index(type)
        if type not in DEVICE_TYPES:
            raise RuntimeError(f"Expected one of {', '.join(DEVICE_TYPES)} device type at "
                               f"start of device string: {type}")
        self.type, self.index = type, index

    def __repr__(self):
        index = "" if self.index is None else f", index={self.index}"
        return f"device(type='{self.type}'{index})"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other):
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self):
        return hash((self.type, self.index))

    def __reduce__(self):
        return device, (self.type, self.index)


def _split_index(text):
    type, _, index = text.partition(":")
    if not index.isdigit():
        raise RuntimeError(f"Invalid device string: '{text}'")
    return type, int(index)


CPU = device("cpu")
_default = [CPU]


def set_default_device(device_):
    """The device of new tensors made without ``device=`` (``None`` means the CPU)."""
    _default[0] = CPU if device_ is None else device(device_)


def get_default_device():
    return _default[0]


def check(device_, action="create"):
    """The CPU device for ``device_`` (``None``: the default device), or PyTorch's error
    for a device this build has not: ``action`` is "create" (a new tensor) or "move"
    (``x.to(device_)``), whose errors differ for devices other than CUDA."""
    wanted = get_default_device() if device_ is None else device(device_)
    if wanted.type in ("cuda", "xpu"):
        raise AssertionError(f"Torch not compiled with {wanted.type.upper()} enabled")
    if wanted.type != "cpu" and action == "move":
        raise RuntimeError(f"PyTorch is not linked with support for {wanted.type} devices")
    if wanted.type != "cpu":
        raise NotImplementedError(f"Could not run 'aten::empty.memory_format' with arguments "
                                  f"from the '{wanted.type.upper()}' backend.")
    return CPU


def check_legacy(device_):
    """The legacy constructors (``Tensor([1, 2])``, ``FloatTensor(2, 3)``) take the CPU only."""
    wanted = CPU if device_ is None else device(device_)
    if wanted.type != "cpu":
        raise RuntimeError(f"legacy constructor expects device type: cpu but device type: "
                           f"{wanted.type} was passed")
