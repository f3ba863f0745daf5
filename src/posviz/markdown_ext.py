"""posviz figures in any Python-Markdown site: Zensical, or MkDocs without the plugin.

The line grammar lives here, shared with ``posviz.mkdocs``: a line of its own,
outside fenced code, names the figure and its slider values::

    ::: posviz-figure 710 pos=24 height=560 caption="Drag pos: the right curve stays put."

Besides the sliders, ``height`` (the least height, in pixels), ``caption`` and
``title`` are options; values with spaces are quoted as in a shell. The line
becomes a lazy iframe to the figure's own page with its deep link.

As a Python-Markdown extension (``markdown_extensions: [posviz]``, or
``posviz.markdown_ext``) it cannot copy files, so the author copies the site
once (``posviz build --figures 710 --out docs/_posviz``) and the extension's
``site`` option says where it is, relative to the docs folder (``_posviz`` by
default). Every link is relative to the page, so the docs work under any
sub-path. Each page that embeds a figure carries the sizing script
(``posviz/embed.js``) inline: no other file is needed.

Where the tool tells which page it converts (Zensical, MkDocs), a bad line
fails the build with ``file:line`` and the site is checked; elsewhere the
message gives the line and the page's first words.

Imports neither Markdown nor Panel until a page is converted: ``posviz.mkdocs``
and the browser's wheel import this module.
"""

import os
import posixpath
import re
import shlex
import sys
from pathlib import Path
from typing import NamedTuple

from posviz import internals
from posviz.embed import DEFAULT_HEIGHT, SITE_DIR, embed_html, embed_script, figure_query

DIRECTIVE = "posviz-figure"
LINE = re.compile(rf"^::: {DIRECTIVE}(?:\s+(?P<rest>.*?))?\s*$")
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
NOT_SLIDERS = ("height", "caption", "title")
# Before Python-Markdown's whitespace step (30) sees the page: the lines are
# still the source's, and the raw HTML block is then stashed as the plugin's is.
PRIORITY = 35


class EmbedError(ValueError):
    """A figure line that cannot be embedded: the message starts with where it is."""


# --- The line grammar (shared with posviz.mkdocs) ------------------------------------


def _fields(rest: str) -> tuple[int, dict[str, str]]:
    """The figure id and the ``name=value`` options of one line, or ValueError saying why."""
    try:
        words = shlex.split(rest)
    except ValueError as why:  # an unclosed quote
        raise ValueError(f"{why} in '{rest}'") from None
    if not words:
        raise ValueError("needs a figure id, as in '::: posviz-figure 710 pos=24'")
    argument, *pairs = words
    if not (argument.isascii() and argument.isdigit()):
        raise ValueError(f"'{argument}' is not a figure id (a number)")
    options: dict[str, str] = {}
    for pair in pairs:
        name, equals, raw = pair.partition("=")
        if not equals or not name:
            raise ValueError(f"'{pair}' is not name=value (for example pos=24)")
        if name in options:
            raise ValueError(f"{name}= is given twice")
        options[name] = raw
    return int(argument), options


def figure_markup(rest: str, site_url: str, site: Path | None = None) -> str:
    """The HTML for one ``::: posviz-figure`` line's ``rest``, or ValueError saying why.

    ``site_url`` is the copied site's folder as seen from the page (``../_posviz``);
    ``site``, where known, is that folder on disk, checked to hold the figure.
    """
    from posviz.figures import FIGURES

    figure_id, options = _fields(rest)
    sliders = {k: v for k, v in options.items() if k not in NOT_SLIDERS}
    try:
        query = figure_query(figure_id, sliders, spell="{0}={1}")
    except ValueError as why:
        raise ValueError(f"{figure_id}: {why}") from None
    height = DEFAULT_HEIGHT
    if "height" in options:
        raw = options["height"]
        if not (raw.isascii() and raw.isdigit() and int(raw) > 0):
            raise ValueError(f"{figure_id}: height={raw}: must be a whole number of pixels above 0")
        height = int(raw)
    page = f"figure-{figure_id}.html"
    if site is not None and not (site / page).is_file():
        raise ValueError(
            f"{figure_id}: the posviz site {site} has no {page}; build it with every figure "
            f"the docs embed: `posviz build --figures {figure_id},... --out {site}`"
        )
    src = f"{site_url}/{page}" + (f"?{query}" if query else "")
    title = options.get("title") or FIGURES[figure_id].title
    return embed_html(src, title, height, options.get("caption"))


