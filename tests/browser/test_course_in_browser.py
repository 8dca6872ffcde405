"""The course in a real browser: JupyterLab headless, driven by headless Chromium.

`make test-browser` runs this file (it is skipped in the ordinary unit run unless
TEACHGRAD_BROWSER_TEST=1). For each notebook it opens a copy in JupyterLab at a 1280×800
window with the file browser open, runs all cells from the Run menu, and asserts what a
student would see: every code cell ran, no error output outside cells tagged
`raises-exception`, the drawings rendered as SVG images no wider than their output area, and
(in exercises) a check cell printed its feedback. Chapter 02 is also opened as shipped, with its
stored outputs: the answers to its predictions must stay folded until their cells run.
Screenshots go to tests/browser/screenshots/.

JupyterLab serves a temporary copy of the course, so its autosave never touches the
repository, and only the processes started here are stopped at the end.
"""
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = Path(__file__).resolve().parent / "screenshots"
NOTEBOOKS = [
    "notebooks/02_grad_fn_and_the_backward_graph.ipynb",
    "notebooks/05_inplace_operations_and_version_counters.ipynb",
    "exercises/02_grad_fn_and_the_backward_graph.ipynb",
]
# Opened as shipped, outputs and all, without running anything: the answers to its
# "predict, then run" prompts must stay folded until the student runs the cell.
SHIPPED = "notebooks/02_grad_fn_and_the_backward_graph.ipynb"
SHIPPED_COPY = "notebooks/shipped_02.ipynb"
WINDOW = (1280, 800)
CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"

pytestmark = pytest.mark.skipif(os.environ.get("TEACHGRAD_BROWSER_TEST") != "1",
                                reason="the browser test runs with `make test-browser`")


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def course_copy(tmp):
    """The folders the notebooks need, copied (the notebooks under test without outputs), and
    Lab settings that keep every cell in the page (no windowing, so each output can be
    measured) and ask nothing of the reader."""
    for folder in ("notebooks", "exercises", "solutions"):
        shutil.copytree(ROOT / folder, tmp / "course" / folder,
                        ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
    shutil.copy(ROOT / SHIPPED, tmp / "course" / SHIPPED_COPY)
    for path in NOTEBOOKS:          # as a student opens them: nothing run yet
        notebook = nbformat.read(tmp / "course" / path, as_version=4)
        for cell in notebook.cells:
            if cell.cell_type == "code":
                cell.outputs, cell.execution_count = [], None
        nbformat.write(notebook, tmp / "course" / path)
    for plugin, values in LAB_SETTINGS.items():
        path = tmp / "settings" / f"{plugin}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))
    return tmp / "course"


LAB_SETTINGS = {
    "@jupyterlab/notebook-extension/tracker": {"windowingMode": "none"},
    "@jupyterlab/apputils-extension/notification": {"fetchNews": "false"},
}


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """A JupyterLab server on 127.0.0.1 with a token; yields its URL, the token and the folder
    it serves."""
    tmp = tmp_path_factory.mktemp("lab")
    root = course_copy(tmp)
    port, token = free_port(), secrets.token_hex(16)
    log = open(tmp / "lab.log", "w")
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyter", "lab", "--no-browser", f"--port={port}",
         "--ServerApp.ip=127.0.0.1", f"--IdentityProvider.token={token}",
         f"--ServerApp.root_dir={root}", f"--LabApp.user_settings_dir={tmp / 'settings'}",
         "--ServerApp.port_retries=0", "--allow-root"],
        stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        wait_for_port(port, server, tmp / "lab.log")
        yield f"http://127.0.0.1:{port}", token, root
    finally:
        os.killpg(server.pid, 15)
        server.wait(timeout=30)
        log.close()


def wait_for_port(port, server, log, seconds=90):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if server.poll() is not None:
            raise RuntimeError("JupyterLab stopped: " + log.read_text()[-2000:])
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.5)
    raise TimeoutError("JupyterLab did not start: " + log.read_text()[-2000:])


