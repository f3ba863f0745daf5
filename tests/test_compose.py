"""Composition: the dashboards built from content and figures, inspected as Panel
objects (no browser), and the deep links between sliders and the URL query.

Routes, listings and views are checked on the tests' own fixture content
(``tests/data/content_fixture``); the real content's routes render in
test_content's smoke test, and the seed's facts are pinned by name there. The
deep-link tests open the real seed pages, whose figures (96 and 710 on the
Transformer page) are seed facts.
"""

import html
from dataclasses import replace
from pathlib import Path
from urllib.parse import parse_qsl

import panel as pn
import pytest
from markupsafe import Markup

from posviz import content
from posviz.compose import page as pages
from posviz.compose import parts, views
from posviz.compose import routes as routing
from posviz.compose.routes import href
from posviz.figures import FIGURES, ClockHands
from tests.support.compose import (  # noqa: F401  (kept importable from here)
    CONTENT,
    FakeLocation,
    all_text,
    links,
    live_figures,
    outline,
    plain,
    texts,
    view,
)
from tests.support.content_checks import FIXTURE

AIAYN = "attention-is-all-you-need"
PIXELS = "attention-meets-pixels"
# The fixture's topic and pages.
TOPIC = "topic-ordering"
SEED_TOPIC = "topic-positional-encoding"  # the deep-link tests open the seed's views
BASICS, ONE, TWO = "basics", "figures-one", "figures-two"


@pytest.fixture
def site(views_of_fixture):
    """The fixture content, with views built from it as under ``posviz serve``."""
    return content.load(FIXTURE)


pytestmark = pytest.mark.usefixtures("views_as_served")


# --- every route ---------------------------------------------------------------------


def test_routes_cover_home_topic_pages_tags_figures_and_gallery(site):
    unshown = [fid for fid in FIGURES if fid not in (96, 710, 7256)]
    assert [(r.name, r.kind, r.key) for r in routing.routes(site)] == [
        ("index", "home", None),
        ("topic-ordering", "topic", "ordering"),
        *[(f"page-{slug}", "page", slug) for slug in (BASICS, ONE, TWO)],
        *[(f"tag-{tag.lower()}", "tag", tag) for tag in ("Alpha", "Beta", "Gamma")],
        *[(f"figure-{fid}", "figure", fid) for fid in (96, 710, 7256, *unshown)],
        ("gallery", "gallery", None),
    ]
    routes = {r.name: r for r in routing.routes(site)}
    assert routes["topic-ordering"].figures == (96, 710, 7256)  # 710 once, on two pages
    assert routes[f"page-{TWO}"].figures == (7256, 710)


def test_the_seed_routes_are_there_by_name():
    names = {r.name for r in routing.routes(content.load(CONTENT))}
    assert {
        "topic-positional-encoding",
        "page-query-key-value",
        "page-attention-before-transformers",
        f"page-{AIAYN}",
        f"page-{PIXELS}",
        "tag-efficient-attention",
        "tag-self-attention",
        "tag-transformers",
        "figure-96",
        "figure-710",
        "figure-7256",
        "figure-4121",
    } <= names


def test_figures_are_ordered_as_the_pages_show_them_then_by_id(site):
    """A figure shown on two pages (710 here) is listed once, where it is first shown.

    The old form of this test listed the pages' figures with repeats, so it refused a
    second page showing a figure; ``figure_order`` itself never did, and nothing
    (routes, gallery, figure views' way back to the first page) needs a figure on one
    page only."""
    order = routing.figure_order(site)
    assert sorted(order) == sorted(FIGURES)
    shown = list(
        dict.fromkeys(fid for slug in sorted(site.pages) for fid in site.pages[slug].figures)
    )
    assert shown == [96, 710, 7256]
    assert order[: len(shown)] == shown
    assert order[len(shown) :] == sorted(order[len(shown) :])


