"""Run ``panel convert`` on entry scripts: ``python -m posviz.build.prerender OUT NAME...``.

Runs in its own interpreter so that the build can fix what makes output
differ between runs (PYTHONHASHSEED, the export flag, Panel's CDN root)
before anything is imported. Writes OUT/<name>.html, one per route.
"""

import sys
import tempfile
from pathlib import Path


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
