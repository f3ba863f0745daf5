"""posviz figures in an MkDocs site: ``plugins: [posviz]`` in ``mkdocs.yml``.

A line of its own in any page, in the ``:::`` block shape mkdocstrings users
know, names the figure and its slider values::

    ::: posviz-figure 710 pos=24 height=560 caption="Drag pos: the right curve stays put."

Besides the sliders, ``height`` (the least height, in pixels), ``caption``
and ``title`` are options; values with spaces are quoted as in a shell. The
line becomes a lazy-loading iframe to the figure's own view with its deep
link, as ``posviz.sphinx`` writes; a wrong figure, slider or value fails the
build with ``file:line``. Lines inside fenced code blocks are left alone. The
line grammar is ``posviz.markdown_ext``'s, which also serves Zensical.

The static site is copied into the output (``_posviz/`` by default), so the
docs work offline. Set the plugin's ``site`` to a prebuilt site (``posviz
build --out DIR``, relative to ``mkdocs.yml``), or leave it unset and the
plugin builds a site of the figures the pages name (``posviz build
--figures``: their own pages and the runtime, no article), once per ``mkdocs
build``; ``mkdocs serve`` builds again only when that set of figures changes.
``posviz-embed.js`` (``posviz/embed.js``, shared with Sphinx) sizes each
iframe to the height its page reports, after checking where the message
comes from.

Host only (``export.HOST_ONLY``: the browser's wheel leaves it out). MkDocs and
Panel load only inside functions, and ``PosvizPlugin`` (the entry point) is made
on first use.
"""

import os
import re
import shutil
import tempfile
from pathlib import Path

from posviz.embed import SCRIPT, SITE_DIR, embed_script
from posviz.markdown_ext import (  # the line grammar, shared with the Markdown extension
    DIRECTIVE,
    EmbedError,
    expand,
    figure_markup,
    first_line,
)

__all__ = ["DIRECTIVE", "EmbedError", "expand", "figure_markup", "first_line"]

ASSET = f"assets/{SCRIPT}"
# The figure of each iframe ``figure_markup`` writes: what the site built for the docs ships.
EMBEDDED = re.compile(r'<iframe src="[^"]*?figure-([0-9]+)\.html')


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
            self.figures = {}  # page → the figure ids it embeds, for the site to build
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
                expanded = expand(markdown, source, line, site_url)
            except EmbedError as why:
                raise PluginError(str(why)) from None
            self.figures[source] = {int(i) for i in EMBEDDED.findall(expanded)}
            return expanded

        def on_post_build(self, *, config):
            """Copy the site (prebuilt, or built for the pages' figures) into the output."""
            site = self._site()
            if site is not None:
                target = Path(config.site_dir) / self.config.site_dir
                shutil.copytree(site, target, dirs_exist_ok=True)

        def _site(self) -> Path | None:
            """The prebuilt site, or one of the pages' figures (None when they name none)."""
            if self.prebuilt is not None:
                return self.prebuilt
            figures = sorted(set().union(*self.figures.values()))
            if getattr(self, "built", None) is not None and self.built_for != figures:
                shutil.rmtree(self.built.parent, ignore_errors=True)  # serve: figures changed
                self.built = None
            if figures and getattr(self, "built", None) is None:
                from posviz.export.command import build

                out = Path(tempfile.mkdtemp(prefix="posviz-mkdocs-")) / "site"
                if build(out, figures=figures) != 0:
                    shutil.rmtree(out.parent, ignore_errors=True)
                    raise PluginError(f"posviz build into {out} failed; see its output above")
                self.built, self.built_for = out, figures
            return getattr(self, "built", None)

    return PosvizPlugin


def __getattr__(name: str):
    # PEP 562: MkDocs loads the entry point ``posviz.mkdocs:PosvizPlugin``.
    if name == "PosvizPlugin":
        plugin = globals()[name] = _plugin_class()
        return plugin
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
