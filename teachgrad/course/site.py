"""The course as a static website, built from the stored notebooks without running them.

    python -m teachgrad.course.site build/site          # make site

The site shows exactly what nbval tested: the lectures in chapter order, the appendices, the
glossary and the then-and-now page, with the README's course map as the home page. It is built
with Sphinx, myst-nb (execution off) and the book theme — the stack jupyter-book 1 uses, all
from the locked environment, so nothing is downloaded at build time — and MathJax is copied
onto the site from the jupyter-server-mathjax package, so a page needs no other host either.

The build happens in three steps, each a function below:

1. ``stage`` copies the pages into ``OUT/source`` with the repository's layout, and on the way
   folds each prediction's answer (cells tagged ``predict`` get myst-nb's ``hide-output`` tag,
   as JupyterLab folds them with ``outputs_hidden``), adds a line of links to each chapter
   (its notebook, exercises and solutions in the repository, and Binder), and points links to
   files that are not on the site (exercises, solutions, the student's package) at the
   repository;
2. ``sphinx-build`` writes the HTML into ``OUT/html``;
3. ``broken_links`` reads every page and fails the build on an internal link to a missing page
   or anchor.

Publish ``OUT/html`` as it is: it is a folder of static files for any web server, GitHub Pages
included. ``--repository`` sets the repository the pages link to.
"""
import argparse
import html.parser
import re
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote, urlsplit

import nbformat

from teachgrad.course import predict_cells

ROOT = Path(__file__).resolve().parents[2]
REPOSITORY = "https://github.com/teachgrad/teachgrad"
BRANCH = "main"
PAGES = ["notebooks/*.ipynb", "notebooks/deeper/*.ipynb", "notebooks/*.md"]
LINK = re.compile(r"(\]\()([^)\s]+)(\))")

CONF = '''\
import os
import jupyter_server_mathjax            # MathJax 2 as files, so the site needs no CDN

project = "teachgrad"
author = "the teachgrad authors"
extensions = ["myst_nb"]
html_theme = "sphinx_book_theme"
html_title = "teachgrad: how PyTorch's autograd really works"
html_theme_options = {{"repository_url": "{repository}", "use_repository_button": True,
                      "path_to_docs": "", "repository_branch": "{branch}"}}
exclude_patterns = ["_build"]
nb_execution_mode = "off"                 # the stored outputs, exactly as nbval tested them
nb_mime_priority_overrides = [("html", "text/vnd.graphviz", None)]   # DOT stays in the notebook
myst_heading_anchors = 3
myst_enable_extensions = ["dollarmath"]
suppress_warnings = ["mystnb.unknown_mime_type", "myst.xref_missing"]   # links are checked in the HTML
html_static_path = [os.path.join(os.path.dirname(jupyter_server_mathjax.__file__), "static")]
mathjax_path = "MathJax.js?config=TeX-AMS-MML_HTMLorMML-full"
mathjax2_config = {{"HTML-CSS": {{"availableFonts": ["STIX-Web"], "preferredFont": "STIX-Web",
                                "webFont": "STIX-Web", "imageFont": None}}}}   # the fonts it ships
html_favicon = "favicon.svg"
html_context = {{"default_mode": "light"}}
'''

FAVICON = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16">'
           '<text x="2" y="13" font-size="13" font-family="serif">∂</text></svg>')


def course_pages(root=ROOT):
    """The repository paths of the pages the site shows, lectures first, in chapter order."""
    return [path.relative_to(root) for pattern in PAGES for path in sorted(root.glob(pattern))]


def repository_url(path, repository, branch=BRANCH):
    return f"{repository}/blob/{branch}/{path.as_posix()}"


def retarget(text, page, on_site, repository):
    """``text``'s markdown links, with those to files that are not on the site sent to the
    repository (links to other pages and anchors stay as they are)."""
    def one(match):
        target = match.group(2)
        if re.match(r"[a-z]+:|#", target):
            return match.group(0)
        path, _, anchor = target.partition("#")
        resolved = Path(*(page.parent / unquote(path)).parts)
        resolved = Path(*_normalise(resolved.parts))
        if resolved in on_site:
            return match.group(0)
        return match.group(1) + repository_url(resolved, repository) + \
            (f"#{anchor}" if anchor else "") + match.group(3)
    return LINK.sub(one, text)


def _normalise(parts):
    kept = []
    for part in parts:
        if part == "..":
            kept.pop()
        elif part != ".":
            kept.append(part)
    return kept


def chapter_links(page, repository):
    """The links line at the top of a lecture: notebook, exercises, solutions, Binder."""
    binder = (f"https://mybinder.org/v2/gh/{urlsplit(repository).path.strip('/')}/{BRANCH}"
              f"?labpath={page.as_posix()}")
    links = [f"[notebook]({repository_url(page, repository)})"]
    for folder in ("exercises", "solutions"):
        if (ROOT / folder / page.name).exists():
            links.append(f"[{folder}]({repository_url(Path(folder) / page.name, repository)})")
    links.append(f"[launch on Binder]({binder})")
    return "Open this chapter: " + " · ".join(links)


