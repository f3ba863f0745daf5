"""What a docs author ships: a site of the embedded figures alone against the whole site.

Builds the whole export, then sites of one figure (710) and of two (710, 96)
with ``posviz build --figures``, then a Sphinx project (``-b html``) that embeds
figure 710 and lets ``posviz.sphinx`` build its site. Sizes are bytes on disk,
summed over every file (the parts as ``export_size`` names them); "gzip" is a
server compressing each file at level 6. Run it alone:
``python -m benchmarks.embed_size``.
"""

import sys
import tempfile
from pathlib import Path

from benchmarks.common import OUT, built_site, table
from benchmarks.export_size import measure
from benchmarks.runner import Benchmark, run

VARIANTS = {"one figure (710)": [710], "two figures (710, 96)": [710, 96]}
SPHINX_PAGE = "Docs\n====\n\n.. posviz-figure:: 710\n   :pos: 24\n"


def figures_site(figures: list[int]) -> Path:
    from posviz.export.command import build

    out = OUT / f"embed-{'-'.join(map(str, figures))}"
    if build(out, figures=figures) != 0:
        raise SystemExit("posviz build --figures failed")
    return out


def sphinx_output() -> dict:
    """The whole HTML output of a one-figure Sphinx project, ``-b html`` (``.doctrees`` in it)."""
    from sphinx.cmd.build import main

    with tempfile.TemporaryDirectory(prefix="posviz-bench-sphinx-") as folder:
        src, out = Path(folder, "src"), Path(folder, "out")
        src.mkdir()
        (src / "conf.py").write_text('extensions = ["posviz.sphinx"]\nproject = "d"\n', "utf-8")
        (src / "index.rst").write_text(SPHINX_PAGE, "utf-8")
        if main(["-b", "html", "-q", str(src), str(out)]) != 0:
            raise SystemExit("sphinx-build failed")
        files = [p for p in out.rglob("*") if p.is_file()]
        return {
            "files": len(files),
            "bytes": sum(p.stat().st_size for p in files),
            "sites": len(list(out.rglob("site.json"))),
        }


def measure_all(args) -> dict:
    whole = measure(built_site())
    sites = {"whole site": whole["total"] | {"parts": whole["parts"]}}
    for name, figures in VARIANTS.items():
        measured = measure(figures_site(figures))
        sites[name] = measured["total"] | {"parts": measured["parts"]}
    return {"sites": sites, "sphinx_b_html_one_figure": sphinx_output()}


def report(results: dict, args):
    whole = results["sites"]["whole site"]["bytes"]
    rows = [
        [
            name,
            site["parts"].get("HTML pages", {}).get("files", 0),
            site["files"],
            site["bytes"],
            f"{site['bytes'] / 1e6:.2f}",
            f"{site['gzip_bytes'] / 1e6:.2f}",
            f"{100 * site['bytes'] / whole:.1f}",
        ]
        for name, site in results["sites"].items()
    ]
    yield table(
        "What a docs author ships (MB = 10^6 bytes)",
        ["site", "pages", "files", "bytes", "MB", "gzip MB", "% of whole"],
        rows,
    )
    sphinx = results["sphinx_b_html_one_figure"]
    yield (
        f"  Sphinx -b html, one figure: {sphinx['bytes']} bytes ({sphinx['bytes'] / 1e6:.2f} MB)"
        f" in {sphinx['files']} files, {sphinx['sites']} copy of the site"
    )
    one = results["sites"]["one figure (710)"]["parts"]
    runtime = sum(
        one[p]["bytes"]
        for p in ("Pyodide runtime", "Pyodide-lock wheels", "pure wheels")
        if p in one
    )
    yield f"  of the one-figure site, the Python runtime and its wheels: {runtime / 1e6:.2f} MB"


BENCHMARK = Benchmark(name="embed_size", doc=__doc__, measure=measure_all, report=report)

if __name__ == "__main__":
    sys.exit(run(BENCHMARK))
