"""The export's search box, on the Pagefind index the build writes, with the network sealed.

The words searched for come from the content files (``posviz.content.load``),
never from a copy in this file.
"""

import re

import pytest
from playwright.sync_api import expect

from posviz.content import load
from posviz.figures import FIGURES
from tests.support.browser import sealed_context
from tests.support.pages import axe_serious

pytestmark = pytest.mark.browser

LIBRARY = load()
ABSENT = "quixotrombulent"  # in no page: checked against the content below
WORD = re.compile(r"[A-Za-z]{7,}")


def words(text: str) -> set[str]:
    return {w.lower() for w in WORD.findall(text)}


def section_text(section) -> str:
    return " ".join([section.title, *(b for b in section.blocks if isinstance(b, str))])


def everything_but(skip) -> set[str]:
    """The words of every text the site shows, except section ``skip``."""
    found = set()
    for page in LIBRARY.pages.values():
        found |= words(f"{page.title} {page.summary} {' '.join(page.tags)}")
        for section in page.sections:
            if section is not skip:
                found |= words(section_text(section))
    for topic in LIBRARY.topics.values():
        found |= words(f"{topic.title} {topic.intro} {topic.text}")
    for figure in FIGURES.values():
        found |= words(f"{figure.title} {figure.caption} {figure.__doc__ or ''}")
    return found


def third_section_word():
    """A page, and a word that its third section has and no other text of the site."""
    for page in LIBRARY.pages.values():
        if len(page.sections) < 3:
            continue
        third = page.sections[2]
        only_here = sorted(words(section_text(third)) - everything_but(third))
        if only_here:
            return page, third, only_here[0]
    raise AssertionError("no page has a third section with a word of its own")


def open_search(page, url: str):
    page.goto(url)
    box = page.get_by_role("searchbox", name="Search the site")
    box.wait_for(state="visible")
    return box


def search(page, box, term: str):
    box.fill(term)
    form = page.locator("form.posviz-search")
    expect(form).to_have_attribute("data-state", re.compile("done|failed"), timeout=30_000)
    return form


def test_search_finds_a_word_of_a_third_section_offline(static_site, page, blocked):
    found_in, section, word = third_section_word()
    box = open_search(page, f"{static_site}/index.html")
    form = search(page, box, word)
    assert form.get_attribute("data-state") == "done", form.inner_text()
    results = page.locator(".posviz-search-results")
    page_link = results.get_by_role("link", name=found_in.title, exact=True)
    expect(page_link).to_have_attribute("href", f"page-{found_in.slug}.html")
    section_link = results.get_by_role("link", name=section.heading, exact=True)
    expect(section_link).to_have_attribute("href", f"page-{found_in.slug}.html#{section.anchor}")
    # Pagefind marks the word's stem: "attended" may be marked where the excerpt says "attend".
    marked = [m.lower() for m in results.locator("mark").all_inner_texts()]
    assert any(word.startswith(m) or m.startswith(word) for m in marked), (word, marked)
    expect(page.locator("#posviz-search-status")).to_contain_text(re.compile(r"^\d+ pages? found"))
    # The index was fetched from the site: nothing left the machine.
    assert blocked == [] and page.errors == []
    section_link.click()
    page.wait_for_url(f"**/page-{found_in.slug}.html#{section.anchor}")


def test_search_finds_nothing_for_a_word_no_page_has(static_site, page, blocked):
    assert ABSENT not in everything_but(None)
    box = open_search(page, f"{static_site}/page-{next(iter(LIBRARY.pages))}.html")
    search(page, box, ABSENT)
    expect(page.locator("#posviz-search-status")).to_have_text(f"Nothing found for “{ABSENT}”.")
    expect(page.locator(".posviz-search-results li")).to_have_count(0)
    assert blocked == [] and page.errors == []


def test_the_search_box_is_reached_by_keyboard_and_its_results_too(static_site, page):
    _, _, word = third_section_word()
    open_search(page, f"{static_site}/topic-{next(iter(LIBRARY.topics))}.html")
    for _ in range(20):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.id") == "posviz-search-input":
            break
    else:
        raise AssertionError("Tab never reached the search box")
    page.keyboard.type(word)
    first = page.locator(".posviz-search-results a").first
    first.wait_for()
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.closest('.posviz-search-results') !== null")
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Escape")
    expect(page.locator(".posviz-search-results li")).to_have_count(0)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_passes_with_search_results_open(static_site, page, blocked, scheme):
    _, _, word = third_section_word()
    page.emulate_media(color_scheme=scheme)
    box = open_search(page, f"{static_site}/index.html")
    search(page, box, word)
    page.locator(".posviz-search-results a").first.wait_for()
    assert axe_serious(page) == []
    assert blocked == []


def test_without_javascript_no_search_box_shows(browser, static_site, blocked):
    context = sealed_context(browser, blocked, java_script_enabled=False)
    try:
        reader = context.new_page()
        reader.goto(f"{static_site}/index.html")
        assert reader.locator("form.posviz-search").count() == 1
        expect(reader.locator("form.posviz-search")).to_be_hidden()
    finally:
        context.close()


def test_the_embeddable_figure_view_has_no_search_box(static_site, page):
    page.goto(f"{static_site}/figure-{next(iter(FIGURES))}.html")
    page.locator("h1").first.wait_for()
    assert page.locator("form.posviz-search").count() == 0
