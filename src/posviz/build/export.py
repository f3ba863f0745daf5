"""`posviz build`: every dashboard as a static page that runs Python in the browser.

Pages come from `panel convert` (pre-rendered, pyodide-worker target); the
build then makes them self-contained. All pages share one worker script,
``posviz-worker.js``, which starts the Pyodide runtime from ``pyodide/`` and
installs wheels from ``wheels/`` (no micropip, no index); BokehJS and Panel's
JS and CSS are copied under ``static/``. Finally every HTML, JS and CSS file
is scanned: a URL outside the site fails the build, naming file and URL.

The site is built in a sibling folder and swapped into place only when it is
complete (see target.py). Every failure is one line on stderr and exit 1.
"""

import base64
import hashlib
import json
import os
import posixpath
import re
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.parse
import uuid
import zipfile
from pathlib import Path
from xml.sax.saxutils import escape as xml_escape

import bokeh
import holoviews
import panel

from posviz import __version__, assets, content, internals
from posviz.build import (
    bytecode,
    distribution,
    frames,
    pagecache,
    pins,
    progress,
    search,
    target,
    wheels,
)
from posviz.build import prerender as prerender_script
from posviz.build.scan import scan
from posviz.compose import page as page_model
from posviz.compose.routes import Route, routes

PYODIDE_DIR = "pyodide/"
WHEEL_DIR = "wheels/"
PANEL_CDN_ROOT = "static/panel/"
BOKEH_DIR = "static/bokeh/"
BOKEH_BUNDLES = ("bokeh", "bokeh-widgets", "bokeh-tables")  # panel.min.js needs tables
# Pyodide's files the site ships and the worker loads, each checked against the
# sha256 of the file the build wrote first. pyodide.mjs is for ES-module
# workers, which posviz does not start: the site leaves it out.
WORKER_CORE = tuple(name for name in distribution.CORE_FILES if name != "pyodide.mjs")
CDN_PYODIDE = f"https://cdn.jsdelivr.net/pyodide/v{distribution.PYODIDE_VERSION}/full/"
# Packages the page takes from the Pyodide distribution (the rest are pure wheels).
LOCK_PACKAGES = distribution.REQUIRED_PACKAGES
# Tier 2 needs these of them, and the wheels below: a figure's model is numpy and param.
NUMPY_TIER_PACKAGES = ("numpy",)
NUMPY_TIER_WHEELS = ("posviz-", "param-")
# The build renders with the host's copies and ships the pinned wheels: they must agree.
HOST_PACKAGES = {"bokeh": bokeh, "holoviews": holoviews, "panel": panel}
BOKEH_VERSION = wheels.PURE_PINS["bokeh"]
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

STATUS_CSS = f"<style>\n{assets.source('posviz.build', 'status.css')}</style>"

# Orders ids by creation (Bokeh's simple ids are "p" and a counter).
ID_ORDER = assets.source("posviz.build", "id_order.js").rstrip("\n")

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


class BuildError(RuntimeError):
    """The site could not be built; the message says what and where."""


# The build's steps as they are shown (build/progress.py): a moving line on a terminal.
STEPS = progress.Steps("posviz build")


def log(message: str) -> None:
    """The next step of the build."""
    STEPS.step(message)


def note(message: str) -> None:
    """A line that stays: a warning, or what a step found."""
    STEPS.say(message)


def check_host_versions() -> None:
    """Fail when the host's bokeh, panel or holoviews is not the version the site ships."""
    for name, module in HOST_PACKAGES.items():
        if module.__version__ != wheels.PURE_PINS[name]:
            raise BuildError(
                f"this environment has {name} {module.__version__}, but the site ships "
                f"{name} {wheels.PURE_PINS[name]} ({pins.PINS_FILE}); install "
                f"{name}=={wheels.PURE_PINS[name]} (pyproject pins it) and build again"
            )


# --- pages ---------------------------------------------------------------------


