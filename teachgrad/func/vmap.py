"""``vmap``: a function written for one example, run on a batch.

PyTorch's vmap runs the function once, on tensors that carry a hidden batch dimension, with a
batching rule per operation. teachgrad's runs the function **once per example** and stacks the
results: the same values and shapes (``in_dims``, ``out_dims``, nesting, ``vmap(grad(f))`` for
per-example gradients), at the cost of a Python loop. ``randomness`` as PyTorch's: "error"
(the default) refuses a function that draws random numbers, "different" lets each example draw
its own (in the order PyTorch's one batched draw gives them, for a draw of fixed shape),
"same" gives every example the same numbers.
"""
import functools
import pickle

from teachgrad import creation
from teachgrad.func._trees import flatten, structure
from teachgrad.func._wrapping import captured_tensors, guarding_captured
from teachgrad.tensor import Tensor

INPLACE_ON_UNBATCHED = (
    "vmap: inplace arithmetic(self, *extra_args) is not possible because there exists a "
    "Tensor `other` in extra_args that has more elements than `self`. This happened due to "
    "`other` being vmapped over but `self` not being vmapped over in a vmap. Please try to "
    "use out-of-place operators instead of inplace arithmetic. If said operator is being "
    "called inside the PyTorch framework, please file a bug report instead.")


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """``vmap(f)(xs)`` is ``stack([f(x) for x in xs])``: ``in_dims`` says which dimension of
    each argument is the batch (None: the same argument for every example), ``out_dims``
    where the batch goes in each output."""
    @functools.wraps(func)
    def batched(*args, **kwargs):
        call = f"vmap({_name(func)}, in_dims={in_dims!r}, ...)(<inputs>)"
        leaves, rebuild = flatten(args)
        dims = _dims_per_leaf(args, in_dims, call)
        size = _batch_size(leaves, dims, call)
        _check_randomness(randomness)
        results = []
        start = creation.get_rng_state()
        with guarding_captured(func, _not_captured_from(func), INPLACE_ON_UNBATCHED):
            for b in range(size):
                if randomness == "same":          # every example draws the same numbers
                    creation.set_rng_state(start)
                example = [leaf if dim is None else leaf.select(dim, b)
                           for leaf, dim in zip(leaves, dims)]
                results.append(func(*rebuild(example), **kwargs))
                if randomness == "error" and _moved(start):
                    raise RuntimeError(RANDOM_IN_ERROR_MODE)
        return _stacked(results, out_dims, func)
    return batched


RANDOM_IN_ERROR_MODE = (
    "vmap: called random operation while in randomness error mode. Please either use the "
    "'same' or 'different' randomness flags on vmap or perform the randomness operation out "
    "of vmap")


def _check_randomness(randomness):
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")


def _moved(state):
    """Has the random generator drawn numbers since ``state`` was taken?"""
    return pickle.dumps(creation.get_rng_state()) != pickle.dumps(state)


def _name(func):
    return getattr(func, "__name__", repr(func))


def _not_captured_from(func):
    """vmap's guard: writing a per-example tensor into a captured one is refused."""
    captured = captured_tensors(func)
    return lambda t: isinstance(t, Tensor) and id(t) not in captured


def _dims_per_leaf(args, in_dims, call):
    """One batch dimension (or None) per leaf of ``args``, from ``in_dims`` (an int for all,
    or a tuple as nested as the arguments)."""
    if isinstance(in_dims, int):
        return [in_dims if isinstance(leaf, Tensor) else None for leaf in flatten(args)[0]]
    if not isinstance(in_dims, tuple):
        raise ValueError(f"{call}: expected `in_dims` to be int or a (potentially nested) "
                         f"tuple matching the structure of inputs, got: {type(in_dims)}.")
    if len(in_dims) != len(args):
        raise ValueError(f"{call}: in_dims is not compatible with the structure of `inputs`. "
                         f"in_dims has structure {structure(in_dims)} but inputs has "
                         f"structure {structure(args)}.")
    dims = []
    for arg, dim in zip(args, in_dims):
        arg_leaves = flatten(arg)[0]
        if dim is None or isinstance(dim, int):
            dims.extend([dim] * len(arg_leaves))
        else:
            dims.extend(_dims_per_leaf(tuple(arg), tuple(dim), call))
    for leaf, dim in zip(flatten(args)[0], dims):
        if dim is not None and not isinstance(leaf, Tensor):
            raise ValueError(f"{call}: Got in_dim={dim} for an input but the input is of type "
                             f"{type(leaf)}. We cannot vmap over non-Tensor arguments, please "
                             f"use None as the respective in_dim")
    return dims


def _batch_size(leaves, dims, call):
    sizes = []
    for leaf, dim in zip(leaves, dims):
        if dim is None:
            continue
        if not -leaf.dim() <= dim < max(leaf.dim(), 1) or leaf.dim() == 0:
            raise ValueError(f"{call}: Got in_dim={dim} for some input, but that input is a "
                             f"Tensor of dimensionality {leaf.dim()} so expected in_dim to "
                             f"satisfy -{leaf.dim()} <= in_dim < {leaf.dim()}.")
        sizes.append(leaf.shape[dim])
    if not sizes:
        raise ValueError(f"{call}: at least one input must be a Tensor to vmap over (got "
                         f"in_dims=None for every input)")
    if len(set(sizes)) > 1:
        mapped = [leaf.shape[dim] for leaf, dim in zip(leaves, dims) if dim is not None]
        raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped "
                         f"dimension, got sizes {mapped} for the mapped dimension")
    return sizes[0]


def _stacked(results, out_dims, func):
    """The per-example results stacked into one batch, output by output."""
    from teachgrad.ops import shape
    per_example = [flatten(result)[0] for result in results]
    _, rebuild = flatten(results[0])
    count = len(per_example[0])
    dims = [out_dims] * count if not isinstance(out_dims, tuple) else flatten(out_dims)[0]
    stacked = []
    for position, dim in enumerate(dims):
        values = [leaves[position] for leaves in per_example]
        if dim is None:
            stacked.append(values[0])
            continue
        if not isinstance(values[0], Tensor):
            raise ValueError(f"vmap({_name(func)}, ...): `{_name(func)}` must only return "
                             f"Tensors, got type {type(values[0])}. Did you mean to set "
                             f"out_dims= to None for output?")
        stacked.append(shape.stack(values, dim=dim))
    return rebuild(stacked)