@pytest.mark.parametrize("name", [r.name for r in routing.routes(content.load(FIXTURE))])
def test_every_route_builds_with_its_figures(site, name):
    route = {r.name: r for r in routing.routes(site)}[name]
    layout = view(name)
    assert isinstance(layout, parts.View)
    notice = layout.links.notice
    assert isinstance(notice, pn.pane.HTML) and not notice.visible  # nothing to say yet
    assert [f.figure_id for f in live_figures(layout)] == list(route.figures)
    for figure in live_figures(layout):
        assert type(figure) is FIGURES[figure.figure_id]
    # Data, not Panel: text as markup, content Markdown as written, figures as figures.
    for part in layout.parts:
        assert isinstance(part, parts.Html | parts.Prose | parts.Island)
        assert not any(isinstance(value, pn.viewable.Viewable) for value in vars(part).values())
    assert isinstance(layout.crumbs, Markup)


MARKUP = '<b class="x">&amp;</b>'


def with_markup(site: content.Library) -> content.Library:
    """``site`` with markup at the end of every text field a view shows."""

    def page(p):
        sections = tuple(replace(s, title=s.title + MARKUP) for s in p.sections)
        return replace(
            p,
            title=p.title + MARKUP,
            kind=p.kind + MARKUP,
            summary=p.summary + MARKUP,
            sections=sections,
        )

    def topic(t):
        return replace(
            t, title=t.title + MARKUP, category=t.category + MARKUP, intro=t.intro + MARKUP
        )

    return replace(
        site,
        pages={slug: page(p) for slug, p in site.pages.items()},
        topics={slug: topic(t) for slug, t in site.topics.items()},
    )


def test_every_view_writes_content_text_escaped(site):
    """Jinja's autoescape: a title, kind, summary, heading, category or intro is text.

    Each route shows the markup as written (its characters, in the reader's text),
    and no element of it reaches the page.
    """
    data = with_markup(site)
    shown = {}
    with views.describing(data):
        for route in routing.routes(data):
            layout, _ = views.view(route.name)
            markups = [str(layout.crumbs)] + [
                str(part.heading if isinstance(part, parts.Island) else part.html)
                for part in layout.parts
            ]
            assert not [m for m in markups if '<b class="x">' in m], route.name
            shown[route.kind] = shown.get(route.kind, 0) + sum(
                plain(m).count(MARKUP) for m in markups
            )
    # Every kind of route shows some content text: home, topic, pages, figure, gallery, tags.
    assert set(shown) == {"home", "topic", "page", "figure", "gallery", "tag"}
    assert all(shown.values()), shown


# --- the topic view ------------------------------------------------------------------


def test_topic_view_heads_with_category_title_and_intro(site):
    topic = site.topics["ordering"]
    layout = view(TOPIC)
    text = all_text(layout)
    assert f"Topic · {topic.category}" in text
    assert topic.title in text
    assert topic.intro in text
    assert topic.text in [p for p in texts(layout)]
    assert text.index(f"Topic · {topic.category}") < text.index("In reading order")


def test_topic_view_lists_the_reading_order_with_kinds(site):
    layout = view(TOPIC)
    [reading] = [p for p in texts(layout) if "In reading order" in p]
    items = [plain(item) for item in str(reading).split("<li>")[1:]]
    assert items == [f"Read · read first: {site.pages[BASICS].title}"]
    assert links(reading) == [(f"page-{BASICS}", site.pages[BASICS].title)]