def chromium(log_console=False):
    """Headless Chromium at the course's window size, driven by selenium; with
    ``log_console``, what pages print to the console can be read with ``get_log("browser")``."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    if not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()):
        pytest.fail("Chromium is missing: `apt-get install chromium chromium-driver` "
                    "(make test-browser does it as root)")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                 "--disable-background-networking", "--disable-component-update",
                 f"--window-size={WINDOW[0]},{WINDOW[1]}"):
        options.add_argument(flag)
    if log_console:
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_window_size(*WINDOW)
    return driver


@pytest.fixture(scope="module")
def browser():
    driver = chromium()
    try:
        yield driver
    finally:
        driver.quit()


def wait_until(condition, seconds, what):
    deadline = time.time() + seconds
    while time.time() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.5)
    raise TimeoutError(f"timed out after {seconds} s waiting for {what}")


def accept_dialogs(driver):
    """Accept any dialog Lab opened (a kernel to select, say); return what they said."""
    from selenium.webdriver.common.by import By

    said = []
    for dialog in driver.find_elements(By.CSS_SELECTOR, "dialog.jp-Dialog"):
        said.append(dialog.text.replace("\n", " | "))
        dialog.find_element(By.CSS_SELECTOR, ".jp-Dialog-button.jp-mod-accept").click()
        time.sleep(1)
    return said


def click_menu(driver, menu, item):
    from selenium.webdriver.common.by import By

    for text in accept_dialogs(driver):
        print(f"accepted a JupyterLab dialog: {text}")

    driver.find_element(By.XPATH, f"//li[@role='menuitem']//div[text()='{menu}']").click()
    entry = wait_until(lambda: [e for e in driver.find_elements(
        By.XPATH, f"//li[@role='menuitem']//div[text()='{item}']") if e.is_displayed()],
        10, f"the menu item {item}")
    entry[0].click()


# Read in the page: one record per cell, in order — its kind, its prompt, and what it shows.
CELLS_SCRIPT = """
const panel = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden)');
return Array.from(panel.querySelectorAll('.jp-Notebook .jp-Cell')).map(cell => {
  const prompt = cell.querySelector('.jp-InputArea-prompt');
  const outputs = Array.from(cell.querySelectorAll('.jp-OutputArea-output'));
  return {
    code: cell.classList.contains('jp-CodeCell'),
    prompt: prompt ? prompt.textContent.trim() : '',
    error: outputs.some(o => o.getAttribute('data-mime-type') === 'application/vnd.jupyter.error'),
    text: outputs.map(o => o.innerText).join('\\n'),
    shown: outputs.filter(o => o.offsetParent !== null && o.getBoundingClientRect().height > 0).length,
    svgs: outputs.filter(o => o.classList.contains('jp-RenderedSVG')).map(o => {
      const img = o.querySelector('img');
      return {loaded: !!img && img.complete && img.naturalWidth > 0,
              width: img ? img.getBoundingClientRect().width : 0,
              room: o.getBoundingClientRect().width};
    }),
  };
});
"""


class Stalled(Exception):
    """Nothing runs or waits to run, yet cells never ran."""


def run_all(driver, base, token, notebook, path):
    """Open ``path`` and run all its cells; returns the cells as the page shows them.
    JupyterLab sometimes starts two kernels for the notebook and connects the page to the
    one it then shuts down: the first cell runs, the others never do. Then the notebook is
    opened afresh, once, on the kernel that lives."""
    try:
        return run_all_once(driver, base, token, notebook, path)
    except Stalled:
        print(f"{path}: cells stopped running; opening the notebook again")
        return run_all_once(driver, base, token, notebook, path)


def open_notebook(driver, base, token, path):
    """Open ``path`` alone in a workspace of its own, and wait for it and an idle kernel."""
    workspace = Path(path).parent.name + Path(path).stem[:2]
    driver.get(f"{base}/lab/workspaces/{workspace}/tree/{path}?reset&token={token}")
    wait_until(lambda: driver.execute_script(
        "return document.querySelector('.jp-NotebookPanel .jp-Notebook .jp-Cell') !== null && "
        "document.querySelector('.jp-Notebook-ExecutionIndicator[data-status=\"idle\"]') !== null"),
        120, "the notebook and an idle kernel")


def run_all_once(driver, base, token, notebook, path):
    open_notebook(driver, base, token, path)
    count = len(notebook.cells)

    def prompts():
        return [c["prompt"] for c in driver.execute_script(CELLS_SCRIPT) if c["code"]]

    def started():
        return any(p not in ("[ ]:", "") for p in prompts())

    for attempt in range(3):        # a kernel still starting may let the first click pass
        click_menu(driver, "Run", "Run All Cells")
        try:
            wait_until(started, 30, "the first cell to start")
            break
        except TimeoutError:
            if attempt == 2:
                raise

    quiet_since = []                # when the page last showed no cell running or queued

    def finished():
        cells = driver.execute_script(CELLS_SCRIPT)
        shown = [c["prompt"] for c in cells if c["code"]]
        if len(cells) == count and all(p not in ("[*]:", "[ ]:", "") for p in shown):
            return cells
        if "[*]:" in shown:
            quiet_since.clear()
        elif not quiet_since:
            quiet_since.append(time.time())
        elif time.time() - quiet_since[0] > 30:
            raise Stalled(path)
        return None
    try:
        return wait_until(finished, 600, f"every cell of {path} to run")
    except TimeoutError:
        screenshot(driver, path)
        raise TimeoutError(f"{path}: not every cell ran; prompts {prompts()}") from None


def screenshot(driver, path, scroll_to=None):
    SCREENSHOTS.mkdir(exist_ok=True)
    if scroll_to is not None:
        driver.execute_script(
            "document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook "
            ".jp-Cell')[arguments[0]].scrollIntoView();", scroll_to)
        time.sleep(1)
    target = SCREENSHOTS / (Path(path).parent.name + "-" + Path(path).stem[:2] + ".png")
    driver.save_screenshot(str(target))
    return target


@pytest.mark.parametrize("path", NOTEBOOKS)
def test_a_notebook_runs_in_jupyterlab_as_a_student_sees_it(lab, browser, path):
    base, token, root = lab
    notebook = nbformat.read(root / path, as_version=4)
    cells = run_all(browser, base, token, notebook, path)
    tagged = [("raises-exception" in c.metadata.get("tags", [])) for c in notebook.cells]

    errors = [i for i, c in enumerate(cells) if c["error"] and not tagged[i]]
    assert not errors, f"{path}: cells {errors} show an error without the raises-exception tag"
    drawings = [(i, svg) for i, c in enumerate(cells) for svg in c["svgs"]]
    if path.startswith("notebooks/"):
        assert drawings, f"{path}: no drawing rendered as SVG"
    assert all(svg["loaded"] for _, svg in drawings), f"{path}: an SVG did not load"
    too_wide = [i for i, svg in drawings if svg["width"] > svg["room"] + 1]
    assert not too_wide, f"{path}: drawings wider than their output area in cells {too_wide}"
    if path.startswith("exercises/"):
        feedback = [c["text"] for c in cells if any(mark in c["text"] for mark in "✔✘…")]
        assert feedback, f"{path}: no check cell printed its feedback"
    widest = max(drawings, key=lambda d: d[1]["width"], default=(None, None))[0]
    screenshot(browser, path, scroll_to=widest)


def test_predictions_stay_folded_until_the_cell_runs(lab, browser):
    """Chapter 02 as shipped: every cell tagged 'predict' shows its input but not its stored
    output; other cells show theirs. Running one folded cell shows what it printed."""
    base, token, root = lab
    notebook = nbformat.read(root / SHIPPED_COPY, as_version=4)
    predict = [i for i, c in enumerate(notebook.cells)
               if "predict" in c.metadata.get("tags", []) and c.get("outputs")]
    plain = [i for i, c in enumerate(notebook.cells)
             if c.cell_type == "code" and c.outputs and i not in predict]
    assert predict and plain, "chapter 02 should have folded answers and ordinary outputs"
    open_notebook(browser, base, token, SHIPPED_COPY)
    cells = wait_until(lambda: (lambda cells: cells if len(cells) == len(notebook.cells)
                                else None)(browser.execute_script(CELLS_SCRIPT)),
                       60, "every cell on the page")
    shown = [i for i in predict if cells[i]["shown"]]
    assert not shown, f"the answers of cells {shown} are visible before they run"
    assert all(cells[i]["shown"] for i in plain), "ordinary outputs should be visible"
    screenshot(browser, SHIPPED_COPY, scroll_to=predict[0])

    first = predict[0]
    run_up_to(browser, first)
    wait_until(lambda: browser.execute_script(CELLS_SCRIPT)[first]["shown"], 120,
               f"cell {first}'s output to show once it has run")


def run_up_to(driver, index):
    """Run the cells above ``index`` and the cell itself (Lab's 'Run All Above Selected Cell',
    then Shift+Enter on the cell)."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    from selenium.webdriver.common.by import By

    cell = driver.find_elements(
        By.CSS_SELECTOR, ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell")[index]
    driver.execute_script("arguments[0].scrollIntoView();", cell)
    ActionChains(driver).click(cell.find_element(By.CSS_SELECTOR, ".jp-InputArea-editor")).perform()
    click_menu(driver, "Run", "Run All Above Selected Cell")
    time.sleep(1)
    ActionChains(driver).key_down(Keys.SHIFT).send_keys(Keys.ENTER).key_up(Keys.SHIFT).perform()
