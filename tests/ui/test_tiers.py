"""Tier 2 of the export: once numpy is up in the worker, any state answers, before Panel.

The test server holds back Panel's wheel, so the worker gets as far as its
numpy tier and no further until the test lets go; then Panel takes over.
"""

from urllib.parse import parse_qsl, urlsplit

import pytest

from tests.support.browser import Held
from tests.support.pages import SEARCH_IS, figure_card, wait_for_url_with

pytestmark = pytest.mark.browser
LIVE = 120_000
PANEL = "wheels/panel-*"
# The numpy tier's wheels: numpy, and the figures' models (posviz and param).
NUMPY, POSVIZ, PARAM = "pyodide/numpy-*.whl", "wheels/posviz-*.whl", "wheels/param-*.whl"


def press(page, slider: int, times: int = 1):
    handle = figure_card(page, 0).locator(".noUi-handle").nth(slider)
    handle.focus()
    for _ in range(times):
        handle.press("ArrowRight")


def readout(page) -> str:
    return " ".join(figure_card(page, 0).locator(".posviz-readout p").all_inner_texts())


def drawn(page, plot: str) -> bool:
    """Whether every renderer of the named plot is shown (none hidden as 'Computing…')."""
    return page.evaluate(
        f"() => Bokeh.documents[0].get_model_by_name({plot!r}).renderers.every(r => r.visible)"
    )


def test_two_sliders_answer_from_numpy_before_panel_and_panel_keeps_them(built_site, page, blocked):
    held = Held(built_site, PANEL)
    with held as url:
        page.goto(f"{url}/figure-7256.html")
        page.wait_for_function(
            "() => document.body.dataset.posvizFrames === 'ready'", timeout=60_000
        )
        press(page, 0)
        press(page, 1)  # k and m both moved: no precomputed frame holds it
        page.wait_for_function("() => posvizFrames.state[7256] === 'python'", timeout=LIVE)
        assert page.evaluate("document.body.dataset.posviz") == "loading"  # Panel is held back
        assert "k = 8, m = 33" in readout(page)
        assert drawn(page, "posviz-7256-cost")
        assert (
            page.evaluate("Bokeh.documents[0].get_model_by_name('posviz-7256-cost').title.text")
            == "k = 8, m = 33"
        )
        # Set in tier 2: a third step, answered by numpy again.
        press(page, 1)
        page.wait_for_function(SEARCH_IS, arg={"k": "8", "m": "34"})
        page.wait_for_function(
            "() => posvizFrames.state[7256] === 'python'"
            " && posvizFrames.figures[7256].values.m === 34",
            timeout=30_000,
        )
        assert "m = 34" in readout(page)
        held.release()
        page.wait_for_function("() => document.body.dataset.posviz !== 'loading'", timeout=LIVE)
        assert page.evaluate("document.body.dataset.posviz") == "live"
        page.locator(".posviz-readout p", has_text="k = 8, m = 34").first.wait_for(timeout=LIVE)
        written = wait_for_url_with(page, "k=8", "m=34")
        assert dict(parse_qsl(urlsplit(written).query)) == {"k": "8", "m": "34"}
        assert blocked == [] and page.errors == []


def test_a_deep_link_with_three_values_answers_from_numpy(built_site, page, blocked):
    same = lambda data: data  # noqa: E731
    held = Held(built_site, PANEL, extra={NUMPY: same, POSVIZ: same, PARAM: same})
    with held as url:
        page.goto(f"{url}/figure-4121.html?scheme=axial&side=10&row=9")
        page.wait_for_function("() => posvizFrames.state[4121] === 'python'", timeout=LIVE)
        assert page.evaluate("document.body.dataset.posviz") == "loading"
        text = readout(page)
        assert "scheme axial" in text and "row 9, column 8 of a 10×10 image" in text
        assert drawn(page, "posviz-4121-layers1")
        # The two grids hold the axial cross through (9, 8): 10 + 10 - 1 cells after one layer.
        assert "19 pixels after one layer" in text
        assert blocked == [] and page.errors == []
        # The numpy tier's wheels were fetched once each (loadPackage got numpy's
        # bytes from the worker), all three before any file only Panel's tier needs.
        assert sorted(held.requested[:3]) == sorted([NUMPY, POSVIZ, PARAM]), held.requested
        assert [held.requested.count(p) for p in (NUMPY, POSVIZ, PARAM)] == [1, 1, 1]