def test_topic_view_attributes_each_live_figure_to_its_page_section(site):
    layout = view(TOPIC)
    blocks = layout.islands()
    expected = [(96, [(ONE, 2)]), (710, [(ONE, 3), (TWO, 2)]), (7256, [(TWO, 1)])]
    assert len(blocks) == len(expected)  # 710, on two pages, is shown once
    for block, (figure_id, homes) in zip(blocks, expected, strict=True):
        attribution, caption_head = block.heading.split("</div>", 1)
        sources = [(site.pages[slug], site.pages[slug].sections[n - 1]) for slug, n in homes]
        assert plain(attribution).startswith(
            f"From {sources[0][0].title} › {sources[0][1].heading}"
        )
        for page, section in sources:
            assert (f"page-{page.slug}", page.title) in links(attribution)
            assert (f"page-{page.slug}#section-{section.number}", section.heading) in links(
                attribution
            )
        assert plain(caption_head) == f"{figure_id} {FIGURES[figure_id].title}"
        assert block.figure.figure_id == figure_id


def test_topic_view_figures_are_live(site):
    layout = view(TOPIC)
    clock = next(f for f in live_figures(layout) if isinstance(f, ClockHands))
    island = pages.island(clock)  # the figure's root on the page
    [controls] = [p for p in island.select(pn.Param) if p.object is clock]
    readouts = [p for p in island.select(pn.pane.HTML) if "posviz-readout" in p.css_classes]
    readouts = [p for p in readouts if "pos = <strong>" in str(p.object)]
    assert len(readouts) == 1
    [slider] = controls.layout.select(
        lambda o: isinstance(o, pn.widgets.IntSlider) and o.name == "pos"
    )
    clock.pos = 40
    assert slider.value == 40
    assert "pos = <strong>40</strong>" in readouts[0].object
    slider.value = 55
    assert clock.pos == 55


def test_topic_view_ends_with_tags_and_counts_in_order(site):
    layout = view(TOPIC)
    [tags] = [p for p in texts(layout) if "Tags that go with it" in p]
    shown = links(tags)
    assert str(tags).count('<a class="chip"') == len(shown)
    assert shown == [("tag-beta", "Beta 2"), ("tag-alpha", "Alpha 1"), ("tag-gamma", "Gamma 1")]
    assert texts(layout)[-1] == tags


# --- page, figure, home and gallery views ---------------------------------------------


@pytest.mark.parametrize("slug", sorted(content.load(FIXTURE).pages))
def test_page_view_has_every_section_and_figure_where_content_puts_them(site, slug):
    page = site.pages[slug]
    expected = []
    for section in page.sections:
        expected.append(("h2", section.heading))
        expected += [
            ("figure", block) if isinstance(block, int) else ("text", block)
            for block in section.blocks
        ]
    layout = view(f"page-{slug}")
    assert outline(layout) == expected
    anchors = [
        part.html
        for part in layout.parts
        if isinstance(part, parts.Html) and part.html.startswith("<h2")
    ]
    assert [a.split('"')[1] for a in anchors] == [s.anchor for s in page.sections]
    text = all_text(layout)
    assert page.title in text and page.summary in text and page.kind in text


def test_page_outline_by_hand(site):
    assert outline(view(f"page-{ONE}")) == [
        ("h2", "1. Opening"),
        ("text", "Text before any figure."),
        ("h2", "2. Counting"),
        ("text", "Text before the figure."),
        ("figure", 96),
        ("text", "Text after the figure."),
        ("h2", "3. Turning"),
        ("figure", 710),
        ("text", "Text after the second figure."),
    ]


def test_page_view_links_the_pages_it_builds_on(site):
    layout = view(f"page-{TWO}")
    [head] = [p for p in texts(layout) if "Builds on:" in p]
    assert links(head) == [(f"page-{ONE}", site.pages[ONE].title)]
    assert not [p for p in texts(view(f"page-{BASICS}")) if "Builds on" in p]


@pytest.mark.parametrize("figure_id", list(FIGURES))
def test_figure_view_shows_the_figure_and_links_back_to_its_section(site, figure_id):
    layout = view(f"figure-{figure_id}")
    assert [f.figure_id for f in live_figures(layout)] == [figure_id]
    assert FIGURES[figure_id].title in all_text(layout)
    back = [link for p in texts(layout) for link in links(p)]
    home = site.home_of(figure_id)
    if home is None:  # no page shows it: no way back, only its own deep link
        assert "From " not in all_text(layout)
        assert all(target.startswith(f"figure-{figure_id}?") for target, _ in back), back
    else:
        section = home.section
        assert (f"page-{home.page.slug}#section-{section.number}", section.heading) in back


