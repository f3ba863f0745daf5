"""Incremental builds (build/pagecache.py): a route is pre-rendered again only when an input
of it changed, and a build from the cache is byte-identical to a full one."""

import hashlib
import re
import shutil
from pathlib import Path

import pytest

from posviz import content
from posviz.build import pagecache
from posviz.build.export import build
from posviz.compose.routes import routes

ROOT = Path(__file__).resolve().parents[1]
SETTINGS = {"cdn_root": "static/panel/", "base_url": None}


def digest(folder: Path) -> dict[str, str]:
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


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


LISTINGS = {"home", "topic", "tag", "gallery"}


def kinds(root: Path) -> dict[str, str]:
    return {route.name: route.kind for route in routes(content.load(root))}


def test_a_page_edit_changes_that_page_and_the_listings_only(copy):
    before = keys_of(copy)
    slug = edit_a_section(copy)
    after = keys_of(copy)
    changed = {name for name in before if before[name] != after[name]}
    expected = {n for n, kind in kinds(copy).items() if kind in LISTINGS} | {f"page-{slug}"}
    assert changed == expected


def test_a_figure_edit_changes_only_the_routes_that_show_it(copy, tmp_path, monkeypatch):
    modules = pagecache.figure_modules()
    edited = tmp_path / "clock_hands.py"
    shutil.copyfile(modules[710], edited)
    monkeypatch.setattr(pagecache, "figure_modules", lambda: {**modules, 710: edited})
    before = keys_of(copy)
    edited.write_text(edited.read_text("utf-8") + "\n# an edit\n", "utf-8")
    after = keys_of(copy)
    changed = {name for name in before if before[name] != after[name]}
    library = content.load(copy)
    expected = {
        route.name for route in routes(library) if route.kind in LISTINGS or 710 in route.figures
    }
    assert changed == expected
    assert any(kind == "page" for name, kind in kinds(copy).items() if name not in changed)


def test_a_pin_or_any_other_code_change_changes_every_route(copy, tmp_path, monkeypatch):
    original, package = pagecache.PACKAGE, tmp_path / "posviz"
    shutil.copytree(original, package, ignore=shutil.ignore_patterns("__pycache__"))
    modules = {
        fid: package / path.relative_to(original)
        for fid, path in pagecache.figure_modules().items()
    }
    monkeypatch.setattr(pagecache, "PACKAGE", package)
    monkeypatch.setattr(pagecache, "figure_modules", lambda: modules)
    before = keys_of(copy)
    pins = package / "build" / "pins.json"
    pins.write_text(pins.read_text("utf-8") + "\n", "utf-8")  # new bytes, same pins
    after = keys_of(copy)
    assert all(before[name] != after[name] for name in before)


def test_an_incremental_build_after_a_page_edit_is_byte_identical_to_a_full_one(
    copy, tmp_path, monkeypatch, capsys
):
    monkeypatch.setenv(pagecache.CACHE_ENV, str(tmp_path / "pages"))
    assert build(tmp_path / "first") == 0  # fills the cache
    slug = edit_a_section(copy)
    capsys.readouterr()
    assert build(tmp_path / "incremental") == 0
    log = capsys.readouterr().out
    listed = {n for n, kind in kinds(copy).items() if kind in LISTINGS} | {f"page-{slug}"}
    total = len(kinds(copy))
    assert f"converting {len(listed)} dashboards ({total - len(listed)} unchanged, reused)" in log
    monkeypatch.setenv(pagecache.CACHE_ENV, "0")
    assert build(tmp_path / "full") == 0
    incremental, full = digest(tmp_path / "incremental"), digest(tmp_path / "full")
    assert incremental.keys() == full.keys()
    assert [name for name in full if full[name] != incremental[name]] == []
    # And the edit is in the site: the cache did not hand back the old page.
    assert "One sentence more." in (tmp_path / "full" / f"page-{slug}.html").read_text("utf-8")
