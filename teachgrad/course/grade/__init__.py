"""Grade a class's ``yourgrad`` packages: ``python -m teachgrad.course.grade SUBMISSIONS``.

Each submission runs in a sandboxed process of its own (:mod:`.sandbox`, :mod:`.child`,
:mod:`.confine`) that reports only what the checks observed; this process computes teachgrad's
side and judges (:mod:`.grading`), then writes grades.csv, grades.json and report.html
(:mod:`.report`). ``python -m teachgrad.course.grade merge`` joins the shards' files.
"""
