"""The baseline for benchmark 5: stock `panel convert` output, offline by URL rewriting.

`build_baseline(out)` converts the topic page with stock `panel convert --to
pyodide-worker` (PANEL_CDN_ROOT unset) and then changes only where things are
fetched from: Pyodide, BokehJS, Panel's dist files and the wheels micropip
installs all come from the site's own folder. Nothing is slimmed, nothing is
compiled, the worker script is panel's own. Two changes are not URL rewrites,
because the page cannot run offline without them:

1. Pyodide. Stock targets Pyodide 0.29.3, which is not reachable here; the
   baseline ships 0.27.7 (the same files posviz ships, plus pandas), and panel
   1.9.4 on 0.27.7 needs the ``pyodide.ffi.jsnull`` shim right after
   ``loadPyodide`` (see /work/shared/pyodide.md), as posviz does.
2. micropip installs with ``deps=False``, every wheel by URL and the Pyodide
   packages by name: an offline page cannot resolve requirements from PyPI,
   and panel declares requirements with no pure wheel (nh3) or that the lock
   does not ship here (pillow, contourpy, panel-material-ui, ...).

Panel in Pyodide builds stylesheet URLs from its CDN root at run time; that
root is pointed at the local copy with ``PANEL_CDN_ROOT`` (a URL, set before
panel is imported), which is panel's own switch for exactly this.

Run it alone to build into benchmarks/out/baseline-stock: ``python baseline_site.py``.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import bokeh
import panel

from posviz.compose.entries import write_entries
from posviz.compose.routes import Route
from posviz.export import distribution, wheels
from posviz.export.adapter import BOKEH_DIR
from posviz.export.command import EXEMPT
from posviz.export.payload import PANEL_CDN_ROOT, PYODIDE_DIR, WHEEL_DIR, copy_static, posviz_wheel
from posviz.export.scan import scan

TOPIC = "topic-positional-encoding"
STOCK_PYODIDE = "https://cdn.jsdelivr.net/pyodide/v0.29.3/full/pyodide.js"
# Each CDN lands in the same folder as in posviz's export (PYODIDE_DIR,
# BOKEH_DIR, PANEL_CDN_ROOT, WHEEL_DIR), so that the export's own copy_static
# and scan exemptions serve the baseline unchanged.
BOKEH_CDN = "https://cdn.bokeh.org/bokeh/release/"
PANEL_CDN = "https://cdn.holoviz.org/panel/"
# What stock micropip would take from the Pyodide lock for this page: numpy
# and packaging, and pandas with its dependencies (bokeh requires pandas).
LOCK_PACKAGES = ("numpy", "pandas", "packaging", "micropip")
INSTALL_FROM_LOCK = ("numpy", "pandas", "python-dateutil", "pytz", "six", "packaging")

# Run right after loadPyodide. The shim is the one change that is not a URL
# (panel 1.9 expects pyodide.ffi.jsnull; Pyodide 0.27 maps JS null to None);
# PANEL_CDN_ROOT is a URL: panel's own switch for where its resources live.
SHIM = (
    "import os, pyodide.ffi\\n"
    "if not hasattr(pyodide.ffi, 'jsnull'): pyodide.ffi.jsnull = None\\n"
    f"os.environ['PANEL_CDN_ROOT'] = '{PANEL_CDN_ROOT}'"
)


class BaselineError(RuntimeError):
    """The baseline could not be built; the message says what and where."""


def replace_once(text: str, old: str, new: str, where: str) -> str:
    """``text`` with ``old`` replaced; stock output changed shape if it is missing."""
    if old not in text:
        raise BaselineError(
            f"{where}: expected {old!r} in stock panel output; panel "
            f"{panel.__version__} changed what it writes, adapt baseline_site.py"
        )
    return text.replace(old, new)


def convert(out: Path) -> None:
    """Stock `panel convert` of the topic entry script into ``out``."""
    env = {key: value for key, value in os.environ.items() if key != "PANEL_CDN_ROOT"}
    with tempfile.TemporaryDirectory(prefix="posviz-baseline-") as folder:
        (entry,) = write_entries([Route(TOPIC, "topic", None, TOPIC)], Path(folder))
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "panel",
                "convert",
                str(entry),
                "--to",
                "pyodide-worker",
                "--out",
                str(out),
            ],
            env={**env, "POSVIZ_EXPORT": "1"},
            capture_output=True,
            text=True,
        )
    if result.returncode or not (out / f"{TOPIC}.js").exists():
        raise BaselineError(
            f"panel convert failed:\n{result.stdout[-2000:]}{result.stderr[-2000:]}"
        )


def raw_wheels(dest: Path) -> list[Path]:
    """PURE_PINS (pyodide-http included) as published, unslimmed, plus a source-only posviz."""
    python = distribution.python_version(distribution.assemble())
    dest.mkdir(parents=True, exist_ok=True)
    found = []
    for name in sorted(wheels.PURE_PINS):
        raw = wheels.raw_wheel(name, python)  # pinned and checked
        found.append(Path(shutil.copy2(raw, dest / raw.name)))
    return [*found, posviz_wheel(dest)]  # not precompiled: stock ships source


def rewrite_worker(js: str, wheel_names: list[str]) -> str:
    where = f"{TOPIC}.js"
    js = replace_once(
        js, f'importScripts("{STOCK_PYODIDE}")', f'importScripts("{PYODIDE_DIR}pyodide.js")', where
    )
    js = replace_once(
        js,
        "self.pyodide = await loadPyodide();",
        f'self.pyodide = await loadPyodide();\n  self.pyodide.runPython("{SHIM}");',
        where,
    )
    install = re.search(r"micropip\.install\(\[[^\]]*\]\)", js)
    if not install:
        raise BaselineError(f"{where}: expected `micropip.install([...])` in stock output")
    stock = re.findall(r"'([^']+)'", install.group(0))
    expected = {"bokeh", "panel", "pyodide-http", "posviz"}
    named = {re.sub(r"-\d.*", "", Path(r).name) for r in stock}
    if named != expected:
        raise BaselineError(f"{where}: stock requirements are {stock}, expected {sorted(expected)}")
    local = [f"{WHEEL_DIR}{name}" for name in wheel_names] + list(INSTALL_FROM_LOCK)
    return js.replace(install.group(0), f"micropip.install({json.dumps(local)}, deps=False)")


def rewrite_page(html: str) -> str:
    html = replace_once(html, BOKEH_CDN, BOKEH_DIR, f"{TOPIC}.html")
    return replace_once(html, PANEL_CDN, PANEL_CDN_ROOT, f"{TOPIC}.html")


def copy_pyodide(out: Path) -> None:
    """The whole assembled distribution: core files, lock, and every package file in it."""
    dist = distribution.assemble(packages=LOCK_PACKAGES)
    distribution.verify(dist, LOCK_PACKAGES)
    (out / PYODIDE_DIR).mkdir(parents=True, exist_ok=True)
    for path in sorted(dist.iterdir()):
        if path.is_file() and path.name != distribution.MARKER_FILE:
            shutil.copy2(path, out / PYODIDE_DIR / path.name)


def copy_bokeh(out: Path, html: str) -> None:
    """Every BokehJS bundle the stock page loads: posviz's copy_static leaves out bokeh-gl."""
    bokeh_js = Path(bokeh.__file__).parent / "server" / "static" / "js"
    suffix = f"-{bokeh.__version__}.min.js"
    for bundle in set(re.findall(re.escape(BOKEH_DIR) + r"([\w-]+)" + re.escape(suffix), html)):
        target = out / BOKEH_DIR / f"{bundle}{suffix}"
        if not target.exists():
            shutil.copy2(bokeh_js / f"{bundle}.min.js", target)


