"""The static export, offline: served from disk on loopback, nothing else reachable."""

import pytest

from tests.support.browser import static_server
from tests.support.pages import (  # noqa: F401  (open_live: kept importable from here)
    FINGERPRINT_JS,
    LIVE,
    figure_card,
    open_live,
    press_on_slider,
    slider_title,
    wait_for_change,
    wait_for_plot,
)

pytestmark = pytest.mark.browser

PLOTS = {
    96: "posviz-96-bars",
    710: "posviz-710-hands",
    7256: "posviz-7256-cost",
    4121: "posviz-4121-layers1",
}


def test_topic_page_goes_live_offline_and_every_figure_answers(static_site, page, blocked):
    page.goto(f"{static_site}/topic-positional-encoding.html")
    wait_for_plot(page, PLOTS[4121], timeout=10_000)  # pre-render, before Python
    assert page.evaluate("document.body.dataset.posviz") == "loading"

    def boxes():
        return [figure_card(page, i).bounding_box() for i in range(4)]

    page.evaluate("posvizLazy.joinAll()")  # the far ones too, without scrolling

    preview = boxes()
    page.wait_for_function("() => document.body.dataset.posviz !== 'loading'", timeout=LIVE)
    assert page.evaluate("document.body.dataset.posviz") == "live"
    for before, after in zip(
        preview, boxes(), strict=True
    ):  # no layout jump when Python takes over
        assert abs(before["y"] - after["y"]) <= 2 and abs(before["height"] - after["height"]) <= 2
    assert page.locator("ol.reading li").count() == 2
    seed = ["Self-attention 2", "Efficient attention 1", "Transformers 1"]
    chips = page.locator(".chip").all_inner_texts()
    assert [chip for chip in chips if chip in seed] == seed  # the seed's tags, counts, order
    for index, plot in enumerate(PLOTS.values()):
        before = wait_for_plot(page, plot)
        press_on_slider(page, index, 0)
        wait_for_change(page, plot, before)  # fails, with a timeout, if it never redraws
    assert blocked == [], blocked
    assert page.errors == []


@pytest.mark.parametrize("figure_id", list(PLOTS))
def test_every_figure_view_goes_live_offline(joined, figure_id):
    page, site, blocked = joined
    open_live(page, f"{site}/figure-{figure_id}.html")
    before = wait_for_plot(page, PLOTS[figure_id])
    press_on_slider(page, 0, 0)
    wait_for_change(page, PLOTS[figure_id], before)
    back = page.locator(".posviz-figure-block .muted a").last
    assert back.get_attribute("href").startswith("page-")
    assert ".html#section-" in back.get_attribute("href")
    assert blocked == [], blocked


def test_deep_link_sets_a_slider_in_the_export(joined):
    page, site, blocked = joined
    open_live(page, f"{site}/figure-710.html?pos=30")
    page.locator(".bk-slider-title", has_text="pos: 30").wait_for(timeout=15_000)
    assert slider_title(page, 0, 0) == "pos: 30"
    page.wait_for_function(  # the plot follows the slider: four marks at x = 30
        f"() => ({FINGERPRINT_JS})({PLOTS[710]!r}).split(' ; ').at(-1)"
        ".startsWith('position:4:120.000000')",
        timeout=15_000,
    )
    assert blocked == []


@pytest.mark.parametrize("missing", ["wheels/posviz-*.whl", "pyodide/pyodide.js"])
def test_a_missing_file_is_a_readable_message(built_site, page, missing):
    # The runtime's requests come from a SharedWorker, which page routing does
    # not see: the server itself withholds the file.
    with static_server(built_site, {missing: lambda original: None}) as url:
        page.goto(f"{url}/figure-96.html")
        page.wait_for_function("() => document.body.dataset.posviz === 'error'", timeout=LIVE)
        message = page.locator(".posviz-status").inner_text()
        assert "The live figures could not start" in message
        assert "404" in message or "pyodide.js" in message, message
        assert wait_for_plot(page, PLOTS[96]) is not None  # the preview stays on screen
