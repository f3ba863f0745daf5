"""Tag pages: one route per tag, listing the pages and figures that carry it,
under ``posviz serve`` and in the export (``site.json`` kind ``tag``).

Checked on the tests' own fixture content; the seed's tags are checked by name
on the real content (its tag page lists the seed's pages and figures in order).
"""

import json
import shutil

import pytest

from posviz import content
from posviz.compose import parts, views
from posviz.compose import routes as routing
from posviz.compose.routes import tag_route, tag_slug
from posviz.export.command import site_manifest
from posviz.figures import FIGURES
from tests.support.compose import CONTENT, links, live_figures, plain, texts
from tests.support.content_checks import FIXTURE, SEED_FROM, in_order

pytestmark = pytest.mark.usefixtures("views_as_served")

BASICS, ONE, TWO = "basics", "figures-one", "figures-two"


@pytest.fixture
def site(views_of_fixture):
    """The fixture content, with views built from it as under ``posviz serve``."""
    return content.load(FIXTURE)


def section(layout, heading: str) -> str:
    [pane] = [p for p in texts(layout) if p.startswith(f"<h2>{heading}</h2>")]
    return pane


def section_head(layout) -> str:
    [pane] = [p for p in texts(layout) if 'class="eyebrow">Tag<' in p]
    return pane


def test_tag_slugs():
    assert tag_slug("Self-attention") == "self-attention"
    assert tag_slug("Efficient attention") == "efficient-attention"
    assert tag_slug("  C++ / CUDA!  ") == "c-cuda"
    assert tag_route("Transformers") == "tag-transformers"
    with pytest.raises(ValueError, match="'!!' has no letter or digit"):
        tag_slug("!!")


def test_every_tag_of_every_page_has_one_route(site):
    tag_routes = [r for r in routing.routes(site) if r.kind == "tag"]
    assert [(r.name, r.key) for r in tag_routes] == [
        ("tag-alpha", "Alpha"),
        ("tag-beta", "Beta"),
        ("tag-gamma", "Gamma"),
    ]
    assert all(r.figures == () and r.title == f"Tag · {r.key}" for r in tag_routes)


def test_tagged_lists_pages_in_reading_order(site):
    tagged = {tag: [p.slug for p in pages] for tag, pages in routing.tagged(site).items()}
    assert tagged == {"Alpha": [BASICS, ONE], "Beta": [ONE, TWO], "Gamma": [TWO]}
    for tag, slugs in tagged.items():  # a page after every page it builds on
        for later, slug in enumerate(slugs):
            assert not site.prerequisites(slug) & set(slugs[later + 1 :]), (tag, slug)


def test_tags_that_would_share_a_route_are_refused(tmp_path):
    root = tmp_path / "content"
    shutil.copytree(FIXTURE, root)
    page = root / "pages" / f"{BASICS}.md"
    text = page.read_text("utf-8")
    page.write_text(text.replace("tags: [Alpha]", "tags: [alpha!]"), "utf-8")
    # `posviz check` (content.load) refuses them already; routes would too.
    with pytest.raises(ValueError, match="would share the page tag-alpha"):
        routing.routes(content.load(root))


def test_a_tag_page_lists_pages_figures_and_topic(site):
    layout, route = views.view("tag-beta")
    assert route.kind == "tag"
    assert live_figures(layout) == []
    head = plain(section_head(layout))
    assert "Beta" in head
    assert "2 pages carry this tag; 3 figures appear on them." in head  # 710 counted once
    assert links(section(layout, "Pages")) == [
        (f"page-{slug}", site.pages[slug].title) for slug in (ONE, TWO)
    ]
    figure_links = [
        pair for pair in links(section(layout, "Figures")) if pair[0].startswith("figure-")
    ]
    assert figure_links == [(f"figure-{fid}", FIGURES[fid].title) for fid in (96, 710, 7256)]
    one = site.pages[ONE]
    assert f"From {one.title} › {one.sections[1].heading}" in plain(section(layout, "Figures"))
    assert links(section(layout, "In topics")) == [("topic-ordering", "Ordering")]
    assert "2 of its figure pages" in plain(section(layout, "In topics"))


