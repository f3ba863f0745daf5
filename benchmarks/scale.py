"""Benchmark: the site as the content grows (issue 17).

For each N of --pages, N synthetic pages are written into a temporary copy of
content/ (never the repository's): three sections each, two of the four
figures, tags the real pages carry, and one topic, "scale", over the real
pages and all of them. Each copy is built with `posviz build` (POSVIZ_CONTENT
points at it) from an empty page cache, then built again after one page's text
changed (an incremental build: export/pagecache.py). Reported per N,
and against N = 0 of the same run: both build times, the site's size (its
search index apart too), the largest page, the big topic's first paint and
first slider answer, cold, with the network sealed (cold_load.py's measure),
and the search box's time to results: the first query, which loads Pagefind,
and ten warm ones, each for a word only one generated page has.

    python -m benchmarks.scale                   # N = 0 and 20: a quick run
    python -m benchmarks.scale --pages 0,100,500 # the issue's curve (about 1 s per route)
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.cold_load import measure as cold_load
from benchmarks.common import ROOT, chromium, plot_name, sealed_context, static_server, table
from benchmarks.runner import Benchmark, run
from posviz.figures import ClockHands

CONTENT = ROOT / "content"
TOPIC = "scale"
PAIRS = ((710, 96), (7256, 4121), (710, 4121), (96, 7256))  # two of the four figures per page
PAGE = """---
slug: {slug}
title: Synthetic page {n}
kind: Read
builds_on: []
tags: [{tags}]
summary: A generated page of the scale benchmark, number {n}.
---

## 1. Opening {n}

Generated text {n}: how a model is told where each token sits, in a few plain words.

::: figure {first}

## 2. Middle {n}

More generated text for page {n}, with no figure of its own.

## 3. Closing {n}

The last section of page {n}; word{n} appears here only.

::: figure {second}
"""


def real_tags() -> list[str]:
    """The tags of the repository's pages, in the order they first appear."""
    sys.path.insert(0, str(ROOT / "src"))
    from posviz.content import load

    library = load(CONTENT)
    return list(dict.fromkeys(tag for page in library.pages.values() for tag in page.tags))


def make_content(folder: Path, n: int, tags: list[str], base: Path = CONTENT) -> list[str]:
    """A copy of ``base`` (content/) with ``n`` synthetic pages and the topic over everything."""
    shutil.copytree(base, folder)
    real = sorted(p.stem for p in (folder / "pages").glob("*.md"))
    slugs = [f"synthetic-{i:04d}" for i in range(n)]
    for i, slug in enumerate(slugs):
        first, second = PAIRS[i % len(PAIRS)]
        chosen = [tags[i % len(tags)], tags[(i + 1) % len(tags)]]
        text = PAGE.format(
            slug=slug, n=i, tags=", ".join(dict.fromkeys(chosen)), first=first, second=second
        )
        (folder / "pages" / f"{slug}.md").write_text(text, "utf-8")
    (folder / "topics" / f"{TOPIC}.md").write_text(
        "---\n"
        f"slug: {TOPIC}\n"
        "title: Everything, at scale\n"
        "category: Mechanisms\n"
        "intro: Every page of the site, real and generated, in one topic.\n"
        "read_first: []\n"
        f"pages: [{', '.join(real + slugs)}]\n"
        "---\n",
        "utf-8",
    )
    return slugs or real


def build(
    content: Path, out: Path, pages: Path, checkout: Path | None = None, cache: Path | None = None
) -> tuple[float, int]:
    """Seconds `posviz build` took, and the routes it pre-rendered.

    Each N starts from an empty page cache (export/pagecache.py): the first build is
    a full one, the one after the edit reuses what did not change. ``checkout``:
    build with that checkout's code (its src/ first on the path); ``cache``: its
    build cache (``POSVIZ_CACHE``).
    """
    env = {**os.environ, "POSVIZ_CONTENT": str(content), "POSVIZ_PAGE_CACHE": str(pages)}
    if checkout is not None:
        env["PYTHONPATH"] = str(checkout / "src")
    if cache is not None:
        env["POSVIZ_CACHE"] = str(cache)
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "posviz.cli", "build", "--out", str(out)],
        env=env,
        cwd=checkout,
        capture_output=True,
        text=True,
    )
    if done.returncode:
        where = f" ({checkout})" if checkout else ""
        raise SystemExit(
            f"posviz build{where} failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
        )
    took = time.monotonic() - started
    converted = re.search(r"converting (\d+) dashboards", done.stdout + done.stderr)
    return took, int(converted.group(1)) if converted else -1


