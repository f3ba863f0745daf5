"""Incremental builds (export/pagecache.py): a route is pre-rendered again only when an input
of it changed, and a build from the cache is byte-identical to a full one."""

import re
import shutil
from pathlib import Path

import pytest

from posviz import content
from posviz.compose.routes import (
    GALLERY,
    HOME,
    figure_route,
    page_route,
    routes,
    tag_route,
    tagged,
    topic_route,
)
from posviz.export import pagecache
from posviz.export.command import build
from tests.support.scratch import differences, write_content

ROOT = Path(__file__).resolve().parents[1]
SETTINGS = {"cdn_root": "static/panel/", "base_url": None}
# The tests of the build pair below: two site builds, the full run's, not the fast tier's.
BUILDS = pytest.mark.slow


@pytest.fixture
def copy(tmp_path, monkeypatch):
    """A scratch copy of content/, which the build and the keys read."""
    root = tmp_path / "content"
    shutil.copytree(ROOT / "content", root)
    monkeypatch.setenv("POSVIZ_CONTENT", str(root))
    return root


@pytest.fixture(scope="module")
def unedited(tmp_path_factory) -> dict[str, str]:
    """The keys of content/ as it is (a key holds no path: a copy's are the same)."""
    root = tmp_path_factory.mktemp("unedited") / "content"
    shutil.copytree(ROOT / "content", root)
    return keys_of(root)


def keys_of(root: Path) -> dict[str, str]:
    library = content.load(root)
    return pagecache.keys(list(routes(library)), library, root, SETTINGS)


def edit_a_section(root: Path) -> str:
    """Add a sentence to the last section of the first page; its slug."""
    path = sorted((root / "pages").glob("*.md"))[0]
    path.write_text(path.read_text("utf-8") + "\nOne sentence more.\n", "utf-8")
    return re.search(r"^slug:\s*(\S+)", path.read_text("utf-8"), re.M).group(1)


def retitle(root: Path, which: int = 0) -> str:
    """Change the title of a page (``which`` of them, in file order); its slug."""
    path = sorted((root / "pages").glob("*.md"))[which]
    text = re.sub(
        r"^title:.*$", 'title: "A new title"', path.read_text("utf-8"), count=1, flags=re.M
    )
    path.write_text(text, "utf-8")
    return re.search(r"^slug:\s*(\S+)", text, re.M).group(1)


def kinds(root: Path) -> dict[str, str]:
    return {route.name: route.kind for route in routes(content.load(root))}


def naming(library, slug: str) -> set[str]:
    """The routes whose pages show the title of page ``slug``, by the site's rules: the
    page itself, the pages that build on it, home (it lists every page), the topics
    that list it, the tag pages of its tags, and where its figures are shown with
    their "From" lines (their figure views and the gallery)."""
    page = library.pages[slug]
    names = {HOME, page_route(slug), *map(tag_route, page.tags)}
    names |= {page_route(p.slug) for p in library.pages.values() if slug in p.builds_on}
    names |= {
        topic_route(t.slug) for t in library.topics.values() if slug in (*t.read_first, *t.pages)
    }
    names |= {figure_route(fid) for fid in page.figures}
    return names | ({GALLERY} if page.figures else set())


def test_a_page_text_edit_changes_that_page_only(copy, unedited):
    before = dict(unedited)
    slug = edit_a_section(copy)
    after = keys_of(copy)
    assert {name for name in before if before[name] != after[name]} == {f"page-{slug}"}


@pytest.mark.parametrize("which", [0, -1])
def test_a_title_edit_changes_the_routes_that_name_the_page(copy, unedited, which):
    """Keys follow the page model (``compose.page.model``): a retitled page changes the
    routes that show its title, and no other."""
    before = dict(unedited)
    slug = retitle(copy, which)
    after = keys_of(copy)
    expected = naming(content.load(copy), slug)
    assert {name for name in before if before[name] != after[name]} == expected


def test_a_figure_edit_changes_only_the_routes_that_show_it(copy, tmp_path, monkeypatch):
    modules = pagecache.figure_modules()
    edited = tmp_path / "clock_hands.py"
    shutil.copyfile(modules[710], edited)
    monkeypatch.setattr(pagecache, "figure_modules", lambda: {**modules, 710: edited})
    before = keys_of(copy)
    edited.write_text(edited.read_text("utf-8") + "\n# an edit\n", "utf-8")
    after = keys_of(copy)
    changed = {name for name in before if before[name] != after[name]}
    assert changed == showing(content.load(copy), 710)
    assert any(kind == "page" for name, kind in kinds(copy).items() if name not in changed)


