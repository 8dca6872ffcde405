"""``python -m benchmarks [case ...] [--quick] [--threads N] [--profile]``

Runs the cases of issue 7, prints one table and writes it to ``benchmarks/results.md``.
Ratios of medians of interleaved repetitions are the figures that count.
"""
import argparse
import datetime
import sys
from pathlib import Path

from benchmarks import chain, cnn, memory, mlp, notebooks, timing

CASES = {"mlp": mlp, "chain": chain, "cnn": cnn, "memory": memory, "notebooks": notebooks}
RESULTS = Path(__file__).with_name("results.md")


def markdown_table(rows):
    lines = ["| " + " | ".join(timing.COLUMNS) + " |", "|" + "---|" * len(timing.COLUMNS)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def text_table(rows):
    table = [timing.COLUMNS, *rows]
    widths = [max(len(row[i]) for row in table) for i in range(len(timing.COLUMNS))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip()
                     for row in table)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("cases", nargs="*", metavar="case",
                        help=f"any of {', '.join(CASES)} (default: all)")
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    parser.add_argument("--threads", type=int, default=1,
                        help="threads for numpy's BLAS and for torch alike (default: 1)")
    parser.add_argument("--profile", action="store_true",
                        help="print cProfile's hot spots of teachgrad in mlp, chain and cnn")
    parser.add_argument("--output", type=Path, default=RESULTS, help="the results file")
    args = parser.parse_args(argv)
    names = args.cases or list(CASES)
    unknown = [name for name in names if name not in CASES]
    if unknown:
        parser.error(f"unknown case(s) {', '.join(unknown)}; choose from {', '.join(CASES)}")
    repeats = 7 if args.quick else 120      # rounds: the medians settle within about 1%

    timing.set_threads(args.threads)
    warm_memory = timing.keep_freed_memory()
    machine = timing.machine_summary()
    print(machine)
    rows, notes = [], []
    for name in names:
        print(f"running {name} ...", flush=True)
        for row in CASES[name].run(repeats):
            (notes if isinstance(row, str) else rows).append(row)
        if args.profile and hasattr(CASES[name], "profile_target"):
            print(timing.profile(CASES[name].profile_target()))

    command = " ".join(["python -m benchmarks", *(argv if argv is not None else sys.argv[1:])])
    print()
    print(text_table(rows))
    for note in notes:
        print(note)
    method = (f"Medians of {repeats} interleaved rounds after a warm-up, each round taking the "
              "contenders in a new (seeded, shuffled) order (A B C, C A B, B C A ...); "
              f"numpy's BLAS and torch both on {args.threads} thread(s). Ratios are the figures "
              "that count; absolute times vary with the machine's load. In brackets beside a "
              "ratio: the quartiles of the ratios of the single rounds, how much it moved "
              "during the run."
              + (" glibc's malloc keeps freed memory (mallopt), so no contender's large "
                 "temporaries are fresh pages to fault in." if warm_memory else ""))
    args.output.write_text(
        f"# teachgrad benchmarks\n\nCommand: `{command}` ({datetime.date.today()})\n\n"
        f"Machine: {machine}\n\n{method}\n\n{markdown_table(rows)}\n\n"
        + "".join(f"{note}\n\n" for note in notes))
    print(f"\nwritten to {args.output}")


if __name__ == "__main__":
    main()
