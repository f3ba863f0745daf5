"""`posviz serve` as a reader meets it, in headless Chromium."""

import re
import time

import pytest
from playwright.sync_api import expect

from tests.support.browser import free_port, posviz_server
from tests.support.pages import (
    fingerprint,
    press_on_slider,
    slider_title,
    wait_for_change,
    wait_for_plot,
    wait_for_url_with,
)

pytestmark = pytest.mark.browser

# (figure id, plot to watch, index of the slider moved in that figure)
FIGURES = [
    (96, "posviz-96-bars", 0),
    (710, "posviz-710-hands", 0),
    (7256, "posviz-7256-cost", 0),
    (4121, "posviz-4121-layers1", 0),
]


def test_topic_page_reads_right_and_every_figure_answers_its_slider(served, page, blocked):
    page.goto(f"{served}/topic-positional-encoding")
    wait_for_plot(page, "posviz-4121-layers1")
    expect(page.locator("text=Topic · Mechanisms")).to_be_visible()
    expect(page.locator("h1", has_text="Positional encoding")).to_be_visible()
    order = page.locator("ol.reading li").all_inner_texts()
    assert order == [
        "Paper · read first: Query, Key, Value — Dot-Product Attention from Scratch",
        "Read · read first: Attention Before Transformers — Score, Squash, Multiply",
    ]
    attributions = [text for text in page.locator(".posviz-figure-block .muted").all_inner_texts()]
    assert attributions[:4] == [  # the seed's four, first; the later pages' figures follow
        "From Attention Is All You Need — The Transformer, Block by Block › 2. The Encoder Layer",
        "From Attention Is All You Need — The Transformer, Block by Block › "
        "4. Embeddings and Positional Encoding",
        "From Attention Meets Pixels — Windows, Axes and the First Fully Attentional Networks › "
        "1. Why n² Kills Images",
        "From Attention Meets Pixels — Windows, Axes and the First Fully Attentional Networks › "
        "4. Axes: Attention One Axis at a Time",
    ]
    seed = ["Self-attention 2", "Efficient attention 1", "Transformers 1"]
    chips = page.locator(".chip").all_inner_texts()
    assert [chip for chip in chips if chip in seed] == seed  # the seed's tags, counts, order

    for index, (_, plot, slider) in enumerate(FIGURES):
        before = wait_for_plot(page, plot)
        press_on_slider(page, index, slider)
        wait_for_change(page, plot, before)  # fails, with a timeout, if it never redraws
    wait_for_url_with(page, "710.pos=13")
    assert blocked == [] and page.errors == []


def test_deep_link_sets_the_slider_and_the_plot(served, page):
    page.goto(f"{served}/topic-positional-encoding?710.pos=30&4121.side=10&4121.row=9")
    wait_for_plot(page, "posviz-4121-layers1")
    assert slider_title(page, 1, 0) == "pos: 30"
    marker = fingerprint(page, "posviz-710-hands").split(" ; ")[-1]
    assert marker.startswith("position:4:120.000000")  # four marks at x = 30
    expect(
        page.get_by_text("query at row 9, column 8 of a 10×10 image").filter(visible=True)
    ).to_be_visible()
    expect(page.locator(".posviz-notice")).to_be_hidden()  # none, or none shown


def test_figure_view_takes_bare_names_and_links_back(served, page):
    page.goto(f"{served}/figure-710?pos=40")
    wait_for_plot(page, "posviz-710-hands")
    assert slider_title(page, 0, 0) == "pos: 40"
    back = page.locator("a", has_text="4. Embeddings and Positional Encoding")
    assert back.get_attribute("href") == "page-attention-is-all-you-need#section-4"


def test_bad_deep_link_shows_a_notice_and_the_page_still_works(served, page, blocked):
    page.goto(
        f"{served}/topic-positional-encoding?710.pos=abc&4121.side=999&zzz=1"
        "&%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E=1"
    )
    wait_for_plot(page, "posviz-710-hands")
    notice = page.locator(".posviz-notice")
    notice.wait_for(state="visible")
    notice.locator("li").nth(3).wait_for()  # the pane shows before its list is drawn
    text = "\n".join(notice.locator("li").all_inner_texts())
    assert "710.pos=abc" in text and "whole number from 0 to 100" in text
    assert "side=999" in text and "from 8 to 64" in text
    assert "zzz=1" in text
    assert "<img src=x onerror=alert(1)>=1" in text  # shown as text, never as markup
    assert page.locator(".posviz-notice img").count() == 0
    assert slider_title(page, 1, 0) == "pos: 12"
    before = fingerprint(page, "posviz-710-hands")
    press_on_slider(page, 1, 0)
    wait_for_change(page, "posviz-710-hands", before)
    assert blocked == [] and page.errors == []


