"""A pytest plugin for nbval: leave chosen mime types out of the output comparison.

    pytest -p teachgrad.course.nbval_plugin --nbval --nbval-skip-mime image/svg+xml notebooks

nbval compares every mime type of a cell's outputs except a fixed few (``image/png`` and
``image/jpeg`` among them), and has no option to add more. The course draws its graphs as SVG,
whose bytes depend on the installed graphviz; each drawing also carries a stable text form
(``text/plain``) which *is* compared. So a change of a graph's structure fails the tests and a
change of graphviz version does not.

nbval keeps the skipped keys on each notebook collector (``IPyNbFile.skip_compare``, read when
a cell's outputs are compared); this plugin adds the ``--nbval-skip-mime`` types to it as soon
as a notebook cell is collected, in each pytest-xdist worker as well.
"""


def pytest_addoption(parser):
    group = parser.getgroup("nbval")
    group.addoption("--nbval-skip-mime", action="append", default=[], metavar="MIME",
                    help="leave this mime type out of nbval's output comparison "
                         "(repeat for more), e.g. image/svg+xml")


def pytest_itemcollected(item):
    skip = tuple(item.config.getoption("nbval_skip_mime"))
    notebook = item.parent
    if skip and hasattr(notebook, "skip_compare"):
        notebook.skip_compare = tuple(dict.fromkeys(notebook.skip_compare + skip))
