"""``functional_call(model, params, args)``: run a module with other tensors in place of its
parameters and buffers, so that a transform can treat them as inputs
(``grad(loss_of_params)(params)``). The module's own tensors are put back afterwards."""
import contextlib

from teachgrad.nn import Module


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *,
                    tie_weights=True, strict=False):
    """``module(*args, **kwargs)`` with the tensors of ``parameter_and_buffer_dicts`` (one
    dict, or several with distinct keys) standing in for those of the same dotted names."""
    replacements = _merged(parameter_and_buffer_dicts)
    if strict:
        _check_strict(module, replacements)
    args = () if args is None else args if isinstance(args, tuple) else (args,)
    with _swapped(module, replacements):
        return module(*args, **(kwargs or {}))


def _merged(dicts):
    if isinstance(dicts, dict):
        return dict(dicts)
    merged = {}
    for one in dicts:
        for key in one:
            if key in merged:
                raise ValueError(f"{key} appeared in multiple dictionaries; behavior of "
                                 f"functional call is ambiguous")
        merged.update(one)
    return merged


def _check_strict(module, replacements):
    expected = {name for name, _ in module.named_parameters()}
    expected |= {name for name, _ in module.named_buffers()}
    missing = sorted(expected - set(replacements))
    unexpected = sorted(set(replacements) - expected)
    lines = []
    if unexpected:
        lines.append("\tUnexpected key(s): " + ", ".join(f"'{k}'" for k in unexpected) + ".")
    if missing:
        lines.append("\tMissing key(s): " + ", ".join(f"'{k}'" for k in missing) + ".")
    if lines:
        raise RuntimeError(f"Error(s) in reparametrizing for {type(module).__name__}:\n"
                           + "\n".join(lines))


@contextlib.contextmanager
def _swapped(module, replacements):
    """Write each replacement into the registry that holds that name, and restore it."""
    saved = []
    try:
        for dotted, tensor in replacements.items():
            owner, name = _owner(module, dotted)
            registry = _registry_of(owner, name)
            saved.append((registry, name, registry.get(name, _ABSENT)))
            registry[name] = tensor
        yield
    finally:
        for registry, name, old in reversed(saved):
            if old is _ABSENT:
                del registry[name]
            else:
                registry[name] = old


_ABSENT = object()


def _owner(module, dotted):
    *path, name = dotted.split(".")
    for part in path:
        module = getattr(module, part)
    if not isinstance(module, Module):
        raise AttributeError(f"{dotted}: {type(module).__name__} is not a Module")
    return module, name


def _registry_of(owner, name):
    if name in owner._buffers:
        return owner._buffers
    return owner._parameters
