"""The grader's files: grades.csv for the gradebook, grades.json to merge, report.html to read.

``grades.csv`` has one row per student: a column per stage holding the number of checks passed
(its header says of how many), the total, and the status (graded, not attempted, no package,
does not import, timed out, out of memory, crashed). Only numbers sit in the grade columns, so a
learning-management system (Moodle, Canvas, Blackboard, Brightspace) imports them as they are.
``report.html`` shows the same table and, for each ✘, the line the student would have read:
what differs and a hint, never teachgrad's answer.
"""
import csv
import html
import json
from pathlib import Path

from teachgrad.course.check import CORRECT, WRONG

NAMES = ("grades.csv", "grades.json", "report.html")


def table(graded, stage_sizes):
    """The CSV's rows, header first."""
    header = (["student"] + [f"stage {stage} (of {size})" for stage, size in stage_sizes.items()]
              + [f"total (of {sum(stage_sizes.values())})", "status"])
    rows = [[g.student] + [g.passed(stage) for stage in stage_sizes]
            + [sum(g.passed(stage) for stage in stage_sizes), g.status] for g in graded]
    return [header] + rows


def write(out, graded, stage_sizes):
    """Write the three files into the folder `out`."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "grades.csv", "w", newline="", encoding="utf-8") as file:
        csv.writer(file).writerows(table(graded, stage_sizes))
    write_details(out, {"stages": stage_sizes, "students": [
        {"student": g.student, "status": g.status, "detail": g.detail,
         "results": [list(r) for r in g.results]} for g in graded]})


def write_details(out, data):
    """grades.json (what merge reads) and report.html."""
    (out / "grades.json").write_text(json.dumps(data, ensure_ascii=False, indent=1),
                                     encoding="utf-8")
    (out / "report.html").write_text(render(data), encoding="utf-8")


def stage_cell(student, stage, size):
    results = [r for r in student["results"] if r[0] == stage]
    passed = sum(r[1] == CORRECT for r in results)
    troubles = sorted({r[3] for r in results if r[3]})
    return f"{passed}/{size}" + "".join(f" ({t})" for t in troubles)


def render(data):
    """report.html: the table, then each student's ✘ lines."""
    stages = data["stages"]
    head = "".join(f"<th>{html.escape(s)}</th>" for s in
                   ["student", *stages, "total", "status"])
    rows, sections = [], []
    for student in data["students"]:
        cells = [stage_cell(student, stage, size) for stage, size in stages.items()]
        passed = sum(r[1] == CORRECT for r in student["results"])
        cells = [student["student"], *cells, f"{passed}/{sum(stages.values())}",
                 student["status"] + (f": {student['detail']}" if student["detail"] else "")]
        rows.append("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in cells) + "</tr>")
        wrong = [r[2] for r in student["results"] if r[1] == WRONG and r[2]]
        if wrong:
            items = "".join(f"<li>{html.escape(line)}</li>" for line in wrong)
            sections.append(f"<h2>{html.escape(student['student'])}</h2><ul>{items}</ul>")
    return ("<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
            "<title>teachgrad: grades</title><style>body{font-family:sans-serif}"
            "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px}"
            "</style></head><body><h1>Grades</h1>"
            f"<table><tr>{head}</tr>{''.join(rows)}</table>{''.join(sections)}</body></html>\n")


def merge(csv_paths, out):
    """Merge the shards' files into `out`: rows by student; the report too when every shard's
    grades.json sits beside its CSV."""
    tables = [list(csv.reader(open(path, newline="", encoding="utf-8"))) for path in csv_paths]
    header = tables[0][0]
    if any(t[0] != header for t in tables):
        raise ValueError("the shards' CSVs have different columns (graded with other checks?)")
    rows = sorted((row for t in tables for row in t[1:]), key=lambda row: row[0])
    students = [row[0] for row in rows]
    if len(set(students)) != len(students):
        raise ValueError("a student appears in more than one shard")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "grades.csv", "w", newline="", encoding="utf-8") as file:
        csv.writer(file).writerows([header] + rows)
    jsons = [Path(path).with_name("grades.json") for path in csv_paths]
    if all(path.is_file() for path in jsons):
        parts = [json.loads(path.read_text(encoding="utf-8")) for path in jsons]
        write_details(out, {"stages": parts[0]["stages"], "students": sorted(
            (s for part in parts for s in part["students"]), key=lambda s: s["student"])})
    return len(rows)
