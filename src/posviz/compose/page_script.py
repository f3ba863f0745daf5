"""The page script: what a page does in the browser for its readers, beyond Panel and Bokeh.

Panel and Bokeh give no hook for these, so one small script, run on the
document's ``document_ready`` (under ``posviz serve`` and in the export
alike), ``page_script.js``, does them and keeps them done as components re-render:

- names each slider handle after its title (Bokeh's noUiSlider handles carry
  ``role="slider"`` and no name: axe's ``aria-input-field-name``);
- marks each figure's readout as a polite live region; names the code blocks'
  copy buttons; lets the keyboard reach a table that scrolls sideways;
- adds the page-level stylesheet (body colours, reduced motion, print);
- gives the Bokeh plots a dark theme while ``prefers-color-scheme: dark``
  holds, and restores the light one when it ends;
- writes each printed deep link as its full URL;
- paces the URL writes (``url_gate.js``): WebKit refuses more than 100 in 10 s;
- inside an iframe, tells the embedding page its content height by
  ``postMessage`` (``posviz.sphinx``'s script listens for it).
"""

from functools import cache

from posviz import assets
from posviz.styles import PAGE_CSS, PLOT_THEMES

# Bokeh properties a theme sets, and which colour of the theme each takes.
# "remap" properties change only where they hold the light ink or Bokeh's grey.
THEMED = {
    "background_fill_color": "paper",
    "border_fill_color": "paper",
    "outline_line_color": "grid",
    "grid_line_color": "grid",
    "axis_line_color": "muted",
    "major_tick_line_color": "muted",
    "minor_tick_line_color": "muted",
    "axis_label_text_color": "ink",
    "major_label_text_color": "ink",
    "label_text_color": "ink",
    "title_text_color": "ink",
    "border_line_color": "grid",
}
REMAPPED = ["text_color", "line_color", "fill_color"]
LIGHT_INKS = ["#1d2433", "#444444", "#444", "black", "#000000", "#999999"]

ACCESS_JS = assets.source("posviz.compose", "page_script.js")  # with its placeholders


@cache  # every page's document installs it, in the reader's browser too: bundled once
def access_js() -> str:
    """The script, with its colours and property names filled in, after the URL gate it uses."""
    values = {
        "PAGE_CSS": PAGE_CSS,
        "THEMES": PLOT_THEMES,
        "THEMED": THEMED,
        "REMAPPED": REMAPPED,
        "LIGHT_INKS": LIGHT_INKS,
    }
    return assets.bundle(
        "posviz.compose",
        "page_script.js",
        **{key: assets.literal(value) for key, value in values.items()},
    )


def install(document) -> None:
    """Run the script on ``document`` (a Bokeh Document) once it is ready."""
    from bokeh.models import CustomJS

    document.js_on_event("document_ready", CustomJS(code=access_js()))