def test_home_lists_topics_pages_and_figures(site):
    layout = view("index")
    found = [link for p in texts(layout) for link in links(p)]
    assert found == [
        *[(f"topic-{slug}", topic.title) for slug, topic in site.topics.items()],
        *[(f"page-{slug}", site.pages[slug].title) for slug in sorted(site.pages)],
        *[(f"figure-{fid}", FIGURES[fid].title) for fid in routing.figure_order(site)],
    ]
    text = all_text(layout)
    assert "Mechanisms" in text
    assert text.index("Topics") < text.index("Pages") < text.index("Figures")


def test_gallery_shows_every_figure_with_its_home(site):
    layout = view("gallery")
    assert [f.figure_id for f in live_figures(layout)] == routing.figure_order(site)
    shown = {fid for page in site.pages.values() for fid in page.figures}
    assert all_text(layout).count("From ") == len(shown)


# --- links under serve and in the export -----------------------------------------------


def test_href_under_serve():
    assert href("page-x") == "page-x"
    assert href("page-x", "section-2") == "page-x#section-2"
    assert href("index") == "./"


@pytest.mark.slow  # a pre-render
def test_href_in_the_export(monkeypatch):
    monkeypatch.setenv("POSVIZ_EXPORT", "1")
    assert href("page-x") == "page-x.html"
    assert href("page-x", "section-2") == "page-x.html#section-2"
    assert href("index") == "index.html"
    layout = view(SEED_TOPIC)
    found = [link[0] for p in texts(layout) for link in links(p)]
    assert "page-attention-is-all-you-need.html#section-2" in found  # the seed's 96
    assert "index.html" in found
    # Printed deep links carry a query: figure-710.html?pos=12&d_model=128.
    assert not [t for t in found if not t.split("#")[0].split("?")[0].endswith(".html")]


# --- deep links -----------------------------------------------------------------------


@pytest.fixture
def location(monkeypatch):
    fake = FakeLocation()
    monkeypatch.setattr(type(pn.state), "location", property(lambda self: fake))
    return fake


def open_view(location, name, search):
    """The view ``name`` as opened at ``?search``: (layout, figures by id, notice)."""
    location.search = search
    layout = view(name)
    notice = layout.links.notice
    assert "posviz-notice" in notice.css_classes
    return layout, {f.figure_id: f for f in live_figures(layout)}, notice


def defaults(figure) -> dict:
    return {name: figure.param[name].default for name in figure.sliders()}


def values(figure) -> dict:
    return {name: getattr(figure, name) for name in figure.sliders()}


def test_prefixed_key_sets_a_slider_on_a_multi_figure_view(location):
    _, figures, notice = open_view(location, f"page-{AIAYN}", "?710.pos=40")
    assert figures[710].pos == 40
    assert values(figures[96]) == defaults(figures[96])
    assert not notice.visible


def test_bare_key_on_a_single_figure_view(location):
    _, figures, notice = open_view(location, "figure-710", "?pos=40&d_model=64")
    assert (figures[710].pos, figures[710].d_model) == (40, 64)
    assert not notice.visible


def test_bare_key_where_only_one_figure_has_it(location):
    _, figures, notice = open_view(location, SEED_TOPIC, "?pos=40&memory_side=5")
    assert figures[710].pos == 40 and figures[4121].memory_side == 5
    assert not notice.visible


@pytest.mark.parametrize(
    "number,name",
    [("0", "global"), ("1", "local"), ("2", "block-1d"), ("3", "block-2d"), ("4", "axial")],
)
def test_a_scheme_named_by_its_old_number_still_opens(location, number, name):
    _, figures, notice = open_view(location, "figure-4121", f"?scheme={number}")
    assert figures[4121].scheme == name
    assert not notice.visible