def prerender(
    names: list[str],
    out: Path,
    cdn_root: str,
    processes: int = 2,
    base_url: str | None = None,
    figures_only: bool = False,
) -> None:
    """Pre-render every route with `panel convert`, split over a few processes.

    They run in a clean environment (``prerender.environment``) with an empty home.
    """
    batches = [names[i::processes] for i in range(processes)]
    with tempfile.TemporaryDirectory(prefix="posviz-home-") as home:
        env = prerender_script.environment(Path(home), cdn_root, base_url, figures_only)
        running = [
            subprocess.Popen(
                [sys.executable, "-m", "posviz.build.prerender", str(out), *batch],
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                encoding="utf-8",
                errors="replace",
            )
            for batch in batches
            if batch
        ]
        try:
            results = [(process, process.communicate()[0]) for process in running]
        finally:  # interrupted or failed: no converter outlives the build
            for process in running:
                if process.poll() is None:
                    process.kill()
                    process.wait()
    for process, output in results:
        if process.returncode:
            raise BuildError(f"panel convert failed (exit {process.returncode}):\n{output[-4000:]}")


def stable_ids(html: str, name: str) -> str:
    """Replace random element ids with ones derived from the route, in order."""
    seen: dict[str, str] = {}

    def replace(match):
        found = match.group(0)
        if found not in seen:
            seen[found] = str(uuid.uuid5(uuid.NAMESPACE_URL, f"posviz/{name}/{len(seen)}"))
        return seen[found]

    return UUID.sub(replace, html)


# Param names an unnamed object after its class and a counter of every object the
# process made ("Column00354"): a page's names would depend on the pages the
# same converter rendered before it.
AUTO_NAME = re.compile(r'"name":"([A-Z][A-Za-z]*)(\d{5})"')


def stable_names(html: str) -> str:
    """Number Param's automatic names in order of appearance, per page."""
    seen: dict[str, str] = {}

    def replace(match):
        found = match.group(0)
        if found not in seen:
            seen[found] = f'"name":"{match.group(1)}{len(seen):05d}"'
        return seen[found]

    return AUTO_NAME.sub(replace, html)


BUILD_PLACEHOLDER = '"__POSVIZ_BUILD__"'
PINNED_PLACEHOLDER = '"__POSVIZ_PINNED__"'  # filled in by pin_scripts


def edit(html: str, page: str, anchor: str, new: str, *, first: bool = False) -> str:
    """Replace ``anchor`` in the HTML panel convert wrote; a missing anchor fails the build.

    Each edit depends on text Panel writes; if a Panel release changes it, the
    build must stop rather than ship a page that silently lacks the edit.
    """
    if anchor not in html:
        raise BuildError(
            f"{page}: the page panel {panel.__version__} wrote lacks {anchor!r}; "
            "posviz cannot adapt it (see rewrite_page in build/export.py)"
        )
    return html.replace(anchor, new, 1 if first else -1)


def patch_panel_page(html: str, page: str, name: str, *, first: bool = False, **fills) -> str:
    """Apply the patch of file ``build/<name>.js`` to the page Panel wrote.

    The file's first line of code (``//`` lines are its comments) is the text
    Panel writes, the second what posviz writes in its place; ``fills`` fill its
    placeholders (``assets.render``: strict). A missing anchor fails the build (``edit``).
    """
    lines = assets.render("posviz.build", f"{name}.js", **fills).splitlines()
    code = [line for line in lines if line.strip() and not line.lstrip().startswith("//")]
    if len(code) != 2:
        raise BuildError(
            f"src/posviz/build/{name}.js: a patch is two lines of code (Panel's, then posviz's);"
            f" it has {len(code)}"
        )
    anchor, new = code
    return edit(html, page, anchor, new, first=first)


def script_literal(value) -> str:
    """``value`` as a JavaScript literal that is safe inside a <script> element."""
    return json.dumps(value).replace("<", "\\u003c")


DOCS_JSON = re.compile(r'(<script type="application/json" id="[^"]*">)(.*?)(</script>)', re.S)