def test_the_seed_tag_page_lists_the_seed_pages_and_figures_in_order():
    """By name, on the real content: other pages may join, the seed's keep their order."""
    site = content.load(CONTENT)
    seed_pages = [
        "query-key-value",
        "attention-before-transformers",
        "attention-is-all-you-need",
        "attention-meets-pixels",
    ]
    tagged = routing.tagged(site)
    assert in_order(seed_pages, [p.slug for p in tagged["Self-attention"]])
    assert "attention-meets-pixels" in [p.slug for p in tagged["Efficient attention"]]
    assert "attention-is-all-you-need" in [p.slug for p in tagged["Transformers"]]
    layout, _ = views.view("tag-self-attention")
    figures = [h for h, _ in links(section(layout, "Figures")) if h.startswith("figure-")]
    assert in_order([f"figure-{fid}" for fid in SEED_FROM], figures)
    assert SEED_FROM[96] in plain(section(layout, "Figures"))
    assert ("topic-positional-encoding", "Positional encoding") in links(
        section(layout, "In topics")
    )
    assert "2 of its figure pages" in plain(section(layout, "In topics"))  # the seed's count


def test_tag_page_of_pages_without_figures(tmp_path, monkeypatch):
    root = tmp_path / "content"
    shutil.copytree(FIXTURE, root)
    page = root / "pages" / f"{BASICS}.md"
    text = page.read_text("utf-8")
    page.write_text(text.replace("tags: [Alpha]", "tags: [Alpha, Delta]"), "utf-8")
    monkeypatch.setenv("POSVIZ_CONTENT", str(root))
    views.library.cache_clear()
    layout, _ = views.view("tag-delta")
    assert "None of these pages shows a figure." in plain(section(layout, "Figures"))
    assert "1 page carries this tag; 0 figures appear on them." in plain(section_head(layout))
    assert not [p for p in texts(layout) if "In topics" in p]


def test_topic_chips_lead_to_tag_pages_that_build(site):
    layout, _ = views.view("topic-ordering")
    [tags] = [p for p in texts(layout) if "Tags that go with it" in p]
    names = {r.name for r in routing.routes(site)}
    assert len(links(tags)) == 3
    for href, _text in links(tags):
        assert href in names
        tag_layout, route = views.view(href)
        assert route.kind == "tag" and isinstance(tag_layout, parts.View)


def test_chips_link_to_html_files_in_the_export(monkeypatch):
    monkeypatch.setenv("POSVIZ_EXPORT", "1")
    chip = parts.macros().tag_chip
    assert 'href="tag-self-attention.html"' in chip("Self-attention", 2, "tag-self-attention")
    assert chip("<b>x</b>", 1, "tag-x").count("<b>") == 1  # the tag itself is escaped


def test_site_manifest_kinds(site, tmp_path):
    site_manifest(tmp_path, routing.routes(site))
    pages = json.loads((tmp_path / "site.json").read_text("utf-8"))["pages"]
    kinds = {page["path"]: page["kind"] for page in pages}
    assert kinds["gallery.html"] == "gallery"
    assert kinds["tag-beta.html"] == "tag"
    assert kinds["figure-710.html"] == "figure"
    assert set(kinds.values()) == {"home", "topic", "page", "tag", "figure", "gallery"}
    assert [p for p in pages if p["kind"] == "figure"] == [
        {
            "path": f"figure-{fid}.html",
            "kind": "figure",
            "title": FIGURES[fid].title,
            "figures": [fid],
        }
        for fid in routing.figure_order(site)
    ]
    assert next(p for p in pages if p["path"] == "tag-gamma.html") == {
        "path": "tag-gamma.html",
        "kind": "tag",
        "title": "Tag · Gamma",
        "figures": [],
    }
