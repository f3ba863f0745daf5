"""The site's offline search: a Pagefind index of the built pages, in ``pagefind/``.

Pagefind (PyPI's ``pagefind[bin]``, which ships its binary) reads the pages
the build wrote and indexes what sits in ``data-pagefind-body`` (each page's
article, compose/templates/site.html); the search box of every page queries
it in the browser through Pagefind's JS API (compose/static/search.js), so the
index and its WebAssembly are all a search fetches. Pagefind's own UI bundles
are removed: posviz draws its own box.

The index is a function of the pages alone (file names are content hashes and
two runs over the same pages write the same bytes; ``tests/test_search.py``
checks it), so the build stays byte-identical.
"""

import json
import subprocess
import sys
from pathlib import Path

SEARCH_DIR = "pagefind/"
# Pagefind's ready-made UIs: posviz does not load them, so the site does not ship them.
UNUSED = (
    "pagefind-ui.js",
    "pagefind-ui.css",
    "pagefind-component-ui.js",
    "pagefind-component-ui.css",
    "pagefind-modular-ui.js",
    "pagefind-modular-ui.css",
    "pagefind-highlight.js",
)
# What the page script imports: without it the site has no search.
ENTRY = ("pagefind.js", "pagefind-entry.json")
# Base URLs Pagefind's scripts parse result paths against; never fetched.
EXEMPT_BASE = "https://example.com"


class SearchError(RuntimeError):
    """Pagefind could not index the site; the message says why."""


def index(site: Path) -> list[str]:
    """Index the HTML pages of ``site`` into ``site/pagefind/``; the files written, sorted."""
    try:
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "pagefind",
                "--site",
                str(site),
                "--output-subdir",
                SEARCH_DIR.rstrip("/"),
                "--glob",
                "*.html",  # the pages; nothing under static/ or pyodide/
                "--force-language",
                "en",  # one index (every page says lang="en"); no 'unknown' language
                "--quiet",
            ],
            capture_output=True,
            text=True,
            check=False,
        )
    except OSError as error:
        raise SearchError(f"could not run Pagefind ({error}); install pagefind[bin]") from error
    if done.returncode:
        output = (done.stdout + done.stderr).strip()
        if "No module named pagefind" in output:
            raise SearchError("Pagefind is not installed: pip install 'pagefind[bin]'")
        raise SearchError(f"pagefind failed (exit {done.returncode}):\n{output[-4000:]}")
    folder = site / SEARCH_DIR
    missing = [name for name in ENTRY if not (folder / name).is_file()]
    if missing:
        raise SearchError(f"pagefind wrote no {', '.join(missing)} in {folder}")
    for name in UNUSED:
        (folder / name).unlink(missing_ok=True)
    # pagefind.js loads the wasm the entry names for the page's language, "unknown"
    # only for a language without one of its own; every posviz page says lang="en".
    languages = json.loads((folder / "pagefind-entry.json").read_text("utf-8"))["languages"]
    if all(language.get("wasm") not in (None, "unknown") for language in languages.values()):
        (folder / "wasm.unknown.pagefind").unlink(missing_ok=True)
    return sorted(p.relative_to(site).as_posix() for p in folder.rglob("*") if p.is_file())
