"""Benchmark: each tier of the topic page on a real link, in bytes and seconds, beside stock.

The export is served through ``benchmarks/link.py``: one shared link (9 Mbit/s
with 85 ms per response, and 3 Mbit/s with 150 ms), gzip on text and wasm, so
that every request, the page's and the worker's, crosses it. Chromium opens the
topic page cold (a fresh profile, everything off loopback blocked, service
workers blocked: the first visit is measured, not the offline cache) and
records, per tier, the time (the link's clock) and the bytes that had crossed:

* **first text**: the first contentful paint;
* **figures painted**: every pre-rendered Bokeh root drawn;
* **first answer**: a press on figure 710's first slider, made by the page at
  its paint, answered (the plot's data redrawn): the frames tier;
* **any state**: two sliders on figure 4121 moved once the frames are in (no
  frame holds that state) and answered: the numpy tier;
* **all loaded**: when nothing was left to load (the link quiet for a while);
* **live**: Panel's document drawn: by itself (before issue 29), or, with Panel
  on demand, asked for (``posvizNeedPanel()``) once all was loaded, so that its
  bytes and memory are known too.

Stock `panel convert` of the same page (benchmarks/baseline_site.py) runs on
the same link in the same run: its text, paint, live and first answer (a press
once live: before that it has nothing that answers).

The bytes before the paint are profiled: which files, in which order, and who
asked (the page or the worker). The page's and the worker's memory are read at
each tier over the DevTools protocol (JS heap of each, and Pyodide's wasm memory).
"""

import argparse
import json
import sys
import time
from pathlib import Path

from benchmarks.baseline_site import build_baseline
from benchmarks.common import OUT, PAGE_TIMERS, built_site, chromium, table
from benchmarks.first_answer import PAINTED, PRESS_AT_PAINT_JS
from benchmarks.link import LINKS, throttled
from benchmarks.runner import Benchmark, run
from tests.support.browser import sealed_context

PAGE = "topic-positional-encoding.html"
TIMEOUT = 600_000  # ms: stock on 3 Mbit/s is about 60 MB
# A phone's page: 390 px wide, three device pixels to a CSS pixel (canvases are drawn
# at that density), touch, a mobile browser's layout. Tall enough to hold the whole
# topic: a phone's 844 px would leave the figures below the fold undrawn (lazy.js),
# where the tiers wait for all of them; this is the reader who has scrolled through.
PHONE = {
    "viewport": {"width": 390, "height": 9000},
    "device_scale_factor": 3,
    "is_mobile": True,
    "has_touch": True,
}
QUIET_S = 8.0  # the link this long without a response: nothing is left to load
# Figure 4121, its query row and column each one step on: a state no frame holds.
ANY_STATE_JS = """() => {
  const figure = posvizFrames.figures[4121];
  const widgets = figure.models.widgets;
  window.posvizAnyStateAt = performance.now();
  widgets.row.value = widgets.row.value + 1;
  widgets.col.value = widgets.col.value + 1;
}"""
ANSWERED = "() => window.posvizFrames && posvizFrames.computed[4121] !== undefined"
FRAMES_IN = (
    "() => document.body.dataset.posvizFrames && document.body.dataset.posvizFrames !== 'loading'"
)
# The page has all it will load by itself: live (Panel), numpy (no Panel needed), or error.
SETTLED = "() => ['live', 'numpy', 'error'].includes(document.body.dataset.posviz)"
FCP = "performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? null"
# Targets of issue 29 (both links).
TARGETS = {
    "MB before the paint": 1.0,
    "paint ÷ stock's paint": 1.0,
    "MB before the first answer": 1.5,
    "first answer ÷ paint": 1.2,
    "MB before any state": 10.0,
    "MB until nothing is left to load": 10.0,
}
TIERS = ("first text", "figures painted", "first answer", "any state", "all loaded", "live")


class Clock:
    """The page's performance.now() on the link's clock (seconds since the link's reset)."""

    def __init__(self, page, link):
        self.offset = page.evaluate("performance.timeOrigin") / 1000 - link.wall

    def at(self, ms: float | None) -> float | None:
        return None if ms is None else round(self.offset + ms / 1000, 3)


def who(entry: dict) -> str:
    """Who asked for a file: the worker (its script is the Referer), or the page."""
    referer = entry["referer"]
    if "worker" in referer:
        return "worker"
    return "page" if referer else "navigation"