def build_baseline(out: Path) -> Path:
    """Build the baseline site into ``out`` (emptied first); return the topic page's path."""
    if out.exists() and any(out.iterdir()):
        if not (out / f"{TOPIC}.js").exists():
            raise BaselineError(
                f"{out} is not empty and holds no earlier baseline; choose an empty or new folder"
            )
        shutil.rmtree(out)
    out.mkdir(parents=True, exist_ok=True)
    convert(out)
    page, worker = out / f"{TOPIC}.html", out / f"{TOPIC}.js"
    built = raw_wheels(out / WHEEL_DIR)
    worker.write_text(rewrite_worker(worker.read_text("utf-8"), [w.name for w in built]), "utf-8")
    html = rewrite_page(page.read_text("utf-8"))
    page.write_text(html, "utf-8")
    copy_pyodide(out)
    # BokehJS, and the panel dist files the page and its CSS reference
    copy_static(out, distribution.python_version(distribution.assemble()))
    copy_bokeh(out, html)
    findings = scan(out, EXEMPT)
    if findings:
        raise BaselineError(
            "the baseline would still fetch from outside its folder:\n"
            + "\n".join(f"  {f}" for f in findings)
        )
    return page


if __name__ == "__main__":
    target = Path(__file__).resolve().parent / "out" / "baseline-stock"
    print(build_baseline(target))
