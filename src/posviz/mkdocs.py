"""posviz figures in an MkDocs site: ``plugins: [posviz]`` in ``mkdocs.yml``.

A line of its own in any page, in the ``:::`` block shape mkdocstrings users
know, names the figure and its slider values::

    ::: posviz-figure 710 pos=24 height=560 caption="Drag pos: the right curve stays put."

Besides the sliders, ``height`` (the least height, in pixels), ``caption``
and ``title`` are options; values with spaces are quoted as in a shell. The
line becomes a lazy-loading iframe to the figure's own view with its deep
link, as ``posviz.sphinx`` writes; a wrong figure, slider or value fails the
build with ``file:line``. Lines inside fenced code blocks are left alone.

The static site is copied into the output (``_posviz/`` by default), so the
docs work offline. Set the plugin's ``site`` to a prebuilt site (``posviz
build --out DIR``, relative to ``mkdocs.yml``), or leave it unset and the
plugin builds it once per ``mkdocs build`` (once per ``mkdocs serve``).
``posviz-embed.js`` (``posviz/embed.js``, shared with Sphinx) sizes each
iframe to the height its page reports, after checking where the message
comes from.

Shipped in the wheel the browser installs: MkDocs and Panel load only inside
functions, and ``PosvizPlugin`` (the entry point) is made on first use.
"""

import os
import re
import shlex
import shutil
import tempfile
from pathlib import Path

from posviz.embed import DEFAULT_HEIGHT, SCRIPT, SITE_DIR, embed_html, embed_script, figure_query

DIRECTIVE = "posviz-figure"
LINE = re.compile(rf"^::: {DIRECTIVE}(?:\s+(?P<rest>.*?))?\s*$")
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
NOT_SLIDERS = ("height", "caption", "title")
ASSET = f"assets/{SCRIPT}"


class EmbedError(ValueError):
    """A figure line that cannot be embedded: the message starts with ``file:line:``."""


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


def figure_markup(rest: str, site_url: str) -> str:
    """The HTML for one ``::: posviz-figure`` line's ``rest``, or ValueError saying why.

    ``site_url`` is the copied site's folder as seen from the page (``../_posviz``).
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
    src = f"{site_url}/figure-{figure_id}.html" + (f"?{query}" if query else "")
    title = options.get("title") or FIGURES[figure_id].title
    return embed_html(src, title, height, options.get("caption"))


def expand(markdown: str, source: str, first_line: int, site_url: str) -> str:
    """``markdown`` with each ``::: posviz-figure`` line (outside code fences) made an iframe.

    ``source`` and ``first_line`` (the source line of the markdown's first line)
    name the place in an EmbedError.
    """
    lines = markdown.split("\n")
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
            try:
                markup = figure_markup(found.group("rest") or "", site_url)
            except ValueError as why:
                where = f"{source}:{first_line + index}"
                raise EmbedError(f"{where}: {DIRECTIVE} {why}") from None
            lines[index] = f"\n{markup}\n"  # a raw HTML block of its own
    return "\n".join(lines)


def first_line(source: str, markdown: str) -> int:
    """The line of ``source`` where ``markdown`` (the source less its front matter) starts."""
    if markdown and source.endswith(markdown):
        return source[: len(source) - len(markdown)].count("\n") + 1
    return 1


def _plugin_class():
    from mkdocs.config import config_options
    from mkdocs.config.base import Config
    from mkdocs.exceptions import PluginError
    from mkdocs.plugins import BasePlugin
    from mkdocs.structure.files import File
    from mkdocs.utils import get_relative_url

    class PosvizConfig(Config):
        """``site``: a prebuilt posviz site; ``site_dir``: where it goes in the output."""

        site = config_options.Optional(config_options.Type(str))
        site_dir = config_options.Type(str, default=SITE_DIR)

    class PosvizPlugin(BasePlugin[PosvizConfig]):
        """Embeds ``::: posviz-figure`` lines and copies the posviz site into the output."""

        def on_startup(self, *, command, dirty):
            """Kept across ``mkdocs serve`` rebuilds (MkDocs keeps plugins that have this)."""
            self.built = None

        def on_shutdown(self):
            """Remove the site built for this run."""
            if getattr(self, "built", None) is not None:
                shutil.rmtree(self.built.parent, ignore_errors=True)

        def on_config(self, config):
            """Check a prebuilt ``site`` and add the sizing script to every page."""
            self.prebuilt = None
            if self.config.site:
                site = Path(config.config_file_path).parent.joinpath(self.config.site).resolve()
                if not (site / "site.json").is_file():
                    raise PluginError(
                        f"{config.config_file_path}: plugins: posviz: site: "
                        f"{self.config.site!r}: {site} is not a posviz site (no site.json); "
                        "run `posviz build --out DIR` and set site to DIR"
                    )
                self.prebuilt = site
            config.extra_javascript.append(ASSET)
            return config

        def on_files(self, files, *, config):
            """The sizing script, as a file of the docs."""
            files.append(File.generated(config, ASSET, content=embed_script()))
            return files

        def on_page_markdown(self, markdown, *, page, config, files):
            """Each ``::: posviz-figure`` line of the page, made an iframe."""
            site_url = get_relative_url(self.config.site_dir, page.url)
            line = first_line(page.file.content_string, markdown)
            source = page.file.src_uri
            if page.file.abs_src_path:  # as the author's project names it: docs/page.md
                project = Path(config.config_file_path).parent
                source = Path(os.path.relpath(page.file.abs_src_path, project)).as_posix()
            try:
                return expand(markdown, source, line, site_url)
            except EmbedError as why:
                raise PluginError(str(why)) from None

        def on_post_build(self, *, config):
            """Copy the site (prebuilt, or built once) into the output."""
            target = Path(config.site_dir) / self.config.site_dir
            shutil.copytree(self._site(), target, dirs_exist_ok=True)

        def _site(self) -> Path:
            if self.prebuilt is not None:
                return self.prebuilt
            if getattr(self, "built", None) is None:
                from posviz.build.export import build

                out = Path(tempfile.mkdtemp(prefix="posviz-mkdocs-")) / "site"
                if build(out) != 0:
                    shutil.rmtree(out.parent, ignore_errors=True)
                    raise PluginError(f"posviz build into {out} failed; see its output above")
                self.built = out
            return self.built

    return PosvizPlugin


def __getattr__(name: str):
    # PEP 562: MkDocs loads the entry point ``posviz.mkdocs:PosvizPlugin``.
    if name == "PosvizPlugin":
        plugin = globals()[name] = _plugin_class()
        return plugin
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
