"""Figure pages at every width a docs column or a window has: the island keeps the
figure's room before it is drawn, is as tall as the figure drawn in it, and nothing
is clipped.

Two browser pages per figure, resized from 320 to 1600 px in steps of 20 px (and at
the docs-column band's edges, 655 and 850 px; the drawn one also at a phone's 280 and
288 px, where only its controls are checked): one
with BokehJS blocked, where the island holds the room it keeps before the draw
(``drawing.layout.island_room``), and one drawn, where at each width
``widths_probe.js`` measures the island against the boxes drawn in it (a band of
blank room under the figure) and lists every legend, title, label or control that
is cut or outside its plot or island, and every legend inside a plot area that covers
the data it names. The export is tested with Python held back
(the frames tier draws), and ``posviz serve`` with Python live, at fewer widths
(``SERVED_WIDTHS``: its layout is the export's).
"""

import re
from pathlib import Path

import pytest

from posviz.figures import FIGURES
from tests.support.browser import Held, sealed_context
from tests.support.pages import new_page

pytestmark = pytest.mark.browser

PROBE = (Path(__file__).parent / "widths_probe.js").read_text("utf-8")
# Every 20 px, and the docs-column band's edges and its common widths inside (655 and
# 850 px; Material's content column with a raw iframe, 688 px; Pandoc's page, 700 px).
WIDTHS = sorted({*range(320, 1601, 20), 655, 688, 700, 850})
# A served figure page has the export's layout (the same figure layout, template and
# stylesheets; only who draws it differs), which the export's sweep walks every 20 px:
# under serve, the docs-column band every 20 px, its edges, a phone and the widest.
SERVED_WIDTHS = sorted({320, 390, *range(600, 901, 20), 655, 688, 700, 850, 1280, 1600})
# The narrowest phone screens (a folded Galaxy Z Fold's is 280 px; Material's column on a
# 320 px phone is 288): the controls give way and stay in the island. Only that is
# checked there: below 320 px 96's bar labels overhang its plot area by up to 7 px.
PHONES = (280, 288)
BLANK = 8  # px of room the island may keep under its drawn figure
OFF = 8  # px the room kept before the draw may differ from the figure drawn
BOKEHJS = re.compile(r"/bokeh[^/?]*\.js(\?|$)")
ISLAND_HEIGHT_JS = "() => document.querySelector('.posviz-island').getBoundingClientRect().height"
# The page has loaded (its stylesheets too: a served page's may still be on their way
# when its HTML has been laid out, and the ones Bokeh links inside its shadow roots
# load after the page's, without holding readyState back: each must have its sheet),
# and the island's height, its width, and every canvas's box (Bokeh lays a resized
# plot out over several frames, its canvases last) have held for five animation frames.
STABLE_JS = """(width) => new Promise((resolve) => {
  const island = document.querySelector('.posviz-island');
  let pending = 0;
  const boxes = (root, out = []) => {
    for (const el of root.querySelectorAll('*')) {
      if (el.tagName === 'CANVAS') {
        const r = el.getBoundingClientRect();
        out.push(`${r.width}x${r.height}`);
      }
      if (el.tagName === 'LINK' && el.rel === 'stylesheet' && !el.sheet) pending += 1;
      if (el.shadowRoot) boxes(el.shadowRoot, out);
    }
    return out;
  };
  let last = null, same = 0;
  const tick = () => {
    const r = island.getBoundingClientRect();
    pending = 0;
    const now = [window.innerWidth, r.width, r.height, ...boxes(document)].join(':');
    const loaded = document.readyState === 'complete' && pending === 0;
    const settled = window.innerWidth === width && loaded;
    same = now === last && settled ? same + 1 : 0;
    last = now;
    if (same >= 5) resolve(true); else requestAnimationFrame(tick);
  };
  tick();
})"""


