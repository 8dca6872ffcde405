"""Nested tuples, lists and dicts of tensors ("pytrees"), flattened to a list and back."""
from teachgrad.tensor import Tensor


def flatten(tree):
    """``(leaves, rebuild)``: the leaves in order, and a function that puts new leaves back
    into the same structure."""
    if isinstance(tree, (tuple, list)):
        parts = [flatten(item) for item in tree]
        return _join(parts, lambda values: type(tree)(values))
    if isinstance(tree, dict):
        keys = list(tree)
        parts = [flatten(tree[key]) for key in keys]
        return _join(parts, lambda values: dict(zip(keys, values)))
    return [tree], lambda leaves: leaves[0]


def _join(parts, make):
    leaves, sizes = [], []
    for part_leaves, _ in parts:
        leaves.extend(part_leaves)
        sizes.append(len(part_leaves))

    def rebuild(new_leaves):
        values, start = [], 0
        for (_, rebuild_part), size in zip(parts, sizes):
            values.append(rebuild_part(new_leaves[start:start + size]))
            start += size
        return make(values)
    return leaves, rebuild


def structure(tree):
    """The nesting of ``tree``, written as PyTorch's ``TreeSpec`` prints (``*`` for a leaf)."""
    if isinstance(tree, (tuple, list, dict)):
        children = list(tree.values()) if isinstance(tree, dict) else list(tree)
        context = list(tree) if isinstance(tree, dict) else None
        inner = ",\n  ".join(structure(child) for child in children)
        return f"TreeSpec({type(tree).__name__}, {context}, [{inner}])"
    return "*"


def unit_vectors(tensors, position, k):
    """Zeros shaped like ``tensors``, except a 1 at element ``k`` of ``tensors[position]``:
    the direction that picks one column (forward) or one row (reverse) of a Jacobian."""
    from teachgrad import creation
    units = [tensor.new_zeros(tensor.shape) for tensor in tensors]
    chosen = tensors[position]
    units[position] = creation.eye(chosen.numel(), dtype=chosen.dtype)[k].reshape(chosen.shape)
    return units
