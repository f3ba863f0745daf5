"""Incremental builds (export/pagecache.py): a route is pre-rendered again only when an input
of it changed, and a build from the cache is byte-identical to a full one."""

import re
import shutil
from pathlib import Path

import pytest

from posviz import content
from posviz.compose.routes import routes
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


def keys_of(root: Path) -> dict[str, str]:
    library = content.load(root)
    return pagecache.keys(list(routes(library)), library, root, SETTINGS)


def edit_a_section(root: Path) -> str:
    """Add a sentence to the last section of the first page; its slug."""
    path = sorted((root / "pages").glob("*.md"))[0]
    path.write_text(path.read_text("utf-8") + "\nOne sentence more.\n", "utf-8")
    return re.search(r"^slug:\s*(\S+)", path.read_text("utf-8"), re.M).group(1)


def retitle(root: Path) -> str:
    """Change the first page's title; its slug."""
    path = sorted((root / "pages").glob("*.md"))[0]
    text = re.sub(
        r"^title:.*$", 'title: "A new title"', path.read_text("utf-8"), count=1, flags=re.M
    )
    path.write_text(text, "utf-8")
    return re.search(r"^slug:\s*(\S+)", text, re.M).group(1)


LISTINGS = {"home", "topic", "tag", "gallery"}


def kinds(root: Path) -> dict[str, str]:
    return {route.name: route.kind for route in routes(content.load(root))}


def test_a_page_text_edit_changes_that_page_only(copy):
    before = keys_of(copy)
    slug = edit_a_section(copy)
    after = keys_of(copy)
    assert {name for name in before if before[name] != after[name]} == {f"page-{slug}"}


def test_a_title_edit_changes_the_page_what_builds_on_it_and_the_listings(copy):
    before = keys_of(copy)
    slug = retitle(copy)
    after = keys_of(copy)
    library = content.load(copy)
    expected = {n for n, kind in kinds(copy).items() if kind in LISTINGS} | {f"page-{slug}"}
    expected |= {f"page-{p.slug}" for p in library.pages.values() if slug in p.builds_on}
    expected |= {f"figure-{fid}" for fid in library.pages[slug].figures}  # "From" lines
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
    """The routes a figure edit re-renders: those that show it, and home and tags (they name it)."""
    return {
        route.name
        for route in routes(library)
        if route.kind in {"home", "tag"} or figure_id in route.figures
    }


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
