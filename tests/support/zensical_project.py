"""A real Zensical (or plain MkDocs) project with posviz as a Markdown extension only."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

ZENSICAL = """\
[project]
site_name = "posviz embed test"
site_dir = "{site_dir}"

[project.theme]
font = false  # the theme fetches Google Fonts otherwise: the docs must work offline

[project.markdown_extensions.posviz]
site = "_posviz"

[project.markdown_extensions."pymdownx.superfences"]
"""

MKDOCS = """\
site_name: posviz embed test
theme:
  name: material
  font: false
markdown_extensions:
  - posviz.markdown_ext:
      site: _posviz
"""

# Front matter first, so a line number must count it; a fenced example is left alone.
INDEX = """\
---
title: Figures in docs
---
# Figures in docs

The clock hands, at position 24:

::: posviz-figure 710 pos=24 caption="Drag pos: the right curve stays put."

Written in a page, a figure is one line:

```markdown
::: posviz-figure 999 pos=1
```
"""

SECOND = """\
# Second page

::: posviz-figure 710 pos=30 height=300
"""

PAGES = {"index.md": INDEX, "more/second.md": SECOND}


def write_project(root: Path, site: Path, pages: dict[str, str], tool: str, site_dir="out"):
    """``pages`` under ``root/docs``, the posviz ``site`` copied to ``docs/_posviz``."""
    docs = root / "docs"
    for name, text in pages.items():
        (docs / name).parent.mkdir(parents=True, exist_ok=True)
        (docs / name).write_text(text, "utf-8")
    if site is not None:
        shutil.copytree(site, docs / "_posviz", dirs_exist_ok=True)
    if tool == "zensical":
        (root / "zensical.toml").write_text(ZENSICAL.format(site_dir=site_dir), "utf-8")
    else:
        (root / "mkdocs.yml").write_text(MKDOCS, "utf-8")


def build(root: Path, tool: str, site_dir="out") -> tuple[int, str]:
    """``zensical build`` or ``mkdocs build`` in ``root``: (exit code, what it printed)."""
    if tool == "zensical":
        command = [sys.executable, "-m", "zensical", "build", "--clean"]  # no cache: a fresh check
    else:
        command = [sys.executable, "-m", "mkdocs", "build", "--quiet", "--site-dir", site_dir]
    done = subprocess.run(
        command,
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},  # Material's banner about MkDocs 2
    )
    return done.returncode, done.stdout + done.stderr
