"""Content and figures composed into the site's dashboards.

The only layer that knows about layouts and URLs. ``view(name)`` builds the
dashboard of one route; ``servable(name)`` is what an entry script calls.
"""

import contextlib
import html
import logging
from contextvars import ContextVar
from functools import cache

import panel as pn

from posviz import assets, content, internals
from posviz.compose import memory, page_script
from posviz.compose import routes as routing
from posviz.compose.links import DeepLinks
from posviz.compose.page import model_digest, page_template, plain_text
from posviz.compose.routes import HOME, figure_order, figure_route, href, page_route, topic_route
from posviz.styles import FIGURE_CSS, NOTICE_CSS, SITE_CSS, TEXT_CSS
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

    They read ``data`` (content from the folder the build was given), and a figure
    block holds its figure in a stand-in (``held``) instead of the layout it draws.
    """
    token = _DESCRIBING.set(data)
    try:
        yield
    finally:
        _DESCRIBING.reset(token)


def held(figure):
    """The figure as its block holds it.

    Panel makes its layout from it (its widgets and plots, ``Figure.__panel__``);
    inside ``describing``, a stand-in holds it as that layout does (in a
    ``pn.Param``): the page model is the figure's class and values.
    """
    if _DESCRIBING.get() is not None:
        return pn.Column(pn.Param(figure, parameters=[]))
    return figure


def page_model_digest(name: str) -> str:
    """The digest of the page model (``page.model``) of the route called ``name``."""
    dashboard, route = view(name)
    return model_digest(dashboard, route.kind, route.title, description(route))


def text(markdown: str, **kwargs) -> pn.pane.Markdown:
    """Content Markdown in the site's text style.

    The page renders it with ``posviz.markup``'s grammar (``page.split``), as the
    checks read it; Panel never renders it (the browser's worker skips text).
    """
    # `posviz check` refuses raw HTML in content; should any slip through, it shows as text.
    return pn.pane.Markdown(
        markdown,
        stylesheets=[TEXT_CSS],
        sizing_mode="stretch_width",
        disable_math=True,
        renderer_options={"html": False},
        **kwargs,
    )


def raw(markup: str, **kwargs) -> pn.pane.HTML:
    """Markup built by posviz from content; URL text never reaches it."""
    return pn.pane.HTML(markup, stylesheets=[TEXT_CSS], sizing_mode="stretch_width", **kwargs)


def link(label: str, name: str, fragment: str | None = None) -> str:
    """An escaped ``<a>`` to a route."""
    return f'<a href="{html.escape(href(name, fragment))}">{html.escape(label)}</a>'


def crumbs(*parts: str) -> pn.pane.HTML:
    """The breadcrumb line: home › ``parts`` (the page puts it in a ``<nav>``)."""
    return raw(
        '<nav class="crumbs" aria-label="Breadcrumb">'
        + " › ".join([link("posviz", HOME), *parts])
        + "</nav>",
        css_classes=["posviz-crumbs"],
    )


def from_line(uses: list[content.FigureUse]) -> str:
    """The "From <page> › <section>" line: every place a figure lives, as links."""
    return "From " + "; ".join(
        f"{link(use.page.title, page_route(use.page.slug))} › "
        f"{link(use.section.heading, page_route(use.page.slug), use.section.anchor)}"
        for use in uses
    )


def figure_block(figure, uses: list[content.FigureUse] = (), level: int = 3) -> pn.Column:
    """A figure under its id and title (``<h{level}>``) and, given ``uses``, where it lives."""
    heading = (
        # The space keeps the id a word of its own for screen readers and search.
        f'<h{level}><span class="figure-id">{figure.figure_id}</span> '
        f"{html.escape(figure.title)}</h{level}>"
    )
    parts = [raw(heading)]
    if uses:
        parts.insert(0, raw(f'<div class="muted">{from_line(uses)}</div>'))
    return pn.Column(
        *parts,
        held(figure),
        stylesheets=[FIGURE_CSS],
        sizing_mode="stretch_width",
        css_classes=["posviz-figure-block"],
    )


def page_column(links: DeepLinks, *objects) -> pn.Column:
    """A view's outer column: the notice of its deep ``links`` on top, then ``objects``."""
    return pn.Column(
        links.notice,
        *[o for o in objects if o is not None],
        stylesheets=[SITE_CSS],
        sizing_mode="stretch_width",
        styles={"max-width": f"{WIDTH}px", "margin": "0 auto"},
        css_classes=["posviz-main"],  # composition only: the page (compose/page.py) splits it
    )


def new_figures(ids) -> dict:
    """A new instance of each figure in ``ids``, by id."""
    from posviz.figures import FIGURES

    return {figure_id: FIGURES[figure_id]() for figure_id in ids}


# --- views ---------------------------------------------------------------------


def topic_view(slug: str) -> pn.Column:
    """A topic: intro, reading order, the live figures its pages use, and tags."""
    data = library()
    topic = data.topics[slug]
    shown = data.figures_shown(topic)
    figures = new_figures(figure_id for figure_id, _ in shown)
    order = "".join(
        f"<li>{html.escape(page.kind)} · read first: {link(page.title, page_route(page.slug))}</li>"
        for page in data.reading_order(topic)
    )
    tags = "".join(tag_chip(tag, count) for tag, count in data.tags(topic))
    head = (
        f'<div class="eyebrow">Topic · {html.escape(topic.category)}</div>'
        f"<h1>{html.escape(topic.title)}</h1><p>{html.escape(topic.intro)}</p>"
    )
    return page_column(
        DeepLinks(figures, single=False),
        crumbs(html.escape(topic.title)),
        raw(head),
        text(topic.text) if topic.text else None,
        raw(f'<h2>In reading order</h2><ol class="reading">{order}</ol>'),
        raw(
            "<h2>The figures these pages use</h2><p class='muted'>These figures answer their "
            "sliders here just as they do on the pages that use them.</p>"
        ),
        *[figure_block(figures[figure_id], uses) for figure_id, uses in shown],
        raw(f"<h2>Tags that go with it</h2><div>{tags}</div>"),
    )


def page_view(slug: str) -> pn.Column:
    """A page: its sections in order, with its figures where the text places them."""
    data = library()
    page = data.pages[slug]
    figures = new_figures(page.figures)
    builds_on = ", ".join(link(data.pages[s].title, page_route(s)) for s in page.builds_on)
    head = (
        f'<div class="eyebrow">{html.escape(page.kind)}</div>'
        f"<h1>{html.escape(page.title)}</h1><p class='muted'>{html.escape(page.summary)}</p>"
        + (f"<p>Builds on: {builds_on}</p>" if builds_on else "")
    )
    body = []
    for section in page.sections:
        body.append(raw(f'<h2 id="{section.anchor}">{html.escape(section.heading)}</h2>'))
        for block in section.blocks:
            body.append(figure_block(figures[block]) if isinstance(block, int) else text(block))
    links = DeepLinks(figures, single=False)
    return page_column(links, crumbs(html.escape(page.title)), raw(head), *body)


def figure_view(figure_id: int) -> pn.Column:
    """One figure alone, to embed; links take bare slider names (``pos=30``)."""
    figures = new_figures([figure_id])
    # A build of figures alone (docs embeds) ships no article for "From …" to link to.
    uses = library().uses_of(figure_id) if pages_shipped() else []
    return page_column(
        DeepLinks(figures, single=True), figure_block(figures[figure_id], uses, level=1)
    )


def home_view() -> pn.Column:
    """Home: every topic, page and figure."""
    data = library()
    from posviz.figures import FIGURES

    topics = "".join(
        f"<li>{link(t.title, topic_route(t.slug))} "
        f"<span class='muted'>· {html.escape(t.category)}</span></li>"
        for t in data.topics.values()
    )
    pages = "".join(
        f"<li>{html.escape(p.kind)} · {link(p.title, page_route(p.slug))}</li>"
        for p in data.pages.values()
    )
    figures = "".join(
        f"<li><span class='figure-id'>{fid}</span>"
        f"{link(FIGURES[fid].title, figure_route(fid))}</li>"
        for fid in figure_order(data)
    )
    return page_column(
        DeepLinks({}, single=False),
        raw(
            f"<h1>posviz</h1><p>{html.escape(HOME_INTRO)}</p>"
            f"<h2>Topics</h2><ul>{topics}</ul><h2>Pages</h2><ul>{pages}</ul>"
            f"<h2>Figures</h2><ul>{figures}</ul>"
        ),
    )


def gallery() -> pn.Column:
    """Every figure, each with where it lives (if a page shows it)."""
    data = library()
    figures = new_figures(figure_order(data))
    return page_column(
        DeepLinks(figures, single=False),
        crumbs("All figures"),
        raw("<h1>All figures</h1><p class='muted'>" + html.escape(GALLERY_INTRO) + "</p>"),
        *[figure_block(figure, data.uses_of(fid), level=2) for fid, figure in figures.items()],
    )


def tag_chip(tag: str, count: int) -> str:
    """A topic's tag with its count, linking to the tag's page."""
    return (
        f'<a class="chip" href="{html.escape(href(routing.tag_route(tag)))}">'
        f"{html.escape(tag)} <b>{count}</b></a>"
    )


def tag_view(tag: str) -> pn.Column:
    """Every page that carries ``tag``, and the figures those pages show, as links."""
    from posviz.figures import FIGURES

    data = library()
    pages = routing.tagged(data)[tag]
    shown = content.group_uses(content.uses_in(pages))
    page_items = "".join(
        f"<li>{html.escape(page.kind)} · {link(page.title, page_route(page.slug))}"
        f"<br><span class='muted'>{html.escape(page.summary)}</span></li>"
        for page in pages
    )
    figure_items = "".join(
        f"<li><span class='figure-id'>{figure_id}</span>"
        f"{link(FIGURES[figure_id].title, figure_route(figure_id))}"
        f"<br><span class='muted'>{from_line(uses)}</span></li>"
        for figure_id, uses in shown
    )
    topics = "".join(
        f"<li>{link(topic.title, topic_route(topic.slug))}: {count} of its figure pages</li>"
        for topic in data.topics.values()
        for name, count in data.tags(topic)
        if name == tag
    )
    pages_word = "page carries" if len(pages) == 1 else "pages carry"
    head = (
        '<div class="eyebrow">Tag</div>'
        f"<h1>{html.escape(tag)}</h1>"
        f"<p class='muted'>{len(pages)} {pages_word} this tag; "
        f"{len(shown)} {'figure appears' if len(shown) == 1 else 'figures appear'} on them.</p>"
    )
    return page_column(
        DeepLinks({}, single=False),
        crumbs(html.escape(tag)),
        raw(head),
        raw(f'<h2>Pages</h2><ul class="tagged-pages">{page_items}</ul>'),
        raw(
            f'<h2>Figures</h2><ul class="tagged-figures">{figure_items}</ul>'
            if shown
            else "<h2>Figures</h2><p class='muted'>None of these pages shows a figure.</p>"
        ),
        raw(f"<h2>In topics</h2><ul>{topics}</ul>") if topics else None,
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
    """The dashboard of the route called ``name``."""
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


def servable(name: str, dev: dict | None = None):
    """Entry scripts call this: build the view, or a readable failure, and serve it.

    ``dev`` (under ``posviz serve --dev``, from ``devloop``): the route's digest
    and where its state is polled; the page then follows every edit.
    """
    pn.extension(design="native", notifications=False)
    internals.set_server_debounce(SERVER_DEBOUNCE_MS)
    if routing.exported():
        from posviz.drawing import numpy_only

        numpy_only()  # the export's process is all posviz; keeps pandas out of the browser
    else:
        internals.send_frames_at_once()
    kind, summary = "error", ""
    try:
        dashboard, route = view(name)
        title = f"{route.title} · posviz"
        kind, summary = route.kind, description(route)
    except Exception as error:  # the reader gets a message, the log the traceback
        log.exception("could not build view %s", name)
        where = ""
        if dev:
            from posviz.compose import devloop

            where = devloop.where(error)
        dashboard = pn.pane.HTML(
            '<div class="posviz-build-error"><h2>This page could not be built</h2>'
            f"<p>{html.escape(where)}{html.escape(type(error).__name__)}: "
            f"{html.escape(str(error))}</p></div>",
            stylesheets=[NOTICE_CSS],
        )
        title = "posviz: error"
    if pn.state.curdoc is not None:
        from bokeh.models import CustomJS

        if not routing.exported():
            pn.state.on_session_destroyed(memory.on_session_destroyed)
            # posviz's own log lines at the level the server logs at (its --log-level,
            # which Bokeh sets on its "bokeh" logger only).
            logging.getLogger("posviz").setLevel(logging.getLogger("bokeh").getEffectiveLevel())

        pn.state.curdoc.js_on_event("document_ready", CustomJS(code=SCROLL_TO_FRAGMENT))
        page_script.install(pn.state.curdoc)
    template = page_template(dashboard, name, kind, title, summary, dev=dev)
    return template.servable(title=title)
