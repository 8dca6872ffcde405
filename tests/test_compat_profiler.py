"""The profiler of PyTorch 2.13 as a harmless context manager (issue 20): programs that
profile run unchanged; teachgrad reports its record_function blocks as torch does."""
import json

import pytest

import teachgrad

torch = pytest.importorskip("torch")


def profiled_counts(t, make_profile, record_function):
    """Calls per record_function name, from key_averages()."""
    model = t.nn.Linear(3, 2)
    with make_profile(t) as prof:
        for _ in range(3):
            with record_function(t)("forward"):
                loss = model(t.ones(4, 3)).sum()
            with record_function(t)("backward"):
                loss.backward()
    counts = {e.key: e.count for e in prof.key_averages() if e.key in ("forward", "backward")}
    return prof, counts


@pytest.mark.parametrize("make_profile, record_function", [
    (lambda t: t.autograd.profiler.profile(), lambda t: t.autograd.profiler.record_function),
    (lambda t: t.autograd.profiler.profile(record_shapes=True, profile_memory=True),
     lambda t: t.autograd.profiler.record_function),
    (lambda t: t.profiler.profile(activities=[t.profiler.ProfilerActivity.CPU]),
     lambda t: t.profiler.record_function),
])
def test_record_function_blocks_are_counted_as_in_torch(make_profile, record_function):
    prof, counts = profiled_counts(teachgrad, make_profile, record_function)
    assert counts == profiled_counts(torch, make_profile, record_function)[1]
    assert counts == {"forward": 3, "backward": 3}
    table = prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=10)
    assert "Self CPU time total:" in table and "forward" in table
    assert prof.self_cpu_time_total > 0


def test_self_time_excludes_inner_blocks():
    with teachgrad.autograd.profiler.profile() as prof:
        with teachgrad.autograd.profiler.record_function("outer"):
            with teachgrad.autograd.profiler.record_function("inner"):
                teachgrad.ones(100).exp()
    events = {e.key: e for e in prof.key_averages()}
    outer, inner = events["outer"], events["inner"]
    assert outer.cpu_time_total >= inner.cpu_time_total
    assert outer.self_cpu_time_total == pytest.approx(outer.cpu_time_total
                                                      - inner.cpu_time_total)


def test_disabled_profile_and_chrome_trace(tmp_path):
    with teachgrad.autograd.profiler.profile(enabled=False) as off:
        with teachgrad.autograd.profiler.record_function("ignored"):
            pass
    assert list(off.key_averages()) == []
    with teachgrad.autograd.profiler.profile() as prof:
        with teachgrad.autograd.profiler.record_function("step"):
            teachgrad.ones(2).sum()
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    assert [e["name"] for e in json.loads(path.read_text())["traceEvents"]] == ["step"]


def test_record_function_as_a_decorator():
    @teachgrad.autograd.profiler.record_function("helper")
    def helper(x):
        return x * 2
    with teachgrad.autograd.profiler.profile() as prof:
        helper(teachgrad.ones(1))
        helper(teachgrad.ones(1))
    assert [(e.key, e.count) for e in prof.key_averages()] == [("helper", 2)]
