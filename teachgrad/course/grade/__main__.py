"""``python -m teachgrad.course.grade SUBMISSIONS [--out DIR] [--shard I/N] [--jobs N] ...``
grades a class; ``python -m teachgrad.course.grade merge SHARD.csv ... --out DIR`` merges shards.
"""
import argparse
import os
import sys
import time
from collections import Counter

from teachgrad.course.grade import grading, report, sandbox

BAR_WIDTH = 30


def shard(text):
    number, _, count = text.partition("/")
    number, count = int(number), int(count)
    if not 1 <= number <= count:
        raise argparse.ArgumentTypeError("--shard is I/N with 1 <= I <= N, e.g. 2/4")
    return number, count


def grading_arguments(arguments):
    parser = argparse.ArgumentParser(prog="python -m teachgrad.course.grade",
                                     description="Grade a folder of yourgrad packages.")
    parser.add_argument("submissions", help="a folder with one folder or zip file per student")
    parser.add_argument("--out", default=".", help="where grades.csv and report.html go")
    parser.add_argument("--shard", type=shard, default=(1, 1),
                        help="grade only slice I of N (1-based), e.g. 2/4")
    parser.add_argument("--jobs", type=int, default=os.cpu_count(), help="submissions at once")
    defaults = sandbox.Limits()
    parser.add_argument("--cpu-seconds", type=int, default=defaults.cpu_seconds,
                        help="CPU seconds to import a package, and for each check")
    parser.add_argument("--timeout", type=int, default=defaults.wall_seconds,
                        help="wall-clock seconds of one submission's process")
    parser.add_argument("--memory-mb", type=int, default=defaults.memory_mb,
                        help="address space of one submission's process")
    parser.add_argument("--output-kb", type=int, default=defaults.output_bytes >> 10,
                        help="what one submission may print, or write to any file")
    return parser.parse_args(arguments)


def show_progress(done, total, graded):
    filled = BAR_WIDTH * done // total
    sys.stderr.write(f"\rgrading [{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {done}/{total} "
                     f"{graded.student[:30]:<30}")
    sys.stderr.flush()


def summary(graded, seconds, out):
    counts = Counter(g.status for g in graded)
    parts = ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
    return (f"graded {len(graded)} submissions in {seconds:.0f} s: {parts or 'none'}; "
            f"grades.csv and report.html are in {out}")


def main(arguments):
    if arguments[:1] == ["merge"]:
        parser = argparse.ArgumentParser(prog="python -m teachgrad.course.grade merge")
        parser.add_argument("csvs", nargs="+", help="the shards' grades.csv files")
        parser.add_argument("--out", required=True, help="where the merged files go")
        options = parser.parse_args(arguments[1:])
        count = report.merge(options.csvs, options.out)
        print(f"merged {len(options.csvs)} shards: {count} students in {options.out}")
        return 0
    options = grading_arguments(arguments)
    limits = sandbox.Limits(options.cpu_seconds, options.timeout, options.memory_mb,
                            options.output_kb << 10)
    started = time.monotonic()
    graded = grading.grade_class(options.submissions, limits, options.jobs, options.shard,
                                 progress=show_progress)
    sys.stderr.write("\n")
    checks = grading.all_checks()
    report.write(options.out, graded, dict(Counter(check.stage for check in checks)))
    if not all(g.confined for g in graded):
        print("warning: this kernel has no Landlock, so submissions could write outside their "
              "copies; grade in a container", file=sys.stderr)
    print(summary(graded, time.monotonic() - started, options.out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
