"""Benchmark: one Python per reader (issue 9). Every number is a ratio of two
times measured in the same run, so it holds on any machine.

- floor: a bare page that starts the site's own Pyodide, loads numpy and
  imports it; the topic's cold time until a slider answers ÷ that floor.
- docs page: a plain HTML page embedding the four figure views as iframes;
  time until every figure has answered a slider ÷ the same for one figure
  page, and the browser's memory (PSS of all its processes) for both.
- reading order: the topic cold, then every page in the site's reading order
  in the same tab; time until each answers ÷ the topic's cold time.
- second tab: the topic in a second tab while the first is open ÷ cold.

"Answers" means a slider step redrew the plot (pages without figures: live).
Run it against another build with --site (e.g. the one before SharedWorker).
"""

import json
import re
import statistics
import sys
import time
from pathlib import Path

from benchmarks.common import (
    RESULTS,
    built_site,
    chromium,
    plot_name,
    sealed_context,
    static_server,
    stepped_slider,
    summary,
    table,
)
from benchmarks.runner import Benchmark, run, target

LIVE_TIMEOUT = 180_000
TOPIC = "topic-positional-encoding.html"
# The docs page embeds the seed's four figures, as a docs author embeds a few (the targets
# name four iframes; a page of all nine measured how nine pages share one runtime, not that).
FIGURES = (96, 710, 7256, 4121)

FLOOR_PAGE = """<!DOCTYPE html><html><head><meta charset="utf-8"><title>floor</title>
<script src="pyodide/pyodide.js"></script></head><body><script>
(async () => {
  const pyodide = await loadPyodide({indexURL: "pyodide/", fullStdLib: false});
  await pyodide.loadPackage(["numpy"], {messageCallback: () => {}, checkIntegrity: true});
  pyodide.runPython("import numpy");
  window.floorMs = performance.now();
})();
</script></body></html>
"""

DOCS_PAGE = """<!DOCTYPE html><html><head><meta charset="utf-8"><title>docs</title></head>
<body>{frames}</body></html>
"""


def bench_pages() -> dict:
    """The floor and docs pages, served beside the site (never written into it)."""
    frames = "\n".join(
        f'<iframe src="figure-{f}.html" width="1200" height="700"></iframe>' for f in FIGURES
    )
    pages = {"bench-floor.html": FLOOR_PAGE, "bench-docs.html": DOCS_PAGE.format(frames=frames)}
    return {name: (lambda _, page=page: page.encode()) for name, page in pages.items()}


def answered(frame) -> None:
    """Wait until ``frame`` is live and a slider step of its first figure has redrawn the plot
    that step redraws (``common.plot_name`` and ``common.stepped_slider`` say which)."""
    frame.wait_for_function(
        "() => document.body && ['live', 'error'].includes(document.body.dataset.posviz)",
        timeout=LIVE_TIMEOUT,
    )
    if frame.evaluate("document.body.dataset.posviz") != "live":
        raise RuntimeError(f"{frame.url}: " + frame.locator(".posviz-status").inner_text())
    islands = frame.locator(".posviz-island")
    if islands.count() == 0:
        return
    figure_id = int(islands.first.get_attribute("data-figure"))
    frame.evaluate(f"window.posvizBench.watch({plot_name(figure_id)!r})")
    count = frame.evaluate("window.posvizBench.latencies.length")
    islands.first.locator(".noUi-handle").nth(stepped_slider(figure_id)).press("ArrowRight")
    frame.wait_for_function(f"() => window.posvizBench.latencies.length > {count}", timeout=30_000)


def open_until_answered(page, url: str) -> float:
    started = time.perf_counter()
    page.goto(url)
    answered(page)
    return (time.perf_counter() - started) * 1000


def memory_mb(browser) -> float:
    """PSS of every process of this browser, from Chromium's own process list."""
    session = browser.new_browser_cdp_session()
    processes = session.send("SystemInfo.getProcessInfo")["processInfo"]
    session.detach()
    total = 0
    for process in processes:
        try:
            rollup = Path(f"/proc/{process['id']}/smaps_rollup").read_text()
        except OSError:
            continue
        total += int(re.search(r"^Pss:\s+(\d+)", rollup, re.M).group(1))
    return round(total / 1024, 1)


def floor_ms(base: str, blocked: list[str]) -> float:
    """The floor, in a fresh browser: the bare page's Pyodide has imported numpy."""
    with chromium() as browser:
        context = sealed_context(browser, blocked)
        page = context.new_page()
        page.goto(f"{base}/bench-floor.html")
        page.wait_for_function("() => window.floorMs", timeout=LIVE_TIMEOUT)
        value = page.evaluate("window.floorMs")
        context.close()
    return value


def run_once(base: str, site: Path) -> dict:
    blocked: list[str] = []
    result = {"floor_ms": floor_ms(base, blocked)}
    with chromium() as browser:  # the topic cold, a second tab, then the reading order
        context = sealed_context(browser, blocked)
        first = context.new_page()
        result["topic_cold_ms"] = open_until_answered(first, f"{base}/{TOPIC}")
        second = context.new_page()
        result["second_tab_ms"] = open_until_answered(second, f"{base}/{TOPIC}")
        second.close()
        pages = json.loads((site / "site.json").read_text("utf-8"))["pages"]
        result["reading_ms"] = {
            p["path"]: open_until_answered(first, f"{base}/{p['path']}")
            for p in pages
            if p["kind"] == "page"
        }
        context.close()
    with chromium() as browser:
        context = sealed_context(browser, blocked)
        page = context.new_page()
        result["one_figure_ms"] = open_until_answered(page, f"{base}/figure-710.html")
        result["one_figure_memory_mb"] = memory_mb(browser)
        context.close()
    with chromium() as browser:
        context = sealed_context(browser, blocked)
        page = context.new_page()
        started = time.perf_counter()
        page.goto(f"{base}/bench-docs.html")
        for frame in page.frames[1:]:
            answered(frame)
        result["docs_four_ms"] = (time.perf_counter() - started) * 1000
        result["docs_four_memory_mb"] = memory_mb(browser)
        runtimes = {  # the build before SharedWorker has no posvizRuntime: one each
            frame.evaluate("window.posvizRuntime ? window.posvizRuntime.id : Math.random()")
            for frame in page.frames[1:]
        }
        result["docs_runtimes"] = len(runtimes)
        result["docs_frames"] = [timeline(page, frame) for frame in page.frames[1:]]
        context.close()
    result["blocked"] = len(blocked)
    return result


