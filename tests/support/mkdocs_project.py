"""A real MkDocs project with the posviz plugin, built by the `mkdocs` command."""

import os
import subprocess
import sys
from pathlib import Path

CONFIG = """\
site_name: posviz embed test
theme:
  name: material
  font: false  # Material fetches Google Fonts otherwise: the docs must work offline
plugins:
  - search
  - posviz:
      site: {site}
"""

# Front matter first, so a line number must count it; a fenced example is left alone.
INDEX = """\
---
title: Figures in docs
---
# Figures in docs

The clock hands, at position 24:

::: posviz-figure 710 pos=24 caption="Drag pos: the right curve stays put."

The parameter budget of a wider model:

::: posviz-figure 96 d_model=1024 height=300

Written in a page, a figure is one line:

```markdown
::: posviz-figure 999 pos=1
```
"""

SECOND = """\
# Second page

::: posviz-figure 7256 k=12 m=20
"""

PAGES = {"index.md": INDEX, "more/second.md": SECOND}


def build_docs(root: Path, site: Path, pages: dict[str, str]) -> tuple[int, str]:
    """``mkdocs build`` of ``pages`` into ``root/out``: (exit code, what it printed)."""
    docs = root / "docs"
    for name, text in pages.items():
        (docs / name).parent.mkdir(parents=True, exist_ok=True)
        (docs / name).write_text(text, "utf-8")
    (root / "mkdocs.yml").write_text(CONFIG.format(site=site), "utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--quiet", "--site-dir", "out"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},  # Material's banner about MkDocs 2
    )
    return done.returncode, done.stdout + done.stderr


def fake_site(folder: Path) -> Path:
    """The smallest folder the plugin takes for a posviz site."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "site.json").write_text("{}", "utf-8")
    (folder / "figure-710.html").write_text("<p>figure</p>", "utf-8")
    return folder
