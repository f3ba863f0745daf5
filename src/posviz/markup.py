"""Content Markdown's one grammar: the pages, the captions and the checks parse with it.

``parser(html=False)`` renders (raw HTML stays text); the checks
(``content.markdown``) read with ``html=True``, to find raw HTML. One
configuration, so that nothing a page draws (an image in a footnote, a link in
a definition list) escapes the checks by parsing differently. A readout's two
marks (bold, a hard break) are written without a parser by
``frames.texts.markdown_html``, which the numpy tier runs in the browser;
``tests/test_page.py`` holds it to this grammar on every figure's readouts.

A leaf: markdown-it is imported when a parser is first asked for, never by the import.
"""

from functools import cache


@cache
def parser(html: bool):
    """The grammar, raw HTML read as HTML (``html``) or kept as text."""
    from markdown_it import MarkdownIt
    from mdit_py_plugins.deflist import deflist_plugin
    from mdit_py_plugins.footnote import footnote_plugin
    from mdit_py_plugins.tasklists import tasklists_plugin

    return (
        MarkdownIt("gfm-like", options_update={"html": html})
        .enable(["strikethrough", "table"])
        .use(deflist_plugin)
        .use(footnote_plugin)
        .use(tasklists_plugin)
    )


def render(text: str) -> str:
    """``text`` as the pages show it: HTML, with raw HTML in it left as text."""
    return parser(html=False).render(text)


def render_inline(text: str) -> str:
    """One paragraph's ``text`` as inline HTML (no ``<p>``), raw HTML left as text."""
    return parser(html=False).renderInline(text)