def measured(page, url: str, widths) -> dict[int, dict]:
    """The probe's findings at each width, the page opened once at 1280 px and resized."""
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(url, wait_until="domcontentloaded")
    page.locator(".posviz-plot canvas:not(.bk-glyph)").last.wait_for()
    found = {}
    for width in widths:
        page.set_viewport_size({"width": width, "height": 900})
        page.wait_for_function(STABLE_JS, arg=width, timeout=15_000)
        found[width] = page.evaluate(PROBE)
    return found


def rooms(page, url: str, widths) -> dict[int, float]:
    """The island's height at each width before the figure is drawn (BokehJS never loads)."""
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(url, wait_until="domcontentloaded")
    page.locator(".posviz-room").wait_for(state="attached")  # hidden: it is room, not content
    found = {}
    for width in widths:
        page.set_viewport_size({"width": width, "height": 900})
        # The room follows the width through the page's resize handling: wait until it holds.
        page.wait_for_function(STABLE_JS, arg=width, timeout=15_000)
        found[width] = page.evaluate(ISLAND_HEIGHT_JS)
    assert page.evaluate("typeof Bokeh") == "undefined", f"{url} was drawn: no room measured"
    return found


def faults(found: dict[int, dict], figure: int, room: dict[int, float]) -> list[str]:
    """One line per width where the room kept before the draw is off, where the drawn
    island leaves a band of room, or where it clips what it draws."""
    lines = []
    for width, probe in found.items():
        if abs(room[width] - probe["island"]) > OFF:
            lines.append(
                f"figure {figure} at {width}px: room {room[width]:.0f}px before the draw,"
                f" {probe['island']:.0f}px drawn"
            )
        if probe["blank"] > BLANK:
            lines.append(f"figure {figure} at {width}px: {probe['blank']:.0f}px of blank room")
        if probe["clipped"]:
            lines.append(f"figure {figure} at {width}px: {'; '.join(probe['clipped'])}")
    return lines


def outside(found: dict[int, dict], figure: int) -> list[str]:
    """One line per control (or anything else) drawn outside the island, at each width."""
    return [
        f"figure {figure} at {width}px: {line}"
        for width, probe in found.items()
        for line in probe["clipped"]
        if line.endswith("outside the island")
    ]


@pytest.fixture(scope="module")
def exported(built_site):
    """The export with Python held back: each figure page is drawn by its frames."""
    with Held(built_site, "pyodide/*") as url:
        yield url


def sealed_page(browser, blocked: list):
    """A page of a sealed context of its own; service workers off: the page is measured,
    not an offline copy of it."""
    context = sealed_context(browser, blocked, service_workers="block")
    return context, new_page(context)


@pytest.fixture(scope="module")
def wide_page(browser):
    blocked = []
    context, page = sealed_page(browser, blocked)
    yield page
    context.close()
    assert blocked == []


@pytest.fixture(scope="module")
def undrawn_page(browser):
    """A page whose BokehJS never loads: its islands keep the room they keep before the draw."""
    blocked = []
    context, page = sealed_page(browser, blocked)
    # A served page asks for static/js/bokeh.min.js?v=…, the export for bokeh-3.….min.js.
    page.route(BOKEHJS, lambda route: route.abort())
    yield page
    context.close()
    assert blocked == []


@pytest.mark.parametrize("figure", sorted(FIGURES))
def test_an_exported_figure_page_fits_every_width(exported, wide_page, undrawn_page, figure):
    url = f"{exported}/figure-{figure}.html"
    room = rooms(undrawn_page, url, WIDTHS)
    found = measured(wide_page, url, [*PHONES, *WIDTHS])
    assert outside({width: found.pop(width) for width in PHONES}, figure) == []
    assert faults(found, figure, room) == []
    assert wide_page.errors == []


@pytest.mark.parametrize("figure", sorted(FIGURES))
def test_a_served_figure_page_fits_every_width(served, wide_page, undrawn_page, figure):
    url = f"{served}/figure-{figure}"
    room = rooms(undrawn_page, url, SERVED_WIDTHS)
    found = measured(wide_page, url, SERVED_WIDTHS)
    assert faults(found, figure, room) == []
