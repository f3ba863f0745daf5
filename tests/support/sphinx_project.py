"""A real Sphinx project with the posviz extension, built by Sphinx's own entry point."""

import html
from pathlib import Path

CONF = """\
extensions = ["posviz.sphinx"]
project = "posviz embed test"
posviz_site = {site!r}
html_theme = "alabaster"
"""

INDEX = """\
Figures in docs
===============

.. toctree::

   more/second

The clock hands, at position 24:

.. posviz-figure:: 710
   :pos: 24
   :caption: Drag pos: the right curve stays put.

The parameter budget of a wider model:

.. posviz-figure:: 96
   :d_model: 1024
   :height: 300
"""

SECOND = """\
Second page
===========

.. posviz-figure:: 7256
   :k: 12
   :m: 20
"""


def build_docs(
    src: Path,
    out: Path,
    site: Path,
    pages: dict[str, str],
    builder: str = "html",
    strict: bool = True,
) -> tuple[int, str]:
    from sphinx.cmd.build import build_main

    src.mkdir(parents=True, exist_ok=True)
    (src / "conf.py").write_text(CONF.format(site=str(site)), "utf-8")
    for name, text in pages.items():
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        (src / name).write_text(text, "utf-8")
    warnings = src.parent / "warnings.txt"
    flags = ["-W"] if strict else []
    code = build_main(["-b", builder, *flags, "-q", "-w", str(warnings), str(src), str(out)])
    return code, warnings.read_text("utf-8") if warnings.exists() else ""


def fake_site(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "site.json").write_text("{}", "utf-8")
    for figure in (96, 710, 7256):
        (folder / f"figure-{figure}.html").write_text("<p>figure</p>", "utf-8")
    return folder


# Where each builder writes the nested page more/second.
NESTED = {
    "html": "more/second.html",
    "dirhtml": "more/second/index.html",
    "singlehtml": "index.html",
}


def iframe_targets(out: Path, page: str) -> dict[str, str]:
    """Each iframe src on `page`, and the output path it points at from there."""
    import posixpath
    import re

    text = (out / page).read_text("utf-8")
    folder = posixpath.dirname(page)
    return {
        src: posixpath.normpath(posixpath.join(folder, html.unescape(src).split("?")[0]))
        for src in re.findall(r'<iframe src="([^"]+)"', text)
    }
