"""The page model: text first, figures as islands.

A view (``views.py``) returns the page's parts as data (``parts.View``). This
module turns them into the page the reader gets: every heading,
paragraph, link, caption and the figures' values at the page's state are
plain HTML in ``templates/site.html``, styled by ``static/site.css``; each
figure's widgets and plots (and the deep-link notice) are a Panel root of
their own, a named root of a ``pn.Template`` embedded where the text puts it.
Without JavaScript each figure shows its caption, text alternative, readout
and "Show the numbers" table instead (a ``<noscript>`` block).

The same template serves ``posviz serve`` (rendered by Panel's server) and the
export (rendered by ``panel convert``); in the browser's worker only the roots
matter, so the text is not rendered there.
"""

import hashlib
import html
import json
import os
import re
from collections.abc import Collection
from dataclasses import asdict, dataclass, field
from functools import cache
from importlib import resources

import panel as pn
import param
from markupsafe import Markup

from posviz import drawing, markup
from posviz.compose import routes
from posviz.compose.parts import Island, View, macros
from posviz.drawing import layout
from posviz.frames.texts import markdown_html

STYLESHEET = "posviz-static/site.css"  # relative: the same under serve and in the export
SEARCH_SCRIPT = "posviz-static/search.js"  # only the export has the index it queries
STATIC_DIR = resources.files("posviz.compose").joinpath("static")
NOTICE = "notice"  # the root of the deep-link notice
BASE_URL_ENV = "POSVIZ_BASE_URL"  # set by `posviz build --base-url`
NOSCRIPT_NOTE = "The live figure needs JavaScript; these are its values at this page's state."


