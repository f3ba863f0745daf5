"""4121 in the browser: only the sliders the chosen scheme uses are shown and reached by Tab."""

import pytest
from playwright.sync_api import expect

from tests.support.pages import (
    deep_focus,
    settle,
    wait_for_change,
    wait_for_plot,
    wait_for_url_with,
)

pytestmark = pytest.mark.browser

SHARED = ["image side", "query row", "query column"]
ONE_D = ["1D: query block l_q", "1D: memory before l_m"]
TWO_D = [
    "2D: block height h_q",
    "2D: block width w_q",
    "2D: memory above h_m",
    "2D: memory left/right w_m",
]


def tab_order(page) -> list[str]:
    """The slider handles Tab reaches, in order, from the top of the page to "Show the numbers"."""
    page.locator("body").focus()
    reached = []
    for _ in range(40):
        page.keyboard.press("Tab")
        focus = deep_focus(page) or {}
        if focus.get("label") == "Show the numbers":
            return reached
        if "noUi-handle" in focus.get("cls", ""):
            reached.append(focus["label"])
    raise AssertionError(f"Tab never reached 'Show the numbers': {reached}")


def test_block_sliders_come_and_go_with_their_scheme(served, page, blocked):
    page.goto(f"{served}/figure-4121?query_length=4")  # a hidden slider set by a link
    settle(page)
    assert tab_order(page) == SHARED
    for label in ONE_D + TWO_D:
        expect(page.get_by_text(label).first).to_be_hidden()

    before = wait_for_plot(page, "posviz-4121-layers1")
    page.get_by_role("button", name="1D block").click()
    wait_for_change(page, "posviz-4121-layers1", before)
    page.locator(".noUi-handle[aria-label='1D: query block l_q']").wait_for(state="visible")
    assert tab_order(page) == SHARED + ONE_D
    # The link's value was kept while hidden: block of 4, 16 before it, 20 pixels.
    page.get_by_text("1D: query block l_q: 4").wait_for()
    page.get_by_text("reach: 20 pixels after one layer").wait_for()
    wait_for_url_with(page, "query_length=4", "scheme=block-1d")

    page.get_by_role("button", name="2D block").click()
    page.locator(".noUi-handle[aria-label='2D: block height h_q']").wait_for(state="visible")
    assert tab_order(page) == SHARED + TWO_D
    page.screenshot(path="/tmp/posviz-4121-block-2d.png", full_page=True)
    assert blocked == [] and page.errors == []


def test_block_sliders_come_and_go_in_the_export(joined):
    """The figure page joins a reader's running Python (conftest's ``joined``)."""
    from tests.support.pages import open_live

    page, site, blocked = joined
    open_live(page, f"{site}/figure-4121.html?scheme=block-1d&memory_length=0")
    page.get_by_text("1D: memory before l_m: 0").wait_for()  # the link, applied once live
    expect(page.get_by_text("2D: block height h_q").first).to_be_hidden()
    page.get_by_role("button", name="2D block").click()
    page.locator(".noUi-handle[aria-label='2D: block height h_q']").wait_for(state="visible")
    page.locator(".noUi-handle[aria-label='1D: memory before l_m']").wait_for(state="hidden")
    page.get_by_role("button", name="1D block").click()
    page.get_by_text("1D: memory before l_m: 0").wait_for()  # kept while hidden
    assert blocked == [] and page.errors == []
