"""`posviz serve --dev` as a maintainer meets it: every edit shows in the open tab.

The server runs on copies of the content and of the package (``PYTHONPATH``
at the copy), so the tests edit files freely. Each test opens a page, edits
files the way an author would, and waits for what the open tab shows, with no
reload by the test and no restart of the server.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.support.browser import free_port, wait_for_http
from tests.support.pages import slider_title, wait_for_plot

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
PAGE = "query-key-value"
NEW_PAGE = """---
slug: added-while-serving
title: A page added while the server runs
kind: Read
builds_on: []
tags: [Self-attention]
summary: Written into the content after posviz serve --dev started.
---

## 1. Only section

Its words.
"""
WAIT_MS = 30_000  # a loaded 2-core machine; the benchmark measures the real times


class DevServer:
    """`posviz serve --dev` on copies of content/ and src/posviz under ``tmp``."""

    def __init__(self, tmp: Path):
        self.content = tmp / "content"
        self.package = tmp / "src" / "posviz"
        shutil.copytree(ROOT / "content", self.content)
        shutil.copytree(
            ROOT / "src" / "posviz", self.package, ignore=shutil.ignore_patterns("__pycache__")
        )
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = tmp / "serve.log"
        env = {
            **os.environ,
            "PYTHONPATH": str(self.package.parent),
            "POSVIZ_CONTENT": str(self.content),
            "PYTHONDONTWRITEBYTECODE": "1",
        }
        with self.log.open("w") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "posviz.cli", "serve", "--dev", "--port", str(self.port)]
                + ["--address", "127.0.0.1"],
                env=env,
                cwd=tmp,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        wait_for_http(f"{self.url}/posviz-dev/state.json", 120, self.process)

    def edit(self, relative: str, old: str, new: str) -> None:
        path = self.package.parent.parent / relative
        text = path.read_text("utf-8")
        assert text.count(old) >= 1, f"{old!r} is not in {relative}"
        path.write_text(text.replace(old, new, 1), "utf-8")

    def stop(self) -> str:
        self.process.terminate()
        try:
            self.process.wait(20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        return self.log.read_text("utf-8")


@pytest.fixture
def dev(tmp_path):
    server = DevServer(tmp_path)
    yield server
    server.stop()


def test_text_edits_new_pages_and_content_errors_reach_the_open_tab(dev, context):
    page = context.new_page()
    page.goto(f"{dev.url}/page-{PAGE}")
    expect(page.locator("h2").first).to_be_visible(timeout=WAIT_MS)
    server_pid = dev.process.pid

    # 1. A sentence: swapped in around the live figures, where the reader is.
    page.mouse.wheel(0, 500)
    page.wait_for_function("() => window.scrollY >= 400")
    scrolled = page.evaluate("window.scrollY")
    dev.edit(f"content/pages/{PAGE}.md", "\n## 2.", "\nA sentence written while serving.\n\n## 2.")
    expect(page.get_by_text("A sentence written while serving.")).to_be_visible(timeout=WAIT_MS)
    assert page.evaluate("window.scrollY") == scrolled

    # 2. A new page: listed on home, and served, by the same server.
    home = context.new_page()
    home.goto(f"{dev.url}/")
    expect(home.locator("h1", has_text="posviz")).to_be_visible(timeout=WAIT_MS)
    (dev.content / "pages" / "added-while-serving.md").write_text(NEW_PAGE, "utf-8")
    listed = home.get_by_role("link", name="A page added while the server runs")
    expect(listed).to_be_visible(timeout=WAIT_MS)
    listed.click()
    expect(home.get_by_text("Its words.")).to_be_visible(timeout=WAIT_MS)

    # 3. Broken front matter: an overlay on the open page names file and line.
    dev.edit(f"content/pages/{PAGE}.md", "\nkind: ", "\nkind: [unclosed\nkind: ")
    overlay = page.locator("#posviz-dev-overlay")
    expect(overlay).to_be_visible(timeout=WAIT_MS)
    expect(overlay).to_contain_text(f"{PAGE}.md:")
    expect(page.get_by_text("A sentence written while serving.")).to_be_visible()  # kept

    # 4. Fixed: the overlay goes, and the page is the fixed one.
    dev.edit(f"content/pages/{PAGE}.md", "\nkind: [unclosed\n", "\n")
    expect(overlay).to_have_count(0, timeout=WAIT_MS)
    expect(page.get_by_text("A sentence written while serving.")).to_be_visible()

    # 5. A deleted page: its open tab says it is gone.
    (dev.content / "pages" / "added-while-serving.md").unlink()
    expect(home.get_by_text("there is no page at /page-added-while-serving")).to_be_visible(
        timeout=WAIT_MS
    )

    assert dev.process.poll() is None and dev.process.pid == server_pid  # never restarted
    log = dev.stop()
    assert f"{PAGE}.md:" in log  # the problem is in the terminal too
    assert "added page-added-while-serving" in log and "restart" not in log


def test_code_edits_reload_the_tab_with_its_sliders_and_a_figure_error_shows(dev, context):
    page = context.new_page()
    page.goto(f"{dev.url}/figure-710?pos=30")
    wait_for_plot(page, "posviz-710-hands")

    # A caption is code: the tab reloads itself, at the link's state.
    dev.edit("src/posviz/figures/clock_hands.py", "caption = (", "caption = (\n'Edited. '")
    expect(page.get_by_text("Edited. Try this first")).to_be_visible(timeout=WAIT_MS)
    assert page.url.endswith("/figure-710?pos=30")
    wait_for_plot(page, "posviz-710-hands")
    assert slider_title(page, 0, 0) == "pos: 30"

    # A figure that raises: the overlay names the file and line; the fix clears it.
    dev.edit("src/posviz/figures/clock_hands.py", "'Edited. '", "'Edited. ' + 1 +")
    overlay = page.locator("#posviz-dev-overlay")
    expect(overlay).to_be_visible(timeout=WAIT_MS)
    expect(overlay).to_contain_text("clock_hands.py:")
    expect(overlay).to_contain_text("TypeError")
    dev.edit("src/posviz/figures/clock_hands.py", "'Edited. ' + 1 +", "'Fixed. '")
    expect(page.get_by_text("Fixed. Try this first")).to_be_visible(timeout=WAIT_MS)
    expect(overlay).to_have_count(0)


def test_a_figure_module_added_is_listed_and_served_and_its_removal_said(dev, context):
    home = context.new_page()
    home.goto(f"{dev.url}/")
    expect(home.locator("h1", has_text="posviz")).to_be_visible(timeout=WAIT_MS)
    figures = dev.package / "figures"
    twin = (figures / "clock_hands.py").read_text("utf-8")
    twin = twin.replace("class ClockHands", "class ClockHandsTwin")
    twin = twin.replace("figure_id = 710", "figure_id = 9710")
    twin = twin.replace("Clock hands at different speeds", "A twin written while serving")
    (figures / "twin.py").write_text(twin, "utf-8")

    listed = home.get_by_role("link", name="A twin written while serving")
    expect(listed).to_be_visible(timeout=WAIT_MS)
    listed.click()
    wait_for_plot(home, "posviz-9710-hands")
    (figures / "twin.py").unlink()
    expect(home.get_by_text("there is no page at /figure-9710")).to_be_visible(timeout=WAIT_MS)
