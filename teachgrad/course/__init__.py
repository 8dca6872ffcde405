"""The course's own tools: feedback for students and the notebook tool chain.

- :mod:`teachgrad.course.check` — the check helpers that exercise notebooks call
  (``from teachgrad.course import check``). Each prints one friendly line.
- :mod:`teachgrad.course.build` — the "Build it" checks: ``check.build("NN")`` runs the
  checks of chapters 01 to NN on the student's ``yourgrad`` against teachgrad.
- :mod:`teachgrad.course.make_exercises` — ``exercises/`` generated from ``solutions/``,
  notebooks and the student's package.
- :mod:`teachgrad.course.run_notebooks` — re-execute notebooks in place, in a fresh kernel.
- :mod:`teachgrad.course.reading_time` — how long each lecture takes to read, against the
  course's budget.
- :mod:`teachgrad.course.nbval_plugin` — a pytest option for nbval that leaves chosen
  mime types (the SVG drawings) out of the output comparison.

Like ``teachgrad.viz``, this package only *reads* the autograd core; nothing in the core
imports it.
"""
from teachgrad.course import check

__all__ = ["check"]
