"""Incremental builds: reuse a route's `panel convert` output while its inputs are the same.

Pre-rendering is the part of a build that grows with the content (a second or
so per route). Its output for one route is a function of that route's inputs
alone, so it is kept under a key made of them, by content hash (never mtime):

* posviz's code, templates and styles (every file of the package but the
  figure modules), the pins (``build/pins.json``), the versions of Python,
  panel, bokeh and holoviews, and the build's settings (CDN root, base URL);
* the figure modules the route shows (home and tag pages name figures by
  title, so they take them all; a topic and the gallery take the ones they show);
* the content it reads: a page its own file's data and the titles of the pages
  it builds on; a figure view the page sections that use it; a listing page
  (home, topic, tag, gallery) the topics' files and every page but its
  sections' text (``listing_digest``), so a text edit re-renders one page.

Everything after the pre-render (``rewrite_page``, pins, the worker's build id,
the search index) runs on every page of every build; a figure's frames are
kept the same way, under a key of posviz's code and the figure's module
(``frame_keys``), and posviz's compiled bytecode under its wheel's sha256
(build/bytecode.py), so a build from
the cache is byte-identical to a full one (``tests/test_incremental.py``).
The cache sits in ``$POSVIZ_CACHE/pages/`` (or ``$POSVIZ_PAGE_CACHE``);
``POSVIZ_PAGE_CACHE=0`` turns it off.
"""

import hashlib
import inspect
import json
import os
import shutil
import sys
from pathlib import Path

import bokeh
import holoviews
import panel

from posviz import __version__, content
from posviz.build import distribution
from posviz.compose.routes import Route

CACHE_ENV = "POSVIZ_PAGE_CACHE"
PACKAGE = Path(__file__).resolve().parent.parent
LISTINGS = ("home", "topic", "tag", "gallery")
NAMING = ("home", "tag")  # list every figure by title (home) or may (tag)
FORMAT = 1  # bump when what a key covers changes


def enabled() -> bool:
    """Whether builds reuse pre-rendered pages (``POSVIZ_PAGE_CACHE=0`` turns it off)."""
    return os.environ.get(CACHE_ENV, "") != "0"


def folder() -> Path:
    """Where pre-rendered pages are kept: ``$POSVIZ_PAGE_CACHE``, else the build's cache."""
    env = os.environ.get(CACHE_ENV, "")
    if env and env != "0":
        return Path(env).expanduser()
    return distribution.default_cache_root() / "pages"


def _digest(*parts) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()


