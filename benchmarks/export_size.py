"""Benchmark 3: what the offline export weighs, by part, on disk and gzipped.

Builds the export, then sums every file into one part: the Pyodide runtime,
the wheels taken from the Pyodide lock, the pure wheels, posviz's own wheel,
the JS and CSS, the HTML pages, the search index (pagefind/). "gzip" is what
a server compressing each file at level 6 would send: the sum over files of
``len(gzip.compress(data, 6))``.
Wheels and the wasm are already compressed or dense, so expect little there.
"""

import gzip
import sys
from pathlib import Path

from benchmarks.common import built_site, table
from benchmarks.runner import Benchmark, run

PARTS = (
    "Pyodide runtime",
    "Pyodide-lock wheels",
    "pure wheels",
    "posviz wheel",
    "JS/CSS",
    "HTML pages",
    "search index",
    "other",
)


def part_of(relative: Path) -> str:
    top, name = relative.parts[0], relative.name
    if top == "pyodide":
        return "Pyodide-lock wheels" if name.endswith(".whl") else "Pyodide runtime"
    if top == "wheels":
        return "posviz wheel" if name.startswith("posviz-") else "pure wheels"
    if top == "pagefind":  # the offline search: Pagefind's index, wasm and script
        return "search index"
    if top == "static" or name == "posviz-worker.js":
        return "JS/CSS"
    if name.endswith(".html"):
        return "HTML pages"
    return "other"  # site.json, and anything a later build adds


def measure(site: Path) -> dict:
    parts = {name: {"files": 0, "bytes": 0, "gzip_bytes": 0} for name in PARTS}
    files = {}
    for path in sorted(p for p in site.rglob("*") if p.is_file()):
        data = path.read_bytes()
        name = path.relative_to(site).as_posix()
        files[name] = {
            "part": part_of(path.relative_to(site)),
            "bytes": len(data),
            "gzip_bytes": len(gzip.compress(data, 6)),
        }
        part = parts[files[name]["part"]]
        part["files"] += 1
        part["bytes"] += files[name]["bytes"]
        part["gzip_bytes"] += files[name]["gzip_bytes"]
    parts = {name: part for name, part in parts.items() if part["files"]}
    total = {
        key: sum(part[key] for part in parts.values()) for key in ("files", "bytes", "gzip_bytes")
    }
    return {"parts": parts, "total": total, "files": files}


def mb(n: int) -> str:
    return f"{n / 1e6:.2f}"


def report(results: dict):
    total = results["total"]
    rows = [
        [
            name,
            part["files"],
            mb(part["bytes"]),
            mb(part["gzip_bytes"]),
            f"{100 * part['gzip_bytes'] / part['bytes']:.0f}",
            f"{100 * part['gzip_bytes'] / total['gzip_bytes']:.0f}",
        ]
        for name, part in results["parts"].items()
    ]
    rows.append(
        [
            "total",
            total["files"],
            mb(total["bytes"]),
            mb(total["gzip_bytes"]),
            f"{100 * total['gzip_bytes'] / total['bytes']:.0f}",
            "100",
        ]
    )
    yield (
        table(
            "Size of the offline export (MB = 10^6 bytes)",
            ["part", "files", "on disk MB", "gzip MB", "gzip/disk %", "share of gzip %"],
            rows,
        )
    )
    largest = sorted(results["files"].items(), key=lambda item: -item[1]["gzip_bytes"])[:6]
    yield (
        "  largest files (gzip MB): "
        + ", ".join(f"{name} {mb(size['gzip_bytes'])}" for name, size in largest)
    )


BENCHMARK = Benchmark(
    name="export_size",
    doc=__doc__,
    measure=lambda args: measure(built_site()),
    report=lambda results, args: report(results),
)

if __name__ == "__main__":
    sys.exit(run(BENCHMARK))
