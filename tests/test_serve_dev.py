"""`posviz serve --dev` serves a page added to the content without being restarted by hand."""

import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from posviz import content, serve
from tests.ui.browser import free_port, wait_for_http

ROOT = Path(__file__).resolve().parents[1]
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


def scratch(tmp_path: Path) -> Path:
    root = tmp_path / "content"
    shutil.copytree(ROOT / "content", root)
    return root


def test_routes_change_only_when_pages_or_topics_come_or_go(tmp_path):
    root = scratch(tmp_path)
    known = serve.route_names(content.load(root))
    page = root / "pages" / "query-key-value.md"
    page.write_text(page.read_text("utf-8") + "\nA sentence more.\n", "utf-8")
    assert serve.changed_routes(known, root) is None  # a text edit: --autoreload's part
    (root / "pages" / "added.md").write_text(NEW_PAGE, "utf-8")
    now = serve.changed_routes(known, root)
    assert now is not None and set(now) - set(known) == {"page-added-while-serving"}
    (root / "pages" / "broken.md").write_text("no front matter\n", "utf-8")
    assert serve.changed_routes(known, root) is None  # problems: the server keeps running


def status(url: str) -> int | None:
    """The HTTP status of ``url``; None while nothing listens (the server restarting)."""
    try:
        with urllib.request.urlopen(url, timeout=60) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code
    except OSError:
        return None


def wait_for_status(url: str, wanted: int, server, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while status(url) != wanted:
        assert server.poll() is None, "posviz serve --dev exited"
        assert time.monotonic() < deadline, f"{url} did not answer {wanted} in {timeout} s"
        time.sleep(0.2)


TINY_PAGE = NEW_PAGE.replace("added-while-serving", "first").replace("A page added", "A page")


def test_serve_dev_serves_a_new_page_without_a_restart(tmp_path):
    """On content of one page (few apps to start, twice), the new page answers 200."""
    root = tmp_path / "content"
    (root / "pages").mkdir(parents=True)
    (root / "pages" / "first.md").write_text(TINY_PAGE, "utf-8")
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "posviz.cli",
            "serve",
            "--dev",
            "--port",
            str(port),
            "--address",
            "127.0.0.1",
        ],
        env={**__import__("os").environ, "POSVIZ_CONTENT": str(root)},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        wait_for_http(f"{base}/posviz-static/site.css", 90, server)  # no session: cheap
        assert status(f"{base}/page-added-while-serving") == 404
        (root / "pages" / "added-while-serving.md").write_text(NEW_PAGE, "utf-8")
        wait_for_status(f"{base}/page-added-while-serving", 200, server)
        with urllib.request.urlopen(f"{base}/page-added-while-serving", timeout=30) as response:
            assert "A page added while the server runs" in response.read().decode("utf-8")
        assert server.poll() is None  # the same posviz process all along
    finally:
        server.terminate()
        try:
            output, _ = server.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            output, _ = server.communicate()
    assert "the routes changed, added page-added-while-serving; restarting" in output
