"""Lazy join (export/lazy.js): a figure far below the fold gets no view until the reader
scrolls near it; then it is drawn, in the preview or in the live document, and answers.

The topic page at 1280×900 shows four figures; 4121 is the last, two screens down.
The network is blocked for every page (``blocked`` stays empty).
"""

import pytest
from playwright.sync_api import expect

from tests.support.browser import Held, sealed_context
from tests.support.pages import (
    LIVE,
    fingerprint,
    new_page,
    press_on_slider,
    wait_for_change,
    wait_for_plot,
    wait_for_url_with,
)

pytestmark = pytest.mark.browser
TOPIC = "topic-positional-encoding.html"


def topic_figures() -> list[int]:
    """The figures the topic page shows, in its order (as content places them)."""
    from posviz import content
    from tests.support.compose import CONTENT

    site = content.load(CONTENT)
    uses = site.figure_uses(site.topics["positional-encoding"])
    return list(dict.fromkeys(use.figure_id for use in uses))


TOPIC_FIGURES = topic_figures()
FAR, FAR_INDEX, FAR_PLOT = 4121, 3, "posviz-4121-layers1"
NEAR_PLOT = "posviz-96-bars"  # the topic's first figure's
PAINTED = (
    "() => window.posvizLazy && Bokeh.index.roots.length"
    " && Bokeh.index.roots.every(v => v.has_finished())"
)


def island(page, figure: int):
    return page.locator(f".posviz-island[data-figure='{figure}']")


def views_of(page, figure: int) -> int:
    """How many Bokeh root views draw into the figure's island."""
    return page.evaluate(
        """(id) => Bokeh.index.roots.filter(v => v.el && v.el.isConnected
             && v.el.closest(`.posviz-island[data-figure='${id}']`)).length""",
        figure,
    )


def test_a_far_figure_waits_then_answers_from_its_frames_once_scrolled_to(
    built_site, page, blocked
):
    with Held(built_site, "pyodide/*") as url:  # no Python at all: the preview alone
        page.goto(f"{url}/{TOPIC}")
        page.wait_for_function(PAINTED, timeout=30_000)
        far = island(page, FAR)
        assert FAR in page.evaluate("posvizLazy.waiting()")
        expect(far).to_have_attribute("data-posviz-island", "waiting")
        assert views_of(page, FAR) == 0 and views_of(page, 96) == 1
        # Never a blank box: the island keeps its figure's room and says what comes.
        room = far.bounding_box()["height"]
        assert room == far.locator(".posviz-room").bounding_box()["height"] > 300, room
        label = page.evaluate(
            "(el) => getComputedStyle(el, '::before').content",
            far.element_handle(),
        )
        assert "Drawing the live figure" in label
        # Its models are in the document all along (frames and deep links reach them).
        before = fingerprint(page, FAR_PLOT)
        assert before is not None

        below = page.locator("#figure-4121 figcaption")
        top_before = below.bounding_box()["y"] - far.bounding_box()["y"]
        far.scroll_into_view_if_needed()
        expect(far).to_have_attribute("data-posviz-island", "drawn")
        assert views_of(page, FAR) == 1
        assert FAR in page.evaluate("posvizLazy.joined")
        top_after = below.bounding_box()["y"] - far.bounding_box()["y"]
        assert abs(top_after - top_before) <= 0.1 * top_before, (top_before, top_after)

        page.wait_for_function("() => document.body.dataset.posvizFrames === 'ready'")
        press_on_slider(page, FAR_INDEX, 0)  # image side, from a precomputed frame
        wait_for_change(page, FAR_PLOT, before)
        assert page.evaluate(f"posvizFrames.state[{FAR}]") == "frame"
        wait_for_url_with(page, "4121.side=")
        assert page.evaluate("document.body.dataset.posviz") == "loading"  # Python held back
    assert blocked == [] and page.errors == []


def test_a_figure_scrolled_to_after_python_arrives_joins_the_live_document(joined):
    """The topic joins a running Python (conftest's ``reader``): Python's document comes
    while the far figure is still off screen."""
    page, site, blocked = joined
    page.goto(f"{site}/{TOPIC}")
    page.wait_for_function("() => document.body.dataset.posviz !== 'loading'", timeout=LIVE)
    assert page.evaluate("document.body.dataset.posviz") == "live"
    far = island(page, FAR)
    # Python's document came, and the far figure still has no view in it.
    expect(far).to_have_attribute("data-posviz-island", "waiting")
    assert views_of(page, FAR) == 0
    far.scroll_into_view_if_needed()
    expect(far).to_have_attribute("data-posviz-island", "drawn")
    drawn_from_live = """(id) => Bokeh.index.roots
        .find((v) => v.el && v.el.closest(`.posviz-island[data-figure='${id}']`))
        .model.document === posvizWorker.jsdoc"""
    assert page.evaluate(drawn_from_live, FAR), "drawn from another document than Python's"
    before = wait_for_plot(page, FAR_PLOT)
    press_on_slider(page, FAR_INDEX, 0)
    after = wait_for_change(page, FAR_PLOT, before)  # Python computed it: frames stop at live
    assert after != before
    page.wait_for_function("() => location.search.includes('4121.side=17')")
    assert blocked == [] and page.errors == []