@pytest.mark.parametrize("raw", ["5", "diagonal", "Axial", "-1"])
def test_an_unknown_scheme_is_named_with_the_choices(location, raw):
    _, figures, notice = open_view(location, "figure-4121", f"?scheme={raw}")
    assert figures[4121].scheme == "local"
    assert notice.visible
    assert f"scheme={raw}: must be one of global, local, block-1d, block-2d, axial" in notice.object


def test_bare_key_that_two_figures_have_is_refused(location):
    _, figures, notice = open_view(location, SEED_TOPIC, "?d_model=256")
    assert figures[96].d_model == 512 and figures[710].d_model == 128
    assert notice.visible
    assert "d_model=256" in notice.object and "write 96.d_model or 710.d_model" in notice.object


@pytest.mark.parametrize("name", ["figure-710", f"page-{AIAYN}"])
@pytest.mark.parametrize(
    "search,key,why",
    [
        ("pos=abc", "pos=abc", "whole number from 0 to 100"),
        ("pos=500", "pos=500", "0 to 100"),
        ("pos=-1", "pos=-1", "0 to 100"),
        ("zzz=1", "zzz=1", "no figure on this page has that slider"),
        ("9999.pos=1", "9999.pos=1", "there is no figure 9999 on this page"),
        ("710.zzz=1", "710.zzz=1", "no slider 'zzz'"),
    ],
)
def test_bad_link_settings_are_named_and_leave_the_slider_alone(location, name, search, key, why):
    _, figures, notice = open_view(location, name, "?" + search)
    assert values(figures[710]) == defaults(figures[710])
    assert notice.visible
    [item] = notice.object.split("<li>")[1:]
    assert item.startswith(html.escape(key) + ":")
    assert html.escape(why) in item


def test_out_of_bounds_names_the_key_as_written(location):
    _, figures, notice = open_view(location, f"page-{AIAYN}", "?710.d_model=2000&96.d_model=4096")
    assert figures[710].d_model == 128 and figures[96].d_model == 512
    assert "710.d_model=2000: must be from 16 to 1024" in notice.object
    assert "96.d_model=4096: must be from 64 to 2048" in notice.object


def test_a_refused_value_inside_the_bounds_says_why(location):
    _, figures, notice = open_view(location, "figure-710", "?d_model=65")
    assert figures[710].d_model == 128
    assert "d_model=65:" in notice.object and "even" in notice.object
    assert "from 16 to 1024" not in notice.object


def test_good_settings_apply_next_to_bad_ones(location):
    _, figures, notice = open_view(location, "figure-710", "?pos=abc&d_model=64&zzz=1")
    assert figures[710].d_model == 64 and figures[710].pos == 12
    items = notice.object.split("<li>")[1:]
    assert [item.split(":")[0] for item in items] == ["pos=abc", "zzz=1"]


@pytest.mark.parametrize(
    "search",
    [
        "?<script>alert(1)</script>=1",
        "?%3Cscript%3Ealert(1)%3C%2Fscript%3E=1",
        "?pos=%3Cscript%3Ealert(1)%3C%2Fscript%3E",
    ],
)
def test_url_text_reaches_the_notice_only_escaped(location, search):
    _, figures, notice = open_view(location, "figure-710", search)
    assert notice.visible
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in notice.object
    assert "<script" not in notice.object
    assert figures[710].pos == 12


@pytest.mark.slow  # a pre-render
def test_moving_a_slider_writes_the_url(location):
    _, figures, notice = open_view(location, f"page-{AIAYN}", "")
    figures[710].pos = 33
    assert dict(parse_qsl(location.search.lstrip("?"))) == {"710.pos": "33"}
    figures[710].pos = 34
    assert dict(parse_qsl(location.search.lstrip("?"))) == {"710.pos": "34"}
    assert not notice.visible


