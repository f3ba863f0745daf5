"""Offline reading: a service worker, a web app manifest, and the control on every page.

The service worker lists every file of the site with its sha256; the manifest
has its icon; offline.js shows "Save for offline reading" at each page's foot.
"""

import hashlib
import json
from pathlib import Path

from posviz import assets
from posviz.compose.routes import Route
from posviz.export import frames, scripts, target
from posviz.export.adapter import edit, shared_script
from posviz.export.payload import sha256_of

SERVICE_WORKER = "posviz-sw.js"


WEB_MANIFEST = "manifest.webmanifest"


ICON = "posviz-icon.svg"


OFFLINE_CSS = assets.source("posviz.export", "offline.css")


OFFLINE = shared_script(
    assets.render("posviz.export", "offline.js", CSS=assets.literal(OFFLINE_CSS)), "posviz-offline"
)


def add_offline(out: Path, found: list[Route]) -> None:
    """The offline control's script, the web app manifest and its icon, linked from every page.

    offline.js registers the service worker (``write_service_worker``) and shows
    "Save for offline reading"; the pages are final after this but for search.
    """
    (out / OFFLINE[0]).write_text(OFFLINE[1], "utf-8")
    (out / ICON).write_text(assets.source("posviz.export", "icon.svg"), "utf-8")
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
    script = scripts.bundled(scripts.SERVICE_WORKER, OFFLINE=listing)
    (out / SERVICE_WORKER).write_text(script, "utf-8")
    return build