# Scroll the island 150 px below the fold; the frame its figure is joined, scroll it into
# view, as a reader who follows a link to it at that moment; then, once the island has let
# go of its room's height and five frames have passed, say where it is and how short it
# ever got.
SCROLLED_AT_JOIN_JS = """(id) => {
  const island = document.querySelector(`.posviz-island[data-figure="${id}"]`);
  window.scrollBy(0, island.getBoundingClientRect().top - innerHeight - 150);
  const watch = window.posvizJoinWatch = {room: island.getBoundingClientRect().height,
    lowest: Infinity, landed: false, calm: 0, done: false, top: null};
  const tick = () => {
    if (!watch.landed && posvizLazy.joined.includes(id)) {
      island.scrollIntoView();
      watch.landed = true;
    }
    if (watch.landed) {
      watch.lowest = Math.min(watch.lowest, island.getBoundingClientRect().height);
      watch.calm = island.style.minHeight === "" ? watch.calm + 1 : 0;
    }
    if (watch.calm >= 5) {
      watch.top = island.getBoundingClientRect().top;
      watch.done = true;
    } else requestAnimationFrame(tick);
  };
  tick();
}"""


def test_a_figure_joined_as_the_reader_scrolls_to_it_keeps_its_room_and_its_place(joined):
    """The island keeps its room's height until the figure drawn in it is as tall
    (lazy.js): dropped at once, the island was 0 px tall for about 300 ms, and Chromium's
    scroll anchoring carried a reader who had just scrolled to it 1,555 px past it."""
    page, site, blocked = joined
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{site}/{TOPIC}")
    page.wait_for_function("() => document.body.dataset.posviz === 'live'", timeout=LIVE)
    shifted = TOPIC_FIGURES[3]  # two screens and more below the top at 390 px
    assert shifted in page.evaluate("posvizLazy.waiting()")
    page.evaluate(SCROLLED_AT_JOIN_JS, shifted)
    page.wait_for_function("() => window.posvizJoinWatch.done", timeout=LIVE)
    watch = page.evaluate("window.posvizJoinWatch")
    assert watch["room"] > 300, watch
    assert watch["lowest"] >= watch["room"] - 8, f"the island shrank below its room: {watch}"
    assert abs(watch["top"]) <= 1, f"the reader was moved off the figure: {watch}"
    assert blocked == [] and page.errors == []


def test_python_sends_the_drawn_figures_first_and_fills_the_others_once_live(joined):
    """Python's document holds the figures the preview drew; each other island's root
    comes as an empty shell, filled after the page is live, in page order."""
    page, site, blocked = joined
    page.goto(f"{site}/{TOPIC}")
    page.wait_for_function("() => document.body.dataset.posviz === 'live'", timeout=LIVE)
    drawn = page.evaluate("posvizLazy.drawnBefore")
    assert drawn and FAR not in drawn
    far = [figure for figure in TOPIC_FIGURES if figure not in drawn]
    assert page.evaluate("posvizLazy.shelled") == far
    page.wait_for_function("() => window.posvizFilled", timeout=LIVE)
    assert page.evaluate("posvizLazy.filled") == far
    assert page.evaluate("posvizLazy.unfilled()") == []
    # Filled, a far figure is drawn whole when the reader comes, and answers from Python.
    island(page, FAR).scroll_into_view_if_needed()
    expect(island(page, FAR)).to_have_attribute("data-posviz-island", "drawn")
    before = wait_for_plot(page, FAR_PLOT)
    press_on_slider(page, FAR_INDEX, 0)
    assert wait_for_change(page, FAR_PLOT, before) != before
    assert blocked == [] and page.errors == []


def test_no_figure_is_filled_while_the_reader_s_pointer_rests_on_a_slider(joined):
    """A reader who rests the pointer on a figure's slider holds the fills back
    (export/lazy.js says "hold"; worker.js, fill_gate.js): a slider moved then is
    answered by Python with no figure built before it. The key pressed holds too,
    while the slider keeps the focus; once pointer and focus have left, every shell
    is filled."""
    page, site, blocked = joined
    page.goto(f"{site}/{TOPIC}")
    page.wait_for_function(PAINTED, timeout=30_000)
    first = TOPIC_FIGURES[0]
    handle = island(page, first).locator(".noUi-handle").first
    handle.hover()  # on the preview, before the page is live
    page.wait_for_function("() => document.body.dataset.posviz === 'live'", timeout=LIVE)
    assert page.evaluate("posvizLazy.shelled") != []
    before = wait_for_plot(page, NEAR_PLOT)
    handle.focus()
    handle.press("ArrowRight")  # the pointer stays on the slider
    assert wait_for_change(page, NEAR_PLOT, before) != before  # live: Python's answer
    assert page.evaluate("posvizLazy.filled") == []
    assert page.evaluate("posvizLazy.holds") == [True]
    title = page.locator("main h1").first
    title.hover()  # the pointer has left; the keys still hold while the slider has the focus
    assert page.evaluate("posvizLazy.holds") == [True]
    title.click()  # the focus leaves the controls: both have let go
    page.wait_for_function("() => window.posvizFilled", timeout=LIVE)
    assert page.evaluate("posvizLazy.holds") == [True, False]
    assert page.evaluate("posvizLazy.unfilled()") == []
    assert blocked == [] and page.errors == []