def test_moving_a_slider_on_a_single_figure_view_writes_the_bare_key(location):
    _, figures, _ = open_view(location, "figure-710", "")
    figures[710].pos = 33
    assert dict(parse_qsl(location.search.lstrip("?"))) == {"pos": "33"}


def test_a_preset_moving_several_sliders_writes_each_of_them(location):
    _, figures, notice = open_view(location, f"page-{AIAYN}", "")
    figures[96].preset = "big"
    query = dict(parse_qsl(location.search.lstrip("?")))
    assert query == {"96.preset": "big", "96.d_model": "1024", "96.d_ff": "4096"}
    assert not notice.visible


def test_the_url_changing_later_moves_the_slider(location):
    _, figures, notice = open_view(location, f"page-{AIAYN}", "?710.pos=40")
    location.search = "?710.pos=50"
    assert figures[710].pos == 50
    location.search = "?710.pos=abc"
    assert figures[710].pos == 50 and notice.visible
    location.search = "?710.pos=60"
    assert figures[710].pos == 60 and not notice.visible


def test_loading_a_link_leaves_the_url_as_written(location):
    search = "?710.pos=40&96.preset=big&zzz=1"
    _, figures, notice = open_view(location, f"page-{AIAYN}", search)
    assert figures[710].pos == 40
    assert (figures[96].preset, figures[96].d_model, figures[96].d_ff) == ("big", 1024, 4096)
    assert "zzz=1" in notice.object
    assert location.search == search


@pytest.mark.parametrize("search", ["?4121.side=10&4121.row=9", "?4121.row=9&4121.side=10"])
def test_image_side_is_set_before_the_row_in_it(location, search):
    _, figures, notice = open_view(location, SEED_TOPIC, search)
    assert (figures[4121].side, figures[4121].row) == (10, 9)
    assert not notice.visible


def test_a_row_beyond_the_default_image_needs_the_side_first(location):
    # Row 30 is out of bounds for the default 16×16 image, so the side must be set first
    # whatever order the URL lists them in.
    _, figures, notice = open_view(location, SEED_TOPIC, "?4121.row=30&4121.side=40")
    assert (figures[4121].side, figures[4121].row) == (40, 30)
    assert not notice.visible


# --- entry scripts: nothing from content becomes code -------------------------------

HOSTILE_NAME = 'x")\nimport os; os.environ["POSVIZ_PWNED"] = "1"\n#'


def run_entry(path: Path, monkeypatch) -> list:
    """Run an entry script with ``servable`` stubbed: the names it asked for."""
    asked = []
    monkeypatch.setattr(views, "servable", asked.append)
    exec(compile(path.read_text("utf-8"), str(path), "exec"), {})
    return asked


def test_entry_scripts_write_names_as_literals(monkeypatch, tmp_path):
    from posviz.compose.entries import entry_script

    monkeypatch.delenv("POSVIZ_PWNED", raising=False)
    script = tmp_path / "entry.py"
    script.write_text(entry_script(HOSTILE_NAME), "utf-8")
    assert run_entry(script, monkeypatch) == [HOSTILE_NAME]
    assert "POSVIZ_PWNED" not in __import__("os").environ


@pytest.mark.parametrize("name", [HOSTILE_NAME, "../x", "Page-X", "a b", "", "x.py"])
def test_write_entries_refuses_a_route_name_that_is_not_a_plain_word(monkeypatch, tmp_path, name):
    from posviz.compose.entries import write_entries

    monkeypatch.delenv("POSVIZ_PWNED", raising=False)
    folder = tmp_path / "entries"
    with pytest.raises(ValueError, match="is not lower-case letters, digits and hyphens"):
        paths = write_entries([routing.Route(name, "page", name, "t")], folder)
        # Old code wrote the script: running it must at least not run the payload.
        run_entry(paths[0], monkeypatch)
    assert "POSVIZ_PWNED" not in __import__("os").environ
    assert not folder.exists() or not list(folder.iterdir())
    assert not (tmp_path / "x.py").exists()


