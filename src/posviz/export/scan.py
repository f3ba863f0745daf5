"""Find what a built page would still fetch from outside the site.

Looks where browsers fetch: HTML ``src``/``href`` of scripts, styles, images
and frames; CSS ``url()`` and ``@import``; JS ``importScripts``, ``fetch``,
``import`` and ``new Worker``/``new URL`` with absolute URLs; and, anywhere,
the hosts that stock ``panel convert`` output loads from. Links a reader
clicks (``<a href>``), a page's canonical URL (``<link rel="canonical">``)
and XML namespace strings are not fetches.

A page's text is not in its HTML as markup: the pre-rendered Bokeh document
sits in a ``<script type="application/json">`` block, where Panel's markup is
a JSON string, HTML-escaped once or twice. The scan decodes those blocks and
looks at every string as the browser will render it, so an ``<img>`` with an
outside URL inside rendered text is found like any other.
"""

import html
import json
import re
from dataclasses import dataclass
from pathlib import Path

ABSOLUTE = r"(?:https?:)?//[^\s\"'`)<>]+"
KNOWN_HOSTS = (
    "cdn.jsdelivr.net",
    "cdn.holoviz.org",
    "cdn.bokeh.org",
    "unpkg.com",
    "pypi.org",
    "files.pythonhosted.org",
    "fonts.googleapis.com",
    "fonts.gstatic.com",
    "cdnjs.cloudflare.com",
    "esm.sh",
)

HTML_FETCH = re.compile(
    r"<(?:script|img|iframe|source|audio|video|embed|track|input)\b[^>]*?\bsrc\s*=\s*[\"']?("
    + ABSOLUTE
    + ")|<link\\b(?![^>]*\\brel\\s*=\\s*[\"']?canonical)[^>]*?\\bhref\\s*=\\s*[\"']?("
    + ABSOLUTE
    + ")",
    re.I,
)
CSS_FETCH = re.compile(r"url\(\s*[\"']?(" + ABSOLUTE + r")|@import\s+[\"'](" + ABSOLUTE + ")", re.I)
JS_FETCH = re.compile(
    r"(?:importScripts|fetch|import|Worker|URL|loadPackage|install)\s*\(\s*"
    r"(?:\[\s*)?[\"'`](" + ABSOLUTE + ")",
    re.I,
)
JSON_SCRIPT = re.compile(
    r"<script\b[^>]*\btype\s*=\s*[\"']?application/json[\"']?[^>]*>(.*?)</script\s*>",
    re.I | re.S,
)
HOSTS = re.compile(
    r"(?:https?:)?//(?:" + "|".join(map(re.escape, KNOWN_HOSTS)) + r")[^\s\"'`)<>]*", re.I
)


@dataclass(frozen=True)
class Finding:
    """An outside URL a built file would fetch, and where."""

    path: Path
    line: int
    url: str

    def __str__(self):
        return f"{self.path}:{self.line}: would fetch {self.url}"


def _strings(value):
    """Every string in a decoded JSON value, keys included."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def _rendered(block: str):
    """The markup a JSON block holds, as a browser would see it (up to two unescapes)."""
    try:
        strings = list(_strings(json.loads(block)))
    except ValueError:
        strings = [block]
    for string in strings:
        layer = string
        for _ in range(3):
            yield layer
            unescaped = html.unescape(layer)
            if unescaped == layer:
                break
            layer = unescaped


def scan_text(text: str, suffix: str) -> list[tuple[int, str]]:
    """(line, URL) of every outside fetch in ``text``, a file's content of type ``suffix``."""
    found = dict.fromkeys(_scan(text, suffix))
    if suffix == ".html":
        for block in JSON_SCRIPT.finditer(text):
            line = text.count("\n", 0, block.start()) + 1
            for markup in _rendered(block.group(1)):
                if "//" in markup:
                    found.update(dict.fromkeys((line, url) for _, url in _scan(markup, ".html")))
    return sorted(found)


def _scan(text: str, suffix: str) -> list[tuple[int, str]]:
    patterns = {
        ".html": [HTML_FETCH, CSS_FETCH, JS_FETCH],
        ".css": [CSS_FETCH],
        ".js": [JS_FETCH],
        ".mjs": [JS_FETCH],
    }.get(suffix, [])
    found: dict[tuple[int, str], None] = {}
    for pattern in [*patterns, HOSTS]:
        for match in pattern.finditer(text):
            url = next((g for g in match.groups() if g), None) if match.groups() else match.group(0)
            if url:
                found[(text.count("\n", 0, match.start()) + 1, url)] = None
    return sorted(found)


def scan_bytes(data: bytes, suffix: str) -> list[tuple[int, str]]:
    """``scan_text`` of a file's bytes."""
    return scan_text(data.decode("utf-8", errors="replace"), suffix)


def scan(
    folder: Path, exempt: dict[tuple[str, str], str] | None = None, remember=None
) -> list[Finding]:
    """Every outside fetch in the HTML, JS and CSS under ``folder``.

    ``exempt`` maps (file relative to ``folder``, URL prefix) to the reason
    that URL is never fetched there: third-party bundles carry defaults the
    site overrides or features it does not use. Nothing else is let through.
    ``remember(data, suffix, scan_bytes)``, when given, returns a file's
    findings from a cache keyed by its bytes (``pagecache.remembered_scan``);
    the exemptions apply after it.
    """
    exempt = exempt or {}
    findings = []
    for path in sorted(folder.rglob("*")):
        if path.suffix not in (".html", ".js", ".mjs", ".css") or not path.is_file():
            continue
        relative = path.relative_to(folder).as_posix()
        allowed = [prefix for (file, prefix) in exempt if file == relative]
        data = path.read_bytes()
        found = (
            remember(data, path.suffix, scan_bytes) if remember else scan_bytes(data, path.suffix)
        )
        findings += [
            Finding(path, line, url)
            for line, url in found
            if not any(url.startswith(prefix) for prefix in allowed)
        ]
    return findings
