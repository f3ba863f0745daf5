"""Every dashboard of the site, by name; the same names serve and export.

A route's name is its URL path under ``posviz serve`` (``/page-<slug>``) and
its file name in the export (``page-<slug>.html``); home is ``index``.
"""

import os
import sys
from dataclasses import dataclass

from posviz import content
from posviz.content import Library, ordered

HOME = "index"
GALLERY = "gallery"


@dataclass(frozen=True)
class Route:
    """One dashboard of the site: its name (URL path and file name), kind and figures."""

    name: str
    kind: str  # home, topic, page, tag, figure or gallery
    key: str | int | None
    title: str
    figures: tuple[int, ...] = ()


def topic_route(slug: str) -> str:
    """The route name of a topic."""
    return f"topic-{slug}"


def page_route(slug: str) -> str:
    """The route name of a page."""
    return f"page-{slug}"


def figure_route(figure_id: int) -> str:
    """The route name of a figure's own view."""
    return f"figure-{figure_id}"


def figure_order(library: Library) -> list[int]:
    """Every figure id: first as the pages show them, then those no page shows, by id."""
    from posviz.figures import FIGURES

    shown = dict.fromkeys(f for page in library.pages.values() for f in page.figures)
    return [*shown, *(figure_id for figure_id in FIGURES if figure_id not in shown)]


def routes(library: Library) -> list[Route]:
    """Every route of the site: home, topics, pages, tags, figures, gallery."""
    from posviz.figures import FIGURES

    order = figure_order(library)
    found = [Route(HOME, "home", None, "posviz")]
    for topic in library.topics.values():
        figures = tuple(figure_id for figure_id, _ in library.figures_shown(topic))
        found.append(Route(topic_route(topic.slug), "topic", topic.slug, topic.title, figures))
    for page in library.pages.values():
        found.append(Route(page_route(page.slug), "page", page.slug, page.title, page.figures))
    # Tag pages link to figures rather than showing them live: no figures of their own.
    for tag in tagged(library):
        found.append(Route(tag_route(tag), "tag", tag, f"Tag · {tag}"))
    for figure_id in order:
        title = FIGURES[figure_id].title
        found.append(Route(figure_route(figure_id), "figure", figure_id, title, (figure_id,)))
    found.append(Route(GALLERY, "gallery", None, "All figures", tuple(order)))
    return found


def exported() -> bool:
    """True in the static export (and while it is pre-rendered at build time)."""
    return sys.platform == "emscripten" or os.environ.get("POSVIZ_EXPORT") == "1"


def in_browser() -> bool:
    """True inside the reader's browser (the export's Python worker)."""
    return sys.platform == "emscripten"


def href(name: str, fragment: str | None = None) -> str:
    """A relative link to a route that works under ``posviz serve`` and in the export."""
    target = "./" if name == HOME else name
    if exported():
        target = f"{name}.html"
    return f"{target}#{fragment}" if fragment else target


def tag_slug(tag: str) -> str:
    """A tag as a URL word: lower case, runs of anything but letters and digits as '-'."""
    slug = content.tag_slug(tag)  # the rule `posviz check` applies
    if not slug:
        raise ValueError(f"tag {tag!r} has no letter or digit to name its page by")
    return slug


def tag_route(tag: str) -> str:
    """The route of the page that lists what carries ``tag``."""
    return f"tag-{tag_slug(tag)}"


def tagged(library: Library) -> dict[str, list]:
    """Every tag any page carries → those pages in reading order; tags alphabetical.

    Two tags that differ only in case or punctuation would share a route: an error.
    """
    found: dict[str, list] = {}
    for page in library.pages.values():
        for tag in dict.fromkeys(page.tags):
            found.setdefault(tag, []).append(page)
    by_route: dict[str, str] = {}
    for tag in found:
        other = by_route.setdefault(tag_route(tag), tag)
        if other != tag:
            raise ValueError(f"tags {other!r} and {tag!r} would share the page {tag_route(tag)}")
    return {
        tag: [
            library.pages[slug] for slug in ordered([p.slug for p in pages], library.prerequisites)
        ]
        for tag, pages in sorted(found.items(), key=lambda item: item[0].lower())
    }
