"""One example run on several libraries, their backward graphs drawn side by side.

    def example(torch):
        w = torch.tensor(2.0, requires_grad=True)
        y = w * w
        return {"w": w, "y": y}          # names for the drawing; the last entry is the root

    viz.draw_beside(example, teachgrad, yourgrad)

Each library's graph is a frame titled with the library's name, so the student's graph is
read against teachgrad's (or torch's). A library whose example fails — a stub's
``NotImplementedError`` while the package is being written, or a bug — gets a frame saying
so instead of a graph: the cell never stops with a traceback.
"""
from teachgrad.viz import naming
from teachgrad.viz.backward import BackwardScene, no_graph_scene
from teachgrad.viz.dot import Row, Scene, dot_source
from teachgrad.viz.drawing import Drawing
from teachgrad.viz.graph_walk import walk
from teachgrad.viz.text import tree_text


def failure_text(error):
    """What a frame says when the example did not run: a stub's task, or the error."""
    if isinstance(error, NotImplementedError):
        task = str(error)
        return f"not built yet ({task})" if task else "not built yet"
    first_line = (str(error).splitlines() or [""])[0]
    return f"{type(error).__name__}: {first_line}" if first_line else type(error).__name__


def one_library(example, library, show_saved, max_nodes):
    """(scene, text) of the example's backward graph built by ``library``."""
    try:
        named = dict(example(library))
        root = list(named.values())[-1]
        names = naming.Names(named, [root])
        graph = walk([root], max_nodes)
        if not graph.nodes:
            return no_graph_scene([root], names), tree_text(graph, names)
        return (BackwardScene(graph, names, show_saved),
                tree_text(graph, names, show_saved))
    except Exception as error:          # noqa: BLE001 — a student's bug is shown, not raised
        scene = Scene()
        scene.box("failed", "summary", [Row(failure_text(error))])
        return scene, failure_text(error)


def rename(scene, prefix):
    """The scene's boxes and arrows under ids starting with ``prefix`` (frames share none)."""
    for box in scene.boxes.values():
        box.id = prefix + box.id
    scene.boxes = {box.id: box for box in scene.boxes.values()}
    for arrow in scene.arrows:
        arrow.tail, arrow.head = prefix + arrow.tail, prefix + arrow.head
    return scene


def draw_beside(example, *libraries, show_saved=False, legend=True, max_nodes=60):
    """Run ``example(library)`` for each library (a module: teachgrad, yourgrad, torch) and
    draw the backward graphs side by side, each in a frame titled with the library's name.

    ``example`` returns a dict of name -> tensor: the names label the drawing and its last
    tensor is the root. ``show_saved`` shows each node's saved tensors. The text form lists
    each library's tree under its name.
    """
    combined, texts = Scene(), []
    for number, library in enumerate(libraries):
        title = library.__name__
        scene, text = one_library(example, library, show_saved, max_nodes)
        for box in rename(scene, f"l{number}").boxes.values():
            box.cluster = title
            combined.boxes[box.id] = box
        combined.arrows.extend(scene.arrows)
        combined.notes.extend(note for note in scene.notes if note not in combined.notes)
        texts.append(f"{title}:\n{text}")
    return Drawing(dot_source(combined, legend), "\n\n".join(texts))