def profile(link, until: float) -> list[dict]:
    """The responses that started before ``until``: path, bytes, times, who asked."""
    return [
        {
            "path": e["path"],
            "bytes": e["bytes"],
            "start": e["start"],
            "end": e["end"],
            "who": who(e),
        }
        for e in link.log
        if e["start"] < until
    ]


def quiet(page, link) -> float:
    """Waits until no response has been under way for QUIET_S; when the last ended."""
    while True:
        busy = [e for e in link.log if e["end"] is None]
        last = max((e["end"] for e in link.log if e["end"] is not None), default=0.0)
        if not busy and link.now() - last >= QUIET_S:
            return last
        page.wait_for_timeout(500)


def tier(seconds: float | None, link) -> dict | None:
    if seconds is None:
        return None
    return {"s": round(seconds, 2), "bytes": link.bytes_until(seconds)}


class Memory:
    """JS heap of the page and of the SharedWorker, and Pyodide's wasm memory, over CDP."""

    def __init__(self, browser, page):
        self.page = page
        self.session = page.context.new_cdp_session(page)
        self.browser = browser.new_browser_cdp_session()
        self.answers: dict = {}
        self.browser.on("Target.receivedMessageFromTarget", self._received)
        self.worker = None
        self.next_id = 0

    def _received(self, event):
        message = json.loads(event["message"])
        if "id" in message:
            self.answers[message["id"]] = message.get("result", {})

    def _attach(self) -> str | None:
        if self.worker is None:
            targets = self.browser.send("Target.getTargets")["targetInfos"]
            workers = [t for t in targets if t["type"] == "shared_worker"]
            if workers:
                self.worker = self.browser.send(
                    "Target.attachToTarget", {"targetId": workers[-1]["targetId"], "flatten": False}
                )["sessionId"]
        return self.worker

    def _in_worker(self, method: str, params: dict) -> dict:
        self.next_id += 1
        ask = {"id": self.next_id, "method": method, "params": params}
        self.browser.send(
            "Target.sendMessageToTarget", {"sessionId": self.worker, "message": json.dumps(ask)}
        )
        for _ in range(400):  # the worker answers between two of its tasks
            if self.next_id in self.answers:
                return self.answers.pop(self.next_id)
            self.page.wait_for_timeout(50)
        return {}

    def read(self) -> dict:
        found = {"page_heap": self.session.send("Runtime.getHeapUsage")["usedSize"]}
        if self._attach():
            found["worker_heap"] = self._in_worker("Runtime.getHeapUsage", {}).get("usedSize")
            wasm = self._in_worker(
                "Runtime.evaluate",
                {"expression": "emscripten ? emscripten.HEAPU8.buffer.byteLength : 0"},
            )
            found["wasm"] = wasm.get("result", {}).get("value")
        return found


