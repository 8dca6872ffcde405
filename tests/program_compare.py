"""Run one small program on torch and on teachgrad and compare what it returns and warns.

``program(t)`` receives the library (``torch`` or ``teachgrad``) and returns a record:
nested lists and tuples of plain values, with numpy arrays or floats where the two may
differ in the last bits of float32. The warnings it raises are compared too.
"""
import warnings

import numpy as np
import pytest


def outcome(call):
    """What ``call()`` returns, or the type and first words of what it raises."""
    try:
        return ("returned", call())
    except Exception as error:  # noqa: BLE001  (the point is to compare any error)
        return (type(error).__name__, str(error).split(" (teachgrad")[0])


def assert_same(got, expected, path="record"):
    """Equal, except that arrays and floats need only agree to float32 rounding."""
    if isinstance(expected, np.ndarray):
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5, err_msg=path)
    elif isinstance(expected, float):
        assert got == pytest.approx(expected, rel=1e-4, abs=1e-5, nan_ok=True), path
    elif isinstance(expected, (list, tuple)):
        assert type(got) is type(expected) and len(got) == len(expected), path
        for i, (a, b) in enumerate(zip(got, expected)):
            assert_same(a, b, f"{path}[{i}]")
    else:
        assert got == expected, path


def run_both(program, torch, teachgrad):
    """``program``'s record and warnings on torch and on teachgrad, which must agree."""
    records = []
    for t in (torch, teachgrad):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            record = program(t)
        records.append((record, [(w.category.__name__, str(w.message)) for w in caught]))
    assert_same(records[1], records[0])
    return records[0][0]
