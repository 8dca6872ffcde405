"""A pytest plugin for nbval: chosen mime types left out of the comparison, and kernel starts retried.

    pytest -p teachgrad.course.nbval_plugin --nbval --nbval-skip-mime image/svg+xml notebooks

**Skipped mime types.** nbval compares every mime type of a cell's outputs except a fixed few
(``image/png`` and ``image/jpeg`` among them), and has no option to add more. The course draws
its graphs as SVG, whose bytes depend on the installed graphviz; each drawing also carries a
stable text form (``text/plain``) which *is* compared. So a change of a graph's structure fails
the tests and a change of graphviz version does not. nbval keeps the skipped keys on each
notebook collector (``IPyNbFile.skip_compare``, read when a cell's outputs are compared); this
plugin adds the ``--nbval-skip-mime`` types to it as soon as a notebook cell is collected, in
each pytest-xdist worker as well.

**Kernel starts.** With pytest-xdist, kernels start in several processes at once. jupyter_client
picks each kernel's five ports by asking the system for free ones and releasing them, so two
processes can pick the same port; the losing kernel never answers, and nbval fails every cell
of that notebook with "Kernel didn't respond in 60 seconds". nbval has already shut such a
kernel down when it raises; this plugin then starts a fresh one (new ports), up to
``--nbval-kernel-start-attempts`` times in all.
"""

import functools

import nbval.kernel


def pytest_addoption(parser):
    group = parser.getgroup("nbval")
    group.addoption("--nbval-skip-mime", action="append", default=[], metavar="MIME",
                    help="leave this mime type out of nbval's output comparison "
                         "(repeat for more), e.g. image/svg+xml")
    group.addoption("--nbval-kernel-start-attempts", type=int, default=3, metavar="N",
                    help="start a notebook's kernel up to N times before its cells fail "
                         "(default 3)")


def pytest_configure(config):
    attempts = config.getoption("nbval_kernel_start_attempts")
    start = nbval.kernel.start_new_kernel
    if not getattr(start, "retried", False):
        nbval.kernel.start_new_kernel = retrying(start, attempts)


def retrying(start_kernel, attempts):
    """``start_kernel``, called again (up to ``attempts`` calls in all) while it raises RuntimeError."""
    @functools.wraps(start_kernel)
    def start_with_retries(*args, **kwargs):
        for attempt in range(1, attempts + 1):
            try:
                return start_kernel(*args, **kwargs)
            except RuntimeError:
                if attempt == attempts:
                    raise
    start_with_retries.retried = True
    return start_with_retries


def pytest_itemcollected(item):
    skip = tuple(item.config.getoption("nbval_skip_mime"))
    notebook = item.parent
    if skip and hasattr(notebook, "skip_compare"):
        notebook.skip_compare = tuple(dict.fromkeys(notebook.skip_compare + skip))