def expand(
    markdown: str, source: str | None, first_line: int, site_url: str, site: Path | None = None
) -> str:
    """``markdown`` with each ``::: posviz-figure`` line (outside code fences) made an iframe.

    ``source`` and ``first_line`` (the source line of the markdown's first line)
    name the place in an EmbedError; with no ``source`` it names the line and the
    page's first words. ``site`` is as ``figure_markup`` takes it.
    """
    lines = markdown.split("\n")
    for index, rest in figure_lines(lines):
        try:
            markup = figure_markup(rest, site_url, site)
        except ValueError as why:
            where = _place(source, first_line + index, markdown)
            raise EmbedError(f"{where}: {DIRECTIVE} {why}") from None
        lines[index] = f"\n{markup}\n"  # a raw HTML block of its own
    return "\n".join(lines)


def figure_lines(lines: list[str]):
    """Each (index, rest) of a ``::: posviz-figure`` line in ``lines``, outside code fences."""
    fence = None
    for index, line in enumerate(lines):
        opened = FENCE.match(line)
        if fence is not None:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = None
            continue
        if opened:
            fence = opened.group(1)
            continue
        found = LINE.match(line)
        if found:
            yield index, found.group("rest") or ""


def _place(source: str | None, line: int, markdown: str) -> str:
    """``file:line``, or, for a page the tool does not name, the line and the page's start."""
    if source is not None:
        return f"{source}:{line}"
    start = next((text.strip() for text in markdown.split("\n") if text.strip()), "")
    start = start if len(start) <= 40 else start[:39] + "…"
    return f"line {line} of the page that starts {start!r}"


def first_line(source: str, markdown: str) -> int:
    """The line of ``source`` where ``markdown`` (the source less its front matter) starts."""
    if markdown and source.endswith(markdown):
        return source[: len(source) - len(markdown)].count("\n") + 1
    return 1


def relative_url(target: str, page_url: str) -> str:
    """``target`` (a path from the docs root) as a link from the page at ``page_url``.

    A page URL is a folder (``more/second/``) or a file (``more/second.html``);
    a target that is a URL or starts with ``/`` is kept as it is.
    """
    if "://" in target or target.startswith("/"):
        return target
    folder = posixpath.dirname(page_url) or "."
    return posixpath.relpath(posixpath.normpath(target), folder)


# --- What the tool tells about the page ---------------------------------------------


class Page(NamedTuple):
    """The page being converted, as much as its tool tells."""

    url: str  # links start here: "more/second/" (or Zensical's "more/second.md"); "" unknown
    source: str | None = None  # as the project names it: "docs/more/second.md"
    text: str | None = None  # the whole source file, front matter included
    docs: Path | None = None  # the docs folder
    tool: str = "markdown"  # "zensical", "mkdocs" or "markdown"


def page_of(md) -> Page:
    """What Zensical or MkDocs tells about the page ``md`` converts, or an unknown page.

    Neither has a public API for it: Zensical's ``rendering_context``
    preprocessor holds its page and configuration (zensical 0.0.x), and MkDocs'
    ``relpath`` tree processor holds the page's file and configuration (mkdocs
    1.6); both are declared in ``internals.DOCS_PAGE_HOLDERS``, which
    tests/test_internals.py checks, and tests/test_markdown_ext.py builds with both.
    """
    if internals.ZENSICAL_CONTEXT in md.preprocessors:
        context = md.preprocessors[internals.ZENSICAL_CONTEXT]
        root = Path(context.config["root_dir"])
        docs = root / context.config["docs_dir"]
        path = docs / context.page.path
        text = path.read_text("utf-8") if path.is_file() else None
        source = Path(os.path.relpath(path, root)).as_posix()
        # Zensical rewrites a relative src from the source file to the page, as it
        # rewrites links: the link is written as seen from the source file.
        return Page(context.page.path, source, text, docs.resolve(), "zensical")
    relpath = internals.MKDOCS_RELPATH
    if relpath in md.treeprocessors and hasattr(md.treeprocessors[relpath], "file"):
        file, config = md.treeprocessors[relpath].file, md.treeprocessors[relpath].config
        source = file.src_uri
        if file.abs_src_path:
            project = Path(config.config_file_path).parent
            source = Path(os.path.relpath(file.abs_src_path, project)).as_posix()
        return Page(file.url, source, file.content_string, Path(config.docs_dir), "mkdocs")
    return Page("")


