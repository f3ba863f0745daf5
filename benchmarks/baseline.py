"""Benchmark 5: posviz's export against the stock `panel convert` baseline, in the same run.

The baseline is the topic page as stock `panel convert --to pyodide-worker`
writes it, made to run offline by rewriting URLs alone (baseline_site.py says
what that took). Both sites are served on 127.0.0.1 and loaded cold and warm
by the same method as benchmark 1 (cold_load.py), their runs interleaved so
that anything else the machine does falls on both alike. Also measured: each
site's size on disk, plain and gzipped file by file.
"""

import gzip
import sys
import time
from contextlib import ExitStack

from benchmarks.baseline_site import TOPIC, build_baseline
from benchmarks.cold_load import measure
from benchmarks.common import (
    OUT,
    built_site,
    plot_name,
    static_server,
    summary,
    table,
    topic_figures,
)
from benchmarks.runner import Benchmark, run
from posviz.figures import ClockHands

# The plot watched for the first answer, and its figure's place on the topic page.
PAGE = (plot_name(ClockHands.figure_id), topic_figures().index(ClockHands.figure_id))
TIMINGS = ("cold_first_paint_ms", "cold_live_ms", "cold_first_answer_ms", "warm_live_ms")
NOTES = """\
Baseline: stock `panel convert --to pyodide-worker` of the same topic page, offline by
URL rewriting (Pyodide, BokehJS, panel dist, wheels and PANEL_CDN_ROOT point at its own
folder); nothing slimmed or precompiled. Stock targets Pyodide 0.29.3, which is not
reachable here: the baseline runs 0.27.7, like posviz. Two changes are not URL rewrites:
  1. the pyodide.ffi.jsnull shim after loadPyodide (panel 1.9.4 needs it on 0.27.7);
  2. micropip.install(..., deps=False), every wheel by URL and the lock packages by name
     (an offline page cannot resolve requirements from PyPI).
Ratio = posviz / baseline: below 1 means posviz is faster or smaller."""


def site_size(folder) -> dict:
    files = [p for p in sorted(folder.rglob("*")) if p.is_file()]
    return {
        "files": len(files),
        "bytes": sum(p.stat().st_size for p in files),
        "gzip_bytes": sum(len(gzip.compress(p.read_bytes(), 6)) for p in files),
    }


def interleaved(bases: dict[str, str], runs: int) -> dict:
    """One cold + warm load of each site per round, alternating which goes first."""
    rounds = {name: [] for name in bases}
    seconds = []
    for index in range(runs):
        order = list(bases) if index % 2 == 0 else list(reversed(bases))
        started = time.monotonic()
        for name in order:
            result = measure(bases[name], {"topic": (f"{TOPIC}.html", *PAGE)}, 1)["topic"]
            rounds[name].append(result)
        seconds.append(time.monotonic() - started)
        print(f"round {index + 1}/{runs}: {seconds[-1]:.0f} s", flush=True)
    results = {}
    for name, found in rounds.items():
        results[name] = {
            "path": f"{TOPIC}.html",
            "runs": runs,
            "blocked_requests": sum(r["blocked_requests"] for r in found),
            **{key: summary([r[key]["median"] for r in found]) for key in TIMINGS},
            "cold_runs": [run for r in found for run in r["cold_runs"]],
        }
    results["seconds_per_round"] = summary(seconds)
    return results


def ratio(mine, theirs) -> str:
    return f"{mine / theirs:.2f}" if mine is not None and theirs else "-"


def report(results: dict):
    mine, theirs = results["posviz"], results["baseline"]
    rows = [
        [
            label,
            mine[key]["median"],
            theirs[key]["median"],
            ratio(mine[key]["median"], theirs[key]["median"]),
        ]
        for label, key in (
            ("first paint ms (cold)", "cold_first_paint_ms"),
            ("live ms (cold)", "cold_live_ms"),
            ("first answer ms (cold)", "cold_first_answer_ms"),
            ("live ms (warm)", "warm_live_ms"),
        )
    ]
    for label, key in (("size MB", "bytes"), ("gzip size MB", "gzip_bytes")):
        rows.append(
            [
                label,
                round(mine["size"][key] / 1e6, 1),
                round(theirs["size"][key] / 1e6, 1),
                ratio(mine["size"][key], theirs["size"][key]),
            ]
        )
    rows.append(["blocked requests", mine["blocked_requests"], theirs["blocked_requests"], "-"])
    yield (
        table(
            f"Topic page, posviz export against the stock baseline (median of {mine['runs']} runs)",
            ["metric", "posviz", "baseline", "ratio (posviz/baseline)"],
            rows,
        )
    )
    yield (NOTES)


def measure_both(args) -> dict:
    started = time.monotonic()
    sites = {"posviz": built_site(), "baseline": OUT / "baseline-stock"}
    build_baseline(sites["baseline"])
    print(f"built both sites in {time.monotonic() - started:.0f} s", flush=True)
    with ExitStack() as stack:
        bases = {name: stack.enter_context(static_server(folder)) for name, folder in sites.items()}
        results = interleaved(bases, args.rounds)
    for name, folder in sites.items():
        results[name]["size"] = site_size(folder)
    results["total_seconds"] = round(time.monotonic() - started)
    return {"pages": results, "notes": NOTES}


BENCHMARK = Benchmark(
    name="baseline",
    doc=__doc__,
    measure=measure_both,
    report=lambda results, args: report(results["pages"]),
    rounds=5,
)

if __name__ == "__main__":
    sys.exit(run(BENCHMARK))
