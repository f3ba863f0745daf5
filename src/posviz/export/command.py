"""`posviz build`: every dashboard as a static page that runs Python in the browser.

Pages come from `panel convert` (pre-rendered, pyodide-worker target), adapted
by adapter.py; payload.py then makes them self-contained. All pages share one
worker script, ``posviz-worker.js``, which starts the Pyodide runtime from
``pyodide/`` and installs wheels from ``wheels/`` (no micropip, no index);
BokehJS and Panel's JS and CSS are copied under ``static/``; offline.py adds
the service worker. Finally every HTML, JS and CSS file is scanned: a URL
outside the site fails the build, naming file and URL.

The site is built in a sibling folder and swapped into place only when it is
complete (see target.py). Every failure is one line on stderr and exit 1.
"""

import base64
import json
import os
import re
import shutil
import sys
import tempfile
import time
import traceback
import urllib.parse
from pathlib import Path
from xml.sax.saxutils import escape as xml_escape

import bokeh
import holoviews
import panel

from posviz import __version__, content
from posviz.compose import page as page_model
from posviz.compose.routes import Route, routes
from posviz.export import bytecode, distribution, frames, pagecache, pins, search, target, wheels
from posviz.export.adapter import (
    BUILD_PLACEHOLDER,
    SETTINGS_TAG,
    edit,
    pin_scripts,
    prerender,
    rewrite_page,
    share_page_scripts,
)
from posviz.export.errors import STEPS, BuildError, log, note
from posviz.export.offline import add_offline, write_service_worker
from posviz.export.payload import (
    BOKEH_DIR,
    BOKEH_VERSION,
    CDN_PYODIDE,
    LOCK_PACKAGES,
    PANEL_CDN_ROOT,
    PYODIDE_DIR,
    WHEEL_DIR,
    add_content,
    check_seams,
    copy_runtime,
    copy_static,
    copy_stylesheet,
    posviz_wheel,
    precompile,
    write_worker,
)
from posviz.export.scan import scan
from posviz.export.scripts import FRAMES, bundled
from posviz.figures import FigureModuleError

# The build renders with the host's copies and ships the pinned wheels: they must agree.
HOST_PACKAGES = {"bokeh": bokeh, "holoviews": holoviews, "panel": panel}


# URLs inside third-party bundles that no posviz page ever fetches, and why.
EXEMPT = {
    **{
        (
            f"{PYODIDE_DIR}{name}",
            "https://cdn.jsdelivr.net/pyodide/",
        ): "Pyodide's default indexURL; the worker always passes the site's own"
        for name in ("pyodide.js", "pyodide.mjs", "pyodide.asm.js")  # the stock baseline's .mjs
    },
    (
        f"{BOKEH_DIR}bokeh-{BOKEH_VERSION}.min.js",
        "https://cdn.jsdelivr.net/npm/mathjax@",
    ): "loaded only to typeset LaTeX, which posviz text and plots never use",
    (
        f"{BOKEH_DIR}bokeh-{BOKEH_VERSION}.min.js",
        "https://cdn.jsdelivr.net/npm/@tabler/",
    ): "loaded only for Tabler icon models, which posviz never creates",
    **{
        (f"{search.SEARCH_DIR}{name}", search.EXEMPT_BASE): (
            "a base Pagefind parses result paths against, never fetched"
        )
        for name in ("pagefind.js", "pagefind-worker.js")
    },
}


def check_host_versions() -> None:
    """Fail when the host's bokeh, panel or holoviews is not the version the site ships."""
    for name, module in HOST_PACKAGES.items():
        if module.__version__ != wheels.PURE_PINS[name]:
            raise BuildError(
                f"this environment has {name} {module.__version__}, but the site ships "
                f"{name} {wheels.PURE_PINS[name]} ({pins.PINS_FILE}); install "
                f"{name}=={wheels.PURE_PINS[name]} (pyproject pins it) and build again"
            )


