"""posviz.sphinx: the directive, the copied site, and a real Sphinx project in Chromium."""

import functools
import http.server
import threading
from pathlib import Path

import pytest

from tests.ui.conftest import blocked, browser, page  # noqa: F401  (browser fixtures)

sphinx = pytest.importorskip("sphinx")

CONF = """\
extensions = ["posviz.sphinx"]
project = "posviz embed test"
posviz_site = {site!r}
html_theme = "alabaster"
"""

INDEX = """\
Figures in docs
===============

.. toctree::

   more/second

The clock hands, at position 24:

.. posviz-figure:: 710
   :pos: 24
   :caption: Drag pos: the right curve stays put.

The parameter budget of a wider model:

.. posviz-figure:: 96
   :d_model: 1024
   :height: 300
"""

SECOND = """\
Second page
===========

.. posviz-figure:: 7256
   :k: 12
   :m: 20
"""


def build_docs(src: Path, out: Path, site: Path, pages: dict[str, str]) -> tuple[int, str]:
    from sphinx.cmd.build import build_main

    src.mkdir(parents=True, exist_ok=True)
    (src / "conf.py").write_text(CONF.format(site=str(site)), "utf-8")
    for name, text in pages.items():
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        (src / name).write_text(text, "utf-8")
    warnings = src.parent / "warnings.txt"
    code = build_main(["-b", "html", "-W", "-q", "-w", str(warnings), str(src), str(out)])
    return code, warnings.read_text("utf-8") if warnings.exists() else ""


def fake_site(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "site.json").write_text("{}", "utf-8")
    (folder / "figure-710.html").write_text("<p>figure</p>", "utf-8")
    return folder


def test_directive_writes_a_lazy_titled_iframe_with_the_deep_link(tmp_path):
    site = fake_site(tmp_path / "site")
    code, warnings = build_docs(
        tmp_path / "src", tmp_path / "out", site, {"index.rst": INDEX, "more/second.rst": SECOND}
    )
    assert code == 0, warnings
    index = (tmp_path / "out" / "index.html").read_text("utf-8")
    assert (
        '<iframe src="_posviz/figure-710.html?pos=24" title="Clock hands at different speeds" '
        'loading="lazy"'
    ) in index
    assert "Drag pos: the right curve stays put." in index
    assert 'data-posviz-min-height="300"' in index and "height:300px" in index
    second = (tmp_path / "out" / "more" / "second.html").read_text("utf-8")
    assert 'src="../_posviz/figure-7256.html?k=12&amp;m=20"' in second
    assert "posviz-embed.js" in index
    assert (tmp_path / "out" / "_static" / "posviz-embed.js").is_file()
    assert (tmp_path / "out" / "_posviz" / "figure-710.html").read_text() == "<p>figure</p>"


@pytest.mark.parametrize(
    "directive, message",
    [
        (".. posviz-figure:: 999", "posviz-figure 999: there is no figure 999; the figures are"),
        (".. posviz-figure:: abc", "posviz-figure: 'abc' is not a figure id (a number)"),
        (
            ".. posviz-figure:: 710\n   :pos: 500",
            "posviz-figure 710: :pos: 500: must be at most 100, not 500. Its bounds are 0 to 100.",
        ),
        (
            ".. posviz-figure:: 710\n   :pos: twelve",
            "posviz-figure 710: :pos: twelve: must be a whole number from 0 to 100",
        ),
        (
            ".. posviz-figure:: 710\n   :d_model: 17",
            "posviz-figure 710: :d_model: 17: must be even, not 17.",
        ),
        (
            ".. posviz-figure:: 710\n   :speed: 3",
            "posviz-figure 710: figure 710 has no slider 'speed'; its sliders are pos, d_model",
        ),
    ],
)
def test_a_bad_directive_fails_the_build_naming_file_and_line(tmp_path, directive, message):
    site = fake_site(tmp_path / "site")
    page = f"Title\n=====\n\n{directive}\n"
    code, warnings = build_docs(tmp_path / "src", tmp_path / "out", site, {"index.rst": page})
    assert code != 0
    assert "index.rst:4" in warnings, warnings
    assert message in warnings, warnings
    assert "<iframe" not in (tmp_path / "out" / "index.html").read_text("utf-8")
    assert (tmp_path / "src" / "index.rst").read_text("utf-8") == page  # source untouched


def test_posviz_site_that_is_not_a_site_is_named(tmp_path):
    empty = tmp_path / "nothing"
    empty.mkdir()
    code, warnings = build_docs(
        tmp_path / "src", tmp_path / "out", empty, {"index.rst": "T\n=\n\n.. posviz-figure:: 710\n"}
    )
    assert code != 0
    assert f"{empty} is not a posviz site (no site.json)" in warnings
    assert list(empty.iterdir()) == []