def posviz_run(browser, site: Path, mbit: float, latency: float, device: dict) -> dict:
    """One cold visit of the topic; ``device``: Playwright's context options (a phone's)."""
    with throttled(site, mbit, latency) as (base, link):
        blocked: list = []
        context = sealed_context(
            browser,
            blocked,
            (PAGE_TIMERS, PRESS_AT_PAINT_JS),
            panel="on demand",
            service_workers="block",
            **device,
        )
        page = context.new_page()
        memory = Memory(browser, page)
        link.reset()
        page.goto(f"{base}/{PAGE}", wait_until="commit")
        clock = Clock(page, link)
        page.wait_for_function(PAINTED, timeout=TIMEOUT)
        painted = clock.at(page.evaluate("posvizBench.firstPaint"))
        mem = {"figures painted": memory.read()}
        page.wait_for_function("() => window.posvizAtPaint.answered !== null", timeout=TIMEOUT)
        answered = clock.at(page.evaluate("posvizAtPaint.answered"))
        page.wait_for_function(FRAMES_IN, timeout=TIMEOUT)
        mem["first answer"] = memory.read()
        page.evaluate(ANY_STATE_JS)
        page.wait_for_function(ANSWERED, timeout=TIMEOUT)
        any_state = clock.at(page.evaluate("posvizFrames.computed[4121]"))
        mem["any state"] = memory.read()
        panel_at_any_state = [e["path"] for e in link.log if e["path"] in panel_files(site)]
        page.wait_for_function(SETTLED, timeout=TIMEOUT)
        last = quiet(page, link)
        mem["all loaded"] = memory.read()
        status = page.evaluate("document.querySelector('.posviz-status')?.textContent ?? ''")
        state = page.evaluate("document.body.dataset.posviz")
        asked = None
        if state == "numpy":  # Panel on demand: what going live would cost, asked now
            asked = link.now()
            page.evaluate("window.posvizNeedPanel()")
            page.wait_for_function("() => window.posvizLiveMs !== undefined", timeout=TIMEOUT)
            mem["live (asked)"] = memory.read()
        live = clock.at(page.evaluate("window.posvizLiveMs ?? null"))
        result = {
            "tiers": {
                "first text": tier(clock.at(page.evaluate(FCP)), link),
                "figures painted": tier(painted, link),
                "first answer": tier(answered, link),
                "any state": tier(any_state, link),
                "live": tier(live, link),
                "all loaded": tier(last, link),
            },
            # Panel on demand: when the benchmark asked for it (None: it went live itself).
            "panel_asked_s": asked,
            "panel_wheels_before_any_state": panel_at_any_state,
            "status_at_end": status,
            # Where the first answer's time went (the page's clock, ms): frames.js's stages.
            "frames_profile": page.evaluate(
                "({pressed: posvizAtPaint.pressed, answered: posvizAtPaint.answered,"
                " started: posvizFrames.startedAt, listening: posvizFrames.listeningAt,"
                " ready: posvizFrames.readyAt, figures: posvizFrames.profile,"
                " paint: posvizBench.firstPaint})"
            ),
            "state_at_end": state,
            "panel_files_sent": [e["path"] for e in link.log if e["path"] in panel_files(site)],
            "memory": mem,
            "profile_before_paint": profile(link, painted),
            "log": link.log,
            "blocked": len(blocked),
        }
        context.close()
    return result


def stock_run(browser, site: Path, mbit: float, latency: float) -> dict:
    from benchmarks.common import press_and_wait, topic_figures
    from benchmarks.first_answer import PLOT
    from posviz.figures import ClockHands

    figure = topic_figures().index(ClockHands.figure_id)
    with throttled(site, mbit, latency) as (base, link):
        context = sealed_context(browser, [], (PAGE_TIMERS,), service_workers="block")
        page = context.new_page()
        link.reset()
        page.goto(f"{base}/{PAGE}", wait_until="commit")
        clock = Clock(page, link)
        page.wait_for_function(PAINTED, timeout=TIMEOUT)
        page.wait_for_function("() => window.posvizBench.live !== null", timeout=TIMEOUT)
        bench = page.evaluate("window.posvizBench")
        latency_ms = press_and_wait(page, figure, 0, PLOT, "ArrowRight", timeout_ms=TIMEOUT)
        result = {
            "tiers": {
                "first text": tier(clock.at(page.evaluate(FCP)), link),
                "figures painted": tier(clock.at(bench["firstPaint"]), link),
                "first answer": tier(clock.at(bench["live"] + latency_ms), link),
                "any state": tier(clock.at(bench["live"] + latency_ms), link),
                "live": tier(clock.at(bench["live"]), link),
                "all loaded": tier(quiet(page, link), link),
            },
            "profile_before_paint": profile(link, clock.at(bench["firstPaint"])),
        }
        context.close()
    return result


def panel_files(site: Path) -> set[str]:
    """The files only Panel's tier needs: the wheels and packages not in the numpy tier's."""
    script = (site / "posviz-worker.js").read_text()
    config = json.loads(script.split("const SITE = ", 1)[1].split(";\n", 1)[0])
    wheels = {
        w["path"] for i, w in enumerate(config["wheels"]) if i not in config["numpy"]["wheels"]
    }
    return wheels | {p["path"] for p in config["packages"] if not p.get("numpy")}