def share_stylesheets(html: str, page: str) -> str:
    """The pre-rendered document with each distinct inline stylesheet written once.

    Panel hands every model its stylesheets as strings, and Bokeh writes a
    string out wherever it is used: a page with two figures carried the same
    few rules 86 times (43 KB of its 173). Here the first use of each text
    becomes an ``InlineStyleSheet`` object and every later use a reference to
    it by id, which BokehJS resolves to the same sheet. Only the page's
    pre-render changes; the live document Python sends is left as Panel makes it.
    """
    found = DOCS_JSON.search(html)
    if found is None:
        raise BuildError(
            f"{page}: the page panel {panel.__version__} wrote lacks its document "
            '(<script type="application/json">)'
        )
    docs = json.loads(found.group(2))
    shared: dict[str, str] = {}

    def sheet(css: str) -> dict:
        if css in shared:
            return {"id": shared[css]}
        shared[css] = f"posviz-css-{len(shared)}"
        return {
            "type": "object",
            "name": "InlineStyleSheet",
            "id": shared[css],
            "attributes": {"css": css},
        }

    def walk(value):
        if isinstance(value, dict):
            for key, item in value.items():
                if key == "stylesheets" and isinstance(item, list):
                    value[key] = [sheet(s) if isinstance(s, str) else walk(s) for s in item]
                else:
                    walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)
        return value

    walk(docs)
    text = json.dumps(docs, separators=(",", ":"), ensure_ascii=False).replace("<", "\\u003c")
    return html[: found.start(2)] + text + html[found.end(2) :]


def shared_script(text: str, stem: str) -> tuple[str, str]:
    """A script every page loads from one file: its name, by its content, and its text.

    The name changes whenever the text does, so a browser's cached copy is never
    one an older build wrote.
    """
    return f"{stem}-{hashlib.sha256(text.encode('utf-8')).hexdigest()[:12]}.js", text


SETTINGS_TAG = '<script type="application/json" id="posviz-page">'  # the page's, for connect.js
CONNECT = shared_script(assets.render("posviz.build", "connect.js"), "posviz-connect")
# Panel's page script (its message handler) with posviz's loader joined to it:
# panel convert writes the same one into every page (share_page_scripts).
PAGE_SCRIPT = re.compile(
    r"<script>(\n  const pyodideWorker = window\.posvizWorker;.*?)</script>",
    re.S,
)


def share_page_scripts(out: Path) -> None:
    """The scripts every page repeats, written once beside the pages and cached.

    Inline, connect.js and Panel's handler with posviz's loader were 17 KB of
    every page. Each page keeps only its own settings (``rewrite_page``). A page
    whose handler differs from the others' fails the build, naming both.
    """
    pages = {}
    for page in sorted(out.glob("*.html")):
        html = page.read_text("utf-8")
        found = PAGE_SCRIPT.search(html)
        if found is None:
            raise BuildError(
                f"{page.name}: the page panel {panel.__version__} wrote lacks Panel's handler "
                "script, or posviz's edits to it (see rewrite_page)"
            )
        pages[page] = (html, found)
    texts: dict[str, str] = {}  # each distinct handler → the first page with it
    for page, (_, found) in pages.items():
        texts.setdefault(found.group(1), page.name)
    if len(texts) > 1:
        first, other = list(texts.values())[:2]
        raise BuildError(
            f"{other}: Panel's handler script differs from the one in {first}, "
            "so the pages cannot share it"
        )
    if not pages:
        return
    handler, text = shared_script(next(iter(texts)), "posviz-page")
    for name, script in (CONNECT, (handler, text)):
        (out / name).write_text(script, "utf-8")
    for page, (html, found) in pages.items():
        tag = f'<script src="{handler}"></script>'
        page.write_text(html[: found.start()] + tag + html[found.end() :], "utf-8")


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


