"""What the browser tests share: reading plots, moving sliders, waiting on pages.

Plain helpers over a Playwright page; the fixtures that make pages live in
tests/ui/conftest.py. The scripts they run in the page are files beside this one.
"""

from pathlib import Path

from playwright.sync_api import expect


def script(name: str) -> str:
    """A function expression from a .js file beside this module, its heading comment dropped."""
    lines = (Path(__file__).with_name(name)).read_text("utf-8").splitlines()
    while lines and lines[0].startswith("//"):
        lines.pop(0)
    return "\n".join(lines).strip()


FINGERPRINT_JS = script("fingerprint.js")
DEEP_FOCUS_JS = script("deep_focus.js")
CANVAS_EDGES_JS = script("canvas_edges.js")  # (paper) => {canvases, wrong}
# Scripts to run before a page's own (add_init_script, or injected first in its <head>).
STATUS_HISTORY_JS = script("status_history.js")
RUNTIME_HISTORY_JS = script("runtime_history.js")
SERIOUS = {"serious", "critical"}
LIVE = 120_000  # a cold Pyodide start on 2 cores takes ~10 s; leave room for a loaded CI


# True once the URL's query holds exactly ``want`` ({key: text}), in any order: a
# slider's setting is written first when it moves, so the order says when, not what.
SEARCH_IS = """(want) => {
  const query = new URLSearchParams(location.search);
  return [...query].length === Object.keys(want).length
    && Object.entries(want).every(([key, value]) => query.get(key) === value);
}"""


class Blocked(list):
    """URLs that tried to leave the machine."""


def new_page(context):
    """A page of ``context`` that records its uncaught errors in ``page.errors``."""
    opened = context.new_page()
    opened.errors = []
    opened.on("pageerror", lambda error: opened.errors.append(str(error)))
    return opened


def fingerprint(page, name: str):
    return page.evaluate(FINGERPRINT_JS, name)


def wait_for_plot(page, name: str, timeout: float = 30_000):
    page.wait_for_function(f"() => ({FINGERPRINT_JS})({name!r}) !== null", timeout=timeout)
    return fingerprint(page, name)


def figure_card(page, index: int):
    """The drawn card of the page's figure number ``index``, reached as a reader would.

    A far island waits to be drawn until it is scrolled near (export/lazy.js): scroll
    to it and wait until it is drawn. A page without islands counts Bokeh's cards.
    """
    islands = page.locator(".posviz-island")
    if not islands.count():
        return page.locator(".posviz-figure").nth(index)
    island = islands.nth(index)
    if island.get_attribute("data-posviz-island") == "waiting":
        island.scroll_into_view_if_needed()
        expect(island).to_have_attribute("data-posviz-island", "drawn")
    return island.locator(".posviz-figure")


def press_on_slider(page, figure_index: int, slider_index: int, key: str = "ArrowRight"):
    handle = figure_card(page, figure_index).locator(".noUi-handle").nth(slider_index)
    handle.focus()
    handle.press(key)


def slider_title(page, figure_index: int, slider_index: int) -> str:
    return (
        figure_card(page, figure_index).locator(".bk-slider-title").nth(slider_index).inner_text()
    )


def wait_for_change(page, name: str, before: str, timeout: float = 15_000) -> str:
    page.wait_for_function(
        f"(before) => ({FINGERPRINT_JS})({name!r}) !== before", arg=before, timeout=timeout
    )
    return fingerprint(page, name)


def wait_for_url_with(page, *parts: str, timeout: float = 10_000) -> str:
    """The page's URL once it holds every part. posviz writes the URL at most once
    per 250 ms (compose/url_gate.js), so a URL read right after a move can lag it."""
    page.wait_for_function(
        "(parts) => parts.every((part) => location.href.includes(part))",
        arg=list(parts),
        timeout=timeout,
    )
    return page.url


def axe_serious(page) -> list[str]:
    from axe_playwright_python.sync_playwright import Axe

    violations = Axe().run(page).response["violations"]
    return [
        f"{v['id']} ({v['impact']}, {len(v['nodes'])} nodes): {v['help']}"
        for v in violations
        if v["impact"] in SERIOUS
    ]


def settle(page, state="networkidle"):
    """Wait until the page's figures are drawn and the page script has labelled them.

    Under serve, networkidle means the server has sent the page's models. An exported
    page never reaches networkidle (30 s timeouts): it has gone live already, so "load".
    """
    page.wait_for_load_state(state)
    # The page's HTML says whether it holds figures (each is a figure block in the
    # text); Bokeh may not have drawn them yet, so wait for that rather than count them.
    if page.locator(".posviz-figure-block").count():
        page.wait_for_function(
            "() => window.__posvizAccess && window.Bokeh && Bokeh.documents.length"
        )
        page.locator(".posviz-figure").first.wait_for(state="attached")
        page.locator(".noUi-handle[aria-label]").first.wait_for(state="attached")
        # The page script labels handles as their sliders render: wait for all of them.
        expect(page.locator(".noUi-handle:not([aria-label])")).to_have_count(0)
        page.locator(".posviz-readout[aria-live='polite']").first.wait_for(state="attached")


def deep_focus(page):
    return page.evaluate(DEEP_FOCUS_JS)


def open_live(page, url):
    page.goto(url)
    # The pre-rendered figures are there before Python is.
    assert page.evaluate("document.body.dataset.posviz") in ("loading", "live")
    page.wait_for_function("() => document.body.dataset.posviz !== 'loading'", timeout=LIVE)
    state = page.evaluate("document.body.dataset.posviz")
    assert state == "live", page.locator(".posviz-status").inner_text()
