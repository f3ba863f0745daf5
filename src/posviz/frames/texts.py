"""A figure's texts as the page shows them, without Panel: readout, table, deep link.

The same strings Panel's panes put in the page (``compose.layout`` builds its
panes from these), so that the worker's numpy tier can write them too.
"""

import html
import re
from urllib.parse import urlencode

STRONG = re.compile(r"\*\*(.+?)\*\*")


def escape_text(text: str) -> str:
    """Text escaped as Markdown (markdown-it) escapes it: &, <, > and the double quote."""
    return (
        text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
    )


def markdown_html(text: str) -> str:
    """One readout paragraph as HTML: **bold** and hard breaks, without a parser.

    Readouts use only these two marks. The live readout pane, the frames, the
    numpy tier, the widget and the page's text alternative all write this;
    tests/test_page.py holds it to ``posviz.markup``, the pages' grammar, on
    every figure's readouts.
    """
    body = STRONG.sub(r"<strong>\1</strong>", escape_text(text)).replace("  \n", "<br />\n")
    return f"<p>{body}</p>\n"


def numbers_html(caption: str, columns: list, rows: list) -> str:
    """A figure's table (``Figure.table``) as an accessible HTML table."""
    head = "".join(f'<th scope="col">{html.escape(str(c))}</th>' for c in columns)
    body = "".join(
        "<tr>"
        + f'<th scope="row">{html.escape(str(row[0]))}</th>'
        + "".join(f"<td>{html.escape(str(cell))}</td>" for cell in row[1:])
        + "</tr>"
        for row in rows
    )
    return (
        f"<table><caption>{html.escape(caption)}</caption>"
        f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    )


def deep_link_html(target: str, values: dict) -> str:
    """The paragraph that links to ``target`` (a figure view) at ``values``, shown in print."""
    url = f"{target}?{urlencode(values)}"
    return (
        f'<p class="posviz-deeplink">This figure at these values: '
        f'<a href="{html.escape(url)}">{html.escape(url)}</a></p>'
    )


def alt_html(sentence: str) -> str:
    """The plots' text alternative, for screen readers only."""
    return f'<p class="posviz-sr">{html.escape(sentence)}</p>'
