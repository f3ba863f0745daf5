"""Run ``panel convert`` on entry scripts: ``python -m posviz.export.prerender OUT NAME...``.

Runs in its own interpreter so that the build can fix what makes output
differ between runs (PYTHONHASHSEED, the export flag, Panel's CDN root)
before anything is imported. Writes OUT/<name>.html, one per route.

Its environment is a clean one (``environment``): Bokeh, Panel and HoloViews
read settings from variables (``BOKEH_MINIFIED``, ``BOKEH_SIMPLE_IDS``...) and
Bokeh from ``~/.bokeh/bokeh.yaml``, none of which the page cache's key covers.
A page is then a function of the key's inputs alone, on any machine.
"""

import os
import site
import sys
import tempfile
from pathlib import Path

# Taken from the build's environment: where programs and temporary files are
# (Windows needs SYSTEMROOT to start Python), which code Python imports, and
# whether it writes bytecode. None of them changes a page.
PASSED = (
    "PATH",
    "PYTHONPATH",
    "PYTHONDONTWRITEBYTECODE",
    "PYTHONPYCACHEPREFIX",
    "TMPDIR",
    "TEMP",
    "TMP",
    "SYSTEMROOT",
)
# posviz's own, taken when set: the content folder (the key covers what it holds).
POSVIZ_PASSED = ("POSVIZ_CONTENT",)


def environment(
    home: Path, cdn_root: str, base_url: str | None, figures_only: bool = False
) -> dict[str, str]:
    """The pre-render's whole environment, with ``home`` (an empty folder) as its home.

    UTF-8 mode stands for the locale; the user site stays the build's (it moves
    with HOME), so the same libraries are imported. ``figures_only``: the site
    ships figure pages alone (``posviz build --figures``), so they link to no page.
    """
    env = {name: os.environ[name] for name in (*PASSED, *POSVIZ_PASSED) if name in os.environ}
    env |= {
        "HOME": str(home),
        "USERPROFILE": str(home),
        "PYTHONUSERBASE": site.getuserbase(),
        "PYTHONUTF8": "1",
        "PYTHONHASHSEED": "0",
        "POSVIZ_EXPORT": "1",
        "PANEL_CDN_ROOT": cdn_root,
    }
    if base_url:
        from posviz.compose.page import BASE_URL_ENV

        env[BASE_URL_ENV] = base_url
    if figures_only:
        from posviz.urls import FIGURES_ONLY_ENV

        env[FIGURES_ONLY_ENV] = "1"
    return env


def main(out: Path, names: list[str]) -> None:
    """Write OUT/<name>.html for each route name, pre-rendered by ``panel convert``."""
    from panel.io.convert import script_to_html

    from posviz import internals
    from posviz.compose.entries import write_entries
    from posviz.compose.routes import Route

    with tempfile.TemporaryDirectory() as folder:
        scripts = write_entries([Route(name, "", None, name) for name in names], Path(folder))
        for name, script in zip(names, scripts, strict=True):
            # Each page's model ids as if it were the process's first: its bytes
            # then do not depend on which pages this process rendered before.
            internals.restart_model_ids()
            html, _worker = script_to_html(
                str(script),
                requirements=[],
                runtime="pyodide-worker",
                prerender=True,
                panel_version="local",
                compiled=False,
            )
            (out / f"{name}.html").write_text(html, "utf-8")
            print(f"converted {name}", flush=True)


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2:])