def editable_posviz(tmp_path: Path, monkeypatch) -> tuple[Path, dict[int, Path]]:
    """A copy of posviz whose bytes the keys read (so a test can edit them), and its
    figure modules by id."""
    original, package = pagecache.PACKAGE, tmp_path / "posviz"
    shutil.copytree(original, package, ignore=shutil.ignore_patterns("__pycache__"))
    modules = {
        fid: package / path.relative_to(original)
        for fid, path in pagecache.figure_modules().items()
    }
    monkeypatch.setattr(pagecache, "PACKAGE", package)
    monkeypatch.setattr(pagecache, "figure_modules", lambda: modules)
    return package, modules


def showing(library, figure_id: int) -> set[str]:
    """The routes a figure module's edit re-renders: those that show the figure. Home and
    tag pages name it by title, which their page model holds, so they keep their keys."""
    return {route.name for route in routes(library) if figure_id in route.figures}


def test_a_pin_or_any_other_code_change_changes_every_route(copy, tmp_path, monkeypatch):
    package, _ = editable_posviz(tmp_path, monkeypatch)
    before = keys_of(copy)
    pins = package / "export" / "pins.json"
    pins.write_text(pins.read_text("utf-8") + "\n", "utf-8")  # new bytes, same pins
    after = keys_of(copy)
    assert all(before[name] != after[name] for name in before)


@pytest.fixture(scope="module")
def scratch_builds(tmp_path_factory):
    """One build pair of tiny scratch content (one page showing 710, one topic).

    ``full`` builds every route into the module's own, empty page cache. Then the
    entries of the routes that show 710 (the page, its figure view, home, the tag
    and listing pages) leave the cache, and ``incremental`` builds the same inputs:
    it converts those, reuses the rest. Which routes each build converted is
    recorded. Which entries an edit invalidates is the key tests' part above.
    The frames and compiled bytecode come from the build cache the session shares,
    as any build's do.
    """
    from posviz.export import command

    tmp = tmp_path_factory.mktemp("incremental")
    cache, converted = tmp / "pages", {}
    real_prerender = command.prerender
    with pytest.MonkeyPatch.context() as patch:
        root = write_content(tmp / "content")
        patch.setenv("POSVIZ_CONTENT", str(root))
        patch.setenv(pagecache.CACHE_ENV, str(cache))

        def recording(out, building):
            def prerender(missing, *args, **kwargs):
                converted[building] = set(missing)
                return real_prerender(missing, *args, **kwargs)

            patch.setattr(command, "prerender", prerender)
            assert build(out) == 0, f"the {building} scratch build failed"

        recording(tmp / "full", "full")
        route_keys = keys_of(root)
        entries = {path.stem: path for path in cache.rglob("*.html")}
        shown = showing(content.load(root), 710)
        for name in shown:
            entries[route_keys[name]].unlink()
        recording(tmp / "incremental", "incremental")
    return {
        "sites": {name: tmp / name for name in ("full", "incremental")},
        "converted": converted,
        "route_keys": route_keys,
        "entries": set(entries),
        "shown": shown,
    }


@BUILDS
def test_the_keys_the_tests_compute_are_the_keys_a_build_stores_pages_under(scratch_builds):
    assert scratch_builds["entries"] == set(scratch_builds["route_keys"].values())


@BUILDS
def test_an_incremental_build_is_byte_identical_to_a_full_one(scratch_builds):
    """The one byte-identity pair: pages from the cache beside pages converted afresh."""
    sites, converted, shown = (scratch_builds[k] for k in ("sites", "converted", "shown"))
    routes_now = set(scratch_builds["route_keys"])
    assert converted["full"] == routes_now  # an empty cache: every route
    assert 0 < len(shown) < len(routes_now)
    assert converted["incremental"] == shown  # the rest came from the cache
    assert differences(sites["incremental"], sites["full"]) == []


