"""Text first: every built page reads, links and prints with JavaScript off.

The expected text comes from the content files (``posviz.content.load`` parses
``content/``) and from the figures themselves at the page's state, never from
a copy in this file. Pages are opened with ``java_script_enabled=False``, so
all a reader gets is the HTML and the site's stylesheet.
"""

import html
import re
from urllib.parse import urlencode

import pytest
from markdown_it import MarkdownIt
from playwright.sync_api import expect

from posviz.compose import routes as routing
from posviz.content import load
from posviz.figures import FIGURES
from tests.support.browser import sealed_context
from tests.support.pages import axe_serious

pytestmark = pytest.mark.browser

LIBRARY = load()
ROUTES = routing.routes(LIBRARY)
BY_NAME = {route.name: route for route in ROUTES}
BY_KIND = {}
for _route in ROUTES:
    BY_KIND.setdefault(_route.kind, _route)
SIZES = {"phone": (390, 844), "tablet": (768, 1024), "desktop": (1280, 800)}


def squash(text: str) -> str:
    """Text without any whitespace: rendering may break lines and cells anywhere."""
    return re.sub(r"\s+", "", text)


def plain(markdown: str) -> str:
    """What a reader reads of some Markdown: its text without markup."""
    rendered = MarkdownIt("commonmark").enable("table").render(markdown)
    return html.unescape(re.sub(r"<[^>]+>", " ", rendered))


def expected_texts(route) -> list[str]:
    """Every piece of text the content files give this page, in reading order."""
    if route.kind == "home":
        return (
            [t.title for t in LIBRARY.topics.values()]
            + [p.title for p in LIBRARY.pages.values()]
            + [FIGURES[f].title for f in routing.figure_order(LIBRARY)]
        )
    if route.kind == "topic":
        topic = LIBRARY.topics[route.key]
        return [
            topic.title,
            topic.intro,
            plain(topic.text),
            *[page.title for page in LIBRARY.reading_order(topic)],
            *[
                text
                for figure_id, uses in LIBRARY.figures_shown(topic)
                for text in (
                    *[t for use in uses for t in (use.page.title, use.section.heading)],
                    FIGURES[figure_id].title,
                )
            ],
            *[tag for tag, _ in LIBRARY.tags(topic)],
        ]
    if route.kind == "page":
        page = LIBRARY.pages[route.key]
        texts = [page.title, page.summary]
        for section in page.sections:
            texts.append(section.heading)
            for block in section.blocks:
                texts.append(FIGURES[block].title if isinstance(block, int) else plain(block))
        return texts
    if route.kind == "tag":
        pages = routing.tagged(LIBRARY)[route.key]
        return [route.key, *[t for page in pages for t in (page.title, page.summary)]]
    if route.kind == "figure":
        uses = LIBRARY.uses_of(route.key)  # the "From …" line comes first
        return [
            *[t for use in uses for t in (use.page.title, use.section.heading)],
            FIGURES[route.key].title,
        ]
    return [FIGURES[f].title for f in route.figures]  # gallery


@pytest.fixture
def scripts_off(browser, blocked):
    """A sealed profile with JavaScript disabled; ``make(width, height)`` gives another."""
    contexts = []

    def make(width=1280, height=900):
        context = sealed_context(
            browser, blocked, java_script_enabled=False, viewport={"width": width, "height": height}
        )
        contexts.append(context)
        return context.new_page()

    yield make
    for context in contexts:
        context.close()


def path(route) -> str:
    return f"{route.name}.html"


@pytest.mark.parametrize("kind", list(BY_KIND))
def test_every_kind_of_page_holds_its_text_with_scripts_off(static_site, scripts_off, kind):
    route = BY_KIND[kind]
    page = scripts_off()
    page.goto(f"{static_site}/{path(route)}")
    main = squash(page.locator("main").inner_text())
    # In the content's order: each piece is found after the one before it.
    at = 0
    for text in expected_texts(route):
        found = main.find(squash(text), at)
        assert found >= 0, f"{route.name}: missing or out of order: {text[:80]!r}"
        at = found
    assert page.evaluate("typeof window.Bokeh") == "undefined"  # nothing ran


@pytest.mark.parametrize("kind", list(BY_KIND))
def test_landmarks_headings_and_description(static_site, scripts_off, kind):
    route = BY_KIND[kind]
    page = scripts_off()
    page.goto(f"{static_site}/{path(route)}")
    assert page.locator("main").count() == 1 and page.locator("main article").count() == 1
    if route.kind not in ("home", "figure"):  # a figure view is made to embed: its "From" line
        crumbs = page.locator("nav[aria-label='Breadcrumb'] a")
        assert crumbs.first.get_attribute("href") == "index.html"
    levels = [
        int(tag[1]) for tag in page.eval_on_selector_all("h1, h2, h3", "e => e.map(h => h.tagName)")
    ]
    assert levels[0] == 1 and levels.count(1) == 1, levels
    assert all(b - a <= 1 for a, b in zip(levels, levels[1:], strict=False)), levels
    description = page.locator("meta[name='description']").get_attribute("content")
    summary = {
        "topic": lambda: LIBRARY.topics[route.key].intro,
        "page": lambda: LIBRARY.pages[route.key].summary,
        "figure": lambda: plain(FIGURES[route.key].caption),
    }.get(route.kind)
    assert description and (summary is None or squash(description) == squash(summary()))


