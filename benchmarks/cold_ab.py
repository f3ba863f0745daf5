"""A/B of the cold start (issue 9, "make the first start cheaper").

Two or more built exports, measured interleaved in one run (A, B, A, B, ...)
so that the load of a shared machine falls on both alike. For each site and
round: the floor page (the site's own Pyodide, numpy loaded and imported) and
the topic page cold, until a slider step has redrawn a plot, each in a fresh
browser. Reported per site: the median over rounds of topic ÷ floor, and the
worker's own stage timings (window.posvizTimings) of the topic page.

    python -m benchmarks.cold_ab --site before=/tmp/before --site after=/tmp/after
"""

import json
import statistics
import sys
from contextlib import ExitStack

from benchmarks.common import chromium, sealed_context, static_server, table
from benchmarks.runner import Benchmark, run
from benchmarks.runtime import TOPIC, bench_pages, floor_ms, open_until_answered


def one_round(base: str) -> dict:
    blocked: list[str] = []
    result = {"floor_ms": floor_ms(base, blocked)}
    with chromium() as browser:
        context = sealed_context(browser, blocked)
        page = context.new_page()
        result["topic_cold_ms"] = open_until_answered(page, f"{base}/{TOPIC}")
        result["paint_ms"] = page.evaluate("window.posvizBench.firstPaint")
        result["timings"] = page.evaluate("window.posvizTimings")
        context.close()
    result["blocked"] = len(blocked)
    return result


def measure(args) -> dict:
    if not args.site:
        raise SystemExit("cold_ab: give the sites to compare, --site name=folder (twice or more)")
    sites = dict(args.site)
    raw: dict[str, list[dict]] = {name: [] for name in sites}
    with ExitStack() as stack:
        bases = {}
        for name, folder in sites.items():
            bases[name] = stack.enter_context(static_server(folder, bench_pages()))
        for index in range(args.rounds):
            for name in sites:
                run = one_round(bases[name])
                raw[name].append(run)
                print(f"round {index + 1} {name}: {json.dumps(run)}", flush=True)
    derived = {}
    for name, runs in raw.items():
        stages = sorted({key for run in runs for key in (run["timings"] or {})})
        derived[name] = {
            "topic_cold_over_floor": round(
                statistics.median(r["topic_cold_ms"] / r["floor_ms"] for r in runs), 2
            ),
            "floor_ms": round(statistics.median(r["floor_ms"] for r in runs)),
            "topic_cold_ms": round(statistics.median(r["topic_cold_ms"] for r in runs)),
            "first_paint_ms": round(statistics.median(r["paint_ms"] or 0 for r in runs)),
            "stages_ms": {
                key: round(statistics.median((r["timings"] or {}).get(key, 0) for r in runs))
                for key in stages
            },
            "blocked": sum(r["blocked"] for r in runs),
        }
    return {"sites": sites, "rounds": args.rounds, "derived": derived, "raw": raw}


def report(results: dict, args):
    derived = results["derived"]
    rows = [
        [name, d["topic_cold_over_floor"], d["floor_ms"], d["topic_cold_ms"], d["first_paint_ms"]]
        for name, d in derived.items()
    ]
    yield (
        table(
            f"Cold start A/B ({args.rounds} rounds, interleaved; medians)",
            ["site", "topic ÷ floor", "floor ms", "topic ms", "first paint ms"],
            rows,
        )
    )
    stages = sorted({key for d in derived.values() for key in d["stages_ms"]})
    yield (
        table(
            "Worker stages of the topic page (median ms)",
            ["stage", *derived],
            [[key, *(d["stages_ms"].get(key, "") for d in derived.values())] for key in stages],
        )
    )


BENCHMARK = Benchmark(
    name="cold_ab", doc=__doc__, measure=measure, report=report, rounds=4, site="named"
)

if __name__ == "__main__":
    sys.exit(run(BENCHMARK))
