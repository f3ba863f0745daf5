"""posviz.mkdocs in a real two-page MkDocs (Material) project, in headless Chromium, offline."""

import pytest

from tests.support.browser import static_server
from tests.support.embedded import (
    EVIL,
    assert_foreign_heights_ignored,
    assert_not_clipped,
    live_frames,
)
from tests.support.mkdocs_project import PAGES, build_docs
from tests.support.pages import fingerprint, slider_title, wait_for_change

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def docs(built_site, tmp_path_factory):
    root = tmp_path_factory.mktemp("mkdocs")
    code, printed = build_docs(root, built_site, PAGES)
    assert code == 0, printed
    (root / "out" / "evil.html").write_text(EVIL, "utf-8")
    with static_server(root / "out") as url:
        yield url


def test_two_page_mkdocs_project_goes_live_offline(docs, page, blocked):
    # One cold start for all of it: each test's fresh browser profile starts Python anew.
    page.goto(f"{docs}/")
    (hands, hands_frame), (budget, budget_frame) = live_frames(page, 2)
    assert hands.get_attribute("title") == "Clock hands at different speeds"
    hands_frame.locator(".bk-slider-title", has_text="pos: 24").wait_for()
    budget_frame.locator(".bk-slider-title", has_text="d_model: 1024").wait_for()
    for element in (hands, budget):
        assert_not_clipped(page, element)
    # The 96 figure asked for 300 px, far less than it needs: it grew to fit.
    assert budget.bounding_box()["height"] > 400

    # The embedded figure answers its slider, by keyboard, with the network blocked.
    before = fingerprint(hands_frame, "posviz-710-hands")
    assert before is not None
    handle = hands_frame.locator(".posviz-figure").nth(0).locator(".noUi-handle").nth(0)
    handle.focus()
    handle.press("ArrowRight")
    hands_frame.locator(".bk-slider-title", has_text="pos: 25").wait_for()
    assert wait_for_change(hands_frame, "posviz-710-hands", before) != before

    # Height messages from elsewhere are ignored (the script's origin checks).
    assert_foreign_heights_ignored(page, hands, hands_frame, docs)

    # The page two folders down (MkDocs' directory URLs: more/second/).
    page.goto(f"{docs}/more/second/")
    ((cost, cost_frame),) = live_frames(page, 1)
    cost_frame.locator(".bk-slider-title", has_text="k (window side): 12").wait_for()
    assert slider_title(cost_frame, 0, 0) == "k (window side): 12"
    assert slider_title(cost_frame, 0, 1) == "m (axial span): 20"
    assert_not_clipped(page, cost)
    assert blocked == [], blocked
    assert page.errors == []