def test_every_real_route_gets_an_entry_that_asks_for_it(monkeypatch, tmp_path, site):
    from posviz.compose.entries import write_entries

    found = routing.routes(site)
    paths = write_entries(found, tmp_path)
    assert [p.stem for p in paths] == [r.name for r in found]
    for path, route in zip(paths, found, strict=True):
        assert run_entry(path, monkeypatch) == [route.name]


# --- deep links from anyone: bounded, and never guessed at -----------------------------


def notice_items(notice) -> list[str]:
    return [html.unescape(item.split("</li>")[0]) for item in notice.object.split("<li>")[1:]]


def test_only_the_first_fifty_settings_are_read(location):
    from posviz.compose.links import MAX_FIELDS, MAX_SHOWN

    search = "?" + "&".join(f"zzz{n}=1" for n in range(MAX_FIELDS)) + "&pos=40"
    _, figures, notice = open_view(location, "figure-710", search)
    assert figures[710].pos == 12  # the 51st setting is never read
    items = notice_items(notice)
    assert len(items) == MAX_SHOWN + 1
    assert items[:2] == [
        f"the link has {MAX_FIELDS + 1} settings; only the first {MAX_FIELDS} were read",
        "zzz0=1: no figure on this page has that slider",
    ]
    assert items[-1] == f"and {MAX_FIELDS + 1 - MAX_SHOWN} more"


def test_the_notice_says_how_many_settings_were_not_read(location):
    search = "?pos=40&" + "&".join(f"zzz{n}=1" for n in range(99))
    _, figures, notice = open_view(location, "figure-710", search)
    assert figures[710].pos == 40
    assert "the link has 100 settings; only the first 50 were read" in notice.object


@pytest.mark.parametrize(
    "search",
    [
        "?" + "k" * 100_000 + "=1",
        "?pos=" + "9" * 100_000,
        "?" + "9" * 100_000 + ".pos=1",
        "?" + "&".join("<b>" * 1000 + f"{n}=1" for n in range(200)),
    ],
    ids=["long key", "long value", "long prefix", "many long keys"],
)
def test_the_notice_stays_short_whatever_the_link(location, search):
    _, figures, notice = open_view(location, "figure-710", search)
    assert notice.visible and figures[710].pos == 12
    assert len(notice.object) < 3000
    assert "<b>" not in notice.object


@pytest.mark.parametrize(
    "name,search,written",
    [
        ("figure-710", "?pos=1&d_model=64&pos=2", "pos=1, pos=2"),
        ("figure-710", "?pos=1&d_model=64&710.pos=2", "pos=1, 710.pos=2"),
        (f"page-{AIAYN}", "?710.pos=1&710.d_model=64&pos=2", "710.pos=1, pos=2"),
        ("figure-710", "?pos=3&d_model=64&pos=3", "pos=3, pos=3"),
    ],
)
def test_a_slider_set_twice_is_reported_and_neither_value_applied(location, name, search, written):
    _, figures, notice = open_view(location, name, search)
    assert figures[710].pos == 12
    assert figures[710].d_model == 64  # the other setting still applies
    assert notice_items(notice) == [
        f"{written}: the link sets 710.pos 2 times; none of them is applied"
    ]


def test_a_5000_digit_figure_prefix_is_an_unknown_figure(location):
    _, figures, notice = open_view(location, f"page-{AIAYN}", "?" + "7" * 5000 + ".pos=1")
    [item] = notice_items(notice)
    assert item.startswith("7777777777")
    assert ": there is no figure 7777" in item and "on this page" in item
    assert "limit" not in item and "int" not in item
    assert len(item) < 200
    assert figures[710].pos == 12
