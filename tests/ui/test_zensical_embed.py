"""posviz.markdown_ext in a real Zensical project served under a sub-path, in Chromium, offline."""

import pytest

from tests.support.browser import static_server
from tests.support.embedded import assert_not_clipped, live_frames
from tests.support.pages import fingerprint, slider_title, wait_for_change
from tests.support.zensical_project import PAGES, build, write_project

pytestmark = pytest.mark.browser
pytest.importorskip("zensical")

SUB_PATH = "project/docs"  # as a site published at https://host/project/docs/


@pytest.fixture(scope="module")
def docs(built_site, tmp_path_factory):
    root = tmp_path_factory.mktemp("zensical")
    write_project(root, built_site, PAGES, "zensical", site_dir=f"served/{SUB_PATH}")
    code, printed = build(root, "zensical")
    assert code == 0, printed
    with static_server(root / "served") as url:
        yield f"{url}/{SUB_PATH}"


def test_zensical_page_under_a_sub_path_goes_live_and_answers_a_slider(docs, page, blocked):
    page.goto(f"{docs}/more/second/")
    ((hands, frame),) = live_frames(page, 1)
    assert hands.get_attribute("title") == "Clock hands at different speeds"
    frame.locator(".bk-slider-title", has_text="pos: 30").wait_for()
    # It asked for 300 px, less than it needs: the inline script grew it to fit.
    assert_not_clipped(page, hands)
    assert hands.bounding_box()["height"] > 400

    # The figure answers its slider, by keyboard, with the network blocked.
    before = fingerprint(frame, "posviz-710-hands")
    assert before is not None
    handle = frame.locator(".posviz-figure").nth(0).locator(".noUi-handle").nth(0)
    handle.focus()
    handle.press("ArrowRight")
    frame.locator(".bk-slider-title", has_text="pos: 31").wait_for()
    assert slider_title(frame, 0, 0) == "pos: 31"
    assert wait_for_change(frame, "posviz-710-hands", before) != before
    assert blocked == [], blocked
    assert page.errors == []
