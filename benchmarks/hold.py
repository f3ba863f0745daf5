"""A slider pressed the moment a page goes live, with the pointer resting on it or not.

Once the topic page is live, Python fills the figures it left for later, one per
call, and a change the reader makes waits for the call under way. While the
reader is at a figure's controls (the pointer resting on them, or a key pressed
in them), no fill starts (export/lazy.js says "hold"; worker.js, fill_gate.js).
This measures what that buys, on one export, cold, in a fresh browser profile
each round, the variants interleaved; the press is a key each time:

- **resting**: the pointer is moved onto the first figure's stepped slider once the
  preview has painted, and stays there: the reader who waits for the page to answer;
- **away**: the pointer rests on the page's title: the hold starts with the keydown;
- **tabbed**: the pointer rests on the title, and once the preview has painted the
  reader presses Tab until the focus is on that slider: a keyboard reader.

With ``--before SITE`` (a build of the code before), one more arm presses on that
build as ``--before-variant`` says (``away`` unless told): what readers got before.

Per round: the ms from the keydown, sent the moment the page is live, to the plot's
new data drawn; and how many figures Python had filled by then. Reported: medians,
and each ÷ the build before's (or resting ÷ away without one).

    python -m benchmarks.hold --site /tmp/site --before /tmp/site_before --rounds 5
"""

import statistics
import sys

from playwright.sync_api import TimeoutError as PlaywrightTimeout

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
from tests.support.pages import deep_focus, figure_card

TOPIC = "topic-positional-encoding.html"
VARIANTS = ("resting", "away", "tabbed")  # on --site; "before" on --before
PAINTED = "() => window.posvizBench && window.posvizBench.firstPaint !== null"
LIVE = "() => document.body.dataset.posviz === 'live'"


TABS_MAX = 60
LOST_MS = 10_000  # a press not answered by then went elsewhere


def tab_to(page, handle) -> None:
    """Press Tab, as a keyboard reader does, until the focus is on ``handle``."""
    label = handle.get_attribute("aria-label")  # the slider's, as deep_focus reads it
    for _ in range(TABS_MAX):
        page.keyboard.press("Tab")
        focused = deep_focus(page) or {}
        if "noUi-handle" in focused.get("cls", "") and focused.get("label") == label:
            return
    raise SystemExit(f"{TABS_MAX} presses of Tab never reached the slider")


def one_load(browser, url: str, variant: str, figure: int, slider: int, plot: str) -> dict:
    blocked: list = []
    context = sealed_context(browser, blocked)
    page = context.new_page()
    page.set_viewport_size({"width": 1280, "height": 900})
    try:
        page.goto(f"{url}/{TOPIC}")
        page.wait_for_function(PAINTED, timeout=60_000)
        handle = figure_card(page, 0).locator(".noUi-handle").nth(slider)
        if variant == "resting":
            handle.hover()
        else:
            page.locator("main h1").first.hover()
        if variant == "tabbed":
            tab_to(page, handle)
        page.wait_for_function(LIVE, timeout=180_000, polling=5)
        try:
            answer = press_and_wait(
                page, 0, slider, plot, "ArrowRight", LOST_MS, where_focused=variant == "tabbed"
            )
        except PlaywrightTimeout:  # the key went where the focus was: not to the slider
            answer = None
        filled = page.evaluate("posvizLazy.filled.length")
        held = page.evaluate("(posvizLazy.holds || []).slice()")  # none before "hold"
        if blocked:
            raise SystemExit(f"the page asked the network for {blocked[:3]}")
        return {
            "answer_ms": None if answer is None else round(answer, 1),
            "filled_before": filled,
            "holds": held,
        }
    finally:
        context.close()


def summary(rows: list[dict]) -> dict:
    """Medians of the answered presses, and how many presses were lost."""
    answered = [r for r in rows if r["answer_ms"] is not None]

    def median(measure: str):
        return statistics.median(r[measure] for r in answered) if answered else None

    return {
        "answer_ms": median("answer_ms"),
        "filled_before": median("filled_before"),
        "lost": len(rows) - len(answered),
    }


def base_of(medians: dict) -> str:
    """The arm the others are divided by: the build before, unless its presses were all
    lost (a keyboard reader's, before the focus went live with the slider); then away."""
    return "before" if medians.get("before", {}).get("answer_ms") is not None else "away"


def ratio(answer, base):
    """answer ÷ base, or None when either press was lost."""
    return None if answer is None or base is None else round(answer / base, 3)


def measure(args) -> dict:
    site = args.site or built_site()
    figure = topic_figures()[0]
    slider, plot = stepped_slider(figure), plot_name(figure)  # before any page: no delay at live
    arms = [(variant, variant) for variant in VARIANTS]
    arms += [("before", args.before_variant)] * bool(args.before)
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
    medians = {variant: summary(rows) for variant, rows in runs.items()}
    base_arm = base_of(medians)
    base = medians[base_arm]["answer_ms"]
    return {
        "site": str(site),
        "before": str(args.before) if args.before else None,
        "before_variant": args.before_variant if args.before else None,
        "figure": figure,
        "rounds": args.rounds,
        "runs": runs,
        "medians": medians,
        "base": base_arm,
        "over_base": {arm: ratio(m["answer_ms"], base) for arm, m in medians.items()},
    }


LABELS = {
    "away": "pointer away",
    "resting": "pointer resting on the slider",
    "tabbed": "Tab to the slider, pointer away",
}


def label(arm: str, results: dict) -> str:
    if arm == "before":
        return f"build before, {LABELS[results.get('before_variant') or 'away']}"
    return LABELS[arm]


def report(results, _args):
    medians = results["medians"]
    base = "the build before" if results.get("base") == "before" else "pointer away"
    yield table(
        f"A press at live on figure {results['figure']}, cold topic, medians of"
        f" {results['rounds']} rounds",
        ["arm", "keydown to new data drawn, ms", f"÷ {base}", "figures filled before it", "lost"],
        [
            [
                label(arm, results),
                m["answer_ms"],
                results["over_base"][arm],
                m["filled_before"],
                f"{m['lost']} of {results['rounds']}",
            ]
            for arm, m in medians.items()
        ],
    )


def options(parser):
    parser.add_argument("--before", type=site_folder, help="a build of the code before")
    parser.add_argument(
        "--before-variant",
        choices=VARIANTS,
        default="away",
        help="what the reader does on --before (default away)",
    )


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
