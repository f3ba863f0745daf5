"""The page model (compose/page.py): head metadata, sitemap, and one stylesheet."""

import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

from posviz import styles
from posviz.compose import page, routes
from posviz.content import load
from posviz.export import command
from posviz.figures import FIGURES

BASE = "https://example.org/posviz/"


class Head(HTMLParser):
    """The <meta> and <link> tags of a page, by name/property and rel."""

    def __init__(self):
        super().__init__()
        self.meta, self.links = {}, {}

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "meta":
            self.meta[attrs.get("name") or attrs.get("property")] = attrs.get("content")
        elif tag == "link":
            self.links[attrs["rel"]] = attrs["href"]


def prerendered(out: Path, names: list[str], base_url: str | None) -> dict[str, Head]:
    env = {**os.environ, "POSVIZ_EXPORT": "1", "PYTHONHASHSEED": "0", "PANEL_CDN_ROOT": "./"}
    env.pop(page.BASE_URL_ENV, None)
    if base_url:
        env[page.BASE_URL_ENV] = base_url
    subprocess.run(
        [sys.executable, "-m", "posviz.export.prerender", str(out), *names],
        env=env,
        check=True,
        capture_output=True,
        timeout=300,
    )
    heads = {}
    for name in names:
        heads[name] = Head()
        heads[name].feed((out / f"{name}.html").read_text("utf-8"))
    return heads


@pytest.fixture(scope="module")
def heads(tmp_path_factory):
    names = ["index", "page-query-key-value"]
    return (
        prerendered(tmp_path_factory.mktemp("with"), names, BASE),
        prerendered(tmp_path_factory.mktemp("without"), names, None),
    )


def test_base_url_gives_canonical_and_open_graph_from_the_content(heads):
    with_base, without = heads
    qkv = load().pages["query-key-value"]
    head = with_base["page-query-key-value"]
    assert head.links["canonical"] == f"{BASE}page-query-key-value.html"
    assert head.meta["og:url"] == head.links["canonical"]
    assert head.meta["og:title"] == f"{qkv.title} · posviz"
    assert head.meta["og:description"] == head.meta["description"] == qkv.summary
    assert with_base["index"].links["canonical"] == BASE
    # Without --base-url: the description, and no URL the build cannot know.
    plain = without["page-query-key-value"]
    assert plain.meta["description"] == qkv.summary
    assert "canonical" not in plain.links and "og:url" not in plain.meta
    assert plain.links["stylesheet"] == page.STYLESHEET


def test_sitemap_lists_every_route_at_its_public_url(tmp_path):
    found = routes.routes(load())
    command.sitemap(tmp_path, found, BASE)
    tree = ET.parse(tmp_path / "sitemap.xml")
    space = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}
    locs = [loc.text for loc in tree.getroot().findall("s:url/s:loc", space)]
    assert locs == [BASE if r.name == routes.HOME else f"{BASE}{r.name}.html" for r in found]


@pytest.mark.parametrize(
    "bad", ["example.org/posviz", "ftp://example.org/", "https:///x", "https://e.org/?q=1"]
)
def test_a_base_url_that_is_not_a_public_folder_is_refused(bad):
    with pytest.raises(command.BuildError, match="--base-url"):
        command.check_base_url(bad)
    assert command.check_base_url("https://e.org/site") == "https://e.org/site/"


def _colours(css: str) -> tuple[dict, dict]:
    """The --pv- colours of a sheet's light block and of its dark one, read here."""
    light, dark = css.split("@media (prefers-color-scheme: dark)", 1)
    return tuple(
        dict(re.findall(r"--pv-([a-z]+):\s*(#[0-9a-f]{6})", text))
        for text in (light, dark.split("}")[0])
    )


def test_the_figures_use_the_page_stylesheets_colours_in_light_and_dark():
    """The palette is named once, in site.css: the figures' shadow roots get the same."""
    light, dark = _colours(page.STATIC_DIR.joinpath("site.css").read_text("utf-8"))
    assert len(light) == 7 and light.keys() == dark.keys() and light != dark
    assert (styles.LIGHT, styles.DARK) == (light, dark)
    for sheet in (styles.VARIABLES, styles.PAGE_CSS):
        assert _colours(sheet) == (light, dark)


def test_a_stylesheet_without_its_palette_names_the_file():
    with pytest.raises(ValueError, match=r"site\.css: wants a :root block.*dark: \[\]"):
        styles.palette(":root { --pv-ink: #000000; }", "site.css")