def test_a_figure_not_yet_filled_that_the_reader_scrolls_to_ends_the_hold_and_goes_first(
    joined,
):
    """The pointer rests on the first figure's slider from before the page is live, so
    nothing is filled; the reader then scrolls to the last figure, a shell: the hold
    ends, and Python fills that figure before the others."""
    page, site, blocked = joined
    page.goto(f"{site}/{TOPIC}")
    page.wait_for_function(PAINTED, timeout=30_000)
    island(page, TOPIC_FIGURES[0]).locator(".noUi-handle").first.hover()
    page.wait_for_function("() => document.body.dataset.posviz === 'live'", timeout=LIVE)
    last = TOPIC_FIGURES[-1]
    assert page.evaluate("posvizLazy.shelled")[-1] == last
    assert page.evaluate("posvizLazy.filled") == []
    island(page, last).scroll_into_view_if_needed()
    expect(island(page, last)).to_have_attribute("data-posviz-island", "drawn", timeout=LIVE)
    assert page.evaluate("posvizLazy.filled")[0] == last
    assert page.evaluate("posvizLazy.holds") == [True, False]
    page.wait_for_function("() => window.posvizFilled", timeout=LIVE)
    assert blocked == [] and page.errors == []


def test_a_deep_link_reaches_a_far_figure_before_it_is_drawn(static_site, page, blocked):
    page.goto(f"{static_site}/{TOPIC}?4121.row=3")
    page.wait_for_function(PAINTED, timeout=30_000)
    page.wait_for_function("() => document.body.dataset.posvizFrames === 'ready'")
    assert FAR in page.evaluate("posvizLazy.waiting()")
    far = island(page, FAR)
    far.scroll_into_view_if_needed()
    expect(far).to_have_attribute("data-posviz-island", "drawn")
    expect(far.locator(".posviz-readout p").first).to_contain_text("query at row 3, column 8")
    assert blocked == [] and page.errors == []


def test_printing_draws_every_waiting_figure(static_site, page):
    page.goto(f"{static_site}/{TOPIC}")
    page.wait_for_function(PAINTED, timeout=30_000)
    assert page.evaluate("posvizLazy.waiting()") != []
    page.emulate_media(media="print")
    page.wait_for_function("() => posvizLazy.waiting().length === 0", timeout=15_000)
    for figure in TOPIC_FIGURES:
        assert views_of(page, figure) == 1, figure
    assert page.errors == []


ISLANDS_JS = """() => [...document.querySelectorAll('.posviz-island')]
  .map((el) => [Number(el.dataset.figure), el.getBoundingClientRect().height])"""


@pytest.mark.parametrize("width", [1280, 768, 390])
def test_each_figure_s_room_fits_the_figure_drawn_in_it(browser, static_site, width):
    """The room an island keeps before its figure is drawn (drawing.layout.island_room)
    is the figure's height drawn, within 8 px, for every figure of an article."""
    blocked = []
    context = sealed_context(
        browser, blocked, viewport={"width": width, "height": 900}, service_workers="block"
    )
    try:
        undrawn = new_page(context)
        undrawn.route("**/bokeh*.js", lambda route: route.abort())  # never drawn
        undrawn.goto(f"{static_site}/{TOPIC}", wait_until="domcontentloaded")
        undrawn.locator(".posviz-room").last.wait_for(state="attached")
        rooms = undrawn.evaluate(ISLANDS_JS)
        page = new_page(context)
        page.goto(f"{static_site}/{TOPIC}")
        page.wait_for_function(PAINTED, timeout=30_000)
        page.evaluate("posvizLazy.joinAll()")
        page.wait_for_function("() => posvizLazy.waiting().length === 0")
        page.wait_for_function(PAINTED)
        drawn = page.evaluate(ISLANDS_JS)
        assert [figure for figure, _ in rooms] == [figure for figure, _ in drawn] == TOPIC_FIGURES
        for (figure, room), (_, height) in zip(rooms, drawn, strict=True):
            assert abs(room - height) <= 8, (
                f"figure {figure} at {width}px: room {room}, drawn {height}"
            )
        assert blocked == [] and page.errors == []
    finally:
        context.close()