@cache
def environment():
    """The Jinja environment of the site's templates; everything is escaped unless Markup."""
    import jinja2

    return jinja2.Environment(
        loader=jinja2.PackageLoader("posviz.compose", "templates"),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def markdown(text: str) -> Markup:
    """Content Markdown as HTML (raw HTML in it stays text): ``posviz.markup``'s grammar."""
    return Markup(markup.render(text))


def plain_text(text: str) -> str:
    """Content Markdown as one line of plain text (for ``<meta name="description">``)."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", markup.render(text))).split())


@dataclass
class Part:
    """One piece of a page in reading order: HTML, a figure, or another Panel root."""

    kind: str  # "html", "figure" or "root"
    html: Markup = Markup("")
    root: str = ""
    figure: dict = field(default_factory=dict)
    figure_id: int = 0  # a figure's: its island's data-figure, for the page's scripts
    room: Markup = Markup("")  # a figure's: its island's room before the draw


def value_text(figure, name: str) -> tuple[str, str]:
    """(label, value) of one control; a choice names the others too."""
    parameter, value = figure.param[name], getattr(figure, name)
    if isinstance(parameter, param.Selector):
        others = ", ".join(str(choice) for choice in parameter.objects)
        return parameter.label or name, f"{value} (of {others})"
    return parameter.label or name, str(value)


def legend_labels(figure) -> list[str]:
    """The labels of the plotted elements at the current values, as the legends show them."""
    specs = drawing.specs(figure)[1]
    labels = [element.label for spec in specs for element in spec.elements.values()]
    return list(dict.fromkeys(label for label in labels if label))


def figure_text(figure) -> dict:
    """What a figure says without JavaScript, at its current values."""
    return {
        "id": figure.figure_id,
        "caption": markdown(figure.caption),
        "describe": figure.describe(),
        "readout": Markup(markdown_html(figure.readout())),
        "values": [value_text(figure, name) for name in figure.sliders()],
        "legend": legend_labels(figure),
        "table": Markup(layout.numbers_html(figure)),
        "deep_link": Markup(layout.deep_link(figure)),
        "note": NOSCRIPT_NOTE,
    }


def island(figure):
    """The Panel root of a figure on a page: its layout, but for the caption (text)."""
    return layout.figure_layout(figure, caption=False)


@dataclass
class Later:
    """A figure whose root is an empty shell (``layout.figure_shell``) until ``fill``."""

    figure: object
    shell: pn.Column

    def fill(self) -> None:
        """Build the figure into its shell; on a live page Panel sends the page the change."""
        layout.figure_layout(self.figure, caption=False, shell=self.shell)

    def failed(self, error: Exception) -> None:
        """Say in the figure's place that it could not be drawn, and why, in one line."""
        message = macros().figure_error(self.figure.figure_id, type(error).__name__, str(error))
        self.shell.param.update(
            objects=[pn.pane.HTML(message, sizing_mode="stretch_width")],
            css_classes=[layout.FIGURE],
        )


def split(
    view: View,
    template: pn.Template,
    with_text: bool,
    islands: bool = True,
    drawn: bool = True,
    later: Collection[int] = (),
) -> tuple[list[Part], Markup]:
    """The parts of a view in reading order, and its breadcrumbs.

    Each figure and the deep-link notice become named roots of ``template``;
    text becomes HTML (skipped when ``with_text`` is false). Without ``islands``
    (``posviz serve --dev`` fetching a page's text alone) a figure's root is left
    empty: its plots are not drawn. Without ``drawn`` (``model``) a figure part
    lacks its text alternative and its room, which its code draws from its values.
    A figure whose id is in ``later`` gets a shell as its root, kept in the
    template's ``later`` (a ``PageTemplate``) to be filled.
    """
    parts = []
    if view.links is not None:
        template.add_panel(NOTICE, view.links.notice)
        parts.append(Part("root", root=NOTICE))
    for part in view.parts:
        if isinstance(part, Island):
            figure = part.figure
            name = f"figure-{figure.figure_id}"
            if not islands:
                root = pn.Spacer(height=0)
            elif figure.figure_id in later:
                root = layout.figure_shell(figure)
                template.later.append(Later(figure, root))
            else:
                root = island(figure)
            template.add_panel(name, root)
            readout = Markup(markdown_html(figure.readout())) if drawn else ""
            parts.append(
                Part(
                    "figure",
                    root=name,
                    html=part.heading if with_text else Markup(""),
                    figure=figure_text(figure) if with_text and drawn else {},
                    figure_id=figure.figure_id,
                    room=layout.island_room(figure, readout) if drawn else Markup(""),
                )
            )
        elif with_text:
            parts.append(Part("html", html=part.html))
    return parts, view.crumbs if with_text else Markup("")


class Roots:
    """Stands in for the template in ``split``: it keeps the roots a page embeds."""

    def __init__(self):
        self.roots = {}

    def add_panel(self, name, obj):
        """Keep ``obj`` as root ``name``, as ``pn.Template.add_panel`` embeds it."""
        self.roots[name] = obj


def model(view: View, kind: str, title: str, description: str) -> dict:
    """The page a view makes, as data: what the page shows of it.

    Its text as the page's HTML (``split``), each figure's id, class and values
    (its plots, room and text alternative are drawn by its class's code from
    them), and the notice as its parameters (``described``). The build keys a
    route's pre-rendered page by this model (``model_digest``), so a view that
    reads one more content field changes its key without anyone listing the field.
    """
    parts, crumbs = split(view, Roots(), with_text=True, islands=False, drawn=False)
    return {
        "kind": kind,
        "title": title,
        "description": description,
        "crumbs": str(crumbs),
        "parts": [asdict(part) for part in parts],
        "figures": [described(island.figure) for island in view.islands()],
        "notice": described(view.links.notice) if view.links is not None else None,
    }


def model_digest(*args) -> str:
    """The sha256 of ``model(*args)``."""
    text = json.dumps(model(*args), sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")  # a repr's memory address: another each run


def described(value, seen: frozenset = frozenset()):
    """``value`` as JSON data for a digest.

    A figure is its id, class and values; any other Parameterized (the notice's
    pane) its type and every parameter but its generated ``name``.
    """
    from posviz.figures.model import Figure

    if isinstance(value, str | int | float | bool) or value is None:
        return value
    if isinstance(value, list | tuple):
        return [described(v, seen) for v in value]
    if isinstance(value, dict):
        return {str(k): described(v, seen) for k, v in value.items()}
    if isinstance(value, type) or callable(value) and not isinstance(value, param.Parameterized):
        return f"{getattr(value, '__module__', '')}.{getattr(value, '__qualname__', repr(value))}"
    if not isinstance(value, param.Parameterized):
        return ADDRESS.sub("", repr(value))
    kind = f"{type(value).__module__}.{type(value).__qualname__}"
    if id(value) in seen:
        return f"(within itself: {kind})"
    inner = seen | {id(value)}
    values = {k: described(v, inner) for k, v in value.param.values().items() if k != "name"}
    if isinstance(value, Figure):
        return {"figure": value.figure_id, "class": kind, **values}
    return {"type": kind, **values}


def absolute(route_name: str, base: str | None = None) -> str | None:
    """The public URL of a route when the build was given one (``--base-url``)."""
    base = (base or os.environ.get(BASE_URL_ENV, "")).strip()
    if not base:
        return None
    return base.rstrip("/") + "/" + ("" if route_name == routes.HOME else f"{route_name}.html")


class PageTemplate(pn.Template):
    """A page's ``pn.Template``: its figures to fill later, and a repr that does not walk its roots.

    Panel rewrites a template's repr (its notebook display) after each ``add_panel``,
    and that repr walks every root added so far: on a page of nine figures, 7 % of
    the build (cProfile of the worker's build of the topic).
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.later: list[Later] = []  # in page order

    def __repr__(self) -> str:
        return f"{type(self).__name__} of a posviz page"


def page_template(
    view: View,
    route_name: str,
    kind: str,
    title: str,
    description: str,
    dev: dict | None = None,
    later: Collection[int] = (),
) -> PageTemplate:
    """A ``pn.Template`` of the page: text as HTML, figures as named roots.

    ``dev`` (``posviz serve --dev``): the route's digest, for the script that
    follows edits (``compose/devloop.py``). ``later``: the ids of figures whose
    roots are shells, to fill once the page is live (``PageTemplate.later``).
    """
    # location: the template's Location root keeps the URL query and the sliders in step.
    template = PageTemplate(environment().get_template("site.html"), location=True)
    only = (dev or {}).get("only")  # serve --dev swapping in one half: "text" or "figures"
    in_browser = routes.in_browser()
    with_text = not in_browser and only != "figures"
    # In the reader's browser the page is already there (pre-rendered): the worker needs
    # the roots alone, not each figure's room, which costs a drawing of the figure.
    parts, crumbs = split(
        view, template, with_text, islands=only != "text", drawn=not in_browser, later=later
    )
    canonical = absolute(route_name) if with_text else None
    template.add_variable(
        "posviz",
        {
            "kind": kind,
            "title": title,
            "description": description,
            "canonical": canonical,
            "crumbs": crumbs,
            "parts": parts,
            "named": [part.root for part in parts if part.root],
            "stylesheet": STYLESHEET,
            # The export's pages search its Pagefind index; `posviz serve` has none. The
            # embeddable figure view stays a figure alone.
            "search": SEARCH_SCRIPT if with_text and routes.exported() and kind != "figure" else "",
            "dev": dev_script(dev) if dev else "",
        },
    )
    return template


def dev_script(dev: dict) -> Markup:
    """The ``<script>`` that follows edits under ``posviz serve --dev``, with this page's digest."""
    from posviz import assets

    data = assets.literal(dev)  # JSON in a script: no "</script>" in it
    code = assets.source("posviz.compose", "dev_client.js")
    return Markup(
        f'<script type="application/json" id="posviz-dev">{data}</script>\n<script>{code}</script>'
    )
