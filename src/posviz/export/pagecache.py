"""Incremental builds: reuse a route's `panel convert` output while its inputs are the same.

Pre-rendering is the part of a build that grows with the content (a second or
so per route). Its output for one route is a function of that route's inputs
alone, so it is kept under a key made of them, by content hash (never mtime):

* posviz's code, templates and styles (every file of the package but the
  figure modules), the pins (``export/pins.json``), the versions of Python and
  zlib and of every library posviz requires, all the way down (panel, bokeh,
  holoviews, param, numpy, jinja2, markdown-it-py, pyviz_comms...), and the
  build's settings (CDN root, base URL). The pre-render runs in a clean
  environment (export/prerender.py), so no variable of the build's own is an
  input of a page;
* the figure modules whose figures the route shows (a topic, a page, a
  figure view and the gallery; home and tag pages show none: they name
  figures by title, which their model holds);
* the page model its view produced (``compose.page.model``): its text as
  the page's HTML, each figure's id, class and values, every other root's
  parameters. A content field counts when a view reads it, with no list of
  fields to keep: a text edit re-renders one page, a title edit that page,
  the pages that name it and the listings.

Everything after the pre-render (``rewrite_page``, pins, the worker's build id,
the search index) runs on every page of every build; a figure's frames are
kept the same way, under a key of posviz's code, the figure's module and the
Bokeh, Panel, HoloViews and Param variables of the build's environment
(``frame_keys``: frames are computed in the build's own process), and posviz's
compiled bytecode under its wheel's sha256 (export/bytecode.py), so a build from
the cache is byte-identical to a full one (``tests/test_incremental.py``).

An entry is trusted no more than a download: each file starts with a line
naming it and the sha256 of what follows (``write_entry``), checked on every
read (``read_entry``); one that differs is a miss, with a one-line warning,
and is made again. A build keeps its pages and frames only once its checks
pass (``store``, ``store_frames``, called at the end of ``make_site``).
The cache sits in ``$POSVIZ_CACHE/pages/`` (or ``$POSVIZ_PAGE_CACHE``);
``POSVIZ_PAGE_CACHE=0`` turns it off.
"""

import functools
import hashlib
import inspect
import json
import os
import sys
import zlib
from importlib import metadata
from pathlib import Path

import bokeh
import holoviews
import panel
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

import posviz
from posviz import content
from posviz.compose.routes import Route
from posviz.export import distribution

CACHE_ENV = "POSVIZ_PAGE_CACHE"
PACKAGE = Path(__file__).resolve().parent.parent
FORMAT = 3  # bump when what a key covers, or an entry's layout, changes
# Rendering libraries named even when posviz runs uninstalled (no metadata to walk).
RENDERERS = (
    "panel",
    "bokeh",
    "holoviews",
    "param",
    "numpy",
    "pyviz-comms",
    "jinja2",
    "markdown-it-py",
)
# The first word of every entry's first line (``write_entry``).
HEADER = f"posviz-cache-{FORMAT}"
# The variables of the build's own process that Bokeh, Panel, HoloViews and Param read.
RENDER_ENV = ("BOKEH_", "PANEL_", "HV_", "HOLOVIEWS_", "PARAM_")


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


@functools.cache
def required_distributions() -> tuple[str, ...]:
    """The distributions posviz requires, and theirs, all the way down (extras followed).

    Walked from the installed metadata, so a library posviz comes to require
    joins the key without anyone listing it; ``RENDERERS`` are there regardless.
    """
    seen: dict[str, frozenset] = {}
    todo = [("posviz", frozenset()), *((name, frozenset()) for name in RENDERERS)]
    while todo:
        name, extras = todo.pop()
        known = seen.get(canonicalize_name(name))
        if known is not None and extras <= known:
            continue
        try:
            requires = metadata.distribution(name).requires or []
        except metadata.PackageNotFoundError:
            continue
        seen[canonicalize_name(name)] = (known or frozenset()) | extras
        for spec in requires:
            wanted = Requirement(spec)
            marker = wanted.marker
            if marker is None or any(marker.evaluate({"extra": e}) for e in {"", *extras}):
                todo.append((wanted.name, frozenset(wanted.extras)))
    return tuple(sorted(seen))


def host_versions() -> dict[str, str]:
    """The versions of Python, zlib (it writes every gzip and wheel) and each required library."""
    versions = {"python": sys.version, "zlib": zlib.ZLIB_RUNTIME_VERSION}
    for name in required_distributions():
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    # What this process imported, should it differ from what the metadata says.
    imported = {"posviz": posviz, "panel": panel, "bokeh": bokeh, "holoviews": holoviews}
    return versions | {f"{name} imported": m.__version__ for name, m in imported.items()}


def render_environment() -> dict[str, str]:
    """The variables of this process that the libraries rendering in it read (``RENDER_ENV``)."""
    return {name: value for name, value in os.environ.items() if name.startswith(RENDER_ENV)}


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
    return _digest(FORMAT, files, host_versions())


