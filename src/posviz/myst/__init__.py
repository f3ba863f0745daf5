"""posviz figures in MyST / Jupyter Book 2: a JavaScript plugin, written once by Python.

MyST runs plugins written in JavaScript, at docs-build time, without Python.
``write_plugin`` writes one that knows every figure: the ``posviz-figure``
directive (``plugin.js``) with each figure's sliders as the deep-link grammar
describes them (``deeplinks.figure_spec``) and that grammar itself
(``export/links.js``) baked in, and the widget module it points at
(``widget.js``), which draws the iframe and sizes it in MyST's theme::

    python -m posviz.myst --out posviz.mjs      # writes posviz.mjs, posviz-embed.mjs

then ``project: plugins: [posviz.mjs]`` in ``myst.yml``. The figure pages are
not part of MyST's output: after ``myst build --html``, ``posviz build`` puts
them in ``_build/html/_posviz`` (``site_url`` says where else they are).

Host only (``export.HOST_ONLY``: the browser's wheel leaves it out); the figures load
only inside functions, so writing the plugin imports no Panel.
"""

import argparse
import sys
from pathlib import Path

from posviz import assets
from posviz.embed import DEFAULT_HEIGHT, MAX_HEIGHT

PACKAGE = "posviz.myst"
WIDGET = "posviz-embed.mjs"
SITE_URL = "_posviz/"


def figure_specs() -> list[dict]:
    """Every figure as the directive checks it: ``{"id", "title", "sliders", "moves"}``.

    ``moves``: the bounds of the sliders that others move (``Figure.moving_bounds``).
    """
    from posviz.deeplinks import figure_spec
    from posviz.figures import FIGURES

    return [
        {**figure_spec(make()), "title": make.title, "moves": make.moving_bounds()}
        for make in FIGURES.values()
    ]


def plugin_source(site_url: str = SITE_URL) -> str:
    """The plugin module: the directive with the figures and the grammar baked in."""
    return assets.render(
        PACKAGE,
        "plugin.js",
        FIGURES=assets.literal(figure_specs()),
        SITE=assets.literal(site_url),
        DEFAULT_HEIGHT=str(DEFAULT_HEIGHT),
        MAX_HEIGHT=str(MAX_HEIGHT),
        WIDGET=assets.literal(f"./{WIDGET}"),
        LINKS=assets.module_object("posviz.export", "links.js"),
    )


def widget_source() -> str:
    """The widget module MyST's theme imports to draw and size one figure."""
    return assets.render(PACKAGE, "widget.js", MAX_HEIGHT=str(MAX_HEIGHT))


def write_plugin(out: Path, site_url: str = SITE_URL) -> list[Path]:
    """Write the plugin at ``out`` and its widget module beside it; the paths written."""
    out.parent.mkdir(parents=True, exist_ok=True)
    widget = out.parent / WIDGET
    out.write_text(plugin_source(site_url), "utf-8")
    widget.write_text(widget_source(), "utf-8")
    return [out, widget]


def site_url_of(text: str) -> str:
    """The figure pages' folder as a URL folder (ending in ``/``), or ArgumentTypeError."""
    if not text.strip() or any(c in text for c in "\"'<>\\ \n"):
        raise argparse.ArgumentTypeError(
            f"'{text}' is not a URL folder (as in _posviz/ or https://example.org/figures/)"
        )
    return text if text.endswith("/") else f"{text}/"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--out`` and ``--site-url``, for ``python -m posviz.myst`` and ``posviz myst-plugin``."""
    parser.add_argument(
        "--out", type=Path, default=Path("posviz.mjs"), help="the plugin file to write"
    )
    parser.add_argument(
        "--site-url",
        type=site_url_of,
        default=SITE_URL,
        help="where the figure pages are: a folder of the MyST site's root, or a full URL "
        f"(default {SITE_URL}: `posviz build --out _build/html/{SITE_URL}` "
        "after `myst build --html`)",
    )


def run(args) -> int:
    """Write the plugin; say what was written and the line ``myst.yml`` needs."""
    written = write_plugin(args.out, args.site_url)
    print(f"posviz: wrote {', '.join(str(path) for path in written)}")
    print(f"posviz: in myst.yml, under project:, add  plugins: [{args.out.name}]")
    return 0


def main(argv=None) -> int:
    """``python -m posviz.myst``: write the MyST plugin."""
    parser = argparse.ArgumentParser(
        prog="python -m posviz.myst", description=__doc__.split("\n")[0]
    )
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
