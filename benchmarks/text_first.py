"""Text first (issue 22): how much of a page is in its HTML, and what paints first.

For one or more built exports (``--site name=folder``; the first is the
reference, usually ``before``), measured interleaved in one run:

- **text in the HTML**, per page: the text a reader sees once the page is live
  (every visible text node, shadow roots included), split into its text nodes;
  the share of its characters whose node's text is also in the HTML file
  outside ``<script>`` and ``<style>`` (whitespace ignored). Target ≥ 0.95.
- **render-blocking script before the first text**, per page: bytes of
  ``<script>`` elements (external without ``defer``/``async``/module, and
  inline) that come before the page's first text in the HTML (its ``<main>``,
  or else its first Bokeh root, where the text used to be drawn). Target 0.
- **paint order** on the topic page, cold, in a fresh browser each round: the
  first contentful paint (Paint Timing), the first figure paint (every Bokeh
  root drawn, pre-render) and the first answer (live, a slider step redrawn).
  Reported: text FCP of each site ÷ the reference's first figure paint
  (target ≤ 0.3), and each site's figure paint and first answer ÷ the
  reference's (target ≤ 1).

    python -m benchmarks.text_first --site before=/tmp/before --site after=/tmp/after
"""

import json
import re
import statistics
import sys
import time
from contextlib import ExitStack
from pathlib import Path

from benchmarks.common import (
    built_site,
    chromium,
    sealed_context,
    static_server,
    table,
)
from benchmarks.runner import Benchmark, run
from benchmarks.runtime import TOPIC, answered

SCRIPT = re.compile(r"<script\b([^>]*)>(.*?)</script\s*>", re.I | re.S)
STYLE = re.compile(r"<style\b[^>]*>.*?</style\s*>", re.I | re.S)
TAG = re.compile(r"<[^>]+>")

# Every visible text node of the page, shadow roots included, in document order.
VISIBLE_TEXT_JS = """() => {
  const out = [];
  const walk = (root) => {
    for (const node of root.childNodes) {
      if (node.nodeType === Node.TEXT_NODE) {
        const parent = node.parentElement;
        const text = node.textContent.trim();
        if (text && parent && parent.checkVisibility({visibilityProperty: true})
            && !['SCRIPT', 'STYLE', 'NOSCRIPT'].includes(parent.tagName)) out.push(text);
      } else if (node.nodeType === Node.ELEMENT_NODE) {
        if (node.shadowRoot) walk(node.shadowRoot);
        walk(node);
      }
    }
  };
  walk(document.body);
  return out;
}"""


def squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def html_text(markup: str) -> str:
    """The page's text in its HTML, outside scripts and styles, entities decoded."""
    import html

    body = STYLE.sub(" ", SCRIPT.sub(" ", markup))
    return html.unescape(TAG.sub(" ", body))


def text_share(markup: str, seen: list[str]) -> tuple[float, int]:
    """(share of the seen characters that the HTML holds, seen characters)."""
    static = squash(html_text(markup))
    total = sum(len(squash(t)) for t in seen)
    held = sum(len(squash(t)) for t in seen if squash(t) in static)
    return (round(held / total, 3) if total else 1.0), total


def blocking_before_text(markup: str, site: Path) -> dict:
    """Bytes of parser-blocking script before the page's first text."""
    first = markup.find("<main")
    if first < 0:
        first = markup.find("data-root-id")
    external = inline = 0
    for match in SCRIPT.finditer(markup):
        if match.start() > first:
            break
        attributes, body = match.group(1), match.group(2)
        if re.search(
            r"\b(defer|async)\b|type=[\"']?(module|application/json|esms-options)", attributes
        ):
            continue
        source = re.search(r"\bsrc=[\"']([^\"']+)", attributes)
        if source:
            path = site / source.group(1).split("?")[0]
            external += path.stat().st_size if path.is_file() else 0
        else:
            inline += len(body.encode("utf-8"))
    return {"external_bytes": external, "inline_bytes": inline}


def live_text(context, url: str) -> list[str]:
    """The visible text of the page at ``url`` once live (the context's runtime is shared)."""
    page = context.new_page()
    page.goto(url)
    page.wait_for_function(
        "() => ['live', 'error'].includes(document.body.dataset.posviz)", timeout=180_000
    )
    page.wait_for_timeout(500)  # let the page script settle its labels and live regions
    seen = page.evaluate(VISIBLE_TEXT_JS)
    page.close()
    return seen