def _file_digest(path: Path) -> str:
    with path.open("rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def figure_modules() -> dict[int, Path]:
    """Each figure id → the module file that defines it."""
    from posviz.figures import FIGURES

    return {fid: Path(inspect.getsourcefile(cls)).resolve() for fid, cls in FIGURES.items()}


def code_digest(figure_files: set[Path]) -> str:
    """The package's files, less the figure modules, and the versions that shape every page."""
    files = {
        path.relative_to(PACKAGE).as_posix(): _file_digest(path)
        for path in sorted(PACKAGE.rglob("*"))
        if path.is_file()
        and "__pycache__" not in path.parts
        and path.suffix != ".pyc"
        and path.resolve() not in figure_files
    }
    versions = {
        "posviz": __version__,
        "python": sys.version,
        "panel": panel.__version__,
        "bokeh": bokeh.__version__,
        "holoviews": holoviews.__version__,
    }
    return _digest(FORMAT, files, versions)


def _page_data(page: content.Page) -> dict:
    return {
        "slug": page.slug,
        "title": page.title,
        "kind": page.kind,
        "builds_on": page.builds_on,
        "tags": page.tags,
        "summary": page.summary,
        "sections": [(s.number, s.title, s.blocks) for s in page.sections],
    }


def listing_digest(library: content.Library, root: Path) -> str:
    """What a listing (home, topic, tag, gallery) reads.

    The topics, and of every page all but its sections' text (titles, tags,
    summaries, which section shows which figure).
    """
    topics = {p.relative_to(root).as_posix(): _file_digest(p) for p in sorted(root.rglob("*.md"))}
    topics = {name: d for name, d in topics.items() if not name.startswith("pages/")}
    pages = [
        {
            **{k: v for k, v in _page_data(page).items() if k != "sections"},
            "sections": [(s.number, s.title, s.figures) for s in page.sections],
        }
        for page in library.pages.values()
    ]
    return _digest(topics, pages)


def content_digest(route: Route, library: content.Library, whole: str) -> str:
    """What of the content the route's view reads."""
    if route.kind == "page":
        page = library.pages[route.key]
        built_on = [(slug, library.pages[slug].title) for slug in page.builds_on]
        return _digest(_page_data(page), built_on)
    if route.kind == "figure":
        uses = [
            (u.page.slug, u.page.title, u.section.heading, u.section.anchor)
            for u in library.uses_of(route.key)
        ]
        return _digest(uses)
    return whole


def keys(
    found: list[Route], library: content.Library, root: Path, settings: dict
) -> dict[str, str]:
    """Each route's name → the key of its pre-rendered page (content read from ``root``)."""
    modules = figure_modules()
    code = code_digest(set(modules.values()))
    figure_digests = {fid: _file_digest(path) for fid, path in modules.items()}
    whole = listing_digest(library, root)
    result = {}
    for route in found:
        # Home and tag pages name figures (their titles) they do not show; the rest show theirs.
        shown = sorted(modules) if route.kind in NAMING else sorted(route.figures)
        result[route.name] = _digest(
            route.name,
            code,
            settings,
            [(fid, figure_digests[fid]) for fid in shown],
            content_digest(route, library, whole),
        )
    return result


def frames_folder() -> Path:
    """Where figures' frames are kept: the build's cache (they do not depend on the content)."""
    return distribution.default_cache_root() / "frames"


def frame_keys(figure_ids) -> dict[int, str]:
    """Each figure id → the key of its frames: posviz's code, the versions, its own module."""
    modules = figure_modules()
    code = code_digest(set(modules.values()))
    return {fid: _digest("frames", fid, code, _file_digest(modules[fid])) for fid in figure_ids}


def cached_frames(key: str) -> dict[str, bytes] | None:
    """The frame files ({kind: gzip bytes}) kept under ``key``, or None."""
    where = frames_folder() / key[:2] / key if enabled() else None
    if where is None or not (where / "done").is_file():
        return None
    return {kind: (where / f"{kind}.gz").read_bytes() for kind in ("json", "bin")}


def store_frames(key: str, files: dict[str, bytes]) -> None:
    """Keep one figure's frame files under ``key`` (whole or not at all)."""
    if not enabled():
        return
    where = frames_folder() / key[:2] / key
    where.mkdir(parents=True, exist_ok=True)
    for kind, data in files.items():
        partial = where / f"{kind}.{os.getpid()}.partial"
        partial.write_bytes(data)
        partial.replace(where / f"{kind}.gz")
    (where / "done").write_text("", "utf-8")


# The offline scan's findings for a file depend on its bytes and on the scanner alone.
SCANNER = hashlib.sha256((PACKAGE / "build" / "scan.py").read_bytes()).hexdigest()


def remembered_scan(data: bytes, suffix: str, scan) -> list[tuple[int, str]]:
    """``scan(data, suffix)``, kept under the sha256 of the scanner, the suffix and the bytes.

    Most of a build's files are the bytes the last build wrote (the bundles,
    every page nobody edited), so an incremental build scans only what changed.
    """
    key = hashlib.sha256(f"{SCANNER} {suffix} ".encode() + data).hexdigest()
    where = folder() / "scans" / key[:2] / f"{key}.json"
    try:
        return [(line, url) for line, url in json.loads(where.read_text("utf-8"))]
    except (OSError, ValueError, TypeError):
        found = scan(data, suffix)
    where.parent.mkdir(parents=True, exist_ok=True)
    partial = where.with_suffix(f".{os.getpid()}.partial")
    partial.write_text(json.dumps(found), "utf-8")
    partial.replace(where)  # whole or not at all, even with two builds at once
    return found


def restore(route_keys: dict[str, str], out: Path) -> list[str]:
    """Copy every cached page into ``out``; the names still to pre-render."""
    missing = []
    for name, key in route_keys.items():
        cached = folder() / key[:2] / f"{key}.html"
        if enabled() and cached.is_file():
            shutil.copyfile(cached, out / f"{name}.html")
        else:
            missing.append(name)
    return missing


def store(route_keys: dict[str, str], out: Path, names: list[str]) -> None:
    """Keep the freshly pre-rendered pages ``names`` of ``out`` under their keys."""
    if not enabled():
        return
    for name in names:
        key = route_keys[name]
        dest = folder() / key[:2] / f"{key}.html"
        dest.parent.mkdir(parents=True, exist_ok=True)
        partial = dest.with_suffix(f".{os.getpid()}.partial")
        shutil.copyfile(out / f"{name}.html", partial)
        partial.replace(dest)  # whole or not at all, even with two builds at once
