"""The PyTorch the lectures quote but do not run.

Some things only real PyTorch shows: a ``torch.compile`` log, the node it puts into the
graph. The notebooks do not depend on torch, so a lecture quotes them as stored markdown: a
fenced block whose info string is ``python torch`` holds the program, and the next fenced
block, ``text torch-output``, the lines it printed (``...`` stands for an elided part of a
line). Here every such pair, in every lecture and appendix, is checked for form (always) and
run against torch 2.13 where it is installed: each quoted line must appear in what the
program printed, on stdout or stderr.
"""
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
PROGRAM, OUTPUT = "python torch", "text torch-output"
# "V1208 00:11:39.740000 10465 torch/_dynamo/symbolic_convert.py:5124] [0/0] [__graph_breaks] "
LOG_PREFIX = re.compile(r"^[VIWE]\d{4} [\d:.]+ \d+ \S+\] (?:\[[^\]]*\] )*")
ADDRESS = re.compile(r"0x[0-9a-fA-F]+")


def lecture_notebooks():
    return sorted(NOTEBOOKS.glob("*.ipynb")) + sorted((NOTEBOOKS / "deeper").glob("*.ipynb"))


def fenced_blocks(markdown):
    """[(info string, body)] of the fenced code blocks of one markdown text, in order."""
    return [(info.strip(), body) for info, body in FENCE.findall(markdown)]


def quoted_pairs(markdown):
    """[(program, quoted output)] of one markdown text; ValueError if a torch block is not
    paired: a program must be followed by its output block, an output preceded by one."""
    blocks, pairs = fenced_blocks(markdown), []
    for i, (info, body) in enumerate(blocks):
        if info == PROGRAM:
            following = blocks[i + 1] if i + 1 < len(blocks) else (None, "")
            if following[0] != OUTPUT or not following[1].strip():
                raise ValueError(f"a ```{PROGRAM} block is not followed by a non-empty "
                                 f"```{OUTPUT} block:\n{body}")
            pairs.append((body, following[1]))
        elif info == OUTPUT and (i == 0 or blocks[i - 1][0] != PROGRAM):
            raise ValueError(f"a ```{OUTPUT} block follows no ```{PROGRAM} block:\n{body}")
    return pairs


def all_snippets():
    """[(name, program, quoted output)] over every lecture and appendix."""
    found = []
    for path in lecture_notebooks():
        for number, cell in enumerate(nbformat.read(path, as_version=4).cells):
            if cell.cell_type != "markdown":
                continue
            for k, (program, output) in enumerate(quoted_pairs(cell.source)):
                found.append((f"{path.relative_to(NOTEBOOKS)}:cell{number}:{k}", program, output))
    return found


def normalise(line):
    """A printed line without what changes from run to run: a log line's time and process
    prefix, object addresses, surrounding blanks."""
    return ADDRESS.sub("0x...", LOG_PREFIX.sub("", line)).strip()


def quoted_line_pattern(quoted):
    """The regular expression a quoted line stands for: its text, with ``...`` matching any."""
    parts = normalise(quoted).split("...")
    return re.compile(".*".join(re.escape(part) for part in parts))


def missing_lines(quoted_output, printed):
    """The quoted lines that no printed line contains."""
    printed_lines = [normalise(line) for line in printed.splitlines()]
    return [quoted for quoted in quoted_output.splitlines() if quoted.strip()
            and not any(quoted_line_pattern(quoted).search(line) for line in printed_lines)]


# ---------------------------------------------------------------- without torch

def test_the_matching_rules():
    printed = ("V1208 00:11:39.740000 10465 torch/_dynamo/symbolic_convert.py:5124] [1/0] "
               "[__graph_breaks] Graph break in user code at /tmp/a/snippet.py:14\n"
               "<torch.autograd.function.CompiledFunctionBackward object at 0x7f95526c7680>\n")
    assert missing_lines("Graph break in user code at ...:14", printed) == []
    assert missing_lines("<...CompiledFunctionBackward object at 0x...>", printed) == []
    assert missing_lines("  <torch.autograd.function.CompiledFunctionBackward object at "
                         "0x0000>  ", printed) == []
    assert missing_lines("Graph break in user code at ...:13", printed) == \
        ["Graph break in user code at ...:13"]
    assert missing_lines("MulBackward0\n\nGraph break", printed) == ["MulBackward0"]


def test_pairs_are_found_and_malformed_ones_refused():
    good = (f"Text\n```{PROGRAM}\nprint(1)\n```\nwhich prints\n```{OUTPUT}\n1\n```\n"
            "```python\nnot quoted\n```\n")
    assert quoted_pairs(good) == [("print(1)\n", "1\n")]
    for bad in (f"```{PROGRAM}\nprint(1)\n```\n",
                f"```{PROGRAM}\nprint(1)\n```\n```python\nx\n```\n```{OUTPUT}\n1\n```\n",
                f"```{PROGRAM}\nprint(1)\n```\n```{OUTPUT}\n\n```\n",
                f"```{OUTPUT}\n1\n```\n"):
        with pytest.raises(ValueError):
            quoted_pairs(bad)


@pytest.mark.parametrize("path", lecture_notebooks(), ids=lambda p: p.name)
def test_quoted_torch_blocks_are_well_formed(path):
    for cell in nbformat.read(path, as_version=4).cells:
        if cell.cell_type == "markdown":
            quoted_pairs(cell.source)          # raises on a torch block without its partner


def test_chapter_10_quotes_real_torch_compile():
    names = [name for name, _, _ in all_snippets()]
    assert sum(name.startswith("10_") for name in names) >= 3, names


# ---------------------------------------------------------------- with torch

@pytest.mark.parametrize("name, program, quoted_output", all_snippets(),
                         ids=[name for name, _, _ in all_snippets()])
def test_quoted_snippet_prints_what_the_lecture_says(name, program, quoted_output, tmp_path):
    pytest.importorskip("torch")
    script = tmp_path / "snippet.py"
    script.write_text(program)
    run = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True,
                         text=True, timeout=600)
    printed = run.stdout + run.stderr
    assert run.returncode == 0, f"{name} failed:\n{printed[-3000:]}"
    assert missing_lines(quoted_output, printed) == [], f"{name} printed:\n{printed[-3000:]}"
