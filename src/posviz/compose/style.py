"""The site's look: one stylesheet, applied to every view's outer column."""

SITE_CSS = """
:host { --ink: #1d2433; --muted: #5b6475; --accent: #1f5fa8; --rule: #e3e6ec;
        font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); }
"""

# Panel panes render in their own shadow roots, so text styles go to each pane.
TEXT_CSS = """
:host { color: #1d2433; font-size: 15px; line-height: 1.55; }
h1 { font-size: 2.1em; margin: 0.1em 0 0.2em; }
h2 { font-size: 1.35em; margin: 1.2em 0 0.3em; border-bottom: 1px solid #e3e6ec;
     padding-bottom: 0.2em; }
h3 { font-size: 1.1em; margin: 0.8em 0 0.2em; }
a { color: #1f5fa8; text-decoration: none; }
a:hover { text-decoration: underline; }
.eyebrow { text-transform: uppercase; letter-spacing: 0.08em; font-size: 0.8em; color: #5b6475; }
.muted { color: #5b6475; }
.chip { display: inline-block; padding: 0.15em 0.7em; margin: 0 0.4em 0.4em 0; border-radius: 1em;
        background: #eef3fa; color: #1f5fa8; font-size: 0.9em; }
.chip b { margin-left: 0.35em; color: #1d2433; }
.figure-id { font-variant-numeric: tabular-nums; color: #5b6475; font-weight: 600;
             margin-right: 0.5em; }
ol.reading li { margin: 0.3em 0; }
.crumbs { font-size: 0.9em; color: #5b6475; }
"""

NOTICE_CSS = """
:host { background: #fff7e6; border: 1px solid #f0c36d; border-radius: 6px; padding: 0.2em 1em;
        color: #5c3d00; font-size: 14px; }
ul { margin: 0.3em 0; padding-left: 1.2em; }
"""

FIGURE_CSS = """
:host { border: 1px solid #e3e6ec; border-radius: 8px; padding: 8px 4px; margin: 8px 0; }
"""
