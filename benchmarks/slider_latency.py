"""Benchmark 2: slider to plot, for each figure, in the export and under `posviz serve`.

Each figure view is opened alone (``figure-<id>.html`` from a loopback file
server; ``/figure-<id>`` from `posviz serve`) in a fresh sealed Chromium
profile. Once the page is live, a slider is stepped with the arrow keys:
``RUN`` steps right, ``RUN`` left, and so on, so the value stays within a few
steps of its default. A latency is the time in the page from the keydown to
the frame after the plot's new data arrived (``press_and_wait``). The first
``--warmup`` steps are reported apart; between steps the page gets
``--settle-ms`` to finish the rest of the update (second plot, readout).

Targets (results_md.TARGETS): median <= 25 ms, p95 <= 50 ms; the table gives each as a
ratio (1.0 = on target, above 1 = slower).

Before/after: ``--site DIR --name slider_latency_before`` measures another
build's export; `posviz serve` runs the ``posviz`` that PYTHONPATH finds, so
point PYTHONPATH at the other source for its serve side.
"""

import sys
import time

from benchmarks.common import (
    built_site,
    chromium,
    plot_name,
    press_and_wait,
    sealed_context,
    static_server,
    stepped_slider,
    summary,
    table,
)
from benchmarks.runner import Benchmark, elapsed, run, target
from benchmarks.server_load import panel_serve
from posviz.figures import FIGURES as ALL_FIGURES

# figure id -> (plot watched, index of the slider stepped), for every figure
FIGURES = {fid: (plot_name(fid), stepped_slider(fid)) for fid in ALL_FIGURES}
RUN = 5
# From the one table, results_md.TARGETS.
TARGET_MEDIAN_MS = target("slider → plot in the export, worst figure median (ms)")
TARGET_P95_MS = target("slider → plot in the export, worst figure p95 (ms)")
# When a page can take keys: the export once Python's document replaced the
# pre-render; under serve once the server's document is drawn.
READY = {
    "export": "() => window.posvizBench && window.posvizBench.live !== null",
    "serve": "() => window.posvizBench && window.posvizBench.firstPaint !== null",
}
READY_TIMEOUT_MS = 120_000


def keys(count: int) -> list[str]:
    return ["ArrowRight" if step // RUN % 2 == 0 else "ArrowLeft" for step in range(count)]


def step_figure(
    browser, url: str, mode: str, plot: str, slider: int, steps: int, warmup: int, settle_ms: int
) -> dict:
    blocked, errors = [], []
    context = sealed_context(browser, blocked)
    page = context.new_page()
    page.on("pageerror", lambda error: errors.append(str(error)))
    opened = time.monotonic()
    page.goto(url)
    page.wait_for_function(READY[mode], timeout=READY_TIMEOUT_MS)
    page.wait_for_function(f"() => window.posvizBench.watch({plot!r})")
    ready_s = time.monotonic() - opened
    latencies = []
    for key in keys(warmup + steps):
        latencies.append(press_and_wait(page, 0, slider, plot, key))
        page.wait_for_timeout(settle_ms)
    context.close()
    measured = latencies[warmup:]
    result = summary(measured)
    return {
        "url": url,
        "ready_s": round(ready_s, 1),
        **result,
        "median_ratio": round(result["median"] / TARGET_MEDIAN_MS, 2),
        "p95_ratio": round(result["p95"] / TARGET_P95_MS, 2),
        "warmup_ms": [round(x, 1) for x in latencies[:warmup]],
        "steps_ms": [round(x, 1) for x in measured],
        "blocked_requests": blocked,
        "page_errors": errors,
    }


def measure(base: str, mode: str, steps: int, warmup: int, settle_ms: int) -> dict:
    suffix = ".html" if mode == "export" else ""
    with chromium() as browser:
        return {
            str(figure_id): step_figure(
                browser,
                f"{base}/figure-{figure_id}{suffix}",
                mode,
                plot,
                slider,
                steps,
                warmup,
                settle_ms,
            )
            for figure_id, (plot, slider) in FIGURES.items()
        }


def report(results: dict):
    rows = []
    for mode, figures in results["modes"].items():
        for figure_id, r in figures.items():
            rows.append(
                [
                    figure_id,
                    mode,
                    r["n"],
                    r["median"],
                    r["p95"],
                    r["max"],
                    r["median_ratio"],
                    r["p95_ratio"],
                    " ".join(f"{x:.0f}" for x in r["warmup_ms"]),
                    len(r["blocked_requests"]) + len(r["page_errors"]),
                ]
            )
    yield (
        table(
            "Slider to plot drawn, per figure (ms; ratio = value / target: "
            f"median {TARGET_MEDIAN_MS}, p95 {TARGET_P95_MS})",
            [
                "figure",
                "where",
                "steps",
                "median",
                "p95",
                "max",
                "median ratio",
                "p95 ratio",
                "warm-up steps",
                "blocked+errors",
            ],
            rows,
        )
    )


def options(parser) -> None:
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--settle-ms", type=int, default=200)
    parser.add_argument("--port", type=int, default=5082)
    parser.add_argument("--only", choices=["export", "serve"], help="measure one side only")


def measure_all(args) -> dict:
    modes = {}
    if args.only in (None, "export"):
        with static_server(args.site or built_site()) as base:
            modes["export"] = measure(base, "export", args.steps, args.warmup, args.settle_ms)
    if args.only in (None, "serve"):
        with panel_serve(args.port):
            modes["serve"] = measure(
                f"http://127.0.0.1:{args.port}", "serve", args.steps, args.warmup, args.settle_ms
            )
    return {
        "steps": args.steps,
        "warmup": args.warmup,
        "settle_ms": args.settle_ms,
        "run": RUN,
        "modes": modes,
        "wall_s": round(elapsed(args), 1),
    }


BENCHMARK = Benchmark(
    name="slider_latency",
    doc=__doc__,
    measure=measure_all,
    report=lambda results, args: report(results),
    site="one",
    options=options,
)

if __name__ == "__main__":
    sys.exit(run(BENCHMARK))
