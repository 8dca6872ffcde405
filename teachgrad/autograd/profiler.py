"""``autograd.profiler``: PyTorch's profiler as a harmless context manager.

    with teachgrad.autograd.profiler.profile() as prof:
        with teachgrad.autograd.profiler.record_function("forward"):
            loss = model(x).sum()
    print(prof.key_averages().table(sort_by="self_cpu_time_total"))

Programs that profile run unchanged. teachgrad times what it can see: the blocks named
with ``record_function``. It does not time its individual operations (PyTorch lists
each ``aten::`` kernel); the chapters' graphs show those.
"""
import functools
import json
import time

_active_profiles = []


class FunctionEvent:
    """One timed block: a ``record_function`` (times in microseconds, as PyTorch's)."""

    def __init__(self, name, start_us, end_us, depth):
        self.name = self.key = name
        self.start_us, self.end_us, self.depth = start_us, end_us, depth
        self.count = 1
        self.cpu_time_total = end_us - start_us
        self.self_cpu_time_total = self.cpu_time_total    # less its inner blocks' time

    @property
    def cpu_time(self):
        return self.cpu_time_total / self.count


class EventList(list):
    """Events, with PyTorch's ``table``, ``total_average`` and ``self_cpu_time_total``."""

    @property
    def self_cpu_time_total(self):
        return sum(event.self_cpu_time_total for event in self)

    def key_averages(self):
        """One event per name: counts and times added up."""
        by_name = {}
        for event in self:
            if event.name not in by_name:
                by_name[event.name] = FunctionEvent(event.name, 0, 0, event.depth)
                by_name[event.name].count = 0
            total = by_name[event.name]
            total.count += 1
            total.cpu_time_total += event.cpu_time_total
            total.self_cpu_time_total += event.self_cpu_time_total
        return EventList(by_name.values())

    def total_average(self):
        total = FunctionEvent("Total", 0, 0, 0)
        total.count = sum(event.count for event in self)
        total.cpu_time_total = sum(e.cpu_time_total for e in self if e.depth == 0)
        total.self_cpu_time_total = self.self_cpu_time_total
        return total

    def table(self, sort_by=None, row_limit=100, header=None, **ignored):
        rows = sorted(self, key=lambda e: -getattr(e, sort_by)) if sort_by else list(self)
        total = self.self_cpu_time_total or 1.0
        lines = [f"{'Name':>30}  {'Self CPU %':>12}  {'Self CPU':>12}  {'CPU total':>12}  "
                 f"{'CPU time avg':>12}  {'# of Calls':>12}"]
        for e in rows[:row_limit]:
            lines.append(f"{e.name:>30}  {100 * e.self_cpu_time_total / total:>11.2f}%  "
                         f"{_time(e.self_cpu_time_total):>12}  {_time(e.cpu_time_total):>12}  "
                         f"{_time(e.cpu_time):>12}  {e.count:>12}")
        rule = "-" * len(lines[0])
        return "\n".join(([header] if header else []) + [rule, lines[0], rule] + lines[1:]
                         + [rule, f"Self CPU time total: {_time(self.self_cpu_time_total)}",
                            "(teachgrad times record_function blocks only)"])


def _time(microseconds):
    return f"{microseconds / 1000:.3f}ms" if microseconds >= 1000 else f"{microseconds:.3f}us"


class profile:
    """Collects the ``record_function`` blocks run inside it. The options of PyTorch's
    profiler (``record_shapes``, ``profile_memory``, ``use_cuda``...) are accepted and
    change nothing."""

    def __init__(self, enabled=True, **options):
        self.enabled = enabled
        self.function_events = EventList()
        self._open = []

    def __enter__(self):
        if self.enabled:
            _active_profiles.append(self)
        return self

    def __exit__(self, *exc_info):
        if self.enabled:
            _active_profiles.remove(self)
        return False

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0):
        return self.function_events.key_averages()

    def table(self, **options):
        return self.key_averages().table(**options)

    def total_average(self):
        return self.function_events.total_average()

    @property
    def self_cpu_time_total(self):
        return self.function_events.self_cpu_time_total

    def export_chrome_trace(self, path):
        """The events as a Chrome trace (open it in chrome://tracing or Perfetto)."""
        trace = [{"name": e.name, "ph": "X", "ts": e.start_us, "dur": e.cpu_time_total,
                  "pid": 0, "tid": 0} for e in self.function_events]
        with open(path, "w", encoding="utf-8") as file:
            json.dump({"traceEvents": trace}, file)

    def _begin(self):
        self._open.append(0.0)            # the time its inner blocks take, so far

    def _end(self, name, start_us, end_us):
        inner_time = self._open.pop()
        event = FunctionEvent(name, start_us, end_us, depth=len(self._open))
        event.self_cpu_time_total -= inner_time
        if self._open:
            self._open[-1] += event.cpu_time_total
        self.function_events.append(event)


class record_function:
    """Names a block (or, as a decorator, a function) for the profiles in force."""

    def __init__(self, name, args=None):
        self.name = name

    def __enter__(self):
        self._start = time.perf_counter() * 1e6
        for prof in _active_profiles:
            prof._begin()
        return self

    def __exit__(self, *exc_info):
        end = time.perf_counter() * 1e6
        for prof in _active_profiles:
            prof._end(self.name, self._start, end)
        return False

    def __call__(self, function):
        @functools.wraps(function)
        def timed(*args, **kwargs):
            with record_function(self.name):
                return function(*args, **kwargs)
        return timed