def rewrite_page(html: str, name: str, cdn: bool) -> str:
    """Offline URLs, the connection to the shared runtime first thing, and the loader."""
    page = f"{name}.html"
    html = share_stylesheets(html, page)
    if not cdn:
        html = edit(html, page, "https://cdn.bokeh.org/bokeh/release/", BOKEH_DIR)
        # No posviz view draws with WebGL: skip parsing that bundle.
        gl = re.compile(r"<script[^>]*bokeh-gl-[^>]*></script>\n?")
        if not gl.search(html):
            raise BuildError(
                f"{page}: the page panel {panel.__version__} wrote has no bokeh-gl script"
            )
        html = gl.sub("", html)
        # Nor typesets LaTeX (see EXEMPT): Bokeh asks for the bundle when a text looks like TeX.
        html = re.sub(r"<script[^>]*bokeh-mathjax-[^>]*></script>\n?", "", html)
    # Connect to Python before the browser parses BokehJS; messages wait in
    # posvizWorker.early until the page's handler exists (the loader replays them).
    # The script is shared by every page (share_page_scripts); its settings are the page's.
    settings = (
        f'{{"route": {script_literal(name)}, "build": {BUILD_PLACEHOLDER}, '
        f'"pinned": {PINNED_PLACEHOLDER}}}'
    )
    connect = f'{SETTINGS_TAG}{settings}</script>\n<script src="{CONNECT[0]}">'
    html = edit(html, page, "<script", f"{connect}</script>\n<script", first=True)
    html = patch_panel_page(html, page, "panel_worker", NAME=name)
    # The loader joins panel's own worker script, so no message can slip between.
    # So does lazy.js, which must run after BokehJS and before the embed script.
    loader = assets.render("posviz.build", "loader.js") + assets.render("posviz.build", "lazy.js")
    html = edit(html, page, "pyodideWorker.onmessage = ", "pyodideWorker.onmessage = ", first=True)
    handler = html.index("pyodideWorker.onmessage = ")
    close = html.index("</script>", handler)
    html = html[:close] + loader + html[close:]
    html = edit(html, page, "</head>", f"{STATUS_CSS}\n</head>", first=True)
    # Live roots matched to the pre-rendered ones by creation order (the files say why).
    html = patch_panel_page(html, page, "panel_roots_sort")
    html = patch_panel_page(html, page, "panel_root_ids")
    html = edit(
        html,
        page,
        "pyodideWorker.onmessage = ",
        f"{ID_ORDER}\npyodideWorker.onmessage = ",
        first=True,
    )
    return stable_names(stable_ids(html, name))


# --- what the pages load -------------------------------------------------------


# What of posviz only the host runs (the commands, the server, the docs plugins and
# their iframe snippet, `posviz new`), beside build/ and templates/: the wheel
# for the browser leaves them out. tests/test_house.py checks that nothing the
# worker imports needs them.
HOST_ONLY = (
    "build",
    "templates",
    "cli.py",
    "serve.py",
    "sphinx.py",
    "mkdocs.py",
    "embed.py",
    "embed.js",
    "scaffold.py",
    "markdown_ext.py",
    "myst",
    "widget.py",
    "widget.js",
    "widget.css",
)


def posviz_wheel(dest: Path, with_content: bool = True) -> Path:
    """Posviz itself with its content, for the browser (``HOST_ONLY`` stays home).

    ``with_content=False`` leaves the content out (``add_content`` puts it in after
    the bytecode is compiled, so that a text edit compiles nothing).
    """
    package = Path(__file__).resolve().parent.parent
    files = {}
    for path in sorted(package.rglob("*")):
        relative = path.relative_to(package)
        if (
            path.is_file()
            and "__pycache__" not in relative.parts
            and relative.parts[0] not in HOST_ONLY
            and relative.parts[0] != "_content"  # an installed posviz's: add_content puts it in
            and path.suffix != ".pyc"
        ):
            files[f"posviz/{relative.as_posix()}"] = path.read_bytes()
    if with_content:
        files |= content_files()
    return wheels.write_wheel(dest, "posviz", __version__, files)


def content_files() -> dict[str, bytes]:
    """The content's files as the posviz wheel carries them (``posviz/_content/``)."""
    root = content.default_root()
    return {
        f"posviz/_content/{path.relative_to(root).as_posix()}": path.read_bytes()
        for path in sorted(root.rglob("*.md"))
    }


def add_content(wheel: Path) -> None:
    """Put the content into the (compiled) posviz ``wheel``, in place."""
    with zipfile.ZipFile(wheel) as archive:
        files = {n: archive.read(n) for n in archive.namelist() if not n.endswith("/")}
    dist_info = wheels.wheel_dist_info(list(files), wheel)
    wheels.write_wheel_archive(wheel, dist_info, files | content_files())


