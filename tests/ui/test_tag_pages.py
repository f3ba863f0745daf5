"""Tag pages in the browser: a topic's tag chip leads to the tag's page, under
`posviz serve` and in the static export, and that page links on to pages and figures."""

import pytest
from playwright.sync_api import expect

from posviz.compose.routes import tagged
from posviz.content import load
from posviz.figures import FIGURES
from tests.support.pages import open_live, wait_for_plot

pytestmark = pytest.mark.browser


PIXELS = "Attention Meets Pixels — Windows, Axes and the First Fully Attentional Networks"


def follow_chip(page, base: str, suffix: str):
    chip = page.locator("a.chip", has_text="Efficient attention")
    assert chip.get_attribute("href") == f"tag-efficient-attention{suffix}"
    chip.click()
    page.wait_for_url(f"{base}/tag-efficient-attention{suffix}")
    page.locator("h1", has_text="Efficient attention").wait_for()
    # Whatever else carries the tag, in reading order; the seed's page and figures among them.
    carrying = tagged(load())["Efficient attention"]
    shown = list(dict.fromkeys(fid for p in carrying for fid in p.figures))  # each once
    pages = page.locator("ul.tagged-pages a").all_inner_texts()
    assert pages == [p.title for p in carrying] and PIXELS in pages
    figures = page.locator("ul.tagged-figures li > a").all_inner_texts()
    assert figures == [FIGURES[fid].title for fid in shown]
    assert {FIGURES[7256].title, FIGURES[4121].title} <= set(figures)
    pages_word = "page carries" if len(carrying) == 1 else "pages carry"
    figures_word = "figure appears" if len(shown) == 1 else "figures appear"
    count = f"{len(carrying)} {pages_word} this tag; {len(shown)} {figures_word} on them."
    expect(page.get_by_text(count)).to_be_visible()


def test_chip_leads_to_the_tag_page_under_serve(served, page, blocked):
    page.goto(f"{served}/topic-positional-encoding")
    wait_for_plot(page, "posviz-4121-layers1")
    follow_chip(page, served, "")
    page.locator("ul.tagged-figures a", has_text="Which pixels does one query see?").click()
    page.wait_for_url(f"{served}/figure-4121")
    wait_for_plot(page, "posviz-4121-layers1")
    assert blocked == [] and page.errors == []


def test_chip_leads_to_the_tag_page_in_the_export(static_site, page, blocked):  # noqa: F811
    page.goto(f"{static_site}/topic-positional-encoding.html")
    wait_for_plot(page, "posviz-4121-layers1", timeout=10_000)  # the pre-render is enough
    follow_chip(page, static_site, ".html")
    open_live(page, page.url)  # the tag page itself starts Python without errors
    page.locator("ul.tagged-pages a", has_text=PIXELS).click()
    page.wait_for_url(f"{static_site}/page-attention-meets-pixels.html")
    assert blocked == [] and page.errors == []
