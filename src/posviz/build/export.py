"""`posviz build`: every dashboard as a static page that runs Python in the browser.

Pages come from `panel convert` (pre-rendered, pyodide-worker target); the
build then makes them self-contained. All pages share one worker script,
``posviz-worker.js``, which starts the Pyodide runtime from ``pyodide/`` and
installs wheels from ``wheels/`` (no micropip, no index); BokehJS and Panel's
JS and CSS are copied under ``static/``. Finally every HTML, JS and CSS file
is scanned: a URL outside the site fails the build, naming file and URL.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import time
import uuid
from importlib import resources
from pathlib import Path

import bokeh
import panel

from posviz import __version__, content
from posviz.build import bytecode, distribution, wheels
from posviz.build.scan import scan
from posviz.compose.routes import Route, routes

PYODIDE_DIR = "pyodide/"
WHEEL_DIR = "wheels/"
PANEL_CDN_ROOT = "static/panel/"
BOKEH_DIR = "static/bokeh/"
BOKEH_BUNDLES = ("bokeh", "bokeh-widgets", "bokeh-tables")  # panel.min.js needs tables
CDN_PYODIDE = f"https://cdn.jsdelivr.net/pyodide/v{distribution.PYODIDE_VERSION}/full/"
# Packages the page takes from the Pyodide distribution (the rest are pure wheels).
# No pandas: the figures keep HoloViews on numpy (see figures/base.py), and
# tests/test_figures.py checks that rendering never imports it.
LOCK_PACKAGES = ("numpy", "packaging")
# URLs inside third-party bundles that no posviz page ever fetches, and why.
EXEMPT = {
    **{
        (
            f"{PYODIDE_DIR}{name}",
            "https://cdn.jsdelivr.net/pyodide/",
        ): "Pyodide's default indexURL; the worker always passes the site's own"
        for name in ("pyodide.js", "pyodide.mjs", "pyodide.asm.js")
    },
    (
        f"{BOKEH_DIR}bokeh-{bokeh.__version__}.min.js",
        "https://cdn.jsdelivr.net/npm/mathjax@",
    ): "loaded only to typeset LaTeX, which posviz text and plots never use",
    (
        f"{BOKEH_DIR}bokeh-{bokeh.__version__}.min.js",
        "https://cdn.jsdelivr.net/npm/@tabler/",
    ): "loaded only for Tabler icon models, which posviz never creates",
}

PRELUDE = """
import os, sys
os.environ["PANEL_CDN_ROOT"] = {cdn_root!r}
os.environ["POSVIZ_EXPORT"] = "1"
import pyodide.ffi
if not hasattr(pyodide.ffi, "jsnull"):
    pyodide.ffi.jsnull = None  # panel 1.9 expects it; Pyodide 0.27 maps JS null to None
"""

RENDER = """
import json, time
_marks = [("start", time.perf_counter())]
import panel
_marks.append(("import panel", time.perf_counter()))
import holoviews
_marks.append(("import holoviews", time.perf_counter()))
from panel.io.pyodide import init_doc, write_doc
init_doc()
from posviz.compose.views import servable
servable(__ROUTE__)
_marks.append(("build view", time.perf_counter()))
_rendered = await write_doc()
_marks.append(("write doc", time.perf_counter()))
(*_rendered, json.dumps({name: round((t - before) * 1000)
                        for (_, before), (name, t) in zip(_marks, _marks[1:])}))
"""

STATUS_CSS = """<style>
.posviz-status { position: fixed; right: 16px; bottom: 16px; z-index: 1000; padding: 8px 14px;
  border-radius: 18px; background: #1d2433; color: #fff; font: 13px system-ui, sans-serif;
  box-shadow: 0 2px 8px rgba(0,0,0,.25); max-width: 40em; }
