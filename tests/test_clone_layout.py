"""clone() keeps the order of its input's strides, as PyTorch's preserve_format does (a
transposed tensor's clone is transposed, a strided slice's is made dense in the same
order); a broadcast's clone, and contiguous(), are laid out row by row."""
import pytest

try:
    from . import differential as D
except ImportError:
    import differential as D

torch = pytest.importorskip("torch")

LAYOUTS = {
    "transposed": lambda x: x.t(),
    "transposed_slice": lambda x: x.t()[:, ::2],
    "slice": lambda x: x[:, ::2],
    "expanded_row": lambda x: x[:1].expand(4, 6),
    "expanded_column": lambda x: x[:, :1].expand(4, 6),
    "permuted": lambda x: x.reshape(2, 2, 6).permute(2, 0, 1),
    "permuted_slice": lambda x: x.reshape(2, 2, 6).permute(2, 0, 1)[::2],
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_clone_and_contiguous_lay_out_memory_as_torch(layout):
    def prog(tg):
        x = tg.arange(24.0, requires_grad=True).reshape(4, 6) * 1
        view = LAYOUTS[layout](x)
        clone, contiguous = view.clone(), view.contiguous()
        (clone.sum() + contiguous.sum()).backward()
        return {"clone": (clone, clone.stride(), D.node_name(clone.grad_fn)),
                "contiguous": (contiguous, contiguous.stride(), D.node_name(contiguous.grad_fn)),
                "function": tg.clone(view).stride()}
    D.run_both(prog)