def stage_notebook(source, target, page, on_site, repository):
    nb = nbformat.read(source, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = retarget(cell.source, page, on_site, repository)
        elif cell.cell_type == "code" and predict_cells.is_folded(cell):
            cell.metadata["tags"] = [*cell.metadata["tags"], "hide-output"]
            cell.metadata["mystnb"] = {"code_prompt_show": "Show the answer",
                                       "code_prompt_hide": "Hide the answer"}
    if page.parent == Path("notebooks"):
        nb.cells.insert(1, nbformat.v4.new_markdown_cell(chapter_links(page, repository)))
    nbformat.write(nb, target)


def home_page(readme, on_site, repository):
    """The README's title, opening and course map, then the table of contents."""
    text = readme.read_text(encoding="utf-8")
    opening = text[:text.index("\n## ")]
    course_map = text[text.index("## Course map"):]
    course_map = course_map[:course_map.index("\n## ", 3)]
    body = retarget(opening + "\n\n" + course_map, Path("index.md"), on_site, repository)
    lectures = [p for p in on_site if p.parent == Path("notebooks") and p.suffix == ".ipynb"]
    appendices = [p for p in on_site if p.parent == Path("notebooks/deeper")]
    pages = [p for p in on_site if p.suffix == ".md"]
    return (body + "\n" + toctree("Lectures", lectures) + toctree("Appendices", appendices)
            + toctree("Reference", pages))


def toctree(caption, pages):
    entries = "\n".join(p.with_suffix("").as_posix() for p in pages)
    return f"\n```{{toctree}}\n:caption: {caption}\n:maxdepth: 1\n\n{entries}\n```\n"


def stage(out, repository=REPOSITORY, root=ROOT):
    """Copy the pages into ``out`` ready for Sphinx; returns the source folder."""
    source = out / "source"
    shutil.rmtree(source, ignore_errors=True)
    pages = course_pages(root)
    on_site = set(pages) | {Path("index.md")}
    for page in pages:
        target = source / page
        target.parent.mkdir(parents=True, exist_ok=True)
        if page.suffix == ".ipynb":
            stage_notebook(root / page, target, page, on_site, repository)
        else:
            target.write_text(retarget((root / page).read_text(encoding="utf-8"), page,
                                       on_site, repository), encoding="utf-8")
    (source / "index.md").write_text(home_page(root / "README.md", pages, repository),
                                     encoding="utf-8")
    (source / "conf.py").write_text(CONF.format(repository=repository, branch=BRANCH))
    (source / "favicon.svg").write_text(FAVICON, encoding="utf-8")
    return source


class _Links(html.parser.HTMLParser):
    """The ids and the link targets of one HTML page."""

    def __init__(self):
        super().__init__()
        self.ids, self.hrefs = set(), []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if tag == "a" and attrs.get("name"):
            self.ids.add(attrs["name"])
        if tag == "a" and attrs.get("href"):
            self.hrefs.append(attrs["href"])


def _read_links(page):
    parser = _Links()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser


def broken_links(html_dir):
    """Every internal link of the built site whose page or anchor does not exist, as
    ``"page.html: target"`` lines. Links to other sites are not followed."""
    html_dir = Path(html_dir).resolve()      # the pages' keys and the links' targets alike
    pages = {page: _read_links(page) for page in html_dir.rglob("*.html")}
    broken = []
    for page, links in sorted(pages.items()):
        for href in links.hrefs:
            parts = urlsplit(href)
            if parts.scheme or parts.netloc or href.startswith("mailto:"):
                continue
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():
                broken.append(f"{page.relative_to(html_dir)}: {href}")
            elif parts.fragment and target.suffix == ".html" and \
                    unquote(parts.fragment) not in pages[target].ids:
                broken.append(f"{page.relative_to(html_dir)}: {href} (no such anchor)")
    return broken


def build(out, repository=REPOSITORY):
    out = Path(out)
    source = stage(out, repository)
    html_dir = out / "html"
    subprocess.run([sys.executable, "-m", "sphinx", "-b", "html", "-q", "-E", str(source),
                    str(html_dir)], check=True)
    return html_dir


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m teachgrad.course.site",
                                     description="Build the course's static website.")
    parser.add_argument("out", nargs="?", default="build/site", help="output folder")
    parser.add_argument("--repository", default=REPOSITORY,
                        help="the repository the pages link to (default: %(default)s)")
    args = parser.parse_args(argv)
    html_dir = build(args.out, args.repository)
    broken = broken_links(html_dir)
    for line in broken:
        print(f"broken link: {line}", file=sys.stderr)
    if broken:
        return 1
    print(f"the site is in {html_dir} ({sum(1 for _ in html_dir.rglob('*.html'))} pages, "
          "no broken internal link)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
