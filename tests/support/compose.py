"""What the unit tests of the composed views share: reading Panel layouts as a reader would."""

from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import parse_qsl, urlencode

import panel as pn
import param

from posviz.compose import views
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


def panes(layout) -> list:
    """Every HTML and Markdown pane, in reading order."""
    return layout.select(lambda o: isinstance(o, (pn.pane.HTML, pn.pane.Markdown)))


def all_text(layout) -> str:
    return "\n".join(plain(str(p.object)) for p in panes(layout))


def live_figures(layout) -> list[Figure]:
    """The figures a layout shows, in reading order.

    Panel replaces a Viewer by what ``__panel__`` returns, so the figure itself is
    reached through the ``pn.Param`` of its sliders.
    """
    return [p.object for p in layout.select(pn.Param) if isinstance(p.object, Figure)]


def outline(layout) -> list:
    """A view's body as a reader meets it: ("h2", heading), ("text", markdown),
    ("figure", id)."""
    found = []
    for item in layout.objects:
        if isinstance(item, pn.pane.HTML) and str(item.object).startswith("<h2"):
            found.append(("h2", plain(item.object)))
        elif isinstance(item, pn.pane.Markdown):
            found.append(("text", item.object))
        elif "posviz-figure-block" in item.css_classes:
            [figure] = live_figures(item)
            found.append(("figure", figure.figure_id))
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
