"""The profiler's ``key_averages().table()`` has torch 2.13's columns and layout (issue 30).
torch lists its aten:: kernels too, teachgrad only the ``record_function`` blocks; with a
block name longer than any kernel's, the name column is as wide in both, so the header, the
rules and each block's row must line up character for character."""
import re

import pytest

import teachgrad

torch = pytest.importorskip("torch")

BLOCK = "a_block_whose_name_is_longer_than_any_kernel"
NUMBER = r"(?:\d+\.\d\d%|\d+\.\d{3}(?:s|ms|us))"


def profiled_table(t, **options):
    x = t.randn(8, 8)
    with t.autograd.profiler.profile() as prof:
        with t.autograd.profiler.record_function(BLOCK):
            (x @ x).relu()
    return prof.key_averages().table(**options)


def shape(line):
    """A row with its numbers replaced by their widths' placeholders."""
    return re.sub(NUMBER, lambda match: "#" * len(match.group()), line)


@pytest.mark.parametrize("options", [dict(sort_by="self_cpu_time_total"), dict(row_limit=3),
                                     dict(header="my header")])
def test_table_layout(options):
    theirs = profiled_table(torch, **options).split("\n")
    ours = profiled_table(teachgrad, **options).split("\n")
    head = 5 if "header" in options else 3
    assert ours[:head] == theirs[:head]
    row = [line for line in ours if line.strip().startswith(BLOCK)][0]
    their_row = [line for line in theirs if line.strip().startswith(BLOCK)][0]
    assert len(row) == len(their_row)
    assert re.fullmatch(rf" +{BLOCK}(?: +{NUMBER}){{5}} +1  ", row)
    assert ours[-3] == theirs[-3] and ours[-1] == theirs[-1] == ""
    assert re.fullmatch(rf"Self CPU time total: {NUMBER}", ours[-2])


def test_long_names_are_cut_as_torch_cuts_them():
    with teachgrad.autograd.profiler.profile() as prof:
        with teachgrad.autograd.profiler.record_function("x" * 70):
            pass
    row = prof.key_averages().table().split("\n")[3]
    assert row.startswith("x" * 52 + "...  ") and row.endswith("1  ")
