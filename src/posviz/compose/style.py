"""The site's look: stylesheets for every view, light and dark, screen and print.

Panel renders each component in its own shadow root, so a rule reaches only
the elements of the component it is given to: text styles go to each text
pane, figure rules to the figure's own layouts, widget rules to each widget.
Colours meet WCAG AA (4.5:1 for text) in both schemes; ``DARK`` and ``LIGHT``
are the one place they are named.
"""

LIGHT = {
    "ink": "#1d2433",
    "muted": "#4f586a",
    "accent": "#1b5797",
    "rule": "#d5dae3",
    "paper": "#ffffff",
    "chip": "#e8eef8",
    "focus": "#1b5797",
}
DARK = {
    "ink": "#e6e9ef",
    "muted": "#aab2c0",
    "accent": "#8cbcf5",
    "rule": "#3a4252",
    "paper": "#151a23",
    "chip": "#243047",
    "focus": "#8cbcf5",
}


def _variables(colours: dict) -> str:
    return " ".join(f"--pv-{name}: {value};" for name, value in colours.items())


# Custom properties inherit into shadow roots, so every stylesheet below can use
# them; the media query switches them all at once.
VARIABLES = f"""
:host, :root {{ {_variables(LIGHT)} }}
@media (prefers-color-scheme: dark) {{ :host, :root {{ {_variables(DARK)} }} }}
"""

# Bokeh gives a row the sum of its children's widths as its min-width, and each
# enclosing column the largest of those, whether or not the row wraps: a page
# of wrapping rows would then still scroll sideways. A shadow root's !important
# beats the inline style Bokeh sets on its host.
NO_MIN_WIDTH = ":host { min-width: 0 !important; }\n"

REDUCED_MOTION = """
@media (prefers-reduced-motion: reduce) {
  *, *::before, *::after { transition: none !important; animation: none !important;
                           scroll-behavior: auto !important; }
}
"""

SITE_CSS = (
    VARIABLES
    + NO_MIN_WIDTH
    + """
:host { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
        color: var(--pv-ink); background: var(--pv-paper); }
"""
    + REDUCED_MOTION
)

# The page outside Panel's components: body colours, and what printing hides.
PAGE_CSS = (
    VARIABLES
    + """
html, body { background: var(--pv-paper); color: var(--pv-ink); color-scheme: light dark; }
@media print { html, body { background: #fff; color: #000; } }
"""
    + REDUCED_MOTION
)

TEXT_CSS = (
    """
:host { color: var(--pv-ink); font-size: 15px; line-height: 1.55; }
h1 { font-size: 2.1em; margin: 0.1em 0 0.2em; }
h2 { font-size: 1.35em; margin: 1.2em 0 0.3em; border-bottom: 1px solid var(--pv-rule);
     padding-bottom: 0.2em; }
h3 { font-size: 1.1em; margin: 0.8em 0 0.2em; }
a { color: var(--pv-accent); text-decoration: underline; text-underline-offset: 0.15em; }
a:hover { text-decoration-thickness: 2px; }
a:focus-visible { outline: 3px solid var(--pv-focus); outline-offset: 2px; border-radius: 2px; }
.eyebrow { text-transform: uppercase; letter-spacing: 0.08em; font-size: 0.8em;
           color: var(--pv-muted); }
.muted { color: var(--pv-muted); }
.chip { display: inline-block; padding: 0.15em 0.7em; margin: 0 0.4em 0.4em 0; border-radius: 1em;
        background: var(--pv-chip); color: var(--pv-accent); font-size: 0.9em; }
.chip b { margin-left: 0.35em; color: var(--pv-ink); }
.figure-id { font-variant-numeric: tabular-nums; color: var(--pv-muted); font-weight: 600;
             margin-right: 0.5em; }
ol.reading li { margin: 0.3em 0; }
.crumbs { font-size: 0.9em; color: var(--pv-muted); }
.posviz-sr { position: absolute; width: 1px; height: 1px; padding: 0; margin: -1px;
             overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
table { border-collapse: collapse; font-size: 14px; font-variant-numeric: tabular-nums;
        display: block; max-width: 100%; overflow-x: auto; }
@media (max-width: 520px) { table { font-size: 12px; } th, td { padding: 0.1em 0.3em; } }
code { color: var(--pv-ink); background: var(--pv-chip); padding: 0 0.2em; border-radius: 3px; }
pre { background: var(--pv-chip) !important; color: var(--pv-ink) !important; padding: 0.6em;
      border-radius: 4px; overflow-x: auto; }
pre code, pre code span { background: none !important; color: var(--pv-ink) !important;
                         padding: 0; }
caption { text-align: left; color: var(--pv-muted); padding: 0.2em 0; }
th, td { border: 1px solid var(--pv-rule); padding: 0.15em 0.6em; text-align: right; }
th[scope="col"] { background: var(--pv-chip); }
.posviz-deeplink { display: none; }
@media print { .posviz-deeplink { display: block; font-size: 12px; }
               .posviz-deeplink a { color: #000; text-decoration: none; word-break: break-all; } }
"""
    + REDUCED_MOTION
)

NOTICE_CSS = (
    """
:host { background: #fff7e6; border: 1px solid #f0c36d; border-radius: 6px; padding: 0.2em 1em;
        color: #5c3d00; font-size: 14px; }
ul { margin: 0.3em 0; padding-left: 1.2em; }
@media (prefers-color-scheme: dark) { :host { background: #3a2d12; border-color: #8a6a2a;
                                              color: #ffe2a8; } }
"""
    + REDUCED_MOTION
)

FIGURE_CSS = (
    NO_MIN_WIDTH
    + """
:host { border: 1px solid var(--pv-rule); border-radius: 8px; padding: 8px 4px; margin: 8px 0;
        max-width: 100%; box-sizing: border-box; }
@media print { :host { break-inside: avoid; } }
"""
    + REDUCED_MOTION
)

# The figure's own layouts: controls beside the plots when there is room, above
# them when not; controls are not printed.
FIGURE_BODY_CSS = (
    NO_MIN_WIDTH
    + """
:host { max-width: 100%; min-width: 0; }
@media print { .posviz-controls, .posviz-numbers-toggle { display: none !important; } }
"""
    + REDUCED_MOTION
)

# Widgets: visible focus, themed slider, and no transitions when motion is reduced.
WIDGET_CSS = (
    """
:host { color: var(--pv-ink); }
.bk-slider-title, label, .bk-input-group { color: var(--pv-ink); }
.noUi-handle:focus-visible, .noUi-handle:focus, button:focus-visible, input:focus-visible {
  outline: 3px solid var(--pv-focus) !important; outline-offset: 2px; }
.noUi-connect { background: var(--pv-accent); }
@media (prefers-color-scheme: dark) {
  .noUi-target { background: #2a3140; border-color: #566074; box-shadow: none; }
  .noUi-handle { background: #d9dee7; border-color: #8b95a7; box-shadow: none; }
  .bk-btn, .bk-btn.bk-btn-default { background: #232a37 !important; color: var(--pv-ink) !important;
                                    border-color: #566074 !important; }
  .bk-btn.bk-active { background: #3a4a66 !important; }
}
"""
    + REDUCED_MOTION
)

# Bokeh plot colours per scheme; the page's script applies the dark set.
PLOT_THEMES = {
    "light": {"paper": "#ffffff", "ink": "#1d2433", "muted": "#4f586a", "grid": "#e3e6ec"},
    "dark": {"paper": "#151a23", "ink": "#e6e9ef", "muted": "#c0c7d3", "grid": "#2f3645"},
}
