"""posviz.sphinx in a real two-page Sphinx project, in headless Chromium, network blocked."""

import pytest

from tests.support.browser import static_server
from tests.support.embedded import (
    EVIL,
    assert_foreign_heights_ignored,
    assert_not_clipped,
    live_frames,
)
from tests.support.pages import slider_title
from tests.support.sphinx_project import INDEX, NESTED, SECOND, build_docs

pytestmark = pytest.mark.browser

# --- a real two-page project, in headless Chromium, network blocked ------------


def docs_folder(built_site, root, builder: str = "html"):
    """The docs built by ``builder``, with ``evil.html`` and ``nan.html`` beside them."""
    code, warnings = build_docs(
        root / "src",
        root / "out",
        built_site,
        {"index.rst": INDEX, "more/second.rst": SECOND},
        builder,
    )
    assert code == 0, warnings
    (root / "out" / "evil.html").write_text(EVIL, "utf-8")
    (root / "out" / "nan.html").write_text(EVIL.replace("40", "NaN"), "utf-8")
    return root / "out"


@pytest.fixture(scope="module")
def docs(built_site, tmp_path_factory):
    with static_server(docs_folder(built_site, tmp_path_factory.mktemp("docs"))) as url:
        yield url


# html's nested page is test_two_page_sphinx_project_goes_live_offline's second half.
@pytest.fixture(scope="module", params=["dirhtml", "singlehtml"])
def other_builder_docs(request, built_site, tmp_path_factory):
    folder = docs_folder(built_site, tmp_path_factory.mktemp(request.param), request.param)
    with static_server(folder) as url:
        yield request.param, url


def test_two_page_sphinx_project_goes_live_offline(docs, page, blocked):
    page.goto(f"{docs}/index.html")
    frames = live_frames(page, 2)
    (hands, hands_frame), (budget, budget_frame) = frames
    assert hands.get_attribute("title") == "Clock hands at different speeds"
    hands_frame.locator(".bk-slider-title", has_text="pos: 24").wait_for()
    assert slider_title(hands_frame, 0, 0) == "pos: 24"
    budget_frame.locator(".bk-slider-title", has_text="d_model: 1024").wait_for()
    for element, _ in frames:
        assert_not_clipped(page, element)
    # The 96 figure asked for 300 px, far less than it needs: it grew to fit.
    assert budget.bounding_box()["height"] > 400

    page.goto(f"{docs}/more/second.html")
    ((cost, cost_frame),) = live_frames(page, 1)
    cost_frame.locator(".bk-slider-title", has_text="k (window side): 12").wait_for()
    assert slider_title(cost_frame, 0, 0) == "k (window side): 12"
    cost_frame.locator(".bk-slider-title", has_text="m (axial span): 20").wait_for()
    assert slider_title(cost_frame, 0, 1) == "m (axial span): 20"
    assert_not_clipped(page, cost)
    assert blocked == [], blocked
    assert page.errors == []


def test_height_messages_from_elsewhere_are_ignored(docs, page):
    page.goto(f"{docs}/index.html")
    (hands, hands_frame), _ = live_frames(page, 2)
    assert_foreign_heights_ignored(page, hands, hands_frame, docs)


def test_the_nested_pages_figure_goes_live_offline_under_other_builders(
    other_builder_docs, page, blocked
):
    builder, docs = other_builder_docs
    page.goto(f"{docs}/{NESTED[builder].removesuffix('index.html')}")
    cost = page.locator('iframe[data-posviz-embed][src*="figure-7256.html"]')
    cost.scroll_into_view_if_needed()
    frame = cost.element_handle().content_frame()
    frame.wait_for_function(
        "() => document.body && document.body.dataset.posviz === 'live'", timeout=180_000
    )
    frame.locator(".bk-slider-title", has_text="k (window side): 12").wait_for()
    assert slider_title(frame, 0, 0) == "k (window side): 12"
    assert_not_clipped(page, cost)
    assert blocked == [], blocked
    assert page.errors == []


def test_a_nan_height_message_is_ignored(docs, page):
    page.goto(f"{docs}/index.html")
    hands = page.locator("iframe[data-posviz-embed]").first
    hands.scroll_into_view_if_needed()
    page.evaluate(
        "() => { window.heard = []; window.addEventListener('message',"
        " (e) => window.heard.push(String(e.data && e.data.height))); }"
    )
    # From the site's own origin and the iframe itself: only the number is wrong.
    hands.evaluate("(frame, src) => { frame.src = src; }", f"{docs}/nan.html")
    page.wait_for_function("() => window.heard.includes('NaN')")
    assert hands.get_attribute("data-posviz-height") != "NaN"
    assert "NaN" not in (hands.get_attribute("style") or "")