def copy_runtime(out: Path, dist: Path) -> dict[str, str]:
    """The Pyodide files the pages need, under pyodide/; the sha256 of each core file written.

    Every file is checked against its upstream pin first (``distribution.verify``).
    The lock is written trimmed to the packages the site ships (``trimmed_lock``),
    so the worker checks it, like every core file, against the bytes written here.
    """
    folder = out / PYODIDE_DIR
    folder.mkdir(parents=True, exist_ok=True)
    left_out = {*distribution.CORE_FILES} - {*WORKER_CORE}
    for path in distribution.verify(dist, LOCK_PACKAGES):
        if path.name not in left_out and path.name != distribution.LOCK_FILE:
            shutil.copy2(path, folder / path.name)
    lock = distribution.trimmed_lock(distribution.load_lock(dist), LOCK_PACKAGES)
    text = json.dumps(lock, indent=1, sort_keys=True) + "\n"
    (folder / distribution.LOCK_FILE).write_text(text, "utf-8")
    return {name: sha256_of(folder / name) for name in WORKER_CORE}


def copy_static(out: Path, python: str) -> None:
    """BokehJS, and every Panel dist file the pages (and their CSS) reference.

    Taken from the pinned, hash-checked bokeh and panel wheels (the ones the
    browser gets), not from the host's installed copies.
    """
    with zipfile.ZipFile(wheels.raw_wheel("bokeh", python)) as bokeh_wheel:
        (out / BOKEH_DIR).mkdir(parents=True, exist_ok=True)
        for bundle in BOKEH_BUNDLES:
            (out / BOKEH_DIR / f"{bundle}-{BOKEH_VERSION}.min.js").write_bytes(
                bokeh_wheel.read(f"bokeh/server/static/js/{bundle}.min.js")
            )
    prefix = f"{PANEL_CDN_ROOT}{wheels.PURE_PINS['panel']}/dist/"
    wanted = set()
    for page in out.glob("*.html"):
        wanted |= set(re.findall(re.escape(prefix) + r"([^\"'\s\\)?#]+)", page.read_text("utf-8")))
    pending = sorted(wanted)
    with zipfile.ZipFile(wheels.raw_wheel("panel", python)) as panel_wheel:
        shipped = set(panel_wheel.namelist())
        while pending:
            relative = posixpath.normpath(pending.pop())
            member, dest = f"panel/dist/{relative}", out / prefix / relative
            if dest.exists():
                continue
            if relative.startswith("../") or member not in shipped:
                raise BuildError(f"a page references {prefix}{relative}, which panel does not ship")
            dest.parent.mkdir(parents=True, exist_ok=True)
            data = panel_wheel.read(member)
            dest.write_bytes(data)
            if member.endswith(".css"):
                for ref in re.findall(r"url\(\s*[\"']?([^\"')?#]+)", data.decode("utf-8")):
                    if not ref.startswith(("data:", "http:", "https:", "//")):
                        pending.append(posixpath.join(posixpath.dirname(relative), ref))


def precompile(built: list[Path], dist: Path) -> None:
    """Swap each wheel in place for its bytecode twin (see bytecode.py)."""
    if not bytecode.node_available():
        note("warning: node (Node.js) not found; wheels keep source only and pages start slower")
        return
    cache = distribution.default_cache_root() / "bytecode"
    compiled, report = bytecode.compile_wheels(built, dist, cache)
    for source, twin in zip(built, compiled, strict=True):
        if twin != source:  # an unpinned wheel (posviz's own) is compiled in place
            shutil.copy2(twin, source)
    if report["compiled_now"]:
        note(f"compiled bytecode for {len(report['compiled_now'])} wheel(s) in Pyodide")


