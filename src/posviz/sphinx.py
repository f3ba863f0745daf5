"""posviz figures in a Sphinx site: ``extensions = ["posviz.sphinx"]``.

The directive writes a lazy-loading iframe to the figure's own view, with
its slider values from the directive's options::

    .. posviz-figure:: 710
       :pos: 24
       :height: 560
       :caption: Drag pos: the right curve stays put.

The static site goes into the HTML output once (``_posviz/`` by default), so
the docs stay self-contained and work offline. Leave ``posviz_site`` unset and
the extension builds, once per docs build and straight into the output, a
site of the figures the directives name (``posviz build --figures``): their
own pages and the runtime, no article. Or set ``posviz_site`` to a prebuilt
site (from ``posviz build``), which is copied as it is. Each figure page posts its content
height to the embedding page, and a small script sizes the iframe to it
after checking that the message comes from that iframe and the site's origin
(``posviz/embed.js``, shared with ``posviz.mkdocs``).

Each iframe's address is made relative to the page it lands on when that
page is written, by the builder's own ``get_target_uri`` (``html``, ``dirhtml``
and ``singlehtml`` put a page at different depths). A bad directive is an
error at its file and line, and it fails the build, ``-W`` or not.

Host only (``export.HOST_ONLY``: the browser's wheel leaves it out). Sphinx and
Panel are imported only inside functions, so ``posviz`` imports without them.
"""

import shutil
from pathlib import Path

from posviz.embed import (
    DEFAULT_HEIGHT,
    MAX_HEIGHT,
    SCRIPT,
    SITE_DIR,
    embed_html,
    embed_script,
    figure_query,
)
from posviz.export.target import MARKER


class _AnyOption(dict):
    """Every option name is accepted here; each value is checked in the directive's run.

    docutils would reject a bad option value before the directive runs, where the
    build cannot count it as a failure.
    """

    def __missing__(self, key):
        return _as_given

    def __bool__(self):  # docutils parses options only when the spec is truthy
        return True


def _as_given(value: str | None) -> str:
    return value if value is not None else ""


_OWN_OPTIONS = ("height", "caption", "title")
# A figure id longer than this is no figure (and int() refuses 4300 digits).
_MAX_ID_DIGITS = 18


def _figure_id(argument: str) -> int:
    """The figure id the directive's argument names, or ValueError saying why."""
    from posviz.figures import FIGURES

    shown = argument if len(argument) <= 24 else f"{argument[:20]}… ({len(argument)} characters)"
    if not (argument.isascii() and argument.isdigit()):
        raise ValueError(f"'{shown}' is not a figure id (a number)")
    if len(argument) > _MAX_ID_DIGITS or int(argument) not in FIGURES:
        known = ", ".join(str(i) for i in FIGURES)
        raise ValueError(f"there is no figure {shown}; the figures are {known}")
    return int(argument)


def _height(raw: str | None) -> int:
    """The ``:height:`` in px, or ValueError naming the allowed range."""
    if raw is None:
        return DEFAULT_HEIGHT
    text = raw.strip()
    short = text.isascii() and text.isdigit() and len(text) <= len(str(MAX_HEIGHT))
    if not (short and 1 <= int(text) <= MAX_HEIGHT):
        raise ValueError(f":height: {text}: must be a whole number of px from 1 to {MAX_HEIGHT}")
    return int(text)


def _figures(env) -> dict[str, set[int]]:
    """The figure ids each document's directives name: the site built for the docs ships these."""
    if not hasattr(env, "posviz_figures"):
        env.posviz_figures = {}
    return env.posviz_figures


def _errors(env) -> dict[str, list[str]]:
    """Bad directives by document, kept in the environment across incremental builds."""
    if not hasattr(env, "posviz_errors"):
        env.posviz_errors = {}
    return env.posviz_errors


