"""Route names and URLs: a leaf that any layer may import.

A route's name is its URL path under ``posviz serve`` (``/page-<slug>``) and
its file name in the export (``page-<slug>.html``); home is ``index``. The
routes themselves, one per dashboard, are listed by ``posviz.compose.routes``.
"""

import os
import re
import sys

HOME = "index"
GALLERY = "gallery"


def topic_route(slug: str) -> str:
    """The route name of a topic."""
    return f"topic-{slug}"


def page_route(slug: str) -> str:
    """The route name of a page."""
    return f"page-{slug}"


def figure_route(figure_id: int) -> str:
    """The route name of a figure's own view."""
    return f"figure-{figure_id}"


def tag_word(tag: str) -> str:
    """A tag as a URL word: lower case, runs of anything but a-z and 0-9 as '-'.

    Empty when the tag has no such letter or digit (``posviz check`` refuses it).
    """
    return re.sub(r"[^a-z0-9]+", "-", tag.lower()).strip("-")


def tag_slug(tag: str) -> str:
    """A tag's URL word; a tag without a letter or digit has none (ValueError)."""
    slug = tag_word(tag)
    if not slug:
        raise ValueError(f"tag {tag!r} has no letter or digit to name its page by")
    return slug


def tag_route(tag: str) -> str:
    """The route of the page that lists what carries ``tag``."""
    return f"tag-{tag_slug(tag)}"


def exported() -> bool:
    """True in the static export (and while it is pre-rendered at build time)."""
    return sys.platform == "emscripten" or os.environ.get("POSVIZ_EXPORT") == "1"


DEV_ENV = "POSVIZ_DEV"  # set by `posviz serve --dev` on its server (compose/devloop.py)


def dev_serving() -> bool:
    """True under ``posviz serve --dev``: pages follow edits."""
    return os.environ.get(DEV_ENV) == "1"


FIGURES_ONLY_ENV = "POSVIZ_FIGURES_ONLY"  # set by `posviz build --figures` while it pre-renders


def pages_shipped() -> bool:
    """False in a build of figure pages alone: a figure then links to no article."""
    return os.environ.get(FIGURES_ONLY_ENV) != "1"


def in_browser() -> bool:
    """True inside the reader's browser (the export's Python worker)."""
    return sys.platform == "emscripten"


def href(name: str, fragment: str | None = None) -> str:
    """A relative link to a route that works under ``posviz serve`` and in the export."""
    target = "./" if name == HOME else name
    if exported():
        target = f"{name}.html"
    return f"{target}#{fragment}" if fragment else target
