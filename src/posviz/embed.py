"""What the docs plugins share: a figure's deep link, its iframe, and the sizing script.

``posviz.sphinx`` and ``posviz.mkdocs`` each read an author's figure
reference in their own syntax, then call ``figure_query`` (checks the slider
values and gives the deep link's query) and ``embed_html`` (the lazy iframe and
its caption). Both write ``embed.js``, which sizes each iframe to the height
its page reports, next to the docs' pages as ``posviz-embed.js``.

Host only (``export.HOST_ONLY``: the browser's wheel leaves it out); Panel loads
only inside functions.
"""

import html
from urllib.parse import urlencode

from posviz import assets

SITE_DIR = "_posviz"
SCRIPT = "posviz-embed.js"
DEFAULT_HEIGHT = 560
MAX_HEIGHT = 20000  # px; the embed script never grows an iframe past it either


def embed_script() -> str:
    """The script that sizes each embedded figure (``posviz/embed.js``)."""
    return assets.render("posviz", "embed.js", MAX_HEIGHT=str(MAX_HEIGHT))


def figure_query(figure_id: int, options: dict[str, str], spell: str = ":{0}: {1}") -> str:
    """The query string for ``options`` on figure ``figure_id``, or ValueError saying why.

    ``spell`` writes an option as the author wrote it (``:pos: 24`` in
    reStructuredText, ``pos=24`` in Markdown) in the messages.
    """
    from posviz import deeplinks
    from posviz.compose.links import parse
    from posviz.figures import FIGURES

    if figure_id not in FIGURES:
        known = ", ".join(str(i) for i in FIGURES)
        raise ValueError(f"there is no figure {figure_id}; the figures are {known}")
    figure = FIGURES[figure_id]()
    spec = {slider["name"]: slider for slider in deeplinks.figure_spec(figure)["sliders"]}
    for name in options:
        if name not in figure.sliders():
            raise ValueError(
                f"figure {figure_id} has no slider '{name}'; its sliders are "
                + ", ".join(figure.sliders())
            )
    moving = type(figure).moving_bounds()
    # The sliders that move others' bounds are set first, so the order options are
    # written in does not matter (the MyST plugin reads them the same way).
    for name in sorted(options, key=lambda name: name in moving):
        raw = options[name].strip()
        try:
            value = parse(raw, figure.param[name])
            if name in moving:
                deeplinks.check_moved(value, moving[name], figure.values())
            setattr(figure, name, value)
            # What no widget reaches (a value off the step) is refused as a link refuses it.
            deeplinks.check(value, spec[name])
        except ValueError as why:
            reason = str(why).split("' ", 1)[-1]
            raise ValueError(f"{spell.format(name, raw)}: {reason}") from None
    return urlencode({name: raw.strip() for name, raw in options.items()})


def embed_html(src: str, title: str, height: int, caption: str | None) -> str:
    """The figure element a docs page gets: a lazy, titled iframe and its caption."""
    src_attr = html.escape(src)
    parts = [
        # As wide as the column: a theme may size a figure to its content (Material's
        # fit-content), which an iframe gives as its default 300 px.
        '<figure class="posviz-embed" style="width:100%">',
        f'<iframe src="{src_attr}" title="{html.escape(title)}" loading="lazy" '
        f'data-posviz-embed="" data-posviz-min-height="{height}" '
        f'style="width:100%;height:{height}px;border:0;display:block"></iframe>',
        "<figcaption>",
        f"{html.escape(caption)} " if caption else "",
        f'<a href="{src_attr}">Open this figure on its own page</a>',
        "</figcaption></figure>",
    ]
    return "".join(parts)
