"""The course's website in a real browser: chapter 05's page as a reader sees it.

`make test-browser` builds the site (`make site`) and runs this file with headless Chromium at
1280×800, the site served on 127.0.0.1. It asserts that the drawings render as SVG within the
page's width, that a folded answer to a prediction opens on a click, and that the page logs no
error to the console. The screenshot becomes tests/browser/site_chapter05.png, shown in the
README.
"""
import functools
import http.server
import os
import threading
import time
from pathlib import Path

import pytest

from test_course_in_browser import chromium, wait_until

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "build" / "site" / "html"
PAGE = "notebooks/05_inplace_operations_and_version_counters.html"
SCREENSHOT = Path(__file__).resolve().parent / "site_chapter05.png"

pytestmark = pytest.mark.skipif(os.environ.get("TEACHGRAD_BROWSER_TEST") != "1",
                                reason="the browser test runs with `make test-browser`")


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):
        """Serve without a line per request."""


@pytest.fixture(scope="module")
def site():
    if not (SITE / PAGE).exists():
        pytest.fail(f"{SITE / PAGE} is missing: build the site first (make site)")
    handler = functools.partial(QuietHandler, directory=str(SITE))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()


@pytest.fixture(scope="module")
def browser():
    driver = chromium(log_console=True)
    try:
        yield driver
    finally:
        driver.quit()


DRAWINGS_SCRIPT = """
const main = document.querySelector('main') || document.body;
const room = main.getBoundingClientRect().width;
return Array.from(document.querySelectorAll('img[src$=".svg"], .cell_output svg')).map(e => ({
  loaded: e.tagName !== 'IMG' || (e.complete && e.naturalWidth > 0),
  width: e.getBoundingClientRect().width, room: room}));
"""

FOLDS_SCRIPT = """
return Array.from(document.querySelectorAll('.tag_predict details.hide'))
  .map(d => ({open: d.open, shown: !!d.querySelector('.cell_output') &&
                d.querySelector('.cell_output').checkVisibility()}));
"""


def test_chapter_05_page_shows_drawings_folds_answers_and_logs_no_error(site, browser):
    from selenium.webdriver.common.by import By

    browser.get(f"{site}/{PAGE}")
    wait_until(lambda: browser.execute_script("return document.readyState") == "complete",
               60, "the page to load")
    drawings = browser.execute_script(DRAWINGS_SCRIPT)
    assert drawings, "no drawing on the page"
    assert all(d["loaded"] for d in drawings), "a drawing did not load"
    assert all(0 < d["width"] <= d["room"] + 1 for d in drawings), drawings

    folds = browser.execute_script(FOLDS_SCRIPT)
    assert folds and not any(f["open"] for f in folds), "answers should start folded"
    assert not any(f["shown"] for f in folds), "a folded answer is visible"
    summary = browser.find_elements(By.CSS_SELECTOR, ".tag_predict details.hide > summary")[0]
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'});", summary)
    summary.click()
    opened = wait_until(lambda: browser.execute_script(FOLDS_SCRIPT)[0]["open"], 10,
                        "the first answer to open")
    assert opened and browser.execute_script(FOLDS_SCRIPT)[0]["shown"]

    errors = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    assert not errors, errors
    time.sleep(1)                   # the theme fades the opened answer in
    browser.save_screenshot(str(SCREENSHOT))
