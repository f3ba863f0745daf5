"""Lazy join (issue 17): what a page's far figures cost before the reader scrolls to them.

The topic page (four figures), cold, in a fresh browser profile each round, at a
desktop (1280×900) and a phone (390×844) viewport. Two variants, interleaved in
one run on one export:

- **lazy**: as built (export/lazy.js): islands more than a screen from the
  viewport get no view until scrolled near;
- **eager**: the same page with ``window.posvizLazyOff`` set before its
  scripts, so every figure is drawn at once, as before lazy join.

Per round: the pre-render's paint (every drawn root finished), the views and
DOM nodes then, the JS heap then (Chrome's Performance.getMetrics), the moment
the page is live, and how many figures wait at paint. Reported: each lazy
measure ÷ the eager one (medians).

    python -m benchmarks.lazy --site /tmp/site --rounds 5
"""

import statistics
import sys

from benchmarks.common import built_site, chromium, sealed_context, static_server, table
from benchmarks.runner import Benchmark, run

TOPIC = "topic-positional-encoding.html"
VIEWPORTS = {"desktop": (1280, 900), "phone": (390, 844)}
VARIANTS = {"lazy": (), "eager": ("window.posvizLazyOff = true;",)}
PAINTED = "() => window.posvizBench && window.posvizBench.firstPaint !== null"
MEASURES = ["paint_ms", "views", "dom_nodes", "heap_mb", "live_ms"]


def one_load(browser, url: str, viewport: tuple[int, int], init: tuple) -> dict:
    blocked: list = []
    context = sealed_context(browser, blocked, init)
    page = context.new_page()
    page.set_viewport_size({"width": viewport[0], "height": viewport[1]})
    cdp = context.new_cdp_session(page)
    cdp.send("Performance.enable")
    try:
        page.goto(f"{url}/{TOPIC}")
        page.wait_for_function(PAINTED, timeout=60_000)
        metrics = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
        found = page.evaluate(
            """() => ({paint: posvizBench.firstPaint, views: Bokeh.index.roots.length,
                      waiting: window.posvizLazy && !window.posvizLazyOff
                               ? posvizLazy.waiting().length : 0})"""
        )
        page.wait_for_function("() => document.body.dataset.posviz !== 'loading'", timeout=180_000)
        live = page.evaluate("window.posvizLiveMs || null")
        if blocked:
            raise SystemExit(f"the page asked the network for {blocked[:3]}")
        return {
            "paint_ms": round(found["paint"], 1),
            "views": found["views"],
            "waiting": found["waiting"],
            "dom_nodes": int(metrics["Nodes"]),
            "heap_mb": round(metrics["JSHeapUsedSize"] / 2**20, 2),
            "live_ms": round(live, 1) if live else None,
        }
    finally:
        context.close()


def measure(args) -> dict:
    site = args.site or built_site()
    runs = {f"{view}/{variant}": [] for view in VIEWPORTS for variant in VARIANTS}
    with chromium() as browser, static_server(site) as url:
        for round_number in range(args.rounds):
            for view, viewport in VIEWPORTS.items():
                for variant, init in VARIANTS.items():
                    result = one_load(browser, url, viewport, init)
                    runs[f"{view}/{variant}"].append(result)
                    print(f"  round {round_number + 1} {view} {variant}: {result}", flush=True)
    medians = {
        key: {m: statistics.median(r[m] for r in rows if r[m] is not None) for m in MEASURES}
        | {"waiting": statistics.median(r["waiting"] for r in rows)}
        for key, rows in runs.items()
    }
    ratios = {
        view: {
            m: round(medians[f"{view}/lazy"][m] / medians[f"{view}/eager"][m], 3) for m in MEASURES
        }
        for view in VIEWPORTS
    }
    return {
        "site": str(site),
        "rounds": args.rounds,
        "runs": runs,
        "medians": medians,
        "ratios": ratios,
    }


def report(results, _args):
    rows = []
    for view in VIEWPORTS:
        lazy, eager = results["medians"][f"{view}/lazy"], results["medians"][f"{view}/eager"]
        for m in MEASURES:
            rows.append([view, m, eager[m], lazy[m], results["ratios"][view][m]])
        rows.append([view, "figures waiting at paint", eager["waiting"], lazy["waiting"], ""])
    yield table(
        f"Lazy join: the topic page, cold, medians of {results['rounds']} rounds",
        ["viewport", "measure", "eager (before)", "lazy (after)", "lazy ÷ eager"],
        rows,
    )


BENCHMARK = Benchmark(
    name="lazy", doc=__doc__, measure=measure, report=report, rounds=5, site="one"
)

if __name__ == "__main__":
    sys.exit(run(BENCHMARK))
