"""What every drawing function returns: DOT text, a stable text form, and pictures.

In a notebook a ``Drawing`` shows itself as SVG; ``str(drawing)`` is its text
form, which depends only on the graph (never on the graphviz version), so
notebook tests can compare it exactly. The output also stores the DOT source
(``text/vnd.graphviz``, which Jupyter does not display): nbval compares it too,
so a change of colour, legend or layout rank fails the tests as well, and
``tests/test_stored_drawings.py`` checks that each stored SVG was drawn from the
DOT stored beside it. Without graphviz's ``dot`` program the notebook shows the
text form and one line saying how to install it.
"""
import pathlib
import re

try:
    import graphviz
except ImportError:          # the course extras bring it; the text forms work without
    graphviz = None

INSTALL_HINT = ("(graphviz's dot program was not found, so this graph is shown as text: "
                "install it with `conda install -c conda-forge graphviz` or "
                "`sudo apt install graphviz`, then run the cell again.)")


DOT_MIME = "text/vnd.graphviz"


class DotMissing(RuntimeError):
    """graphviz (the Python package or its ``dot`` program) is not installed."""


def run_dot(source, format):
    """Lay out DOT text with graphviz's ``dot`` and return the picture's bytes."""
    if graphviz is None:
        raise DotMissing("the graphviz Python package is not installed: "
                         "pip install graphviz (it also needs the dot program). " + INSTALL_HINT)
    try:
        return graphviz.pipe("dot", format, source.encode("utf-8"))
    except graphviz.ExecutableNotFound as error:
        raise DotMissing(INSTALL_HINT) from error


def output_path(path, format, default="svg"):
    """The file to write, and its format: from ``format``, else the suffix, else ``default``."""
    path = pathlib.Path(path)
    format = format or path.suffix.lstrip(".").lower() or default
    if path.suffix.lstrip(".").lower() != format:
        path = path.with_name(path.name + "." + format)
    return path, format


# A notebook's output area is about 830 px wide in JupyterLab at a 1280 px window with the file
# browser open, and Lab shows an SVG at its own size, cut at the edge: a wider drawing is scaled
# down to fit (its viewBox keeps the picture whole), a smaller one keeps its size.
MAX_WIDTH_PT = 600
_SIZE = re.compile(r'<svg width="([\d.]+)pt" height="([\d.]+)pt"')


def fit_width(svg, max_width=MAX_WIDTH_PT):
    """The SVG with its width (and height, in proportion) reduced to ``max_width`` points."""
    size = _SIZE.search(svg)
    if size is None or float(size.group(1)) <= max_width:
        return svg
    width, height = float(size.group(1)), float(size.group(2))
    scaled = f'<svg width="{max_width}pt" height="{height * max_width / width:.2f}pt"'
    return svg[:size.start()] + scaled + svg[size.end():]


class Drawing:
    """One graph drawing. ``.source`` is the DOT text; ``str()`` the stable text form."""

    def __init__(self, source, text):
        self.source = source
        self.text = text
        self._svg = None

    def __str__(self):
        return self.text

    __repr__ = __str__

    def svg(self):
        """The drawing as SVG text (laid out once, then kept), at most ``MAX_WIDTH_PT`` wide."""
        if self._svg is None:
            self._svg = fit_width(run_dot(self.source, "svg").decode("utf-8"))
        return self._svg

    def _repr_mimebundle_(self, include=None, exclude=None):
        try:
            return {"image/svg+xml": self.svg(), DOT_MIME: self.source, "text/plain": self.text}
        except DotMissing:
            return {"text/plain": self.text + "\n" + INSTALL_HINT}

    def render(self, path, format=None):
        """Write the drawing to ``path`` as svg, png or pdf; returns the path written."""
        path, format = output_path(path, format)
        path.write_bytes(run_dot(self.source, format))
        return str(path)
