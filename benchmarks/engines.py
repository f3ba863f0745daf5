"""Benchmark: the cold topic in each engine, as a ratio to that engine's own floor.

Per engine (Chromium, Firefox, WebKitGTK; tests/support/engines.py drives them) and
per round, each on a new loopback port, so with a cold cache and no runtime:

- floor: the bare page that starts the site's own Pyodide and imports numpy
  (benchmarks/runtime.py's FLOOR_PAGE), ms from navigation start;
- topic: the topic page until a keyboard step on its first slider has redrawn
  the plot, ms from navigation start (the in-page clock, as for the floor).

Both times come from the page's own clock, so the driver's round trips count
in neither. Reported: the median over rounds of topic ÷ floor, per engine.
"""

import statistics
import sys
import time

from benchmarks.common import (
    built_site,
    plot_name,
    static_server,
    summary,
    table,
    topic_figures,
)
from benchmarks.runner import Benchmark, run
from benchmarks.runtime import FLOOR_PAGE, TOPIC
from tests.support.engines import ENGINES, start

LIVE = 240.0
PLOT = plot_name(topic_figures()[0])  # the topic's first figure


def floor_ms(engine, site) -> float:
    with static_server(site, {"bench-floor.html": lambda _: FLOOR_PAGE.encode()}) as base:
        page = engine.page()
        page.goto(f"{base}/bench-floor.html")
        value = page.wait_for("() => window.floorMs", timeout=LIVE, what="the floor page")
        page.close()
    return value


def topic_ms(engine, site) -> float:
    with static_server(site) as base:
        page = engine.page()
        page.goto(f"{base}/{TOPIC}")
        state = page.wait_probe("settled", timeout=LIVE)
        if state != "live":
            raise RuntimeError(f"{engine.name}: the topic did not go live: {page.probe('status')}")
        before = page.wait_probe("fingerprint", PLOT)
        page.probe("focus", 0, 0)
        page.press("ArrowRight")
        page.wait_probe("changed", PLOT, before)
        value = page.evaluate("() => performance.now()")
        page.close()
    return value


def measure(name: str, site, rounds: int) -> dict:
    started = time.perf_counter()
    engine = start(name)
    runs = []
    try:
        for _ in range(rounds):
            floor = floor_ms(engine, site)
            topic = topic_ms(engine, site)
            runs.append({"floor_ms": round(floor), "topic_ms": round(topic)})
            print(f"  {name}: floor {floor:.0f} ms, topic {topic:.0f} ms", flush=True)
        blocked = engine.site_blocked()
    finally:
        engine.close()
    return {
        "version": engine.version,
        "rounds": rounds,
        "topic_over_floor": round(
            statistics.median(r["topic_ms"] / r["floor_ms"] for r in runs), 2
        ),
        "floor_ms": summary([r["floor_ms"] for r in runs]),
        "topic_ms": summary([r["topic_ms"] for r in runs]),
        "runs": runs,
        "blocked_requests": len(blocked),
        "wall_s": round(time.perf_counter() - started),
    }


def load_average() -> str:
    return " ".join(open("/proc/loadavg").read().split()[:3])


def options(parser) -> None:
    parser.add_argument("--engine", action="append", choices=ENGINES, help="default: all three")


def measure_all(args) -> dict:
    site = args.site or built_site()
    load_before = load_average()
    results = {name: measure(name, site, args.rounds) for name in args.engine or ENGINES}
    return {"load_average": {"before": load_before, "after": load_average()}, "engines": results}


def report(found: dict, args):
    load, results = found["load_average"], found["engines"]
    rows = [
        [
            name,
            r["version"],
            r["rounds"],
            r["topic_over_floor"],
            r["floor_ms"]["median"],
            r["topic_ms"]["median"],
            r["blocked_requests"],
        ]
        for name, r in results.items()
    ]
    yield (
        table(
            f"Cold topic ÷ floor, per engine (load average {load['before']} → {load['after']})",
            ["engine", "version", "rounds", "topic ÷ floor", "floor ms", "topic ms", "blocked"],
            rows,
        )
    )


BENCHMARK = Benchmark(
    name="engines",
    doc=__doc__,
    measure=measure_all,
    report=report,
    rounds=3,
    site="one",
    options=options,
)

if __name__ == "__main__":
    sys.exit(run(BENCHMARK))
