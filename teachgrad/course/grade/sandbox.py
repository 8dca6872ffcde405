"""Run one submission's checks in a child process of its own, and read back only data.

The child (:mod:`teachgrad.course.grade.child`) runs in the submission's temporary copy with a
clean environment (HOME and TMPDIR inside the copy), in a session of its own so that everything
it starts is killed with it. Its stdout and stderr go to a file outside the copy, capped by the
file-size limit; its results come on a pipe, one JSON line per check. When it dies — timed out,
out of memory, crashed — the check it was running gets that cell, and a new child goes on from
the next check (at most :data:`RESTARTS` times).
"""
import json
import os
import selectors
import signal
import subprocess
import sys
import time
from dataclasses import dataclass

RESTARTS = 5
READ_SIZE = 1 << 16


@dataclass
class Limits:
    """What one child may use. Each restart gets the same again."""

    cpu_seconds: int = 30        # to import the package, and for each check
    wall_seconds: int = 300
    memory_mb: int = 2048
    output_bytes: int = 1 << 20
    result_bytes: int = 64 << 20


@dataclass
class Run:
    """What one child reported, and how it ended (None when it reported ``done``)."""

    events: list
    ending: tuple = None        # (cell, detail): "timed out" / "out of memory" / "crashed"


def clean_environment(copy_root):
    home, temporary = os.path.join(copy_root, ".home"), os.path.join(copy_root, ".tmp")
    os.makedirs(home, exist_ok=True)
    os.makedirs(temporary, exist_ok=True)
    return {"HOME": home, "TMPDIR": temporary, "PATH": os.defpath, "LANG": "C.UTF-8",
            "PYTHONHASHSEED": "0", "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
            "MKL_NUM_THREADS": "1"}


def run_child(copy_root, package_parent, start, limits, output_path):
    """Start a child on checks ``start``..., read its events until it ends; a :class:`Run`."""
    read_end, write_end = os.pipe()
    settings = {"fd": write_end, "start": start, "package_parent": package_parent,
                "writable_root": copy_root, "cpu_seconds": limits.cpu_seconds,
                "memory_bytes": limits.memory_mb << 20, "file_bytes": limits.output_bytes}
    with open(output_path, "wb") as output:     # each child starts at 0 under the size limit
        child = subprocess.Popen(
            [sys.executable, "-I", "-B", "-m", "teachgrad.course.grade.child",
             json.dumps(settings)], cwd=copy_root, env=clean_environment(copy_root),
            stdin=subprocess.DEVNULL, stdout=output, stderr=subprocess.STDOUT,
            pass_fds=(write_end,), start_new_session=True)
    os.close(write_end)
    deadline = time.monotonic() + limits.wall_seconds
    try:
        events, trouble = read_events(read_end, deadline, limits.result_bytes)
    finally:
        os.close(read_end)
    done = bool(events) and events[-1].get("event") == "done"
    if not done and trouble is None and not exited_by(child.pid, deadline):
        trouble = "timed out"
    kill_session(child.pid)
    status = reap(child)
    if done:
        return Run(events)
    if trouble == "timed out":
        return Run(events, ("timed out", f"still running after {limits.wall_seconds} s"))
    if trouble:
        return Run(events, ("crashed", trouble))
    return Run(events, ending_of(status, limits))


def read_events(fd, deadline, byte_limit):
    """JSON lines from the pipe until EOF, ``done``, the deadline or too many bytes."""
    events, pending, total = [], b"", 0
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return events, "timed out"
            if not selector.select(remaining):
                continue
            chunk = os.read(fd, READ_SIZE)
            total += len(chunk)
            if not chunk:
                return events, None
            if total > byte_limit:
                return events, f"reported more than {byte_limit >> 20} MB of results"
            *lines, pending = (pending + chunk).split(b"\n")
            for line in lines:
                try:
                    event = json.loads(line)
                except ValueError:
                    return events, "its report to the grader was garbled"
                if not isinstance(event, dict):
                    return events, "its report to the grader was garbled"
                events.append(event)
                if event.get("event") == "done":
                    return events, None


def exited_by(pid, deadline):
    """Wait (without reaping) until the child exits or the deadline passes; True if it exited."""
    while time.monotonic() < deadline:
        if os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None:
            return True
        time.sleep(0.02)
    return False


def kill_session(pid):
    """Kill the child and everything it started (its session's process group)."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def reap(child):
    """The wait status of the finished child."""
    _, status = os.waitpid(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    return status


def ending_of(status, limits):
    """The cell of a child that died before reporting ``done``."""
    if os.WIFEXITED(status):
        return "crashed", f"exited with code {os.WEXITSTATUS(status)}"
    number = os.WTERMSIG(status)
    if number == signal.SIGXCPU:
        return "timed out", f"used more than {limits.cpu_seconds} s of CPU time"
    if number == signal.SIGKILL:
        return "out of memory", "killed by the system, most likely for its memory"
    return "crashed", f"killed by {signal.Signals(number).name}"