.posviz-status.posviz-error { background: #8a1c1c; border-radius: 8px; }
</style>"""

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


class BuildError(RuntimeError):
    """The site could not be built; the message says what and where."""


def log(message: str) -> None:
    print(f"posviz build: {message}", flush=True)


# --- pages ---------------------------------------------------------------------


def prerender(names: list[str], out: Path, cdn_root: str, processes: int = 2) -> None:
    """Pre-render every route with `panel convert`, split over a few processes."""
    env = {**os.environ, "PYTHONHASHSEED": "0", "POSVIZ_EXPORT": "1", "PANEL_CDN_ROOT": cdn_root}
    batches = [names[i::processes] for i in range(processes)]
    running = [
        subprocess.Popen(
            [sys.executable, "-m", "posviz.build.prerender", str(out), *batch],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for batch in batches
        if batch
    ]
    for process in running:
        output, _ = process.communicate()
        if process.returncode:
            raise BuildError(f"panel convert failed:\n{output[-4000:]}")


def stable_ids(html: str, name: str) -> str:
    """Replace random element ids with ones derived from the route, in order."""
    seen: dict[str, str] = {}

    def replace(match):
        found = match.group(0)
        if found not in seen:
            seen[found] = str(uuid.uuid5(uuid.NAMESPACE_URL, f"posviz/{name}/{len(seen)}"))
        return seen[found]

    return UUID.sub(replace, html)


def rewrite_page(html: str, name: str, cdn: bool) -> str:
    """Offline URLs, the shared worker started first thing, and the loader."""
    if not cdn:
        html = html.replace("https://cdn.bokeh.org/bokeh/release/", BOKEH_DIR)
        # No posviz view draws with WebGL: skip parsing that bundle.
        html = re.sub(r"<script[^>]*bokeh-gl-[^>]*></script>\n?", "", html)
    # Start Python before the browser parses BokehJS; keep its first messages
    # until the page's handler exists (the loader replays them).
    early = (
        f'<script>window.posvizWorker = new Worker("./posviz-worker.js#{name}");'
        "posvizWorker.early = []; posvizWorker.onmessage = (e) => posvizWorker.early.push(e);"
        "posvizWorker.onerror = () => posvizWorker.early.push({data: {type: 'error', "
        "msg: 'The Python worker script could not be loaded.'}});"
        "</script>\n"
    )
    html = html.replace("<script", early + "<script", 1)
    html = html.replace(
        f'const pyodideWorker = new Worker("./{name}.js")',
        "const pyodideWorker = window.posvizWorker",
    )
    # The loader joins panel's own worker script, so no message can slip between.
    loader = resources.files("posviz.build").joinpath("loader.js").read_text("utf-8")
    handler = html.index("pyodideWorker.onmessage")
    close = html.index("</script>", handler)
    html = html[:close] + loader + html[close:]
    html = html.replace("</head>", f"{STATUS_CSS}\n</head>", 1)
    return stable_ids(html, name)


# --- what the pages load -------------------------------------------------------


def posviz_wheel(dest: Path) -> Path:
    """Posviz itself with its content, for the browser (the build code stays home)."""
    package = Path(__file__).resolve().parent.parent
    files = {}
    for path in sorted(package.rglob("*")):
        relative = path.relative_to(package)
        if (
            path.is_file()
            and "__pycache__" not in relative.parts
            and relative.parts[0] != "build"
            and path.suffix != ".pyc"
        ):
            files[f"posviz/{relative.as_posix()}"] = path.read_bytes()
    root = content.default_root()
    for path in sorted(root.rglob("*.md")):
        files[f"posviz/_content/{path.relative_to(root).as_posix()}"] = path.read_bytes()
    return wheels.write_wheel(dest, "posviz", __version__, files)


def copy_runtime(out: Path) -> list[str]:
    """The verified Pyodide files the pages need, under pyodide/."""
    dist = distribution.assemble(packages=LOCK_PACKAGES)
    target = out / PYODIDE_DIR
    target.mkdir(parents=True, exist_ok=True)
    for path in distribution.verify(dist, LOCK_PACKAGES):
        shutil.copy2(path, target / path.name)
    shutil.copy2(dist / distribution.LOCK_FILE, target / distribution.LOCK_FILE)
    return [p.name for p in sorted(target.iterdir())]


def copy_static(out: Path) -> None:
    """BokehJS, and every Panel dist file the pages (and their CSS) reference."""
    bokeh_js = Path(bokeh.__file__).parent / "server" / "static" / "js"
    version = bokeh.__version__
    (out / BOKEH_DIR).mkdir(parents=True, exist_ok=True)
    for bundle in BOKEH_BUNDLES:
        shutil.copy2(bokeh_js / f"{bundle}.min.js", out / BOKEH_DIR / f"{bundle}-{version}.min.js")
    dist = Path(panel.__file__).parent / "dist"
    prefix = f"{PANEL_CDN_ROOT}{panel.__version__}/dist/"
    wanted = set()
    for page in out.glob("*.html"):
        wanted |= set(re.findall(re.escape(prefix) + r"([^\"'\s\\)?#]+)", page.read_text("utf-8")))
    pending = sorted(wanted)
    while pending:
        relative = pending.pop()
        source, target = dist / relative, out / prefix / relative
        if target.exists():
            continue
        if not source.is_file():
            raise BuildError(f"a page references {prefix}{relative}, which panel does not ship")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
        if source.suffix == ".css":
            for ref in re.findall(r"url\(\s*[\"']?([^\"')?#]+)", source.read_text("utf-8")):
                if not ref.startswith(("data:", "http:", "https:", "//")):
                    pending.append((Path(relative).parent / ref).as_posix())


def precompile(built: list[Path]) -> None:
    """Swap each wheel in place for its bytecode twin (see bytecode.py)."""
    if not bytecode.node_available():
        log("warning: node not found; wheels keep source only and pages start slower")
        return
    dist = distribution.assemble(packages=LOCK_PACKAGES)
    cache = distribution.default_cache_root() / "bytecode"
    compiled, report = bytecode.compile_wheels(built, dist, cache)
    for source, twin in zip(built, compiled):
        shutil.copy2(twin, source)
    if report["compiled_now"]:
        log(f"compiled bytecode for {len(report['compiled_now'])} wheel(s) in Pyodide")


def write_worker(out: Path, wheel_names: list[str], pyodide_url: str, cdn_root: str) -> None:
    config = {
        "pyodide": pyodide_url,
        "lock_packages": list(LOCK_PACKAGES),
        "wheels": [f"{WHEEL_DIR}{name}" for name in wheel_names],
        "site_packages": bytecode.SITE_PACKAGES,
        "prelude": PRELUDE.format(cdn_root=cdn_root),
        "render": RENDER,
    }
    template = resources.files("posviz.build").joinpath("worker.js").read_text("utf-8")
    (out / "posviz-worker.js").write_text(
        template.replace("__SITE__", json.dumps(config, indent=1)), "utf-8"
    )


def site_manifest(out: Path, found: list[Route]) -> None:
    pages = [
        {
            "path": f"{route.name}.html",
            "kind": route.kind,
            "title": route.title,
            "figures": list(route.figures),
        }
        for route in found
    ]
    (out / "site.json").write_text(
        json.dumps({"pages": pages}, indent=1, ensure_ascii=False) + "\n", "utf-8"
    )


# --- the command ---------------------------------------------------------------


def prepare(out: Path) -> None:
    if out.exists() and any(out.iterdir()):
        if not (out / "site.json").exists():
            raise BuildError(
                f"{out} is not empty and holds no earlier posviz build; "
                "choose an empty or new folder"
            )
        shutil.rmtree(out)
    out.mkdir(parents=True)


def build(out: Path, cdn: bool = False) -> int:
    started = time.monotonic()
    try:
        found = [route for route in routes(content.load())]
        prepare(out)
        cdn_root = "https://cdn.holoviz.org/panel/" if cdn else PANEL_CDN_ROOT
        log(f"converting {len(found)} dashboards")
        prerender([route.name for route in found], out, cdn_root)
        for route in found:
            page = out / f"{route.name}.html"
            page.write_text(rewrite_page(page.read_text("utf-8"), route.name, cdn), "utf-8")
        wheel_dir = out / WHEEL_DIR
        wheel_dir.mkdir()
        log("collecting wheels")
        pure = wheels.collect_pure_wheels(list(wheels.PURE_PINS), wheel_dir)
        built = [*pure, posviz_wheel(wheel_dir)]
        precompile(built)
        names = sorted(wheel.name for wheel in built)
        if cdn:
            write_worker(out, names, CDN_PYODIDE, cdn_root)
        else:
            log("copying the Pyodide runtime and static files")
            copy_runtime(out)
            copy_static(out)
            write_worker(out, names, PYODIDE_DIR, cdn_root)
        site_manifest(out, found)
        if not cdn:
            findings = scan(out, EXEMPT)
            if findings:
                raise BuildError(
                    "pages would still fetch from outside the site:\n"
                    + "\n".join(f"  {f}" for f in findings)
                )
    except (BuildError, distribution.DistributionError) as error:
        print(f"posviz build: failed: {error}", file=sys.stderr)
        return 1
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    log(f"wrote {out} ({size / 1e6:.1f} MB) in {time.monotonic() - started:.0f} s")
    return 0
