"""Every dashboard of the site, by name; the same names serve and export.

A route's name is its URL path under ``posviz serve`` (``/page-<slug>``) and
its file name in the export (``page-<slug>.html``); home is ``index``.
"""

import os
import sys
from dataclasses import dataclass

from posviz.content import Library

HOME = "index"
GALLERY = "gallery"


@dataclass(frozen=True)
class Route:
    """One dashboard of the site: its name (URL path and file name), kind and figures."""

    name: str
    kind: str  # home, topic, page, figure or gallery
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
    """Every route of the site: home, topics, pages, figures, gallery."""
    from posviz.figures import FIGURES

    order = figure_order(library)
    found = [Route(HOME, "home", None, "posviz")]
    for topic in library.topics.values():
        figures = tuple(use.figure_id for use in library.figure_uses(topic))
        found.append(Route(topic_route(topic.slug), "topic", topic.slug, topic.title, figures))
    for page in library.pages.values():
        found.append(Route(page_route(page.slug), "page", page.slug, page.title, page.figures))
    for figure_id in order:
        title = FIGURES[figure_id].title
        found.append(Route(figure_route(figure_id), "figure", figure_id, title, (figure_id,)))
    found.append(Route(GALLERY, "gallery", None, "All figures", tuple(order)))
    return found


def exported() -> bool:
    """True in the static export (and while it is pre-rendered at build time)."""
    return sys.platform == "emscripten" or os.environ.get("POSVIZ_EXPORT") == "1"


def href(name: str, fragment: str | None = None) -> str:
    """A relative link to a route that works under ``posviz serve`` and in the export."""
    target = "./" if name == HOME else name
    if exported():
        target = f"{name}.html"
    return f"{target}#{fragment}" if fragment else target