# Where the docs page's time goes, per iframe: when it painted its pre-render
# and went live (ms from the docs page's own start), and the worker's timings.
TIMELINE_JS = """() => ({
  origin: performance.timeOrigin, paint: window.posvizBench && window.posvizBench.firstPaint,
  live: window.posvizLiveMs || null, timings: window.posvizTimings || {},
  connection: window.posvizRuntime ? window.posvizRuntime.connection : null,
})"""


def timeline(page, frame) -> dict:
    origin = page.evaluate("performance.timeOrigin")
    seen = frame.evaluate(TIMELINE_JS)
    offset = seen["origin"] - origin

    def since_docs(ms):
        return round(offset + ms) if ms is not None else None

    return {
        "figure": frame.url.rsplit("/", 1)[-1].split(".html")[0],
        "connection": seen["connection"],
        "painted_ms": since_docs(seen["paint"]),
        "live_ms": since_docs(seen["live"]),
        "worker_ms": seen["timings"],
    }


def ratios(run: dict) -> dict:
    cold = run["topic_cold_ms"]
    return {
        "topic_cold_over_floor": run["topic_cold_ms"] / run["floor_ms"],
        "docs_four_over_one": run["docs_four_ms"] / run["one_figure_ms"],
        "second_tab_over_cold": run["second_tab_ms"] / cold,
        "reading_worst_over_cold": max(run["reading_ms"].values()) / cold,
    }


# From the one table, results_md.TARGETS.
TARGETS = {
    "topic_cold_over_floor": target("one Python per reader: topic cold ÷ floor (Pyodide + numpy)"),
    "docs_four_over_one": target("one Python per reader: four figure iframes ÷ one figure page"),
    "second_tab_over_cold": target("one Python per reader: second tab ÷ topic cold"),
    "reading_worst_over_cold": target(
        "one Python per reader: slowest later page in reading order ÷ topic cold"
    ),
}


def derive(runs: list[dict]) -> dict:
    """Medians over runs of each run's own ratios, times and memory."""
    keys = ["floor_ms", "topic_cold_ms", "second_tab_ms", "one_figure_ms", "docs_four_ms"]
    times = {key: summary([r[key] for r in runs]) for key in keys}
    times["reading_ms"] = {
        path: summary([r["reading_ms"][path] for r in runs]) for path in runs[0]["reading_ms"]
    }
    memory = {
        key: summary([r[key] for r in runs])
        for key in ("one_figure_memory_mb", "docs_four_memory_mb")
    }
    measured = {
        key: round(statistics.median(ratios(r)[key] for r in runs), 2) for key in ratios(runs[0])
    }
    for path in runs[0]["reading_ms"]:
        measured[f"reading {path} over cold"] = round(
            statistics.median(r["reading_ms"][path] / r["topic_cold_ms"] for r in runs), 2
        )
    return {"ratios": measured, "targets": TARGETS, "times_ms": times, "memory_mb": memory}


def report(derived: dict, title: str):
    rows = [[key, value, f"≤ {TARGETS.get(key, 0.25)}"] for key, value in derived["ratios"].items()]
    yield (table(title, ["ratio", "median", "target"], rows))
    times = [[k, v["median"]] for k, v in derived["times_ms"].items() if "median" in v]
    yield (table("Times (median ms)", ["what", "ms"], times))
    memory = [[k, v["median"]] for k, v in derived["memory_mb"].items()]
    yield (table("Browser memory (PSS of all processes, MB)", ["what", "median"], memory))


def options(parser) -> None:
    parser.add_argument(
        "--rederive", action="store_true", help="recompute results/<name>.json from its raw runs"
    )


def measure(args) -> dict:
    if args.rederive:  # the saved JSON (its machine kept), its derived numbers recomputed
        saved = json.loads((RESULTS / f"{args.name}.json").read_text())
        saved.update(derive(saved["raw"]))
        return saved
    site = args.site or built_site()
    runs = []
    with static_server(site, bench_pages()) as base:
        for index in range(args.rounds):
            runs.append(run_once(base, site))
            print(f"run {index + 1}/{args.rounds}: {json.dumps(runs[-1])}", flush=True)
    return {
        "site": site.name,
        "runs": args.rounds,
        **derive(runs),
        "docs_runtimes": [r["docs_runtimes"] for r in runs],
        "blocked_requests": sum(r["blocked"] for r in runs),
        "raw": runs,
    }


def report_run(results: dict, args):
    if args.rederive:
        title = f"One Python per reader ({args.name}, {results['runs']} runs, rederived)"
    else:
        title = f"One Python per reader ({results['site']}, {results['runs']} runs)"
    return report(results, title)


BENCHMARK = Benchmark(
    name="runtime",
    doc=__doc__,
    measure=measure,
    report=report_run,
    rounds=3,
    site="one",
    options=options,
)

if __name__ == "__main__":
    sys.exit(run(BENCHMARK))
