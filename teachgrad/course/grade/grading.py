"""Grade a class: every submission's checks in a sandbox, compared here with teachgrad.

The children (:mod:`teachgrad.course.grade.sandbox`) run at most ``jobs`` at a time, driven by
threads that only wait on them. When the first child's data is back, this process computes
teachgrad's side of every check, once, while the other children run. Each check is then judged
by the same :func:`teachgrad.course.build.compare.run_check` as ``check.build`` — fed the
student's decoded observations instead of a live package — so the lines are the ones students
know.
"""
import concurrent.futures
import functools
import os
import tempfile
import warnings
from dataclasses import dataclass, field

import teachgrad
from teachgrad.course import build
from teachgrad.course.build import snapshot
from teachgrad.course.build.compare import run_check
from teachgrad.course.check import CORRECT, NOT_ATTEMPTED, WRONG
from teachgrad.course.grade import child, sandbox, submissions

WHOLE_PACKAGE = {       # the one line of a package that never reached its first check
    "no package": "✘ no yourgrad package found: {detail}",
    "does not import": "✘ your package does not import: {detail} — hint: fix that line first; "
                       "every check needs the package",
    "trouble": "✘ your package {failure} ({detail}) — hint: importing it must only define "
               "things; every check needs the package"}


@dataclass
class Attempt:
    """What the children of one submission reported, before any judging."""

    failure: str = None         # "no package", "does not import" or a trouble, for the whole
    detail: str = ""
    outcomes: dict = field(default_factory=dict)    # check number -> the child's result event
    confined: bool = True


@dataclass
class Graded:
    """One student's grade: a status and, per check, (stage, status, line, trouble or None)."""

    student: str
    status: str
    detail: str = ""
    results: list = field(default_factory=list)
    confined: bool = True       # were its writes outside the copy refused (Landlock)?

    def passed(self, stage):
        return sum(r[1] == CORRECT for r in self.results if r[0] == stage)


def all_checks():
    return [check for stage in build.STAGES for check in build.checks_of(stage)]


def expected_observations(checks):
    """teachgrad's side of every check, passed through the snapshot as the student's is."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return [{label: snapshot.decode(snapshot.encode(value, trusted=True))
                 for label, value in check.scenario(teachgrad).items()} for check in checks]


class ChecksChanged(RuntimeError):
    """The checks a child loaded are not the grader's (teachgrad was edited during the run)."""


def attempt(path, limits, checks_digest, total):
    """Copy one submission to a temporary folder and run its checks there: an :class:`Attempt`."""
    with tempfile.TemporaryDirectory(prefix="teachgrad-grade-",
                                     ignore_cleanup_errors=True) as workdir:
        copy_root = os.path.join(workdir, "copy")
        os.mkdir(copy_root)
        try:
            package_parent = submissions.unpack(path, copy_root)
        except submissions.NoPackage as reason:
            return Attempt("no package", str(reason))
        return run_all(copy_root, package_parent, limits, checks_digest, total,
                       os.path.join(workdir, "output.txt"))


def run_all(copy_root, package_parent, limits, checks_digest, total, output_path):
    """Children until every check has a result; one that dies costs the check it was running."""
    result, start, ending = Attempt(), 0, None
    for _ in range(sandbox.RESTARTS + 1):
        run = sandbox.run_child(copy_root, package_parent, start, limits, output_path)
        events = {e.get("event") for e in run.events}
        ready = [e for e in run.events if e.get("event") == "ready"]
        if ready and ready[0].get("checks") != checks_digest:
            raise ChecksChanged("the checks changed while grading: run the grader again")
        result.confined &= any(e.get("confined") for e in ready)
        failed = [e for e in run.events if e.get("event") == "import_failed"]
        if failed:
            return import_failure(result, failed[0], limits)
        results = [e for e in run.events if e.get("event") == "result"]
        if [e.get("index") for e in results] != list(range(start, start + len(results))):
            return Attempt("crashed", "its report to the grader was garbled")
        result.outcomes.update((e["index"], e) for e in results)
        start += len(results)
        if run.ending is None or start >= total:
            return result
        ending = run.ending
        if "imported" not in events:
            result.failure, result.detail = ending[0], f"{ending[1]}, while importing"
            return result
        result.outcomes[start] = {"ended": ending}
        start += 1
        if start >= total:
            return result
    result.outcomes.update((n, {"ended": ending, "not_run": True}) for n in range(start, total))
    return result


def flood(limits):
    return f"printed or wrote more than {limits.output_bytes >> 10} KB"