def test_section_link_scrolls_to_its_section(served, page):
    page.goto(f"{served}/page-attention-is-all-you-need#section-4")
    page.wait_for_function("() => window.scrollY > 500", timeout=15_000)
    heading = page.locator("h2#section-4")
    assert heading.inner_text() == "4. Embeddings and Positional Encoding"
    box = heading.bounding_box()
    assert box is not None and -5 <= box["y"] < 200


def test_schemes_are_named_buttons_and_links_name_them(served, page, blocked):
    page.goto(f"{served}/figure-4121?scheme=4")  # an old link: the scheme as a number
    before = wait_for_plot(page, "posviz-4121-layers1")
    buttons = page.locator(".posviz-figure .bk-btn-group").first.locator("button")
    assert buttons.all_inner_texts() == ["global", "local 7×7", "1D block", "2D block", "axial"]
    assert "bk-active" in buttons.nth(4).get_attribute("class")
    page.get_by_text("scheme axial · query at row 8").filter(
        visible=True
    ).wait_for()  # the readout follows the link
    buttons.nth(3).click()
    wait_for_change(page, "posviz-4121-layers1", before)
    page.wait_for_function("() => window.location.search.includes('scheme=block-2d')")
    page.get_by_text("scheme 2D block · query at row 8").filter(visible=True).wait_for()
    assert blocked == [] and page.errors == []


@pytest.mark.parametrize("dev", [False, True], ids=["serve", "serve --dev"])
def test_a_page_whose_session_was_discarded_before_it_connected_still_styles_from_the_server(
    page, blocked, tmp_path, dev
):
    """A browser that connects after the server has discarded its page's session (Bokeh's
    --unused-session-lifetime, 15 s by default: a slow phone or link, a loaded machine)
    gets a session made when its websocket arrives. No HTML page was rendered for that
    one, and Panel writes where its stylesheets are served only then: before
    ``internals.serve_stylesheets_locally``, each of its models linked Panel's CSS from
    cdn.holoviz.org (CI, stop 43: 79 refused requests on figure-4121).

    Here sessions unused for 1 ms are discarded, checked every 500 ms, and the page's
    websocket is held until the server has logged discarding the page's own session
    (named by the token in the page's HTML; the server may discard others meanwhile,
    such as the one of the request that saw it up). Under --dev the new session also
    took its route from the websocket's path, and showed "there is no page at
    /figure-4121/ws" (``devloop.route_of``)."""
    log = tmp_path / "serve.log"
    port = free_port()
    lifetime = ["--unused-session-lifetime", "1", "--check-unused-sessions", "500"]
    flags = ["--dev"] if dev else []
    with posviz_server(port, *flags, "--", "--log-level", "debug", *lifetime, log=log):
        held = []  # the page's websocket, open in the browser but not yet to the server
        page.route_web_socket(re.compile(r".*/figure-4121/ws$"), lambda ws: held.append(ws))
        page.goto(f"http://127.0.0.1:{port}/figure-4121")
        gone = f"Discarding session '{session_of(page.content())}'"
        deadline = time.monotonic() + 60
        while not held or gone not in log.read_text("utf-8"):
            assert time.monotonic() < deadline, (
                f"after 60 s: {len(held)} websocket, {gone!r} not logged"
            )
            page.wait_for_timeout(100)  # lets Playwright hand over the websocket meanwhile
        held[0].connect_to_server()
        before = wait_for_plot(page, "posviz-4121-layers1", timeout=60_000)
        press_on_slider(page, 0, 0)
        wait_for_change(page, "posviz-4121-layers1", before)  # the new session answers
        assert blocked == [] and page.errors == []
        assert log.read_text("utf-8").count(gone) == 1  # the session made anew is in use


def session_of(html: str) -> str:
    """The Bokeh session a served page belongs to: its HTML's token names it."""
    from bokeh.util.token import get_session_id

    [token] = set(re.findall(r'"token":\s*"([^"]+)"', html))
    return get_session_id(token)
