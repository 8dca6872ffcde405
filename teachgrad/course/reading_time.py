"""How long the course takes to read: one row a lecture notebook, then the appendices.

    python -m teachgrad.course.reading_time            # the table for notebooks/
    python -m teachgrad.course.reading_time FOLDER     # another course folder

A notebook's reading time is its markdown words (whitespace-separated tokens) at 200 words a
minute, plus 6 seconds for each non-blank line of its code cells. Outputs are not counted.
The lectures are ``FOLDER/NN_*.ipynb``; the appendices, ``FOLDER/deeper/*.ipynb``, are listed
apart and count toward no budget. The exit status is 1 when a lecture takes more than 45
minutes or the lectures together more than 6 hours, so a test (or CI) can rely on it.
"""
import argparse
import sys
from pathlib import Path

import nbformat

WORDS_PER_MINUTE = 200
SECONDS_PER_CODE_LINE = 6
LECTURE_LIMIT_MINUTES = 45
COURSE_LIMIT_MINUTES = 6 * 60


def reading_minutes(path):
    """Minutes to read one notebook: markdown words / 200 + 6 s per non-blank code line."""
    nb = nbformat.read(path, as_version=4)
    words = sum(len(cell.source.split()) for cell in nb.cells if cell.cell_type == "markdown")
    code_lines = sum(1 for cell in nb.cells if cell.cell_type == "code"
                     for line in cell.source.splitlines() if line.strip())
    return words / WORDS_PER_MINUTE + code_lines * SECONDS_PER_CODE_LINE / 60


def lectures(folder):
    """The chapter notebooks: ``NN_slug.ipynb`` directly in the folder, in chapter order."""
    return sorted(p for p in Path(folder).glob("*.ipynb") if p.name[:2].isdigit())


def appendices(folder):
    return sorted((Path(folder) / "deeper").glob("*.ipynb"))


def report(folder):
    """The markdown table as text, and whether every budget holds."""
    rows = [(p, reading_minutes(p)) for p in lectures(folder)]
    total = sum(minutes for _, minutes in rows)
    within = (all(minutes <= LECTURE_LIMIT_MINUTES for _, minutes in rows)
              and total <= COURSE_LIMIT_MINUTES)
    lines = [f"| lecture | minutes (limit {LECTURE_LIMIT_MINUTES}) |", "|---|---:|"]
    for path, minutes in rows:
        mark = "" if minutes <= LECTURE_LIMIT_MINUTES else " ✘ over"
        lines.append(f"| {path.stem} | {minutes:.0f}{mark} |")
    mark = "" if total <= COURSE_LIMIT_MINUTES else " ✘ over"
    lines.append(f"| **all lectures** | **{total:.0f}** of {COURSE_LIMIT_MINUTES} "
                 f"({total / 60:.1f} h of {COURSE_LIMIT_MINUTES // 60} h){mark} |")
    extra = [(p, reading_minutes(p)) for p in appendices(folder)]
    if extra:
        lines += ["", "| appendix (optional) | minutes |", "|---|---:|"]
        lines += [f"| deeper/{path.stem} | {minutes:.0f} |" for path, minutes in extra]
        lines.append(f"| **all appendices** | **{sum(m for _, m in extra):.0f}** |")
    return "\n".join(lines), within


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", default="notebooks",
                        help="the course's lecture folder (default: notebooks)")
    args = parser.parse_args(argv)
    if not lectures(args.folder):
        parser.error(f"no lecture notebooks (NN_*.ipynb) in {args.folder}")
    table, within = report(args.folder)
    print(table)
    return 0 if within else 1


if __name__ == "__main__":
    sys.exit(main())