def test_the_module_imports_neither_sphinx_nor_panel():
    import subprocess
    import sys

    probe = (
        "import sys, posviz.sphinx; "
        "print(sorted(m for m in ('sphinx', 'docutils', 'panel') if m in sys.modules))"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert result.stdout.strip() == "[]", result.stderr


# --- a real two-page project, in headless Chromium, network blocked ------------


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def docs(built_site, tmp_path_factory):
    root = tmp_path_factory.mktemp("docs")
    code, warnings = build_docs(
        root / "src", root / "out", built_site, {"index.rst": INDEX, "more/second.rst": SECOND}
    )
    assert code == 0, warnings
    (root / "out" / "evil.html").write_text(EVIL, "utf-8")
    handler = functools.partial(QuietHandler, directory=str(root / "out"))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def live_frames(page, count: int):
    page.wait_for_function(
        f"() => document.querySelectorAll('iframe[data-posviz-embed]').length === {count}"
    )
    frames = []
    for index in range(count):
        element = page.locator("iframe[data-posviz-embed]").nth(index)
        element.scroll_into_view_if_needed()
        frame = element.element_handle().content_frame()
        frame.wait_for_function(
            "() => document.body && document.body.dataset.posviz === 'live'", timeout=180_000
        )
        frames.append((element, frame))
    return frames


def assert_not_clipped(page, element):
    # The page inside reports its height and the iframe takes it: nothing is cut off.
    page.wait_for_function(
        "(e) => e.dataset.posvizHeight !== undefined", arg=element.element_handle()
    )
    frame = element.element_handle().content_frame()
    content = frame.evaluate(
        "() => Math.max(...[...document.body.children].map("
        "c => c.getBoundingClientRect().bottom + window.scrollY))"
    )
    box = element.bounding_box()
    assert box["height"] >= content, (box, content)
    assert frame.evaluate("document.documentElement.scrollHeight <= window.innerHeight + 1")


@pytest.mark.browser
def test_two_page_sphinx_project_goes_live_offline(docs, page, blocked):
    from tests.ui.conftest import slider_title

    page.goto(f"{docs}/index.html")
    frames = live_frames(page, 2)
    (hands, hands_frame), (budget, budget_frame) = frames
    assert hands.get_attribute("title") == "Clock hands at different speeds"
    assert slider_title(hands_frame, 0, 0) == "pos: 24"
    budget_frame.locator(".bk-slider-title", has_text="d_model: 1024").wait_for()
    for element, _ in frames:
        assert_not_clipped(page, element)
    # The 96 figure asked for 300 px, far less than it needs: it grew to fit.
    assert budget.bounding_box()["height"] > 400

    page.goto(f"{docs}/more/second.html")
    ((cost, cost_frame),) = live_frames(page, 1)
    assert slider_title(cost_frame, 0, 0) == "k (window side): 12"
    assert slider_title(cost_frame, 0, 1) == "m (axial span): 20"
    assert_not_clipped(page, cost)
    assert blocked == [], blocked
    assert page.errors == []


EVIL = """<script>
parent.postMessage({posviz: "height", height: 40}, "*");
</script>"""


@pytest.mark.browser
def test_height_messages_from_elsewhere_are_ignored(docs, page):
    page.goto(f"{docs}/index.html")
    (hands, hands_frame), _ = live_frames(page, 2)
    page.wait_for_function("(e) => e.dataset.posvizHeight", arg=hands.element_handle())
    height = hands.bounding_box()["height"]
    assert height > 100
    page.evaluate(
        "() => { window.heard = []; window.addEventListener('message',"
        " (e) => window.heard.push(e.origin)); }"
    )
    # The embedding page itself posts a height: not from the iframe, not heard.
    page.evaluate("() => window.postMessage({posviz: 'height', height: 40}, '*')")
    page.wait_for_function("() => window.heard.length === 1")
    assert hands.bounding_box()["height"] == height
    # The iframe is navigated to a page of another origin (localhost is not
    # 127.0.0.1) that posts a height: the origin is not the site's, not heard.
    hands_frame.goto(f"{docs.replace('127.0.0.1', 'localhost')}/evil.html")
    page.wait_for_function("() => window.heard.length === 2")
    assert page.evaluate("window.heard[1]").startswith("http://localhost:")
    assert hands.bounding_box()["height"] == height
    # The check can fail: the same message from the site's own origin is heard.
    hands_frame.goto(f"{docs}/evil.html")
    page.wait_for_function("() => window.heard.length === 3")
    page.wait_for_function(
        "(e) => e.getBoundingClientRect().height < 100", arg=hands.element_handle()
    )