def sha256_of(path: Path) -> str:
    """The sha256 of a file, in hex."""
    with path.open("rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def pin_scripts(out: Path) -> None:
    """An ``integrity`` sha256 on every page's script from the site (BokehJS, Panel's JS).

    The browser then runs only the bytes this build wrote; connect.js names a
    script that fails the check. Browsers check no integrity on a page opened as
    a file, and refuse the script instead: connect.js then loads the same list
    without it, so that the pre-rendered figures still draw.
    """
    tag = re.compile(r'<script type="text/javascript" src="(static/[^"]+)"></script>')
    digests: dict[str, str] = {}

    def pin(match):
        src = match.group(1)
        if src not in digests:
            file = out / src
            if not file.is_file():
                raise BuildError(f"a page loads {src}, which the site does not hold")
            digest = hashlib.sha256(file.read_bytes()).digest()
            digests[src] = "sha256-" + base64.b64encode(digest).decode("ascii")
        return f'<script type="text/javascript" src="{src}" integrity="{digests[src]}"></script>'

    for page in sorted(out.glob("*.html")):
        html = page.read_text("utf-8")
        scripts = tag.findall(html)
        html = edit(html, page.name, PINNED_PLACEHOLDER, script_literal(scripts), first=True)
        pinned = tag.sub(pin, html)
        for script in re.findall(r'<script\b[^>]*\bsrc="static/[^>]*>', pinned):
            if "integrity=" not in script:
                raise BuildError(f"{page.name}: cannot pin {script} (panel's page changed)")
        page.write_text(pinned, "utf-8")


# The scripts each of the site's own scripts is joined from, in order: the shared
# modules (each sets one global, posvizChecked and so on) before the one that uses them.
WORKER_PARTS = ("protocol.js", "checked.js", "worker.js")  # the last one takes SITE
FRAMES_PARTS = ("links.js", "frame_apply.js", "frame_index.js", "checked.js", "frames.js")
SERVICE_WORKER_PARTS = ("checked.js", "offline_core.js", "sw.js")  # the last one takes OFFLINE


def joined(parts: tuple[str, ...], **fills: str) -> str:
    """The script made of ``parts`` in order; ``fills`` go into the last one."""
    *shared, last = parts
    return "".join(assets.render("posviz.build", name) for name in shared) + assets.render(
        "posviz.build", last, **fills
    )


def write_worker(
    out: Path,
    wheel_names: list[str],
    pyodide_url: str,
    cdn_root: str,
    python: str,
    core: dict[str, str] | None = None,
) -> None:
    """posviz-worker.js with this build's settings, and the build's id in every page.

    Each wheel carries its sha256, which the worker checks before unpacking, as
    does each of Pyodide's core files in ``core`` (name → sha256). The id (a
    digest of the worker script, so of every wheel too) names the shared
    runtime: a page of a newer build never joins an older build's runtime.
    """
    lock = distribution.load_lock(out / PYODIDE_DIR) if core else {"packages": {}}
    early = distribution.dependency_closure(lock, NUMPY_TIER_PACKAGES) if core else []
    config = {
        "pyodide": pyodide_url,
        "core": [{"name": name, "sha256": digest} for name, digest in sorted((core or {}).items())],
        "lock_packages": list(LOCK_PACKAGES),
        # The lock's package files, fetched and checked by the worker itself and
        # handed to loadPackage: the numpy tier's (``numpy``) with Pyodide's core
        # files, the rest after them. None with --cdn: loadPackage takes them there.
        "packages": [
            {
                "name": name,
                "path": f"{PYODIDE_DIR}{entry['file_name']}",
                "sha256": entry["sha256"],
                "numpy": name in early,
            }
            for name, entry in sorted(lock["packages"].items())
        ],
        "wheels": [
            {
                "path": f"{WHEEL_DIR}{name}",
                "sha256": sha256_of(out / WHEEL_DIR / name),
            }
            for name in wheel_names
        ],
        "site_packages": bytecode.site_packages(python),
        # Tier 2 (posviz.runtime.compute): what the worker loads before the rest.
        "numpy": {
            "packages": list(NUMPY_TIER_PACKAGES),
            "wheels": [
                n for n, name in enumerate(wheel_names) if name.startswith(NUMPY_TIER_WHEELS)
            ],
        },
        "cdn_root": cdn_root,  # posviz.runtime.boot.start sets it before panel is imported
    }
    script = joined(WORKER_PARTS, SITE=json.dumps(config, indent=1))
    (out / "posviz-worker.js").write_text(script, "utf-8")
    build_id = hashlib.sha256(script.encode("utf-8")).hexdigest()[:16]
    pages = {
        page: edit(page.read_text("utf-8"), page.name, BUILD_PLACEHOLDER, json.dumps(build_id))
        for page in sorted(out.glob("*.html"))
    }
    for page, html in pages.items():  # every page checked before any is written
        page.write_text(html, "utf-8")


def copy_stylesheet(out: Path) -> None:
    """The pages' stylesheet and search script (compose/static/), where their links point."""
    for dest, name in (
        (page_model.STYLESHEET, "site.css"),
        (page_model.SEARCH_SCRIPT, "search.js"),
    ):
        (out / dest).parent.mkdir(parents=True, exist_ok=True)
        (out / dest).write_bytes(page_model.STATIC_DIR.joinpath(name).read_bytes())


def check_seams(out: Path) -> None:
    """BuildError naming each browser internal posviz uses that the site's files lack.

    The register is ``internals.JS_SEAMS``: parts of BokehJS, Pyodide and Panel's
    page script that no public API offers.
    """
    missing = internals.check_js_seams(out)
    if missing:
        more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
        raise BuildError(f"{missing[0]}{more}\n" + "\n".join(f"  {line}" for line in missing))


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
    script = joined(FRAMES_PARTS)
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


# --- offline reading: a service worker, a web app manifest -----------------------

SERVICE_WORKER = "posviz-sw.js"
WEB_MANIFEST = "manifest.webmanifest"
ICON = "posviz-icon.svg"
OFFLINE_CSS = assets.source("posviz.build", "offline.css")
OFFLINE = shared_script(
    assets.render("posviz.build", "offline.js", CSS=assets.literal(OFFLINE_CSS)), "posviz-offline"
)


def add_offline(out: Path, found: list[Route]) -> None:
    """The offline control's script, the web app manifest and its icon, linked from every page.

    offline.js registers the service worker (``write_service_worker``) and shows
    "Save for offline reading"; the pages are final after this but for search.
    """
    (out / OFFLINE[0]).write_text(OFFLINE[1], "utf-8")
    (out / ICON).write_text(assets.source("posviz.build", "icon.svg"), "utf-8")
    start = "index.html" if (out / "index.html").is_file() else f"{found[0].name}.html"
    manifest = {
        "name": "posviz",
        "short_name": "posviz",
        "start_url": start,
        "scope": "./",
        "display": "browser",
        "background_color": "#ffffff",
        "theme_color": "#1b5797",
        "icons": [{"src": ICON, "sizes": "any", "type": "image/svg+xml", "purpose": "any"}],
    }
    (out / WEB_MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n", "utf-8")
    link = f'<link rel="manifest" href="{WEB_MANIFEST}">'
    tags = f'{link}\n<script src="{OFFLINE[0]}" defer></script>'
    for page in sorted(out.glob("*.html")):
        html = edit(page.read_text("utf-8"), page.name, "</head>", f"{tags}\n</head>", first=True)
        page.write_text(html, "utf-8")


def write_service_worker(out: Path) -> str:
    """posviz-sw.js: every file of the site with its sha256 and size; the build's content hash.

    Written last: the list is the site as shipped. The hash names the worker's
    cache, so a rebuilt site (any file changed) replaces the offline copy whole.
    Left out: the worker itself, the build's marker, and frames/<id>.js, which
    only a page opened as a file loads (and a file has no service worker).
    """
    files = {}
    for path in sorted(out.rglob("*")):
        name = path.relative_to(out).as_posix()
        if not path.is_file() or name in (SERVICE_WORKER, target.MARKER):
            continue
        if name.startswith(frames.FRAME_DIR) and name.endswith(".js"):
            continue
        files[name] = {"sha256": sha256_of(path), "bytes": path.stat().st_size}
    listed = json.dumps(files, sort_keys=True, separators=(",", ":"))
    build = hashlib.sha256(listed.encode("utf-8")).hexdigest()[:16]
    listing = f'{{"build":"{build}","files":{listed}}}'
    script = joined(SERVICE_WORKER_PARTS, OFFLINE=listing)
    (out / SERVICE_WORKER).write_text(script, "utf-8")
    return build


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


# --- the command ---------------------------------------------------------------


# The errors a build reports in one line; anything else is a bug, with a traceback file.
EXPECTED = (
    BuildError,
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