def ratios(ours: dict, stock: dict | None) -> dict:
    tiers = ours["tiers"]
    mb = lambda name: round(tiers[name]["bytes"] / 1e6, 2) if tiers[name] else None  # noqa: E731
    found = {
        "MB before the paint": mb("figures painted"),
        "MB before the first answer": mb("first answer"),
        "first answer ÷ paint": round(
            tiers["first answer"]["s"] / tiers["figures painted"]["s"], 2
        ),
        "MB before any state": mb("any state"),
        "MB until nothing is left to load": mb("all loaded"),
    }
    if stock:
        found["paint ÷ stock's paint"] = round(
            tiers["figures painted"]["s"] / stock["tiers"]["figures painted"]["s"], 2
        )
    return found


def options(parser) -> None:
    parser.add_argument(
        "--link",
        action="append",
        choices=list(LINKS),
        help="these links only (default: both)",
    )
    parser.add_argument(
        "--stock",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="also stock `panel convert` on the same link (built into --stock-site)",
    )
    parser.add_argument("--stock-site", type=Path, default=OUT / "baseline-stock")
    parser.add_argument(
        "--phone",
        action="store_true",
        help="posviz as a phone opens it (390 px, 3x pixels, touch): its memory at each tier",
    )


def measure(args) -> dict:
    site = args.site or built_site()
    if args.stock and not (args.stock_site / PAGE).is_file():
        build_baseline(args.stock_site)
    found: dict = {"links": {}, "targets": TARGETS}
    for name in args.link or list(LINKS):
        mbit, latency = LINKS[name]
        runs: dict = {"posviz": [], "stock": []}
        for index in range(args.rounds):
            started = time.monotonic()
            with chromium() as browser:
                device = PHONE if args.phone else {}
                runs["posviz"].append(posviz_run(browser, site, mbit, latency, device))
                if args.stock:
                    runs["stock"].append(stock_run(browser, args.stock_site, mbit, latency))
            print(f"{name}, round {index + 1}/{args.rounds}: {time.monotonic() - started:.0f} s")
        found["links"][name] = {
            "runs": runs,
            "ratios": [
                ratios(ours, stock)
                for ours, stock in zip(
                    runs["posviz"], runs["stock"] or [None] * len(runs["posviz"]), strict=True
                )
            ],
        }
    return found


def report(results: dict, args):
    for name, found in results["links"].items():
        ours = found["runs"]["posviz"][0]
        stock = found["runs"]["stock"][0] if found["runs"]["stock"] else None
        rows = []
        for what in TIERS:
            row = [what, *_cell(ours["tiers"][what])]
            if stock:
                row += _cell(stock["tiers"][what])
            rows.append(row)
        header = ["tier", "posviz s", "posviz MB"] + (["stock s", "stock MB"] if stock else [])
        yield table(f"Topic page, cold, on {name} (round 1)", header, rows)
        measured = found["ratios"][0]
        yield table(
            f"Targets on {name}",
            ["measure", "measured", "target", ""],
            [[k, measured.get(k), f"≤ {v}", _met(measured.get(k), v)] for k, v in TARGETS.items()],
        )
        mem = ours["memory"]
        yield table(
            f"Memory on {name} (MB)",
            ["tier", "page JS heap", "worker JS heap", "Pyodide wasm"],
            [
                [t, _mb(m.get("page_heap")), _mb(m.get("worker_heap")), _mb(m.get("wasm"))]
                for t, m in mem.items()
            ],
        )
        yield table(
            f"Bytes before the paint on {name}, in the order asked",
            ["start s", "end s", "who", "KB", "path"],
            [
                [p["start"], p["end"], p["who"], round(p["bytes"] / 1e3, 1), p["path"]]
                for p in ours["profile_before_paint"]
            ],
        )
        yield (
            f"at the end: data-posviz={ours['state_at_end']!r}; status {ours['status_at_end']!r}; "
            "Panel wheels asked before any state answered: "
            f"{len(ours['panel_wheels_before_any_state'])}"
        )


def _cell(entry: dict | None) -> list:
    if entry is None:
        return ["–", "–"]
    return [entry["s"], round(entry["bytes"] / 1e6, 2)]


def _mb(value) -> str:
    return "–" if value is None else f"{value / 1e6:.1f}"


def _met(value, bound) -> str:
    if value is None:
        return "not measured"
    return "met" if value <= bound else "missed"


BENCHMARK = Benchmark(
    name="link_tiers",
    doc=__doc__,
    measure=measure,
    report=report,
    rounds=1,
    site="one",
    options=options,
)

if __name__ == "__main__":
    sys.exit(run(BENCHMARK))