def test_breadcrumbs_reading_order_and_links_work_with_scripts_off(static_site, scripts_off):
    topic = BY_KIND["topic"]
    page = scripts_off()
    page.goto(f"{static_site}/{path(topic)}")
    first = LIBRARY.reading_order(LIBRARY.topics[topic.key])[0]
    page.locator("ol.reading a").first.click()
    page.wait_for_url(f"**/page-{first.slug}.html")
    assert page.locator("h1").inner_text() == first.title
    page.locator("nav[aria-label='Breadcrumb'] a").first.click()
    page.wait_for_url("**/index.html")
    assert page.locator("h1").inner_text() == "posviz"
    # Every link of every page leads to a page of the site, and a section link to its section.
    for route in ROUTES:
        page.goto(f"{static_site}/{path(route)}")
        for href in set(page.eval_on_selector_all("main a[href]", "e => e.map(a => a.href)")):
            target, _, fragment = href.partition("#")
            answer = page.request.get(target)
            assert answer.ok, f"{route.name}: {href} answers {answer.status}"
            if fragment:
                assert f'id="{fragment}"' in answer.text(), f"{route.name}: {href}"


def static_figure(page, figure_id: int):
    card = page.locator(f"figure#figure-{figure_id}")
    return {
        "caption": card.locator("figcaption").inner_text(),
        "alt": card.locator(".posviz-static-alt").inner_text(),
        "note": card.locator(".posviz-static-note").inner_text(),
        "rows": card.locator("table tbody tr").evaluate_all(
            "rows => rows.map(r => [...r.children].map(c => c.textContent))"
        ),
        "table_caption": card.locator("table caption").inner_text(),
    }


def check_figure(found: dict, figure) -> None:
    caption, _, rows = figure.table()
    assert squash(found["caption"]) == squash(plain(figure.caption))
    assert found["alt"] == " ".join(figure.describe().split())  # as HTML shows spaces
    assert "needs JavaScript" in found["note"]
    assert found["table_caption"] == caption
    assert found["rows"] == [[str(cell) for cell in row] for row in rows]


@pytest.mark.parametrize("kind", ["topic", "page", "figure", "gallery"])
def test_each_figure_shows_caption_text_alternative_and_table_with_scripts_off(
    static_site, scripts_off, kind
):
    route = next(r for r in ROUTES if r.kind == kind and r.figures)
    page = scripts_off()
    page.goto(f"{static_site}/{path(route)}")
    for figure_id in route.figures:
        check_figure(static_figure(page, figure_id), FIGURES[figure_id]())  # the page's state


def test_a_deep_link_gives_its_state_with_scripts_off_under_serve(served, scripts_off):
    page = scripts_off()
    page.goto(f"{served}/figure-710?pos=30")
    figure = FIGURES[710](pos=30)
    check_figure(static_figure(page, 710), figure)
    assert "pos: 30" in page.locator(".posviz-static-values").inner_text()
    page.goto(f"{served}/{BY_KIND['topic'].name}")  # serve pages carry their text too
    assert page.locator("h1").inner_text() == LIBRARY.topics[BY_KIND["topic"].key].title


SCRIPT_ELEMENT = re.compile(r"<script\b.*?</script\s*>", re.I | re.S)


def as_without_scripts(markup: str) -> str:
    """The document a browser without JavaScript builds: no scripts, <noscript> shown."""
    return re.sub(r"</?noscript\b[^>]*>", "", SCRIPT_ELEMENT.sub("", markup), flags=re.I)


@pytest.fixture
def unscripted(browser, blocked):
    """A page that gets each HTML file as a browser without JavaScript would show it.

    axe-core cannot run where JavaScript is off (its timers never fire), so the
    audit runs on that document with Playwright's JavaScript on and none of the
    page's own.
    """
    context = sealed_context(browser, blocked)

    def rewrite(route):
        response = route.fetch()
        route.fulfill(response=response, body=as_without_scripts(response.text()))

    context.route("**/*.html", rewrite)
    yield context.new_page()
    context.close()


@pytest.mark.parametrize("name", [route.name for route in ROUTES])
def test_no_serious_axe_violations_with_scripts_off(static_site, unscripted, blocked, name):
    """In the light scheme, then the dark one (the stylesheet's media query: nothing
    else changes without scripts), on one load."""
    page = unscripted
    page.emulate_media(color_scheme="light")
    page.goto(f"{static_site}/{name}.html")
    assert page.evaluate("typeof window.Bokeh") == "undefined"
    assert page.locator(".posviz-static").count() == len(BY_NAME[name].figures)
    light = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert axe_serious(page) == [], "light"
    page.emulate_media(color_scheme="dark")
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") != light
    assert axe_serious(page) == [], "dark"
    assert blocked == []


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("kind", list(BY_KIND))
def test_fits_every_width_with_scripts_off(static_site, scripts_off, kind, size):
    page = scripts_off(*SIZES[size])
    page.goto(f"{static_site}/{path(BY_KIND[kind])}")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def test_dark_and_print_with_scripts_off(static_site, scripts_off):
    page = scripts_off()
    page.emulate_media(color_scheme="dark")
    page.goto(f"{static_site}/figure-710.html")
    from posviz.styles import DARK

    r, g, b = (int(DARK["paper"][i : i + 2], 16) for i in (1, 3, 5))
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == f"rgb({r}, {g}, {b})"
    link = page.locator(".posviz-static .posviz-deeplink a")
    expect(link).to_be_hidden()
    page.emulate_media(media="print", color_scheme="light")
    expect(link).to_be_visible()
    figure = FIGURES[710]()
    values = urlencode({name: getattr(figure, name) for name in figure.sliders()})
    assert link.get_attribute("href") == f"figure-710.html?{values}"
    expect(page.locator(".posviz-static table")).to_be_visible()
