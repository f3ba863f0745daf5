"""The Markdown checks: no raw HTML, and only safe link and image URLs."""

import re
import sys
import textwrap
from pathlib import Path

from posviz import markup
from posviz.content.files import _quote
from posviz.content.model import Problem

LINK_SCHEMES = ("http", "https", "mailto")
# Parsing every page's Markdown would cost each page view in the browser (more so
# in Pyodide; benchmarks/notes.md); the exported copy was checked by the build.
CHECK_MARKUP = sys.platform != "emscripten"
SCHEME = re.compile(r"([a-zA-Z][a-zA-Z0-9+.-]*):")


def _check_markdown(path: Path, text: str, first_line: int, problems: list[Problem]):
    """Report raw HTML, outside images and unsafe links in one rendered chunk."""
    if not CHECK_MARKUP:
        return
    # Panel dedents a chunk before rendering it; line counts do not change.
    tokens = markup.parser(html=True).parse(textwrap.dedent(text))
    for token in tokens:
        line = first_line + (token.map[0] if token.map else 0)
        if token.type == "html_block":
            problems.append(Problem(path, line, _raw_html(token.content)))
        for child in token.children or []:
            if child.type == "html_inline":
                problems.append(Problem(path, line, _raw_html(child.content)))
            elif child.type == "image":
                src = str(child.attrs.get("src", ""))
                if not _site_relative(src):
                    problems.append(
                        Problem(
                            path,
                            line,
                            f"image {_quote(src, 60)} is not in the site; an image is a "
                            "relative path like figures/x.png (pages never fetch from outside)",
                        )
                    )
            elif child.type == "link_open":
                href = str(child.attrs.get("href", ""))
                scheme = SCHEME.match(href)
                if scheme and scheme.group(1).lower() not in LINK_SCHEMES:
                    problems.append(
                        Problem(
                            path,
                            line,
                            f"link {_quote(href, 60)}: only http, https and mailto links",
                        )
                    )
            elif child.type in ("softbreak", "hardbreak"):
                line += 1
            elif child.type in ("text", "code_inline"):
                line += child.content.count("\n")


def _raw_html(markup: str) -> str:
    first = markup.strip().splitlines()[0] if markup.strip() else markup
    return (
        f"raw HTML is not allowed in content ({_quote(first)}); write Markdown, "
        "or '&lt;' for a literal '<'"
    )


def _site_relative(url: str) -> bool:
    url = url.strip()
    return bool(url) and not (
        SCHEME.match(url) or url.startswith(("/", "\\")) or any(c < " " for c in url)
    )
