"""Benchmark: how soon after the first paint a slider answers, with and without frames.

Cold topic page, fresh profile per run, everything off loopback blocked. Right
after the first paint the benchmark presses ArrowRight on figure 710's pos
slider and waits until a plot's data changes in answer. "frames" is the site
as built; "no frames" is the same site with posviz-frames.js withheld by the
server (the page then answers only once Python is live: the site before tier
1). Runs alternate between the two, so both see the same machine load. Also
reports the frames' bytes against the whole site.
"""

import argparse
import json

from benchmarks.common import (
    built_site,
    chromium,
    plot_name,
    sealed_context,
    site_folder,
    static_server,
    summary,
    table,
    topic_figures,
    write,
)
from posviz.figures import ClockHands

PAGE = "topic-positional-encoding.html"
FIGURE = topic_figures().index(ClockHands.figure_id)  # its place on the topic page
PLOT = plot_name(ClockHands.figure_id)
TIMEOUT = 120_000

# Resolves with the time (performance.now) at which the plot's data in the
# newest document first changed: the preview's, or Python's once it is live.
ANSWER_JS = """(plot) => {
  window.posvizAnswer = null;
  const model = Bokeh.documents.at(-1).get_model_by_name(plot);
  for (const r of model.renderers) {
    if (r.data_source) r.data_source.change.connect(() => requestAnimationFrame(() => {
      if (window.posvizAnswer === null) window.posvizAnswer = performance.now();
    }));
  }
}"""


def one_run(browser, base: str, wait_live: bool) -> dict:
    blocked: list = []
    context = sealed_context(browser, blocked)
    page = context.new_page()
    page.goto(f"{base}/{PAGE}")
    page.wait_for_function(
        "() => window.posvizBench && window.posvizBench.firstPaint !== null", timeout=TIMEOUT
    )
    if wait_live:  # without frames a value set on the preview is lost: press once live
        page.wait_for_function("() => window.posvizBench.live !== null", timeout=TIMEOUT)
    handle = page.locator(".posviz-figure").nth(FIGURE).locator(".noUi-handle").first
    handle.focus()
    page.evaluate(ANSWER_JS, PLOT)
    handle.press("ArrowRight")
    page.wait_for_function("() => window.posvizAnswer !== null", timeout=TIMEOUT)
    answered = page.evaluate("window.posvizAnswer")
    paint = page.evaluate("window.posvizBench.firstPaint")
    context.close()
    return {
        "first_paint_ms": round(paint),
        "first_answer_ms": round(answered),
        "answer_over_paint": round(answered / paint, 2),
        "blocked": len(blocked),
    }


def frame_bytes(site) -> dict:
    listed = json.loads((site / "site.json").read_text())["frames"]
    frames = sum(f["bytes"] for files in listed.values() for f in files.values())
    total = sum(p.stat().st_size for p in site.rglob("*") if p.is_file())
    return {"frame_bytes": frames, "site_bytes": total, "frames_over_site": frames / total}


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--site", type=site_folder, help="a built export (default: build one)")
    args = parser.parse_args()
    site = args.site or built_site()
    variants = {"frames": {}, "no frames": {"posviz-frames.js": lambda _: None}}
    runs = {name: [] for name in variants}
    with chromium() as browser:
        for _ in range(args.runs):
            for name, overrides in variants.items():
                with static_server(site, overrides) as base:
                    runs[name].append(one_run(browser, base, wait_live=bool(overrides)))
    results = {
        name: {key: summary([r[key] for r in found]) for key in found[0]} | {"runs": found}
        for name, found in runs.items()
    }
    size = frame_bytes(site)
    rows = [
        [
            name,
            r["first_paint_ms"]["median"],
            r["first_answer_ms"]["median"],
            r["answer_over_paint"]["median"],
            r["answer_over_paint"]["max"],
        ]
        for name, r in results.items()
    ]
    print(
        table(
            "Cold topic: first slider answer",
            ["site", "paint ms", "answer ms", "answer ÷ paint (median)", "(max)"],
            rows,
        )
    )
    print(
        f"frames: {size['frame_bytes']:,} bytes of {size['site_bytes']:,} "
        f"({size['frames_over_site']:.1%})"
    )
    write("first_answer", {"variants": results, "size": size})


if __name__ == "__main__":
    main()