@BUILDS
def test_cached_frames_are_the_frames_computed_afresh(scratch_builds):
    """A figure's frames from the cache are the bytes computing them gives (the cheapest one).

    The scratch builds above put 710's frames in the build cache (or found them there).
    """
    import gzip
    import json

    from posviz.export import frames
    from posviz.figures import FIGURES

    key = pagecache.frame_keys([710])[710]
    cached = pagecache.cached_frames(key)
    assert cached is not None, f"the scratch builds left no frames of 710 under {key[:12]}"
    index, blob = frames.figure_frames(FIGURES[710])
    text = json.dumps(index, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    assert gzip.decompress(cached["json"]) == text
    assert gzip.decompress(cached["bin"]) == blob


# --- each field a view reads: an edit changes exactly the keys of the routes that show it ---

PAPER = "attention-is-all-you-need"  # a page with figures, tags and pages it builds on


def edit_front(root: Path, name: str, field: str, value: str) -> None:
    """Set ``field`` of the front matter of ``name`` (a page's or a topic's file) to ``value``."""
    path = next(root.rglob(f"{name}.md"))
    text = path.read_text("utf-8")
    text, count = re.subn(rf"^{field}:.*$", f"{field}: {value}", text, count=1, flags=re.M)
    assert count == 1, f"{path} has no {field}:"
    path.write_text(text, "utf-8")


def rename_section(root: Path, slug: str, number: int) -> None:
    path = root / "pages" / f"{slug}.md"
    text = path.read_text("utf-8")
    heading = rf"^## {number}\. .*$"
    text, count = re.subn(heading, f"## {number}. A heading renamed", text, count=1, flags=re.M)
    assert count == 1, f"{path} has no section {number}"
    path.write_text(text, "utf-8")


def figures_of_section(library, slug: str, number: int) -> tuple[int, ...]:
    [section] = [s for s in library.pages[slug].sections if s.number == number]
    return section.figures


def where_shown(library, figure_ids) -> set[str]:
    """Where figures appear with their "From" lines: their figure views, the gallery, the
    topics that show them, and the tag pages that list them (a tag's pages' figures)."""
    names = {figure_route(fid) for fid in figure_ids} | ({GALLERY} if figure_ids else set())
    for topic in library.topics.values():
        if {fid for fid, _ in library.figures_shown(topic)} & set(figure_ids):
            names.add(topic_route(topic.slug))
    for tag, pages in tagged(library).items():
        if {fid for page in pages for fid in page.figures} & set(figure_ids):
            names.add(tag_route(tag))
    return names


def topics_listing(library, slug: str) -> set[str]:
    """The topics whose pages include ``slug`` (they count its tags)."""
    return {topic_route(t.slug) for t in library.topics.values() if slug in t.pages}


def topic_named(library, slug: str) -> set[str]:
    """Where a topic's title shows: the topic, home, and the tags its pages carry."""
    topic = library.topics[slug]
    return {topic_route(slug), HOME} | {tag_route(tag) for tag, _ in library.tags(topic)}


# (what is edited, the edit, the routes that show it), each rule from what the views show.
FIELD_EDITS = {
    "a page's summary (its head, its description, its tags' lists)": (
        lambda root: edit_front(root, PAPER, "summary", "A new summary."),
        lambda lib: {page_route(PAPER), *map(tag_route, lib.pages[PAPER].tags)},
    ),
    "a page's kind (its head, home's list, its tags' lists, reading orders)": (
        lambda root: edit_front(root, PAPER, "kind", "Read"),
        lambda lib: (
            {page_route(PAPER), HOME, *map(tag_route, lib.pages[PAPER].tags)}
            | {topic_route(t.slug) for t in lib.topics.values() if PAPER in t.read_first}
        ),
    ),
    "a page's tags (the topics that count them, the tag it drops lists it no more)": (
        lambda root: edit_front(root, PAPER, "tags", "[Transformers]"),  # was: Self-attention too
        lambda lib: topics_listing(lib, PAPER) | {tag_route("Self-attention")},
    ),
    "a section heading with a figure (the page, and the figure's From lines)": (
        lambda root: rename_section(root, PAPER, 4),
        lambda lib: {page_route(PAPER)} | where_shown(lib, figures_of_section(lib, PAPER, 4)),
    ),
    "a section heading without a figure (the page alone)": (
        lambda root: rename_section(root, PAPER, 1),
        lambda lib: {page_route(PAPER)},
    ),
    "a topic's intro (the topic's head and description)": (
        lambda root: edit_front(root, "positional-encoding", "intro", "A new intro."),
        lambda lib: {topic_route("positional-encoding")},
    ),
    "a topic's title": (
        lambda root: edit_front(root, "positional-encoding", "title", "Where tokens sit"),
        lambda lib: topic_named(lib, "positional-encoding"),
    ),
}


@pytest.mark.parametrize("edit", FIELD_EDITS)
def test_each_field_a_view_shows_changes_the_keys_of_the_routes_that_show_it(copy, unedited, edit):
    apply, shown = FIELD_EDITS[edit]
    before = dict(unedited)
    apply(copy)
    after = keys_of(copy)
    changed = {name for name in before if after.get(name) != before[name]}
    assert changed == shown(content.load(copy))


def test_a_figure_title_changes_the_routes_that_name_it_though_not_its_module(
    copy, unedited, monkeypatch
):
    """Home and tag pages do not take the figure modules' digests: a figure's title
    reaches them through their page model (the title is edited in memory here)."""
    from posviz.figures import FIGURES

    before = dict(unedited)
    monkeypatch.setattr(FIGURES[710], "title", "Hands of a clock, renamed")
    after = keys_of(copy)
    library = content.load(copy)
    expected = {HOME} | showing(library, 710) | where_shown(library, [710])
    assert {name for name in before if after[name] != before[name]} == expected