def paint_round(base: str) -> dict:
    blocked: list[str] = []
    with chromium() as browser:
        context = sealed_context(browser, blocked)
        page = context.new_page()
        started = time.perf_counter()
        page.goto(f"{base}/{TOPIC}")
        answered(page)
        answer = (time.perf_counter() - started) * 1000
        fcp = page.evaluate(
            "performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? null"
        )
        figure = page.evaluate("window.posvizBench.firstPaint")
        context.close()
    return {
        "fcp_ms": fcp,
        "figure_paint_ms": figure,
        "first_answer_ms": answer,
        "blocked": len(blocked),
    }


def write_path(name: str) -> dict | None:
    """The results a previous run wrote, if any."""
    from benchmarks.common import RESULTS

    path = RESULTS / f"{name}.json"
    return json.loads(path.read_text()) if path.is_file() else None


def options(parser) -> None:
    parser.add_argument(
        "--paint-only", action="store_true", help="only the paint rounds (text shares: last run's)"
    )


def measure(args) -> dict:
    sites = dict(args.site or [("after", built_site())])
    reference = next(iter(sites))
    results: dict = {"reference": reference, "sites": {}}
    with ExitStack() as stack:
        bases = {name: stack.enter_context(static_server(folder)) for name, folder in sites.items()}
        pages_of = {
            name: [p["path"] for p in json.loads((f / "site.json").read_text("utf-8"))["pages"]]
            for name, f in sites.items()
        }
        previous = write_path(args.name)
        for name, folder in sites.items():
            if args.paint_only and previous:
                results["sites"][name] = {"pages": previous["sites"][name]["pages"], "rounds": []}
                continue
            per_page = {}
            blocked: list[str] = []
            with chromium() as browser:
                context = sealed_context(browser, blocked)
                for path in pages_of[name]:
                    markup = (folder / path).read_text("utf-8")
                    share, seen_chars = text_share(
                        markup, live_text(context, f"{bases[name]}/{path}")
                    )
                    per_page[path] = {
                        "text_in_html": share,
                        "seen_chars": seen_chars,
                        **blocking_before_text(markup, folder),
                    }
                    print(f"{name} {path}: {json.dumps(per_page[path])}", flush=True)
            results["sites"][name] = {"pages": per_page, "rounds": []}
        for index in range(args.rounds):  # interleaved, so machine load falls on all alike
            for name in sites:
                run = paint_round(bases[name])
                results["sites"][name]["rounds"].append(run)
                print(f"round {index + 1} {name}: {json.dumps(run)}", flush=True)
    median = {
        name: {
            key: statistics.median(r[key] for r in data["rounds"] if r[key] is not None)
            for key in ("fcp_ms", "figure_paint_ms", "first_answer_ms")
        }
        for name, data in results["sites"].items()
    }
    ref = median[reference]
    for name, data in results["sites"].items():
        pages = data["pages"].values()
        derived = {
            "worst_text_in_html": min(p["text_in_html"] for p in pages),
            "max_blocking_external_bytes": max(p["external_bytes"] for p in pages),
            "max_blocking_inline_bytes": max(p["inline_bytes"] for p in pages),
            **{f"median_{k}": round(v) for k, v in median[name].items()},
            "text_fcp_over_reference_figure_paint": round(
                median[name]["fcp_ms"] / ref["figure_paint_ms"], 2
            ),
            "figure_paint_over_reference": round(
                median[name]["figure_paint_ms"] / ref["figure_paint_ms"], 2
            ),
            "first_answer_over_reference": round(
                median[name]["first_answer_ms"] / ref["first_answer_ms"], 2
            ),
        }
        data["derived"] = derived
    return results


def report(results: dict, args):
    reference = results["reference"]
    rows = [[name, *data["derived"].values()] for name, data in results["sites"].items()]
    header = [
        "site",
        "worst text in HTML (≥0.95)",
        "blocking ext. B (0)",
        "blocking inline B",
        "FCP ms",
        "figure paint ms",
        "first answer ms",
        f"FCP ÷ {reference} figure paint (≤0.3)",
        f"figure paint ÷ {reference}",
        f"first answer ÷ {reference}",
    ]
    yield table("Text first: the topic page cold, medians over rounds", header, rows)
    page_rows = [
        [name, path, p["text_in_html"], p["seen_chars"], p["external_bytes"], p["inline_bytes"]]
        for name, data in results["sites"].items()
        for path, p in data["pages"].items()
    ]
    yield (
        table(
            "Per page",
            ["site", "page", "text in HTML", "chars seen", "blocking ext. B", "inline B"],
            page_rows,
        )
    )


BENCHMARK = Benchmark(
    name="text_first",
    doc=__doc__,
    measure=measure,
    report=report,
    rounds=3,
    site="named",
    site_help="name=folder; the first is the reference (default: this tree, built)",
    options=options,
)

if __name__ == "__main__":
    sys.exit(run(BENCHMARK))
