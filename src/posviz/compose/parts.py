"""What a view returns: the page's parts in reading order, as data.

Text is ``Html`` (posviz's own words around the content, rendered by a Jinja
macro of ``templates/parts.html`` with autoescape) or ``Prose`` (content
Markdown, rendered by ``posviz.markup``'s grammar). A figure is an ``Island``:
the figure itself, where it lives and its heading's level. The deep-link
notice is the one other Panel object of a page (``View.links``). Panel builds
nothing here: ``page.page_template`` makes each island's layout, and
``page.model`` describes a view for the build's page keys without drawing it.
"""

from dataclasses import dataclass
from functools import cache

from markupsafe import Markup

from posviz import markup


@dataclass(frozen=True)
class Html:
    """Markup posviz wrote (escaped content in a Jinja macro)."""

    html: Markup


@dataclass(frozen=True)
class Prose:
    """Content Markdown, as the page renders it and the checks read it."""

    markdown: str

    @property
    def html(self) -> Markup:
        """The Markdown as HTML (raw HTML in it stays text)."""
        return Markup(markup.render(self.markdown))


@dataclass(frozen=True)
class Island:
    """A live figure: its heading, at ``level``, and, given ``uses``, where it lives."""

    figure: object
    uses: tuple = ()
    level: int = 3

    @property
    def heading(self) -> Markup:
        """The figure's "From …" line (given ``uses``) and its id and title."""
        return macros().figure_heading(
            self.figure.figure_id, self.figure.title, self.level, list(self.uses)
        )


@dataclass
class View:
    """A route's page: breadcrumbs, its parts, and the deep links of its figures.

    ``links`` is a ``DeepLinks`` (its notice is the page's one other Panel root),
    or None on a page that could not be built.
    """

    parts: list
    crumbs: Markup = Markup("")
    links: object = None

    def islands(self) -> list[Island]:
        """The figures, in reading order."""
        return [part for part in self.parts if isinstance(part, Island)]


@cache
def macros():
    """The macros of ``templates/parts.html``, each returning Markup."""
    from posviz.compose import page, routes

    environment = page.environment()
    environment.globals.update(
        href=routes.href,
        page_route=routes.page_route,
        topic_route=routes.topic_route,
        figure_route=routes.figure_route,
        tag_route=routes.tag_route,
    )
    return environment.get_template("parts.html").module
