"""Figure pages at every width a docs column or a window has: the island is as tall as
the figure drawn in it, and nothing is clipped.

One browser page per figure, resized from 320 to 1600 px in steps of 20 px; at each
width ``widths_probe.js`` measures the island against the boxes drawn in it (a band
of blank room under the figure) and lists every legend, title, label or control that
is cut or outside its plot or island. The export is tested with Python held back (the
frames tier draws), and ``posviz serve`` with Python live.
"""

from pathlib import Path

import pytest

from posviz.figures import FIGURES
from tests.support.browser import Held, sealed_context
from tests.support.pages import new_page

pytestmark = pytest.mark.browser

PROBE = (Path(__file__).parent / "widths_probe.js").read_text("utf-8")
WIDTHS = range(320, 1601, 20)
CLEAR_FROM = 460  # narrower, titles drawn for wider plots are still cut (on the canvas)
BLANK = 8  # px of room the island may keep under its drawn figure
# The island's height and its canvases' count have held for three animation frames.
STABLE_JS = """() => new Promise((resolve) => {
  const island = document.querySelector('.posviz-island');
  let last = null, same = 0;
  const tick = () => {
    const now = [island.getBoundingClientRect().height, document.querySelectorAll('canvas').length]
      .join(':');
    same = now === last ? same + 1 : 0;
    last = now;
    if (same >= 3) resolve(true); else requestAnimationFrame(tick);
  };
  tick();
})"""


def measured(page, url: str, widths) -> dict[int, dict]:
    """The probe's findings at each width, the page opened once at 1280 px and resized."""
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(url)
    page.locator(".posviz-plot canvas").last.wait_for()
    found = {}
    for width in widths:
        page.set_viewport_size({"width": width, "height": 900})
        page.wait_for_function(STABLE_JS, timeout=15_000)
        found[width] = page.evaluate(PROBE)
    return found


def faults(found: dict[int, dict], figure: int, clear_from: int = CLEAR_FROM) -> list[str]:
    """One line per width where the island leaves a band of room or clips what it draws."""
    lines = []
    for width, probe in found.items():
        if probe["blank"] > BLANK:
            lines.append(f"figure {figure} at {width}px: {probe['blank']:.0f}px of blank room")
        if width >= clear_from and probe["clipped"]:
            lines.append(f"figure {figure} at {width}px: {'; '.join(probe['clipped'])}")
    return lines


@pytest.fixture(scope="module")
def exported(built_site):
    """The export with Python held back: each figure page is drawn by its frames."""
    with Held(built_site, "pyodide/*") as url:
        yield url


@pytest.fixture(scope="module")
def wide_page(browser):
    blocked = []
    context = sealed_context(browser, blocked)
    yield new_page(context)
    context.close()
    assert blocked == []


@pytest.mark.parametrize("figure", sorted(FIGURES))
def test_an_exported_figure_page_fits_every_width(exported, wide_page, figure):
    found = measured(wide_page, f"{exported}/figure-{figure}.html", WIDTHS)
    assert faults(found, figure) == []
    assert wide_page.errors == []


@pytest.mark.parametrize("figure", [710, 2108])
def test_a_served_figure_page_fits_every_width(served, wide_page, figure):
    found = measured(wide_page, f"{served}/figure-{figure}", WIDTHS)
    assert faults(found, figure) == []


@pytest.mark.xfail(strict=True, reason="phones: plot titles drawn for wider plots do not wrap")
@pytest.mark.parametrize("figure", [710, 2104, 2306])
def test_a_phone_clips_no_title_or_legend(exported, wide_page, figure):
    found = measured(wide_page, f"{exported}/figure-{figure}.html", range(320, CLEAR_FROM, 20))
    assert faults(found, figure, clear_from=0) == []