def check_base_url(base_url: str) -> str:
    """The public URL of the site, checked: http(s), a host, no query or fragment."""
    parsed = urllib.parse.urlsplit(base_url)
    if (
        parsed.scheme not in ("http", "https")
        or not parsed.netloc
        or parsed.query
        or parsed.fragment
    ):
        raise BuildError(
            f"--base-url {base_url!r} is not an http(s) URL of a folder (https://host/path/)"
        )
    return base_url.rstrip("/") + "/"


def sitemap(out: Path, found: list[Route], base_url: str) -> None:
    """sitemap.xml: every page's public URL (only with --base-url)."""
    urls = "".join(
        f"  <url><loc>{xml_escape(page_model.absolute(route.name, base_url))}</loc></url>\n"
        for route in found
    )
    (out / "sitemap.xml").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        f"{urls}</urlset>\n",
        "utf-8",
    )


def add_frames(out: Path, found: list[Route], fresh: dict[str, dict]) -> dict:
    """Tier 1: each figure's precomputed frames, and the script that applies them.

    Every page that shows figures gets the script and its settings (``frames.py``,
    ``frames.js``); the frames' files are listed in site.json. Frames computed
    now go into ``fresh``, to be kept once the build's checks pass.
    """
    listed = frames.write_frames(out, {fid for route in found for fid in route.figures}, fresh)
    for figure_id, files in listed.items():
        write_frame_script(out, figure_id, files)
    script = bundled(FRAMES)
    script = script.encode("utf-8")
    (out / "posviz-frames.js").write_bytes(script)
    for route in found:
        if not route.figures:
            continue
        page = out / f"{route.name}.html"
        # Before BokehJS, so that the files come while it parses (async: it blocks nothing).
        script = '<script src="posviz-frames.js" async></script>'
        tags = f"{frames.page_config(route, listed)}\n{script}\n{SETTINGS_TAG}"
        html = edit(page.read_text("utf-8"), page.name, SETTINGS_TAG, tags, first=True)
        page.write_text(html, "utf-8")
    return listed


def write_frame_script(out: Path, figure_id: str, files: dict) -> None:
    """``frames/<id>.js``: the figure's frame files as a script, for a page opened as a file.

    Browsers refuse ``fetch`` for ``file:`` URLs but run a script beside the page,
    so the same gzip bytes travel base64-encoded; ``frames.js`` checks them
    against the same sha256 as the files.
    """
    packed = {
        kind: base64.b64encode((out / f["path"]).read_bytes()).decode() for kind, f in files.items()
    }
    path = files["json"]["path"].removesuffix(".json.gz") + ".js"
    kept = "(self.posvizFrameFiles = self.posvizFrameFiles || {})"
    script = f"{kept}[{json.dumps(figure_id)}] = {json.dumps(packed)};\n"
    (out / path).write_text(script, "utf-8")


def site_manifest(out: Path, found: list[Route], listed: dict | None = None) -> None:
    """site.json: every page with its kind, title and live figures, and the figures' frames."""
    pages = [
        {
            "path": f"{route.name}.html",
            "kind": route.kind,
            "title": route.title,
            "figures": list(route.figures),
        }
        for route in found
    ]
    manifest = {"pages": pages, "frames": listed or {}}
    (out / "site.json").write_text(
        json.dumps(manifest, indent=1, ensure_ascii=False) + "\n", "utf-8"
    )


BUILD_STAMP = re.compile(rb'"build": "[0-9a-f]{16}"')


def unstamped_scan(data: bytes, suffix: str, scan_bytes):
    """The offline scan's findings for a file, from the cache (``pagecache.remembered_scan``).

    A page's build stamp changes with every build (it hashes the wheels, the
    content among them), so pages are looked up with it put back to its
    placeholder: sixteen hex digits on one line hold no URL, and the lines stay.
    """
    if suffix == ".html":
        data = BUILD_STAMP.sub(b'"build": ' + BUILD_PLACEHOLDER.encode(), data, count=1)
    return pagecache.remembered_scan(data, suffix, scan_bytes)


