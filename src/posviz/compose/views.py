"""Content and figures composed into the site's pages.

The only layer that knows about routes and URLs. ``view(name)`` builds the page
of one route as data (``parts.View``: text, figure islands, the deep-link
notice); ``servable(name)`` is what an entry script calls.
"""

import contextlib
import logging
from collections.abc import Collection
from contextvars import ContextVar
from functools import cache

import panel as pn
from markupsafe import Markup

from posviz import assets, content, internals
from posviz.compose import memory, page_script
from posviz.compose import routes as routing
from posviz.compose.links import DeepLinks
from posviz.compose.page import model_digest, page_template, plain_text
from posviz.compose.parts import Html, Island, Prose, View, macros
from posviz.compose.routes import HOME, figure_order, figure_route
from posviz.urls import pages_shipped

log = logging.getLogger(__name__)
WIDTH = 1100
HOME_INTRO = (
    "Live figures on how Transformers see position and how attention's "
    "cost is tamed on images. Every figure recomputes as you move its sliders."
)
GALLERY_INTRO = "Every figure of the site, each live, with the page it comes from."

# Section links into Panel's shadow roots, which the browser's own scrolling cannot see.
SCROLL_TO_FRAGMENT = assets.source("posviz.compose", "scroll_to_fragment.js")


# Content given to the views built inside ``describing`` (the build's page keys).
_DESCRIBING: ContextVar[content.Library | None] = ContextVar("posviz_describing", default=None)


def library() -> content.Library:
    """The site's content: loaded once per process, or again after each edit under ``--dev``.

    Inside ``describing``, the content it was given.
    """
    if (given := _DESCRIBING.get()) is not None:
        return given
    if routing.dev_serving():  # devloop is the dev server's alone: the browser never loads it
        from posviz.compose import devloop

        return devloop.library()
    return loaded()


@cache
def loaded() -> content.Library:
    """The content, read once."""
    return content.load()


library.cache_clear = loaded.cache_clear  # as when library itself was the cached function


@contextlib.contextmanager
def describing(data: content.Library):
    """Views built inside are for their page model (``page_model_digest``), not for showing.

    They read ``data``: content from the folder the build was given.
    """
    token = _DESCRIBING.set(data)
    try:
        yield
    finally:
        _DESCRIBING.reset(token)


def page_model_digest(name: str) -> str:
    """The digest of the page model (``page.model``) of the route called ``name``."""
    shown, route = view(name)
    return model_digest(shown, route.kind, route.title, description(route))


def crumbs(*labels: str) -> Markup:
    """The breadcrumb line: home › ``labels`` (the page puts it in its header)."""
    return macros().crumbs(HOME, labels)


def new_figures(ids) -> dict:
    """A new instance of each figure in ``ids``, by id."""
    from posviz.figures import FIGURES

    return {figure_id: FIGURES[figure_id]() for figure_id in ids}


# --- views ---------------------------------------------------------------------


def topic_view(slug: str) -> View:
    """A topic: intro, reading order, the live figures its pages use, and tags."""
    data = library()
    topic = data.topics[slug]
    shown = data.figures_shown(topic)
    figures = new_figures(figure_id for figure_id, _ in shown)
    text = macros()
    chips = [(tag, count, routing.tag_route(tag)) for tag, count in data.tags(topic)]
    return View(
        [
            Html(text.topic_head(topic)),
            *([Prose(topic.text)] if topic.text else []),
            Html(text.reading_order(data.reading_order(topic))),
            Html(text.topic_figures()),
            *[Island(figures[figure_id], tuple(uses)) for figure_id, uses in shown],
            Html(text.topic_tags(chips)),
        ],
        crumbs(topic.title),
        DeepLinks(figures, single=False),
    )


def page_view(slug: str) -> View:
    """A page: its sections in order, with its figures where the text places them."""
    data = library()
    page = data.pages[slug]
    figures = new_figures(page.figures)
    text = macros()
    parts = [Html(text.page_head(page, [data.pages[s] for s in page.builds_on]))]
    for section in page.sections:
        parts.append(Html(text.heading(section.heading, section.anchor)))
        for block in section.blocks:
            parts.append(Island(figures[block]) if isinstance(block, int) else Prose(block))
    return View(parts, crumbs(page.title), DeepLinks(figures, single=False))


def figure_view(figure_id: int) -> View:
    """One figure alone, to embed; links take bare slider names (``pos=30``)."""
    figures = new_figures([figure_id])
    # A build of figures alone (docs embeds) ships no article for "From …" to link to.
    uses = library().uses_of(figure_id) if pages_shipped() else []
    return View(
        [Island(figures[figure_id], tuple(uses), level=1)],
        links=DeepLinks(figures, single=True),
    )


def home_view() -> View:
    """Home: every topic, page and figure."""
    data = library()
    from posviz.figures import FIGURES

    figures = [(fid, FIGURES[fid].title, figure_route(fid)) for fid in figure_order(data)]
    home = macros().home(HOME_INTRO, data.topics.values(), data.pages.values(), figures)
    return View([Html(home)], links=DeepLinks({}, single=False))


