"""Every dashboard of the site, by name; the same names serve and export.

The names and URLs themselves (``*_route``, ``href``, ``exported``) live in
the leaf ``posviz.urls``, importable from here as before.
"""

from dataclasses import dataclass

from posviz.content import Library, ordered, tag_clash
from posviz.urls import (  # noqa: F401  (route names live in posviz.urls; kept importable here)
    GALLERY,
    HOME,
    dev_serving,
    exported,
    figure_route,
    href,
    in_browser,
    page_route,
    tag_route,
    tag_slug,
    topic_route,
)


@dataclass(frozen=True)
class Route:
    """One dashboard of the site: its name (URL path and file name), kind and figures."""

    name: str
    kind: str  # home, topic, page, tag, figure or gallery
    key: str | int | None
    title: str
    figures: tuple[int, ...] = ()


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


def tagged(library: Library) -> dict[str, list]:
    """Every tag any page carries → those pages in reading order; tags alphabetical.

    Two tags that differ only in case or punctuation would share a route: an error.
    """
    found: dict[str, list] = {}
    for page in library.pages.values():
        for tag in dict.fromkeys(page.tags):
            found.setdefault(tag, []).append(page)
    seen: dict[str, str] = {}
    for tag in found:
        if other := tag_clash(seen, tag):  # the rule `posviz check` applies
            raise ValueError(f"tags {other!r} and {tag!r} would share the page {tag_route(tag)}")
    return {
        tag: [
            library.pages[slug] for slug in ordered([p.slug for p in pages], library.prerequisites)
        ]
        for tag, pages in sorted(found.items(), key=lambda item: item[0].lower())
    }
