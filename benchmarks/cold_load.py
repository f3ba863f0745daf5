"""Benchmark 1: cold load of the offline export, and a warm reload.

Fresh browser profile per run, site served on 127.0.0.1, everything else
blocked. Reports, per page: first figure painted (the pre-render), every
figure live (Python's document drawn), the first slider answered after that,
and the same after a reload with the HTTP cache kept. Median of --runs.
"""

import sys

from benchmarks.common import (
    built_site,
    chromium,
    plot_name,
    press_and_wait,
    sealed_context,
    static_server,
    summary,
    table,
    topic_figures,
)
from benchmarks.runner import Benchmark, run
from posviz.figures import ClockHands

CLOCK = ClockHands.figure_id  # the figure whose plot is watched
PAGES = {
    "topic": ("topic-positional-encoding.html", plot_name(CLOCK), topic_figures().index(CLOCK)),
    f"figure {CLOCK}": (f"figure-{CLOCK}.html", plot_name(CLOCK), 0),
}
LIVE_TIMEOUT = 120_000


def load(page, url: str, plot: str, figure_index: int) -> dict:
    page.goto(url)
    page.wait_for_function(
        "() => (window.posvizBench && window.posvizBench.live !== null)"
        " || document.body.dataset.posviz === 'error'",
        timeout=LIVE_TIMEOUT,
    )
    if page.evaluate("document.body.dataset.posviz") == "error":
        raise RuntimeError(
            f"{url} failed to go live: " + page.locator(".posviz-status").inner_text()
        )
    timings = page.evaluate("window.posvizBench")
    answer = press_and_wait(page, figure_index, 0, plot, "ArrowRight")
    worker = page.evaluate("window.posvizTimings || null")
    return {
        "first_paint_ms": round(timings["firstPaint"]),
        "live_ms": round(timings["live"]),
        "first_answer_ms": round(timings["live"] + answer),
        "worker": worker,
    }


def measure(base: str, pages: dict, runs: int) -> dict:
    results = {}
    with chromium() as browser:
        for label, (path, plot, figure_index) in pages.items():
            cold, warm, blocked = [], [], []
            for _ in range(runs):
                context = sealed_context(browser, blocked)
                page = context.new_page()
                cold.append(load(page, f"{base}/{path}", plot, figure_index))
                warm.append(load(page, f"{base}/{path}", plot, figure_index))  # cache kept
                context.close()
            results[label] = {
                "path": path,
                "runs": runs,
                "blocked_requests": len(blocked),
                **{
                    f"cold_{key}": summary([run[key] for run in cold])
                    for key in ("first_paint_ms", "live_ms", "first_answer_ms")
                },
                **{
                    f"warm_{key}": summary([run[key] for run in warm])
                    for key in ("first_paint_ms", "live_ms", "first_answer_ms")
                },
                "cold_runs": cold,
            }
    return results


def report(results: dict, title: str):
    rows = [
        [
            label,
            r["runs"],
            r["cold_first_paint_ms"]["median"],
            r["cold_live_ms"]["median"],
            r["cold_first_answer_ms"]["median"],
            r["warm_live_ms"]["median"],
            r["blocked_requests"],
        ]
        for label, r in results.items()
    ]
    yield (
        table(
            title,
            [
                "page",
                "runs",
                "first paint ms",
                "live ms (cold)",
                "first answer ms",
                "live ms (warm)",
                "blocked",
            ],
            rows,
        )
    )
    for label, r in results.items():
        worker = [run["worker"] for run in r["cold_runs"] if run["worker"]]
        if worker:
            stages = {k: summary([w[k] for w in worker])["median"] for k in worker[0]}
            yield (f"  {label}: where the cold start goes (worker, median ms): {stages}")


def measure_all(args) -> dict:
    with static_server(built_site()) as base:
        return {"pages": measure(base, PAGES, args.rounds)}


BENCHMARK = Benchmark(
    name="cold_load",
    doc=__doc__,
    measure=measure_all,
    report=lambda results, args: report(results["pages"], "Cold load of the offline export"),
    rounds=5,
)

if __name__ == "__main__":
    sys.exit(run(BENCHMARK))
