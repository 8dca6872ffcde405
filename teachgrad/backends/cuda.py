"""``backends.cuda``: the CUDA switches programs set before training; without CUDA they
change nothing, and ``is_built()`` is False, as in a PyTorch built without it."""


def is_built():
    return False


class _MatmulSettings:
    """``backends.cuda.matmul.allow_tf32 = True`` (nanoGPT sets it) is only remembered."""
    allow_tf32 = False
    allow_fp16_reduced_precision_reduction = True
    allow_bf16_reduced_precision_reduction = True


matmul = _MatmulSettings()

# which kernels scaled_dot_product_attention may choose; teachgrad has one (the math)
_sdp_enabled = {"flash": True, "mem_efficient": True, "math": True, "cudnn": True}


def flash_sdp_enabled():
    return _sdp_enabled["flash"]


def mem_efficient_sdp_enabled():
    return _sdp_enabled["mem_efficient"]


def math_sdp_enabled():
    return _sdp_enabled["math"]


def enable_flash_sdp(enabled):
    _sdp_enabled["flash"] = enabled


def enable_mem_efficient_sdp(enabled):
    _sdp_enabled["mem_efficient"] = enabled


def enable_math_sdp(enabled):
    _sdp_enabled["math"] = enabled
