"""A slider pressed the moment a page goes live, with the pointer resting on it or not.

Once the topic page is live, Python fills the figures it left for later, one per
call, and a change the reader makes waits for the call under way. While the
reader is at a figure's controls (the pointer resting on them, or a key pressed
in them), no fill starts (export/lazy.js says "hold"; worker.js, fill_gate.js).
This measures what that buys, on one export, cold, in a fresh browser profile
each round, the variants interleaved; the press is a key each time:

- **resting**: the pointer is moved onto the first figure's stepped slider once the
  preview has painted, and stays there: the reader who waits for the page to answer;
- **away**: the pointer rests on the page's title: the hold starts with the keydown.

With ``--before SITE`` (a build of the code before), a third arm presses with the
pointer away on that build: what every reader got before.

Per round: the ms from the keydown, sent the moment the page is live, to the plot's
new data drawn; and how many figures Python had filled by then. Reported: medians,
and each ÷ the build before's (or resting ÷ away without one).

    python -m benchmarks.hold --site /tmp/site --before /tmp/site_before --rounds 5
"""

import statistics
import sys

from benchmarks.common import (
    built_site,
    chromium,
    plot_name,
    press_and_wait,
    sealed_context,
    site_folder,
    static_server,
    stepped_slider,
    table,
    topic_figures,
)
from benchmarks.runner import Benchmark, run
from tests.support.pages import figure_card

TOPIC = "topic-positional-encoding.html"
VARIANTS = ("resting", "away")  # on --site; "before" is "away" on --before
PAINTED = "() => window.posvizBench && window.posvizBench.firstPaint !== null"
LIVE = "() => document.body.dataset.posviz === 'live'"


def one_load(browser, url: str, variant: str, figure: int, slider: int, plot: str) -> dict:
    blocked: list = []
    context = sealed_context(browser, blocked)
    page = context.new_page()
    page.set_viewport_size({"width": 1280, "height": 900})
    try:
        page.goto(f"{url}/{TOPIC}")
        page.wait_for_function(PAINTED, timeout=60_000)
        if variant == "resting":
            figure_card(page, 0).locator(".noUi-handle").nth(slider).hover()
        else:
            page.locator("main h1").first.hover()
        page.wait_for_function(LIVE, timeout=180_000, polling=5)
        answer = press_and_wait(page, 0, slider, plot, "ArrowRight", 30_000)
        filled = page.evaluate("posvizLazy.filled.length")
        held = page.evaluate("(posvizLazy.holds || []).slice()")  # none before "hold"
        if blocked:
            raise SystemExit(f"the page asked the network for {blocked[:3]}")
        return {"answer_ms": round(answer, 1), "filled_before": filled, "holds": held}
    finally:
        context.close()


def measure(args) -> dict:
    site = args.site or built_site()
    figure = topic_figures()[0]
    slider, plot = stepped_slider(figure), plot_name(figure)  # before any page: no delay at live
    arms = [(variant, variant) for variant in VARIANTS] + [("before", "away")] * bool(args.before)
    runs = {arm: [] for arm, _ in arms}
    with (
        chromium() as browser,
        static_server(site) as url,
        static_server(args.before or site) as before,
    ):
        for round_number in range(args.rounds):
            for arm, variant in arms:
                where = before if arm == "before" else url
                result = one_load(browser, where, variant, figure, slider, plot)
                runs[arm].append(result)
                print(f"  round {round_number + 1} {arm}: {result}", flush=True)
    medians = {
        variant: {m: statistics.median(r[m] for r in rows) for m in ("answer_ms", "filled_before")}
        for variant, rows in runs.items()
    }
    base = medians["before" if args.before else "away"]["answer_ms"]
    return {
        "site": str(site),
        "before": str(args.before) if args.before else None,
        "figure": figure,
        "rounds": args.rounds,
        "runs": runs,
        "medians": medians,
        "over_base": {arm: round(m["answer_ms"] / base, 3) for arm, m in medians.items()},
    }


LABELS = {
    "before": "build before, pointer away",
    "away": "pointer away",
    "resting": "pointer resting on the slider",
}


def report(results, _args):
    medians = results["medians"]
    base = "the build before" if results["before"] else "pointer away"
    yield table(
        f"A press at live on figure {results['figure']}, cold topic, medians of"
        f" {results['rounds']} rounds",
        ["arm", "keydown to new data drawn, ms", f"÷ {base}", "figures filled before it"],
        [
            [LABELS[arm], m["answer_ms"], results["over_base"][arm], m["filled_before"]]
            for arm, m in medians.items()
        ],
    )


def options(parser):
    parser.add_argument("--before", type=site_folder, help="a build of the code before")


BENCHMARK = Benchmark(
    name="hold",
    doc=__doc__,
    measure=measure,
    report=report,
    rounds=5,
    site="one",
    options=options,
)

if __name__ == "__main__":
    sys.exit(run(BENCHMARK))