def import_failure(result, event, limits):
    if event.get("out_of_memory"):
        return Attempt("out of memory", "while importing", confined=result.confined)
    if event.get("flooded"):
        return Attempt("crashed", flood(limits) + ", while importing", confined=result.confined)
    kind, message = str(event.get("raised")), str(event.get("message", ""))
    if kind == "SystemExit":
        return Attempt("crashed", f"called sys.exit({message}) while importing",
                       confined=result.confined)
    where = f" ({event['file']}, line {event['line']})" if event.get("file") else ""
    first_line = message.splitlines()[0] if message.strip() else ""
    return Attempt("does not import", f"{kind}: {first_line[:200]}{where}",
                   confined=result.confined)


class Replay:
    """A check whose scenario gives teachgrad's stored observations, or the student's again."""

    def __init__(self, check, expected, outcome):
        self.stage, self.name, self.hint = check.stage, check.name, check.hint
        self.rtol, self.atol = check.rtol, check.atol
        self.expected, self.outcome = expected, outcome

    def scenario(self, torch):
        if torch is teachgrad:
            return self.expected
        outcome = self.outcome
        if "todo" in outcome:
            raise NotImplementedError(outcome["todo"])
        if outcome.get("recursion"):
            raise RecursionError
        if "raised" in outcome:
            raise snapshot.error_class(outcome["raised"])(str(outcome.get("message", "")))
        return {str(label): snapshot.decode(value) for label, value in outcome["seen"].items()}


def judge(check, expected, outcome, limits):
    """(stage, status, line, trouble) of one check from the child's result."""
    title = f"{check.stage} {check.name}"
    if "ended" in outcome:
        trouble, detail = outcome["ended"]
        if outcome.get("not_run"):
            return check.stage, WRONG, f"✘ {title}: not run (your package {trouble} before)", \
                trouble
        return check.stage, WRONG, f"✘ {title}: {trouble} ({detail}) — hint: {check.hint}", \
            trouble
    if outcome.get("out_of_memory"):
        return (check.stage, WRONG, f"✘ {title}: out of memory (more than {limits.memory_mb} MB)"
                f" — hint: {check.hint}", "out of memory")
    if outcome.get("flooded"):
        return check.stage, WRONG, f"✘ {title}: crashed ({flood(limits)})", "crashed"
    try:
        status, line = run_check(Replay(check, expected, outcome), package=None)
    except (ValueError, KeyError, TypeError):
        return check.stage, WRONG, f"✘ {title}: its result could not be read", "crashed"
    return check.stage, status, line, None


def grade(student, attempt_made, checks, expected, limits):
    """The :class:`Graded` of one student from the children's reports (`expected` gives
    teachgrad's observations)."""
    if attempt_made.failure and not attempt_made.outcomes:
        line = WHOLE_PACKAGE.get(attempt_made.failure, WHOLE_PACKAGE["trouble"]).format(
            failure=attempt_made.failure, detail=attempt_made.detail)
        return Graded(student, attempt_made.failure, attempt_made.detail,
                      [(c.stage, WRONG, line, attempt_made.failure) for c in checks[:1]] +
                      [(c.stage, WRONG, "", attempt_made.failure) for c in checks[1:]],
                      attempt_made.confined)
    results = [judge(check, want, attempt_made.outcomes.get(number, {"ended": (
        attempt_made.failure or "crashed", attempt_made.detail), "not_run": True}), limits)
               for number, (check, want) in enumerate(zip(checks, expected()))]
    troubles = [r[3] for r in results if r[3]]
    if troubles:
        status = troubles[0]
    elif all(r[1] == NOT_ATTEMPTED for r in results):
        status = NOT_ATTEMPTED
    else:
        status = "graded"
    return Graded(student, status, attempt_made.detail, results, attempt_made.confined)


def shard_of(students, shard):
    """The slice ``shard`` = (I, N) of the sorted students: every N-th, from the I-th (1-based)."""
    number, count = shard
    return students[number - 1::count]


def grade_class(folder, limits=None, jobs=None, shard=(1, 1), progress=None):
    """[:class:`Graded`] for the submissions in `folder` (this shard of them), by name."""
    limits = limits or sandbox.Limits()
    students = shard_of(submissions.find(folder), shard)
    checks = all_checks()
    with concurrent.futures.ThreadPoolExecutor(jobs or os.cpu_count() or 1) as pool:
        futures = {pool.submit(attempt, path, limits, child.digest(checks), len(checks)): student
                   for student, path in students}
        expected = functools.cache(lambda: expected_observations(checks))    # once, if needed
        graded = []
        for future in concurrent.futures.as_completed(futures):
            graded.append(grade(futures[future], future.result(), checks, expected, limits))
            if progress:
                progress(len(graded), len(students), graded[-1])
    return sorted(graded, key=lambda g: g.student)
