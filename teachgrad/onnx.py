"""``teachgrad.onnx``: importable, as programs import it at the top; exporting is refused.

ONNX export traces a model into PyTorch's intermediate graph, which teachgrad does not
have (``teachgrad.compile`` records numpy calls instead).
"""


def is_in_onnx_export():
    return False


def export(model, args=(), f=None, *more, **options):
    raise NotImplementedError("teachgrad.onnx.export is not supported: teachgrad has no "
                              "ONNX exporter (export the model with PyTorch)")
