"""What the pages load: Pyodide's files, the wheels, BokehJS, Panel's JS, posviz's scripts.

posviz's own scripts are each joined from their parts (``joined``).

posviz's wheel for the browser leaves out what only the host runs (``HOST_ONLY``);
its content goes in after the bytecode is compiled, so a text edit compiles
nothing. The worker script carries every file's sha256 and names the build.
"""

import hashlib
import json
import posixpath
import re
import shutil
import zipfile
from pathlib import Path

from posviz import __version__, content, internals
from posviz.compose import page as page_model
from posviz.export import bytecode, distribution, wheels
from posviz.export.adapter import BOKEH_DIR, BUILD_PLACEHOLDER, edit
from posviz.export.errors import BuildError, note
from posviz.export.scripts import WORKER, bundled

PYODIDE_DIR = "pyodide/"


WHEEL_DIR = "wheels/"


PANEL_CDN_ROOT = "static/panel/"


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


BOKEH_VERSION = wheels.PURE_PINS["bokeh"]


# What of posviz only the host runs (the commands, the server, the docs plugins and
# their iframe snippet, `posviz new`), beside export/ and templates/: the wheel
# for the browser leaves them out. tests/test_house.py checks that nothing the
# worker imports needs them.
HOST_ONLY = (
    "export",
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
    script = bundled(WORKER, SITE=json.dumps(config, indent=1))
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