def _directive():
    from docutils import nodes
    from sphinx.util.docutils import SphinxDirective

    class PosvizFigure(SphinxDirective):
        """``.. posviz-figure:: <id>`` with slider values, ``:height:`` and ``:caption:``."""

        required_arguments = 1
        has_content = False
        option_spec = _AnyOption()

        def run(self):
            from posviz.figures import FIGURES

            argument = self.arguments[0]
            try:
                figure_id = _figure_id(argument)
            except ValueError as why:
                raise self._fail(f"posviz-figure: {why}") from None
            sliders = {k: v for k, v in self.options.items() if k not in _OWN_OPTIONS}
            try:
                height = _height(self.options.get("height"))
                query = figure_query(figure_id, sliders)
            except ValueError as why:
                raise self._fail(f"posviz-figure {figure_id}: {why}") from None
            _figures(self.env).setdefault(self.env.docname, set()).add(figure_id)
            path = f"figure-{figure_id}.html" + (f"?{query}" if query else "")
            # The src is relative to the written page: made at doctree-resolved.
            node = nodes.raw("", "", format="html")
            node["posviz"] = {
                "path": path,
                "title": self.options.get("title") or FIGURES[figure_id].title,
                "height": height,
                "caption": self.options.get("caption") or None,
            }
            return [node]

        def _fail(self, message: str):
            source, line = self.get_source_info()
            _errors(self.env).setdefault(self.env.docname, []).append(f"{source}:{line}: {message}")
            return self.error(message)

    return PosvizFigure


def _resolve(app, doctree, docname) -> None:
    """Write each figure's markup with its src relative to the page `docname` lands on."""
    from docutils import nodes
    from sphinx.util.osutil import relative_uri

    page = app.builder.get_target_uri(docname)
    for node in list(doctree.findall(nodes.raw)):
        embed = node.get("posviz")
        if embed is None:
            continue
        src = relative_uri(page, f"{app.config.posviz_site_dir}/{embed['path']}")
        markup = embed_html(src, embed["title"], embed["height"], embed["caption"])
        node.replace_self(nodes.raw("", markup, format="html"))


def _purge(app, env, docname) -> None:
    _errors(env).pop(docname, None)
    _figures(env).pop(docname, None)


def _merge(app, env, docnames, other) -> None:
    _errors(env).update({d: e for d, e in _errors(other).items() if d in docnames})
    _figures(env).update({d: ids for d, ids in _figures(other).items() if d in docnames})


def _prebuilt(app) -> Path:
    """``posviz_site``, checked: a folder ``posviz build`` wrote."""
    from sphinx.errors import ExtensionError

    site = Path(app.confdir, app.config.posviz_site).resolve()
    if not (site / "site.json").is_file():
        raise ExtensionError(
            f"posviz_site = {app.config.posviz_site!r}: {site} is not a posviz site "
            "(no site.json); run `posviz build --out DIR` and point posviz_site at DIR"
        )
    return site


def _write_site(app, target: Path) -> None:
    """The site at ``target``, once: ``posviz_site`` copied, or the docs' figures built there.

    Built straight into the output (never beside ``.doctrees``, which ``-b html``
    puts inside it), so every builder's output holds one copy.
    """
    from sphinx.errors import ExtensionError

    if app.config.posviz_site:
        site = _prebuilt(app)
        if target.is_dir() and (target / MARKER).is_file():  # an earlier docs build's
            shutil.rmtree(target)
        shutil.copytree(site, target, dirs_exist_ok=True)
        return
    figures = sorted(set().union(*_figures(app.env).values()))
    if not figures:
        return
    from posviz.export.command import build

    if build(target, figures=figures) != 0:
        raise ExtensionError(f"posviz build into {target} failed; see its output above")


def _fail_on_bad_directives(app, exception) -> None:
    """A bad directive fails the build (exit 1), with or without ``-W``."""
    from sphinx.util import logging

    bad = [error for _, errors in sorted(_errors(app.env).items()) for error in errors]
    if exception is None and bad:
        app.statuscode = 1
        logging.getLogger(__name__).error(
            "posviz-figure: %d bad directive(s), the build fails: %s", len(bad), "; ".join(bad)
        )


def _copy_site(app, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    _write_site(app, Path(app.outdir) / app.config.posviz_site_dir)
    static = Path(app.outdir) / "_static"
    static.mkdir(exist_ok=True)
    (static / SCRIPT).write_text(embed_script(), "utf-8")


def setup(app):
    """Register the directive, the options and the copy of the site."""
    app.add_config_value("posviz_site", None, "html", types=[str, type(None)])
    app.add_config_value("posviz_site_dir", SITE_DIR, "html", types=[str])
    app.add_directive("posviz-figure", _directive())
    app.add_js_file(SCRIPT)
    app.connect("doctree-resolved", _resolve)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.connect("build-finished", _copy_site)
    app.connect("build-finished", _fail_on_bad_directives)
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