# In the page: type each word into the search box, and time from the input
# event to the results shown (the box's data-state "done"). The first query
# loads Pagefind and its index; the others are warm.
SEARCH_JS = """async (words) => {
  const form = document.querySelector("form.posviz-search");
  const input = form.querySelector("input[type=search]");
  const shown = () => new Promise((resolve) => {
    const seen = new MutationObserver(() => {
      if (form.dataset.state !== "searching") { seen.disconnect(); resolve(performance.now()); }
    });
    seen.observe(form, {attributes: true, attributeFilter: ["data-state"]});
  });
  const found = [];
  for (const word of words) {
    input.value = word;
    const done = shown();
    const started = performance.now();
    input.dispatchEvent(new Event("input"));
    const ended = await done;
    found.push({word, ms: ended - started, state: form.dataset.state,
                results: form.querySelectorAll(".posviz-search-results li").length});
  }
  return found;
}"""


def search_times(base: str, n: int) -> dict:
    """Search on the home page: one cold query, then ten warm ones, each a word one page has."""
    numbers = [max(n - 1, 0)] + [(k * 37) % max(n, 1) for k in range(1, 11)]
    words = [f"word{k}" if n else "position" for k in numbers]
    blocked: list = []
    with chromium() as browser:
        context = sealed_context(browser, blocked)
        page = context.new_page()
        page.goto(f"{base}/index.html")
        page.wait_for_selector("form.posviz-search:not([hidden])")
        found = page.evaluate(SEARCH_JS, words)
        context.close()
    warm = sorted(q["ms"] for q in found[1:])
    misses = [q["word"] for q in found if q["state"] != "done" or not q["results"]]
    if misses:
        raise SystemExit(f"N = {n}: search found nothing for {misses}")
    return {
        "cold_ms": round(found[0]["ms"], 1),
        "warm_median_ms": round(warm[len(warm) // 2], 1),
        "warm_max_ms": round(warm[-1], 1),
        "blocked": len(blocked),
    }


def size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def measure_n(n: int, tags: list[str], work: Path, runs: int) -> dict:
    content, out = work / f"content-{n}", work / f"site-{n}"
    slugs = make_content(content, n, tags)
    full, _ = build(content, out, work / f"pages-{n}")
    edited = content / "pages" / f"{slugs[-1]}.md"
    edited.write_text(edited.read_text("utf-8") + "\nOne more sentence, edited.\n", "utf-8")
    after_edit, rerendered = build(content, out, work / f"pages-{n}")
    manifest = json.loads((out / "site.json").read_text("utf-8"))
    pages = {entry["path"]: (out / entry["path"]).stat().st_size for entry in manifest["pages"]}
    largest = max(pages, key=pages.get)
    [topic] = [e for e in manifest["pages"] if e["path"] == f"topic-{TOPIC}.html"]
    figure = ClockHands.figure_id  # the figure whose slider the topic's answer is timed on
    plot, index = plot_name(figure), topic["figures"].index(figure)
    with static_server(out) as base:
        load = cold_load(base, {"topic": (topic["path"], plot, index)}, runs)["topic"]
        searched = search_times(base, n)
    search = out / "pagefind"
    return {
        "n": n,
        "routes": len(manifest["pages"]),
        "build_full_s": round(full, 1),
        "build_after_one_page_edit_s": round(after_edit, 1),
        "edit_over_full": round(after_edit / full, 3),
        "routes_rerendered_after_edit": rerendered,
        "html_bytes": sum(pages.values()),
        "site_bytes": size(out),
        "search_index_bytes": size(search) if search.is_dir() else 0,
        "search": searched,
        "largest_page": {"path": largest, "bytes": pages[largest]},
        "topic_html_bytes": pages[topic["path"]],
        "topic_live_figures": len(topic["figures"]),
        "topic_first_paint_ms": load["cold_first_paint_ms"]["median"],
        "topic_first_answer_ms": load["cold_first_answer_ms"]["median"],
        "blocked_requests": load["blocked_requests"],
    }


def ratio(value, base):
    return round(value / base, 2) if base else None


def options(parser) -> None:
    parser.add_argument("--pages", default="0,20", help="comma-separated N (0 is always run)")


def measure(args) -> dict:
    counts = sorted({0, *(int(n) for n in args.pages.split(","))})
    tags = real_tags()
    rows = []
    with tempfile.TemporaryDirectory(prefix="posviz-scale-") as folder:
        for n in counts:
            print(f"N = {n}: building", flush=True)
            rows.append(measure_n(n, tags, Path(folder), args.rounds))
    base = rows[0]
    for row in rows:
        added = row["n"] or None
        row["added_per_page_bytes"] = (
            round((row["site_bytes"] - base["site_bytes"]) / added) if added else None
        )
        row["added_html_per_page_bytes"] = (
            round((row["html_bytes"] - base["html_bytes"]) / added) if added else None
        )
        row["vs_n0"] = {
            key: ratio(row[key], base[key])
            for key in (
                "build_full_s",
                "build_after_one_page_edit_s",
                "site_bytes",
                "topic_html_bytes",
                "topic_first_paint_ms",
                "topic_first_answer_ms",
            )
        }
        row["vs_n0"]["largest_page_bytes"] = ratio(
            row["largest_page"]["bytes"], base["largest_page"]["bytes"]
        )
    return {"runs": args.rounds, "sizes": rows}


def report(results: dict, args):
    rows = results["sizes"]
    header = [
        "N",
        "routes",
        "build s",
        "after 1 edit s (÷ full)",
        "KB added per page",
        "site MB",
        "index KB",
        "largest page",
        "topic KB",
        "paint ms",
        "answer ms",
        "search ms: cold / warm median (max)",
    ]
    yield (
        table(
            "The site as it grows (× N = 0 of this run)",
            header,
            [
                [
                    r["n"],
                    r["routes"],
                    f"{r['build_full_s']} ({r['vs_n0']['build_full_s']}×)",
                    f"{r['build_after_one_page_edit_s']} ({r['edit_over_full']})",
                    ""
                    if r["added_per_page_bytes"] is None
                    else f"{r['added_per_page_bytes'] / 1e3:.0f}",
                    f"{r['site_bytes'] / 1e6:.1f} ({r['vs_n0']['site_bytes']}×)",
                    round(r["search_index_bytes"] / 1e3),
                    f"{r['largest_page']['path']} {r['largest_page']['bytes'] / 1e3:.0f} KB",
                    f"{r['topic_html_bytes'] / 1e3:.0f} ({r['vs_n0']['topic_html_bytes']}×)",
                    f"{r['topic_first_paint_ms']} ({r['vs_n0']['topic_first_paint_ms']}×)",
                    f"{r['topic_first_answer_ms']} ({r['vs_n0']['topic_first_answer_ms']}×)",
                    f"{r['search']['cold_ms']} / {r['search']['warm_median_ms']} "
                    f"({r['search']['warm_max_ms']})",
                ]
                for r in rows
            ],
        )
    )


BENCHMARK = Benchmark(
    name="scale",
    doc=__doc__,
    measure=measure,
    report=report,
    rounds=1,
    rounds_help="cold loads of the topic per N",
    options=options,
)

if __name__ == "__main__":
    sys.exit(run(BENCHMARK))