# The errors a build reports in one line; anything else is a bug, with a traceback file.
EXPECTED = (
    BuildError,
    FigureModuleError,
    frames.FrameError,
    content.ContentError,
    target.TargetError,
    distribution.DistributionError,
    wheels.WheelError,
    pins.PinError,
    bytecode.BytecodeError,
    search.SearchError,
    OSError,
)


def one_line(error: BaseException) -> str:
    """The error as one line; longer output (pip's, panel convert's) goes to a file."""
    if isinstance(error, OSError) and error.strerror:
        where = f": {error.filename}" if error.filename else ""
        return f"{error.strerror}{where}"
    first, _, rest = str(error).strip().partition("\n")
    if not rest:
        return first
    return f"{first.rstrip(':')} (full output in {_save(str(error))})"


def _save(text: str) -> str:
    """Write `text` to a fresh log file; its path, or a note when even that fails."""
    try:
        fd, path = tempfile.mkstemp(prefix="posviz-build-", suffix=".log")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        return path
    except OSError as error:
        return f"nowhere: {error.strerror}"


def figure_routes(found: list[Route], figures) -> list[Route]:
    """The routes of a site of ``figures`` alone (ids): each one's own page, nothing else.

    Docs that embed a few figures ship these and the runtime, no article.
    """
    by_id = {route.key: route for route in found if route.kind == "figure"}
    wanted = list(dict.fromkeys(figures))
    if not wanted:
        raise BuildError("--figures names no figure; give ids such as --figures 710,96")
    for figure_id in wanted:
        if figure_id not in by_id:
            known = ", ".join(str(i) for i in sorted(by_id))
            raise BuildError(f"--figures: there is no figure {figure_id}; the figures are {known}")
    return [by_id[figure_id] for figure_id in wanted]


def build(out: Path, cdn: bool = False, base_url: str | None = None, figures=None) -> int:
    """Build the site into `out`; 0 on success, else 1 after one line on stderr.

    ``figures`` (ids): only those figures' own pages, for docs that embed them.
    """
    started = time.monotonic()
    out = Path(os.path.abspath(out))
    work = None
    # Pre-render, frames, wheels, and the runtime and the search index when there are.
    STEPS.start(3 + (not cdn) + (figures is None))
    try:
        target.check(out)
        check_host_versions()
        if base_url is not None:
            base_url = check_base_url(base_url)
        library = content.load()
        found = list(routes(library))
        if figures is not None:
            found = figure_routes(found, figures)
        dist = distribution.assemble(packages=LOCK_PACKAGES)
        python = distribution.python_version(dist)
        with target.lock(out):
            target.recover(out)
            work = target.fresh(out)
            make_site(work, found, dist, python, cdn, base_url, library, figures is not None)
            shipped = {"figures": [route.key for route in found]} if figures is not None else {}
            target.seal(work, posviz=__version__, **shipped)
            target.swap(work, out)
            work = None
    except KeyboardInterrupt:
        STEPS.finish()  # the moving line goes before the message
        print(f"posviz build: interrupted; {out} is as it was", file=sys.stderr)
        return 130
    except EXPECTED as error:
        STEPS.finish()  # the moving line goes before the message
        print(f"posviz build: failed: {one_line(error)}", file=sys.stderr)
        return 1
    except Exception as error:  # a bug: still one line, the traceback in a file
        STEPS.finish()  # the moving line goes before the message
        saved = _save(traceback.format_exc())
        print(
            f"posviz build: failed unexpectedly: {type(error).__name__}: "
            f"{str(error).splitlines()[0] if str(error) else ''} (traceback in {saved})",
            file=sys.stderr,
        )
        return 1
    finally:
        STEPS.finish()
        if work is not None:
            shutil.rmtree(work, ignore_errors=True)
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    note(f"wrote {out} ({size / 1e6:.1f} MB) in {time.monotonic() - started:.0f} s")
    return 0


