"""posviz figures in a Sphinx site: ``extensions = ["posviz.sphinx"]``.

The directive writes a lazy-loading iframe to the figure's own view, with
its slider values from the directive's options::

    .. posviz-figure:: 710
       :pos: 24
       :height: 560
       :caption: Drag pos: the right curve stays put.

The static site is copied into the HTML output (``_posviz/`` by default), so
the docs stay self-contained and work offline. Set ``posviz_site`` to a
prebuilt site (from ``posviz build``), or leave it unset and the extension
runs the build once per docs build. Each figure page posts its content
height to the embedding page, and a small script sizes the iframe to it
after checking that the message comes from that iframe and the site's origin
(``posviz/embed.js``, shared with ``posviz.mkdocs``).

This module is shipped in the wheel the browser installs, so Sphinx (and
Panel) are imported only inside functions.
"""

import shutil
from pathlib import Path

from posviz.embed import DEFAULT_HEIGHT, SCRIPT, SITE_DIR, embed_html, embed_script, figure_query


class _AnyOption(dict):
    """Every option name is accepted here; slider names are checked against the figure."""

    def __missing__(self, key):
        return lambda value: value if value is not None else ""


def _directive():
    from docutils import nodes
    from docutils.parsers.rst import directives
    from sphinx.util.docutils import SphinxDirective

    class PosvizFigure(SphinxDirective):
        """``.. posviz-figure:: <id>`` with slider values, ``:height:`` and ``:caption:``."""

        required_arguments = 1
        has_content = False
        option_spec = _AnyOption(
            height=directives.positive_int,
            caption=directives.unchanged,
            title=directives.unchanged,
        )

        def run(self):
            from posviz.figures import FIGURES

            argument = self.arguments[0]
            if not (argument.isascii() and argument.isdigit()):
                raise self.error(f"posviz-figure: '{argument}' is not a figure id (a number)")
            figure_id = int(argument)
            sliders = {
                k: v for k, v in self.options.items() if k not in ("height", "caption", "title")
            }
            try:
                query = figure_query(figure_id, sliders)
            except ValueError as why:
                raise self.error(f"posviz-figure {figure_id}: {why}") from None
            depth = self.env.docname.count("/")
            name = f"figure-{figure_id}.html"
            src = "../" * depth + f"{self.config.posviz_site_dir}/{name}"
            if query:
                src += f"?{query}"
            height = self.options.get("height", DEFAULT_HEIGHT)
            title = self.options.get("title") or FIGURES[figure_id].title
            markup = embed_html(src, title, height, self.options.get("caption"))
            return [nodes.raw("", markup, format="html")]

    return PosvizFigure


def _site(app) -> Path:
    """The site to copy: ``posviz_site``, or a fresh ``posviz build`` (once per docs build)."""
    from sphinx.errors import ExtensionError

    if app.config.posviz_site:
        site = Path(app.confdir, app.config.posviz_site).resolve()
        if not (site / "site.json").is_file():
            raise ExtensionError(
                f"posviz_site = {app.config.posviz_site!r}: {site} is not a posviz site "
                "(no site.json); run `posviz build --out DIR` and point posviz_site at DIR"
            )
        return site
    from posviz.build.export import build

    out = Path(app.doctreedir).parent / "posviz-site"
    if build(out) != 0:
        raise ExtensionError(f"posviz build into {out} failed; see its output above")
    return out


def _copy_site(app, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    target = Path(app.outdir) / app.config.posviz_site_dir
    shutil.copytree(_site(app), target, dirs_exist_ok=True)
    static = Path(app.outdir) / "_static"
    static.mkdir(exist_ok=True)
    (static / SCRIPT).write_text(embed_script(), "utf-8")


def setup(app):
    """Register the directive, the options and the copy of the site."""
    app.add_config_value("posviz_site", None, "html", types=[str, type(None)])
    app.add_config_value("posviz_site_dir", SITE_DIR, "html", types=[str])
    app.add_directive("posviz-figure", _directive())
    app.add_js_file(SCRIPT)
    app.connect("build-finished", _copy_site)
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
