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

    def table(self, sort_by=None, row_limit=100, max_name_column_width=55, header=None,
              time_unit=None, **ignored):
        """PyTorch's table of the CPU columns: right-aligned, two spaces between columns, the
        name column as wide as the longest name plus 4 (at most ``max_name_column_width``),
        percentages of the self CPU time total."""
        if not self:
            return ""
        rows = sorted(self, key=lambda e: getattr(e, sort_by), reverse=True) if sort_by \
            else list(self)
        name_width = min(max(len(e.key) for e in self) + 4, max_name_column_width)
        widths = [name_width] + [12] * 6
        row = "".join("{:>" + str(width) + "}  " for width in widths)
        rule = "".join("-" * width + "  " for width in widths)
        total = self.self_cpu_time_total
        lines = [rule, row.format("Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total",
                                  "CPU time avg", "# of Calls"), rule]
        if header is not None:
            lines = ["=" * (len(rule) - 2), header] + lines
        for e in rows[:row_limit]:
            name = e.key
            if len(name) >= max_name_column_width - 3:
                name = name[:max_name_column_width - 3] + "..."
            lines.append(row.format(name, _share(e.self_cpu_time_total, total),
                                    _time(e.self_cpu_time_total, time_unit),
                                    _share(e.cpu_time_total, total),
                                    _time(e.cpu_time_total, time_unit),
                                    _time(e.cpu_time, time_unit), e.count))
        lines += [rule, f"Self CPU time total: {_time(total, time_unit)}"]
        return "\n".join(lines) + "\n"


def _time(microseconds, unit=None):
    """PyTorch's ``_format_time``: seconds, milliseconds or microseconds, 3 decimals."""
    if unit == "s" or unit is None and microseconds >= 1e6:
        return f"{microseconds / 1e6:.3f}s"
    if unit == "ms" or unit is None and microseconds >= 1e3:
        return f"{microseconds / 1e3:.3f}ms"
    return f"{microseconds:.3f}us"


def _share(microseconds, total):
    return "NaN" if total == 0 else f"{microseconds * 100.0 / total:.2f}%"


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