# --- The Python-Markdown extension ----------------------------------------------------


def convert(markdown: str, page: Page, site: str) -> str:
    """``markdown`` with its figure lines embedded, and the sizing script if it has any.

    ``site`` is the posviz site's folder relative to the docs root (the option).
    Raises EmbedError naming the place.
    """
    if next(figure_lines(markdown.split("\n")), None) is None:
        return markdown
    folder = None
    if page.docs is not None and "://" not in site and not site.startswith("/"):
        folder = (page.docs / site).resolve()
        if not (folder / "site.json").is_file():
            raise EmbedError(
                f"{page.source}: markdown_extensions: posviz: site: {site!r}: "
                f"{folder} is not a posviz site (no site.json); copy one there with "
                f"`posviz build --figures ID,ID --out {folder}`"
            )
    line = first_line(page.text, markdown) if page.text else 1
    expanded = expand(markdown, page.source, line, relative_url(site, page.url), folder)
    # Inline, so the copied site is the only file the docs need.
    return f"{expanded}\n\n<script>\n{embed_script().strip()}\n</script>\n"


def _one_line_at_exit(message: str) -> None:
    """If ``message``'s error ends the run, print that line instead of a traceback.

    Zensical (0.0.x) turns every Python error of a page into a RuntimeError
    that carries the traceback as text, and prints both; a reader needs one line.
    """
    previous = sys.excepthook

    def hook(kind, error, trace):
        if message in str(error):
            print(f"Error: {message}", file=sys.stderr)
        else:
            previous(kind, error, trace)

    sys.excepthook = hook


def _refused(page: Page, why: EmbedError) -> Exception:
    """The error that makes ``page``'s tool stop with one line."""
    if page.tool == "mkdocs":
        from mkdocs.exceptions import PluginError

        return PluginError(str(why))  # MkDocs prints a BuildError's message, no traceback
    if page.tool == "zensical":
        _one_line_at_exit(str(why))
    return why


def _extension_class():
    from markdown.extensions import Extension
    from markdown.preprocessors import Preprocessor

    class FigureLines(Preprocessor):
        """Each ``::: posviz-figure`` line of the page, made an iframe."""

        def __init__(self, md, site: str):
            super().__init__(md)
            self.site = site

        def run(self, lines: list[str]) -> list[str]:
            page = page_of(self.md)
            try:
                return convert("\n".join(lines), page, self.site).split("\n")
            except EmbedError as why:
                raise _refused(page, why) from None

    class PosvizExtension(Extension):
        """``::: posviz-figure`` lines as live posviz figures; ``site`` is the copied site."""

        def __init__(self, **kwargs):
            self.config = {
                "site": [SITE_DIR, "the posviz site's folder, relative to the docs folder"]
            }
            super().__init__(**kwargs)

        def extendMarkdown(self, md):
            """Register the figure lines' step before any other reads the page."""
            lines = FigureLines(md, str(self.getConfig("site")))
            md.preprocessors.register(lines, DIRECTIVE, PRIORITY)

    return PosvizExtension


def makeExtension(**kwargs):  # noqa: N802 (the name Python-Markdown looks for)
    """The extension, configured by ``kwargs`` (``site``)."""
    return __getattr__("PosvizExtension")(**kwargs)


def __getattr__(name: str):
    # PEP 562: Markdown's classes load only when a page is converted.
    if name == "PosvizExtension":
        extension = globals()[name] = _extension_class()
        return extension
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
