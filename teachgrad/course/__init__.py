"""The course's own tools: feedback for students and the notebook tool chain.

- :mod:`teachgrad.course.check` — the check helpers that exercise notebooks call
  (``from teachgrad.course import check``). Each prints one friendly line.
- :mod:`teachgrad.course.make_exercises` — ``exercises/`` generated from ``solutions/``.
- :mod:`teachgrad.course.run_notebooks` — re-execute notebooks in place, in a fresh kernel.
- :mod:`teachgrad.course.nbval_plugin` — a pytest option for nbval that leaves chosen
  mime types (the SVG drawings) out of the output comparison.

Like ``teachgrad.viz``, this package only *reads* the autograd core; nothing in the core
imports it.
"""
from teachgrad.course import check

__all__ = ["check"]