def gallery() -> View:
    """Every figure, each with where it lives (if a page shows it)."""
    data = library()
    figures = new_figures(figure_order(data))
    return View(
        [
            Html(macros().gallery_head(GALLERY_INTRO)),
            *[Island(figure, tuple(data.uses_of(fid)), level=2) for fid, figure in figures.items()],
        ],
        crumbs("All figures"),
        DeepLinks(figures, single=False),
    )


def tag_view(tag: str) -> View:
    """Every page that carries ``tag``, and the figures those pages show, as links."""
    from posviz.figures import FIGURES

    data = library()
    pages = routing.tagged(data)[tag]
    shown = content.group_uses(content.uses_in(pages))
    figures = [
        (figure_id, FIGURES[figure_id].title, figure_route(figure_id), uses)
        for figure_id, uses in shown
    ]
    topics = [
        (topic, count)
        for topic in data.topics.values()
        for name, count in data.tags(topic)
        if name == tag
    ]
    text = macros()
    return View(
        [
            Html(text.tag_head(tag, len(pages), len(shown))),
            Html(text.tag_pages(pages)),
            Html(text.tag_figures(figures)),
            *([Html(text.tag_topics(topics))] if topics else []),
        ],
        crumbs(tag),
        DeepLinks({}, single=False),
    )


def description(route) -> str:
    """The page's one-line summary, for ``<meta name="description">`` and link previews."""
    from posviz.figures import FIGURES

    data = library()
    if route.kind == "topic":
        return data.topics[route.key].intro
    if route.kind == "page":
        return data.pages[route.key].summary
    if route.kind == "tag":
        pages = routing.tagged(data)[route.key]
        return f"Pages tagged {route.key}: " + "; ".join(page.title for page in pages) + "."
    if route.kind == "figure":
        return plain_text(FIGURES[route.key].caption)
    if route.kind == "gallery":
        return GALLERY_INTRO
    return HOME_INTRO


def view(name: str):
    """The page of the route called ``name`` (a ``parts.View``), and the route."""
    by_name = {route.name: route for route in routing.routes(library())}
    if name not in by_name:
        raise LookupError(f"there is no page at /{name}: no page, topic, tag or figure has it")
    route = by_name[name]
    builders = {
        "home": lambda key: home_view(),
        "topic": topic_view,
        "page": page_view,
        "tag": tag_view,
        "figure": figure_view,
        "gallery": lambda key: gallery(),
    }
    return builders[route.kind](route.key), route


# Under a server Panel waits after a widget change before handling it, to batch
# a drag, by default a slider's whole frame budget. This still batches the
# events of one drag step (benchmarks/slider_latency.py measures it).
SERVER_DEBOUNCE_MS = 10


def servable(name: str, dev: dict | None = None, near: Collection[int] | None = None):
    """Entry scripts call this: build the view, or a readable failure, and serve it.

    ``dev`` (under ``posviz serve --dev``, from ``devloop``): the route's digest
    and where its state is polled; the page then follows every edit. ``near``
    (the export's worker, from the page): the figures near the reader's viewport.
    Given it, the page's other figures are shells, to fill once it is live
    (the returned template's ``later``).
    """
    pn.extension(design="native", notifications=False)
    internals.set_server_debounce(SERVER_DEBOUNCE_MS)
    if routing.exported():
        from posviz.drawing import numpy_only

        numpy_only()  # the export's process is all posviz; keeps pandas out of the browser
    else:
        internals.send_frames_at_once()
    kind, summary, later = "error", "", ()
    try:
        shown, route = view(name)
        if near is not None:
            later = {isle.figure.figure_id for isle in shown.islands()} - set(near)
        title = f"{route.title} · posviz"
        kind, summary = route.kind, description(route)
    except Exception as error:  # the reader gets a message, the log the traceback
        log.exception("could not build view %s", name)
        where = ""
        if dev:
            from posviz.compose import devloop

            where = devloop.where(error)
        message = macros().build_error(where, type(error).__name__, str(error))
        shown = View([Html(message)])
        title = "posviz: error"
    if pn.state.curdoc is not None:
        from bokeh.models import CustomJS

        if not routing.exported():
            # Before the page's models are made (template.servable, below).
            internals.serve_stylesheets_locally(pn.state.curdoc)
            pn.state.on_session_destroyed(memory.on_session_destroyed)
            # posviz's own log lines at the level the server logs at (its --log-level,
            # which Bokeh sets on its "bokeh" logger only).
            logging.getLogger("posviz").setLevel(logging.getLogger("bokeh").getEffectiveLevel())

        pn.state.curdoc.js_on_event("document_ready", CustomJS(code=SCROLL_TO_FRAGMENT))
        page_script.install(pn.state.curdoc)
    template = page_template(shown, name, kind, title, summary, dev=dev, later=later)
    if pn.state.curdoc is None:
        return template.servable(title=title)
    # Panel adds the page's roots one by one, and Bokeh re-walks the whole document's
    # models after each: once is enough (a served topic page, 13 % less CPU:
    # benchmarks/serve_cost.py; the export's worker too: benchmarks/cold_ab.py).
    with pn.state.curdoc.models.freeze():
        return template.servable(title=title)