def keys(
    found: list[Route], library: content.Library, root: Path, settings: dict
) -> dict[str, str]:
    """Each route's name → the key of its pre-rendered page (content read from ``root``)."""
    from posviz.compose import views

    modules = figure_modules()
    code = code_digest(set(modules.values()))
    figure_digests = {fid: _file_digest(path) for fid, path in modules.items()}
    result = {}
    with views.describing(library):
        for route in found:
            result[route.name] = _digest(
                route.name,
                code,
                settings,
                [(fid, figure_digests[fid]) for fid in sorted(route.figures)],
                views.page_model_digest(route.name),
            )
    return result


def write_entry(path: Path, data: bytes) -> None:
    """Keep ``data`` at ``path``, after a line with the file's name and the data's sha256.

    The name in the line keeps an entry from being read under another key; the
    file is replaced whole or not at all, even with two builds at once.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    header = f"{HEADER} {path.name} sha256={hashlib.sha256(data).hexdigest()}\n".encode()
    partial = path.with_name(f"{path.name}.{os.getpid()}.partial")
    partial.write_bytes(header + data)
    partial.replace(path)


def read_entry(path: Path, what: str) -> bytes | None:
    """The data kept at ``path``, or None: absent, or not what was written (then removed).

    ``what`` names the entry in the warning a damaged one gets (one line, on stderr).
    """
    try:
        kept = path.read_bytes()
    except OSError:
        return None
    header, _, data = kept.partition(b"\n")
    expected = f"{HEADER} {path.name} sha256={hashlib.sha256(data).hexdigest()}".encode()
    if header == expected:
        return data
    print(
        f"posviz: cached {what} ({path}) does not match its sha256; making it again",
        file=sys.stderr,
        flush=True,
    )
    path.unlink(missing_ok=True)
    return None


def frames_folder() -> Path:
    """Where figures' frames are kept: the build's cache (they do not depend on the content)."""
    return distribution.default_cache_root() / "frames"


def frame_keys(figure_ids) -> dict[int, str]:
    """Each figure id → the key of its frames.

    posviz's code and the versions, its own module, and the rendering libraries'
    variables of this process, which computes them (``render_environment``).
    """
    modules = figure_modules()
    code = code_digest(set(modules.values()))
    env = render_environment()
    return {
        fid: _digest("frames", fid, code, _file_digest(modules[fid]), env) for fid in figure_ids
    }


FRAME_KINDS = ("json", "bin")


def cached_frames(key: str) -> dict[str, bytes] | None:
    """The frame files ({kind: gzip bytes}) kept under ``key``, each verified, or None."""
    if not enabled():
        return None
    where = frames_folder() / key[:2] / key
    files = {kind: read_entry(where / f"{kind}.gz", f"frames {key[:12]}") for kind in FRAME_KINDS}
    return None if None in files.values() else files


def store_frames(key: str, files: dict[str, bytes]) -> None:
    """Keep one figure's frame files under ``key`` (each file whole or not at all)."""
    if enabled():
        for kind, data in files.items():
            write_entry(frames_folder() / key[:2] / key / f"{kind}.gz", data)


# The offline scan's findings for a file depend on its bytes and on the scanner alone.
SCANNER = hashlib.sha256((PACKAGE / "export" / "scan.py").read_bytes()).hexdigest()


def remembered_scan(data: bytes, suffix: str, scan) -> list[tuple[int, str]]:
    """``scan(data, suffix)``, kept under the sha256 of the scanner, the suffix and the bytes.

    Most of a build's files are the bytes the last build wrote (the bundles,
    every page nobody edited), so an incremental build scans only what changed.
    """
    key = hashlib.sha256(f"{FORMAT} {SCANNER} {suffix} ".encode() + data).hexdigest()
    where = folder() / "scans" / key[:2] / f"{key}.json"
    kept = read_entry(where, f"scan findings {key[:12]}")
    if kept is not None:
        return [(line, url) for line, url in json.loads(kept)]
    found = scan(data, suffix)
    write_entry(where, json.dumps(found).encode("utf-8"))
    return found


def _page_entry(key: str) -> Path:
    return folder() / key[:2] / f"{key}.html"


def restore(route_keys: dict[str, str], out: Path) -> list[str]:
    """Write every cached page that verifies into ``out``; the names still to pre-render."""
    missing = []
    for name, key in route_keys.items():
        kept = read_entry(_page_entry(key), f"page {name}") if enabled() else None
        if kept is None:
            missing.append(name)
        else:
            (out / f"{name}.html").write_bytes(kept)
    return missing


def store(route_keys: dict[str, str], pages: dict[str, str]) -> None:
    """Keep freshly pre-rendered pages ({name: HTML as rewritten}) under their keys.

    Called once the build's checks have passed, never before: a page the build
    refused is not handed to the next one.
    """
    if enabled():
        for name, html in pages.items():
            write_entry(_page_entry(route_keys[name]), html.encode("utf-8"))
