"""What the unit tests of the composed views share: reading a view's parts as a reader would."""

from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import parse_qsl, urlencode

import panel as pn
import param

from posviz.compose import parts, views
from posviz.figures import Figure

CONTENT = Path(__file__).resolve().parents[2] / "content"


class _Markup(HTMLParser):
    def __init__(self):
        super().__init__()
        self.text, self.links, self._open = [], [], []

    def handle_starttag(self, tag, attrs):
        if tag == "a":
            self._open.append([dict(attrs).get("href"), ""])

    def handle_endtag(self, tag):
        if tag == "a" and self._open:
            self.links.append(tuple(self._open.pop()))

    def handle_data(self, data):
        self.text.append(data)
        for link in self._open:
            link[1] += data


def plain(markup: str) -> str:
    """The text a reader sees in ``markup``."""
    parser = _Markup()
    parser.feed(markup)
    return "".join(parser.text)


def links(markup: str) -> list[tuple[str, str]]:
    """(href, text) of each link in ``markup``, in order."""
    parser = _Markup()
    parser.feed(markup)
    return parser.links


def texts(view: parts.View) -> list[str]:
    """Every piece of a view's text in reading order, as HTML or content Markdown.

    The breadcrumbs, the notice, each part, and each figure's heading and the
    text its live layout shows (readout, caption, deep link).
    """
    found = [str(view.crumbs)]
    if view.links is not None:
        found.append(str(view.links.notice.object))
    for part in view.parts:
        if isinstance(part, parts.Prose):
            found.append(part.markdown)
        elif isinstance(part, parts.Island):
            found.append(str(part.heading))
            shown = part.figure.__panel__().select(pn.pane.HTML)
            found += [str(pane.object) for pane in shown]
        else:
            found.append(str(part.html))
    return found


def all_text(view: parts.View) -> str:
    return "\n".join(plain(text) for text in texts(view))


def live_figures(view: parts.View) -> list[Figure]:
    """The figures a view shows, in reading order."""
    return [island.figure for island in view.islands()]


def outline(view: parts.View) -> list:
    """A view's body as a reader meets it: ("h2", heading), ("text", markdown),
    ("figure", id)."""
    found = []
    for part in view.parts:
        if isinstance(part, parts.Html) and part.html.startswith("<h2"):
            found.append(("h2", plain(part.html)))
        elif isinstance(part, parts.Prose):
            found.append(("text", part.markdown))
        elif isinstance(part, parts.Island):
            found.append(("figure", part.figure.figure_id))
    return found


def view(name):
    layout, route = views.view(name)
    assert route.name == name
    return layout


class FakeLocation(param.Parameterized):
    """What DeepLinks uses of ``pn.state.location``."""

    search = param.String(default="")

    def update_query(self, **values):
        query = dict(parse_qsl(self.search.lstrip("?"), keep_blank_values=True))
        query.update({key: str(value) for key, value in values.items()})
        self.search = "?" + urlencode(query)


def attribution(island: parts.Island) -> str:
    """The markup of an island's "From …" line, before its heading ("" without one)."""
    return str(island.heading).split("<h", 1)[0]


def page_roots(view: parts.View) -> dict:
    """The Panel roots the page of ``view`` embeds, by name: each figure's and the notice."""
    from posviz.compose import page

    roots = page.Roots()
    page.split(view, roots, with_text=True)
    return roots.roots
