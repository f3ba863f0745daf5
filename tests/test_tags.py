"""Tag pages: one route per tag, listing the pages and figures that carry it,
under ``posviz serve`` and in the export (``site.json`` kind ``tag``)."""

import json
import shutil

import panel as pn
import pytest

from posviz import content
from posviz.build.export import site_manifest
from posviz.compose import routes as routing
from posviz.compose import views
from posviz.compose.routes import tag_route, tag_slug
from posviz.figures import FIGURES

# test_compose's autouse `served` fixture builds views from the repository's content here too.
from tests.support.compose import CONTENT, links, live_figures, panes, plain

pytestmark = pytest.mark.usefixtures("views_as_served")


@pytest.fixture(scope="module")
def site():
    return content.load(CONTENT)


def section(layout, heading: str) -> str:
    [pane] = [p for p in panes(layout) if str(p.object).startswith(f"<h2>{heading}</h2>")]
    return str(pane.object)


def test_tag_slugs():
    assert tag_slug("Self-attention") == "self-attention"
    assert tag_slug("Efficient attention") == "efficient-attention"
    assert tag_slug("  C++ / CUDA!  ") == "c-cuda"
    assert tag_route("Transformers") == "tag-transformers"
    with pytest.raises(ValueError, match="'!!' has no letter or digit"):
        tag_slug("!!")


def test_every_tag_of_every_page_has_one_route(site):
    carried = {tag for page in site.pages.values() for tag in page.tags}
    tag_routes = [r for r in routing.routes(site) if r.kind == "tag"]
    assert {r.key for r in tag_routes} == carried
    assert {r.name for r in tag_routes} == {tag_route(tag) for tag in carried}
    assert all(r.figures == () and r.title == f"Tag · {r.key}" for r in tag_routes)


SEED_SELF_ATTENTION = [
    "query-key-value",
    "attention-before-transformers",
    "attention-is-all-you-need",
    "attention-meets-pixels",
]


def in_order(part: list, whole: list) -> bool:
    """``part`` occurs in ``whole`` in this order (other items may come between)."""
    rest = iter(whole)
    return all(item in rest for item in part)


def test_tagged_lists_pages_in_reading_order(site):
    tagged = {tag: [p.slug for p in pages] for tag, pages in routing.tagged(site).items()}
    carried = {tag for page in site.pages.values() for tag in page.tags}
    assert list(tagged) == sorted(carried, key=str.lower)
    for tag, slugs in tagged.items():
        assert sorted(slugs) == sorted(s for s, p in site.pages.items() if tag in p.tags), tag
        for later, slug in enumerate(slugs):  # a page after every page it builds on
            assert not site.prerequisites(slug) & set(slugs[later + 1 :]), (tag, slug)
    # The seed's pages, by name.
    assert in_order(SEED_SELF_ATTENTION, tagged["Self-attention"])
    assert "attention-meets-pixels" in tagged["Efficient attention"]
    assert "attention-is-all-you-need" in tagged["Transformers"]


def test_tags_that_would_share_a_route_are_refused(tmp_path):
    root = tmp_path / "content"
    shutil.copytree(CONTENT, root)
    page = root / "pages" / "query-key-value.md"
    text = page.read_text("utf-8")
    page.write_text(text.replace("tags: [Self-attention]", "tags: [Self attention]"), "utf-8")
    # `posviz check` (content.load) refuses them already; routes would too.
    with pytest.raises(ValueError, match="would share the page tag-self-attention"):
        routing.routes(content.load(root))


def test_self_attention_tag_page_lists_pages_figures_and_topic(site):
    layout, route = views.view("tag-self-attention")
    assert route.kind == "tag"
    assert live_figures(layout) == []
    carrying = routing.tagged(site)["Self-attention"]
    shown = list(dict.fromkeys(fid for page in carrying for fid in page.figures))  # each once
    head = plain(section_head(layout))
    assert "Self-attention" in head
    assert f"{len(carrying)} pages carry this tag; {len(shown)} figures appear on them." in head
    page_links = links(section(layout, "Pages"))
    assert page_links == [(f"page-{page.slug}", page.title) for page in carrying]
    assert in_order([(f"page-{s}", site.pages[s].title) for s in SEED_SELF_ATTENTION], page_links)
    figure_links = [
        pair for pair in links(section(layout, "Figures")) if pair[0].startswith("figure-")
    ]
    assert figure_links == [(f"figure-{fid}", FIGURES[fid].title) for fid in shown]
    assert in_order(
        [f"figure-{fid}" for fid in (96, 710, 7256, 4121)], [h for h, _ in figure_links]
    )
    figures_text = plain(section(layout, "Figures"))
    assert (
        "From Attention Is All You Need — The Transformer, Block by Block › 2. The Encoder Layer"
        in figures_text
    )
    assert links(section(layout, "In topics")) == [
        ("topic-positional-encoding", "Positional encoding")
    ]
    assert "2 of its figure pages" in plain(section(layout, "In topics"))


def section_head(layout) -> str:
    [pane] = [p for p in panes(layout) if 'class="eyebrow">Tag<' in str(p.object)]
    return str(pane.object)


def test_tag_page_of_pages_without_figures(tmp_path, monkeypatch):
    root = tmp_path / "content"
    shutil.copytree(CONTENT, root)
    page = root / "pages" / "query-key-value.md"
    text = page.read_text("utf-8")
    page.write_text(
        text.replace("tags: [Self-attention]", "tags: [Self-attention, Basics]"), "utf-8"
    )
    monkeypatch.setenv("POSVIZ_CONTENT", str(root))
    views.library.cache_clear()
    layout, _ = views.view("tag-basics")
    assert "None of these pages shows a figure." in plain(section(layout, "Figures"))
    assert "1 page carries this tag; 0 figures appear on them." in plain(section_head(layout))
    assert not [p for p in panes(layout) if "In topics" in str(p.object)]


def test_topic_chips_lead_to_tag_pages_that_build(site):
    layout, _ = views.view("topic-positional-encoding")
    [tags] = [p for p in panes(layout) if "Tags that go with it" in str(p.object)]
    names = {r.name for r in routing.routes(site)}
    for href, _text in links(tags.object):
        assert href in names
        tag_layout, route = views.view(href)
        assert route.kind == "tag" and isinstance(tag_layout, pn.Column)


def test_chips_link_to_html_files_in_the_export(monkeypatch):
    monkeypatch.setenv("POSVIZ_EXPORT", "1")
    assert 'href="tag-self-attention.html"' in views.tag_chip("Self-attention", 2)
    assert views.tag_chip("<b>x</b>", 1).count("<b>") == 1  # the tag itself is escaped


def test_site_manifest_kinds(site, tmp_path):
    site_manifest(tmp_path, routing.routes(site))
    pages = json.loads((tmp_path / "site.json").read_text("utf-8"))["pages"]
    kinds = {page["path"]: page["kind"] for page in pages}
    assert kinds["gallery.html"] == "gallery"
    assert kinds["tag-self-attention.html"] == "tag"
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
    assert {f"figure-{fid}.html" for fid in (96, 710, 7256, 4121)} <= set(kinds)
    tag_page = next(p for p in pages if p["path"] == "tag-transformers.html")
    assert tag_page == {
        "path": "tag-transformers.html",
        "kind": "tag",
        "title": "Tag · Transformers",
        "figures": [],
    }