def make_site(
    out: Path,
    found: list[Route],
    dist: Path,
    python: str,
    cdn: bool,
    base_url: str | None = None,
    library=None,
    figures_only: bool = False,
) -> None:
    """Write the whole site into the empty folder `out`, offline scan included.

    ``library``: the content ``found`` was routed from (loaded again if not given).
    ``figures_only``: ``found`` is figure pages alone; they link to no page, and
    have no search box to index for.
    """
    cdn_root = "https://cdn.holoviz.org/panel/" if cdn else PANEL_CDN_ROOT
    settings = {"cdn_root": cdn_root, "base_url": base_url}
    if figures_only:  # only then: a whole site's keys stay what they were
        settings["figures_only"] = True
    root = content.default_root()
    route_keys = pagecache.keys(found, library or content.load(root), root, settings)
    missing = pagecache.restore(route_keys, out)
    reused = len(found) - len(missing)
    log(
        f"converting {len(missing)} dashboards"
        + (f" ({reused} unchanged, reused)" if reused else "")
    )
    # The cache keeps each page as rewritten: the key covers its inputs (the
    # route, the settings, posviz's code), so a reused page needs no rewrite.
    # What this build made is kept only after its last check (the scan), below.
    fresh_pages: dict[str, str] = {}
    fresh_frames: dict[str, dict] = {}
    if missing:
        prerender(missing, out, cdn_root, base_url=base_url, figures_only=figures_only)
        for name in missing:
            page = out / f"{name}.html"
            fresh_pages[name] = rewrite_page(page.read_text("utf-8"), name, cdn)
            page.write_text(fresh_pages[name], "utf-8")
    copy_stylesheet(out)
    if base_url:
        sitemap(out, found, base_url)
    share_page_scripts(out)
    log("computing the figures' frames")
    listed = add_frames(out, found, fresh_frames)
    wheel_dir = out / WHEEL_DIR
    wheel_dir.mkdir()
    log("collecting wheels")
    pure = wheels.collect_pure_wheels(wheel_dir, python)
    own = posviz_wheel(wheel_dir, with_content=False)
    built = [*pure, own]
    precompile(built, dist)
    add_content(own)
    names = sorted(wheel.name for wheel in built)
    if cdn:
        pin_scripts(out)  # no script is the site's: each page's list is empty
        write_worker(out, names, CDN_PYODIDE, cdn_root, python)
    else:
        log("copying the Pyodide runtime and static files")
        core = copy_runtime(out, dist)
        copy_static(out, python)
        pin_scripts(out)
        write_worker(out, names, PYODIDE_DIR, cdn_root, python, core)
        check_seams(out)
    if not cdn:  # offline reading needs every byte on the site
        add_offline(out, found)
    if not figures_only:  # a figure page has no search box
        log("indexing the pages for search")
        search.index(out)  # the pages are final: nothing edits them after this
    site_manifest(out, found, listed)
    if not cdn:
        write_service_worker(out)
        remember = unstamped_scan if pagecache.enabled() else None
        findings = scan(out, EXEMPT, remember)
        if findings:
            more = f" and {len(findings) - 1} more" if len(findings) > 1 else ""
            raise BuildError(
                f"pages would still fetch from outside the site: {findings[0]}{more}\n"
                + "\n".join(f"  {f}" for f in findings)
            )
    # A file edited while this build ran (a maintainer saving, a checkout) would
    # leave pages of the old code under the new code's key, or the reverse: keep
    # nothing then. The keys are hashes of the files, so computing them again says.
    # Read afresh: ``library`` is the content as it was when the build began.
    if pagecache.keys(found, content.load(root), root, settings) != route_keys:
        note("posviz's files or the content changed during the build: nothing of it is cached")
        return
    pagecache.store(route_keys, fresh_pages)
    for key, files in fresh_frames.items():
        pagecache.store_frames(key, files)
