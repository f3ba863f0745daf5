"""Per-route cost of a full build (issue 17), this checkout against an older one, in one run.

For each checkout (``--before DIR``: a git worktree of the older commit; "after"
is this one), two full builds from an empty page cache: the content with no
generated pages and with N of them (scale.py's pages, generated from that
checkout's own content/, into a temporary folder). The cost of an added route is
(time at N − time at N = 0) ÷ N. Reported: after ÷ before (target ≤ 0.5).

Each checkout runs on its own code (``PYTHONPATH``) and its own build cache
(``--before-cache``: give it a folder with the Pyodide runtime and the raw
wheels, e.g. a copy of the build cache's ``pyodide-*`` and ``wheels-py*/raw``;
the older code's cache entries never mix with the newer's).

    git worktree add /tmp/before a94a3a9
    python -m benchmarks.build_cost --before /tmp/before --before-cache /tmp/cache-before
"""

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks import scale
from benchmarks.common import ROOT, table
from benchmarks.runner import Benchmark, run


def options(parser) -> None:
    parser.add_argument("--before", type=Path, required=True, help="checkout of the older commit")
    parser.add_argument("--before-cache", type=Path, required=True, help="its build cache")
    parser.add_argument("--pages", type=int, default=100, help="N generated pages (default 100)")


def measure(args) -> dict:
    checkouts = {"before": (args.before.resolve(), args.before_cache), "after": (ROOT, None)}
    tags = scale.real_tags()
    found: dict = {}
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        for n in (0, args.pages):  # both checkouts at one N, then the next N
            for name, (checkout, cache) in checkouts.items():
                content, out = work / f"{name}-content-{n}", work / f"{name}-site-{n}"
                scale.make_content(content, n, tags, base=checkout / "content")
                pages = work / f"{name}-pages-{n}"  # empty: a full build
                seconds, _ = scale.build(content, out, pages, checkout, cache)
                found.setdefault(name, {})[n] = round(seconds, 1)
                print(f"  {name} N = {n}: {seconds:.1f} s", flush=True)
                shutil.rmtree(out, ignore_errors=True)
    per_route = {name: round((t[args.pages] - t[0]) / args.pages, 3) for name, t in found.items()}
    commit = subprocess.run(
        ["git", "-C", str(args.before), "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    return {
        "pages": args.pages,
        "before_commit": commit,
        "full_build_s": found,
        "per_added_route_s": per_route,
        "after_over_before": round(per_route["after"] / per_route["before"], 3),
    }


def report(results, _args):
    n = results["pages"]
    rows = [
        [name, t[0], t[n], results["per_added_route_s"][name]]
        for name, t in results["full_build_s"].items()
    ]
    yield table(
        f"Full builds, before = {results['before_commit']}, one run",
        ["checkout", "N = 0 (s)", f"N = {n} (s)", "s per added route"],
        rows,
    )
    yield f"  per-route cost, after ÷ before: {results['after_over_before']} (target ≤ 0.5)"


BENCHMARK = Benchmark(
    name="build_cost", doc=__doc__, measure=measure, report=report, options=options
)

if __name__ == "__main__":
    sys.exit(run(BENCHMARK))