def test_the_text_panes_share_the_pages_text_rules():
    shared = styles.block(page.STATIC_DIR.joinpath("site.css").read_text("utf-8"), "text")
    assert "h2 {" in shared and ".posviz-sr {" in shared and styles.TEXT_CSS.startswith(shared)
    with pytest.raises(ValueError, match=r"site\.css: wants a block from /\* posviz:text"):
        styles.block("h2 { color: red; }", "text", "site.css")


def test_the_template_escapes_what_it_is_given():
    """Titles and descriptions are text: markup in them reaches the page escaped."""
    template = page.environment().get_template("site.html")
    rendered = template.render(
        title="<b>t</b>",
        roots=[],
        posviz={"description": '"><script>x</script>', "parts": [], "named": []},
    )
    assert "<b>t</b>" not in rendered and "&lt;b&gt;t&lt;/b&gt;" in rendered
    assert "<script>x</script>" not in rendered


def readouts_of(cls):
    """A figure's readout at its opening and after each single slider move it allows."""
    from posviz.export.frames import slider_values

    opening = cls()
    found = [opening.readout()]
    for name in opening.sliders():
        for value in slider_values(opening, name):
            figure = cls()
            setattr(figure, name, value)
            found.append(figure.readout())
    return list(dict.fromkeys(found))


@pytest.mark.parametrize("figure_id", sorted(FIGURES))
def test_a_readout_is_written_as_the_pages_grammar_renders_it(figure_id):
    """Readouts are written without a parser (``frames.texts.markdown_html``: the live pane,
    the frames, the numpy tier and the page's text alternative all use it); the result is
    what ``posviz.markup``, the pages' one grammar, makes of the same Markdown."""
    from posviz import markup
    from posviz.frames.texts import markdown_html

    found = readouts_of(FIGURES[figure_id])
    assert len(found) > 1  # a slider's move changes what it says
    assert [markdown_html(text) for text in found] == [markup.render(text) for text in found]


def test_the_grammar_check_can_fail():
    from posviz import markup
    from posviz.frames.texts import markdown_html

    assert markdown_html("a *b*") != markup.render("a *b*")  # emphasis is not a readout's


def test_in_the_browser_a_page_draws_no_figure_for_its_room(monkeypatch):
    """The worker builds a page for its roots alone: no figure is drawn for a room (the
    pre-rendered page has it), while the host's page keeps each figure's room."""
    from posviz.compose import views
    from posviz.drawing import layout

    drawn = []
    real = layout.island_room
    monkeypatch.setattr(layout, "island_room", lambda *a: drawn.append(a) or real(*a))
    dashboard, route = views.view("figure-710")
    template = page.page_template(dashboard, route.name, route.kind, route.title, "")
    assert drawn and all(
        p.room for p in template._render_variables["posviz"]["parts"] if p.kind == "figure"
    )
    drawn.clear()
    monkeypatch.setattr(page.routes, "in_browser", lambda: True)
    dashboard, route = views.view("figure-710")
    template = page.page_template(dashboard, route.name, route.kind, route.title, "")
    assert drawn == []
    assert [
        p.figure_id for p in template._render_variables["posviz"]["parts"] if p.kind == "figure"
    ] == [710]


def test_a_served_page_draws_each_figure_once_until_a_value_moves(monkeypatch):
    """Its plots, its legend's labels as text and its island's room share one drawing
    (drawing.specs); a moved slider draws again, at the new values."""
    from posviz import drawing
    from posviz.compose import views

    dashboard, route = views.view("topic-positional-encoding")
    figures = [isle.figure for isle in dashboard.islands()]
    drawn = {figure.figure_id: [] for figure in figures}

    def counted(own):
        return lambda self, hv, frame: drawn[self.figure_id].append(frame) or own(self, hv, frame)

    for cls in {type(figure) for figure in figures}:
        monkeypatch.setattr(cls, "draw", counted(cls.draw))
    template = page.page_template(dashboard, route.name, route.kind, route.title, "")
    parts = [p for p in template._render_variables["posviz"]["parts"] if p.kind == "figure"]
    assert [p.figure_id for p in parts] == [figure.figure_id for figure in figures]
    assert all(p.room and "legend" in p.figure for p in parts)
    assert {key: len(frames) for key, frames in drawn.items()} == dict.fromkeys(drawn, 1)

    figure = next(f for f in figures if f.figure_id == 710)
    before, _ = drawing.specs(figure)
    assert len(drawn[710]) == 1  # asked again at the same values: kept
    name = figure.sliders()[0]
    low, high = figure.param[name].bounds
    setattr(figure, name, high if getattr(figure, name) != high else low)
    frame, _ = drawing.specs(figure)
    assert len(drawn[710]) == 2 and drawn[710][1] is frame
    np.testing.assert_equal(frame, figure.frame())
    with pytest.raises(AssertionError):
        np.testing.assert_equal(frame, before)
