"""Everything posviz changes in the pages `panel convert` writes, in one place.

`prerender` runs the converter (pyodide-worker target, pre-rendered) in a clean
environment; `rewrite_page` then edits what it wrote: offline URLs, the
connection to the shared runtime first thing, posviz's loader joined to Panel's
handler, stable ids and names, shared stylesheets; `share_page_scripts` writes
the script every page repeats once, and `pin_scripts` puts an sha256 on every
script tag. Each edit is anchored on text Panel writes, and a missing anchor
fails the build naming the page (`edit`). internals.py registers the anchors
with the other private parts posviz relies on.
"""

import base64
import hashlib
import json
import re
import subprocess
import sys
import tempfile
import tomllib
import uuid
from functools import cache
from pathlib import Path

import panel

from posviz import assets
from posviz.export import prerender as prerender_script
from posviz.export import scripts
from posviz.export.errors import BuildError

# Where the pages load BokehJS from, on the site (payload.copy_static writes it there).
BOKEH_DIR = "static/bokeh/"

STATUS_CSS = f"<style>\n{assets.source('posviz.export', 'status.css')}</style>"


# Orders ids by creation (Bokeh's simple ids are "p" and a counter).
ID_ORDER = assets.source("posviz.export", "id_order.js").rstrip("\n")


UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


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
                [sys.executable, "-m", "posviz.export.prerender", str(out), *batch],
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
            "posviz cannot adapt it (see rewrite_page in export/adapter.py)"
        )
    return html.replace(anchor, new, 1 if first else -1)


PATCHES_FILE = "panel_patches.toml"


@cache
def panel_patches() -> dict[str, dict[str, str]]:
    """The patches of ``export/panel_patches.toml``: name → {why, panel, posviz}."""
    patches = tomllib.loads(assets.source("posviz.export", PATCHES_FILE))
    for name, patch in patches.items():
        if sorted(patch) != ["panel", "posviz", "why"]:
            raise BuildError(
                f"src/posviz/export/{PATCHES_FILE}: [{name}] wants panel, posviz and why; "
                f"it has {', '.join(sorted(patch)) or 'nothing'}"
            )
    return patches


def patch_panel_page(html: str, page: str, name: str, *, first: bool = False, **fills) -> str:
    """Apply patch ``name`` of ``export/panel_patches.toml`` to the page Panel wrote.

    Its ``panel`` line is the text Panel writes, its ``posviz`` line what posviz
    writes in its place; ``fills`` fill their placeholders (``assets.fill``:
    strict). A missing anchor fails the build (``edit``).
    """
    patch = panel_patches()[name]
    where = f"posviz/export/{PATCHES_FILE} [{name}]"
    lines = assets.fill("\n".join([patch["panel"], patch["posviz"]]), where, **fills)
    anchor, new = lines.split("\n")
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


CONNECT = shared_script(scripts.bundled(scripts.CONNECT), "posviz-connect")


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
    loader = scripts.bundled(scripts.LOADER) + assets.render("posviz.export", "lazy.js")
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
