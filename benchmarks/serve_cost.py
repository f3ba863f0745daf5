"""What one page costs `posviz serve`: CPU seconds per GET, this tree against another.

A maintainer's every reload, and many browser tests, ask the server for a page.
Each round starts `posviz serve` once from this checkout's ``src`` ("after") and once
from the ``src`` of ``--before`` (a git revision, read with ``git archive``), in
turn; each server answers one GET of every route to warm up, then ``--gets`` GETs
of each route. A GET's cost is the CPU time the server's processes spent from the
request until 0.5 s after its answer (Panel builds the session's models, then
HoloViews' plots and Bokeh's JSON for the page). Reported: medians per route and
variant, and after ÷ before in the same run.

    python -m benchmarks.serve_cost --before HEAD~1 --rounds 3
"""

import contextlib
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.request
from pathlib import Path

from benchmarks.common import ROOT, table
from benchmarks.runner import Benchmark, run
from benchmarks.suite_cpu import TICK, stat
from tests.support.browser import free_port, posviz_server

ROUTES = ("topic-positional-encoding", "gallery", "figure-710")
SETTLE = 0.5  # s after the answer: what the session does once the page is sent


def tree_cpu(pid: int) -> float:
    """CPU seconds of ``pid`` and its children (``suite_cpu.stat`` reads /proc)."""
    total = 0
    for entry in os.scandir("/proc"):
        if entry.name.isdigit() and (found := stat(int(entry.name))) is not None:
            if int(entry.name) == pid or found[0] == pid:
                total += found[2]
    return total / TICK


@contextlib.contextmanager
def source_of(revision: str):
    """A folder holding ``src`` as it is at ``revision``."""
    with tempfile.TemporaryDirectory(prefix="serve-cost-") as scratch:
        made = subprocess.run(["git", "archive", revision, "src"], cwd=ROOT, capture_output=True)
        if made.returncode:
            why = made.stderr.decode(errors="replace").strip()
            raise SystemExit(f"serve_cost: --before {revision!r}: git archive said: {why}")
        archive = made.stdout
        archive_file = Path(scratch) / "src.tar"
        archive_file.write_bytes(archive)
        with tarfile.open(archive_file) as tar:
            tar.extractall(scratch, filter="data")
        yield Path(scratch) / "src"


def costs_of(src: Path, routes, gets: int) -> dict[str, list[float]]:
    """Each route's GET costs under a server that imports posviz from ``src``.

    Both variants serve this checkout's ``content/`` (an archived ``src`` has no
    packaged content), so only the code differs.
    """
    previous = {name: os.environ.get(name) for name in ("PYTHONPATH", "POSVIZ_CONTENT")}
    os.environ["PYTHONPATH"] = str(src)  # the server's process inherits both
    os.environ["POSVIZ_CONTENT"] = str(ROOT / "content")
    port = free_port()
    try:
        with posviz_server(port) as process:
            found = subprocess.run(
                [sys.executable, "-c", "import posviz; print(posviz.__file__)"],
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            assert found.startswith(str(src)), f"posviz came from {found}, not {src}"
            costs = {}
            for route in routes:
                url = f"http://127.0.0.1:{port}/{route}"
                urllib.request.urlopen(url).read()  # warm: imports, caches
                time.sleep(SETTLE)
                costs[route] = []
                for _ in range(gets):
                    before = tree_cpu(process.pid)
                    urllib.request.urlopen(url).read()
                    time.sleep(SETTLE)
                    costs[route].append(tree_cpu(process.pid) - before)
            return costs
    finally:
        for name, value in previous.items():
            if value is None:
                os.environ.pop(name)
            else:
                os.environ[name] = value


def measure(args) -> dict:
    variants: dict[str, dict[str, list[float]]] = {"before": {}, "after": {}}
    with source_of(args.before) as before_src:
        sources = {"before": before_src, "after": ROOT / "src"}
        for _ in range(args.rounds):
            for variant, src in sources.items():
                for route, costs in costs_of(src, ROUTES, args.gets).items():
                    variants[variant].setdefault(route, []).extend(costs)
    medians = {
        variant: {route: statistics.median(costs) for route, costs in routes.items()}
        for variant, routes in variants.items()
    }
    return {
        "before": args.before,
        "gets_per_round": args.gets,
        "cpu_seconds": variants,
        "median": medians,
        "after_over_before": {
            route: medians["after"][route] / medians["before"][route] for route in ROUTES
        },
    }


def report(results: dict, _args):
    rows = [
        [
            route,
            f"{results['median']['before'][route]:.2f}",
            f"{results['median']['after'][route]:.2f}",
            f"{results['after_over_before'][route]:.2f}",
        ]
        for route in ROUTES
    ]
    yield table(
        f"CPU seconds per GET under posviz serve (medians; before = {results['before']})",
        ["route", "before", "after", "after ÷ before"],
        rows,
    )


def options(parser) -> None:
    parser.add_argument("--before", default="HEAD", help="the git revision to compare with")
    parser.add_argument("--gets", type=int, default=5, help="GETs of each route per server")


BENCHMARK = Benchmark(
    name="serve_cost", doc=__doc__, measure=measure, report=report, rounds=3, options=options
)

if __name__ == "__main__":
    sys.exit(run(BENCHMARK))
