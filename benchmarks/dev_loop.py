"""The maintainer's loop (issue 34): an edit under `posviz serve --dev` until the open tab shows it.

`posviz serve --dev` runs on copies of content/ and src/posviz (``PYTHONPATH`` at
the copy). One Chromium tab is open, on the route the edit touches; the time
is from the file write to the new text in that tab (its DOM and Panel's shadow
roots, checked every animation frame), with no reload by hand. Each edit is
undone after it, and the undo is waited for too.

The yardstick, in the same run: a cold page load of the same route, a fresh
browser profile (empty cache) from ``goto`` until the text is shown and every
figure of the page is drawn. Reported: each edit's median time and its ratio
to the route's median cold load.

    python -m benchmarks.dev_loop --rounds 5
"""

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import chromium, sealed_context, table
from benchmarks.runner import Benchmark, run
from tests.support.browser import free_port, wait_for_http
from tests.support.pages import wait_for_plot

ROOT = Path(__file__).resolve().parents[1]
NEW_PAGE = """---
slug: bench-new-page
title: A page the benchmark adds
kind: Read
builds_on: []
tags: [Self-attention]
summary: Written while the server runs.
---

## 1. Only section

Its words.
"""
PAGE = "attention-is-all-you-need"  # a page with figures (96, 710)
# edit kind → (route, file under the copy, old text, new text, what shows it)
EDITS = {
    "page text (Markdown)": (
        f"page-{PAGE}",
        f"content/pages/{PAGE}.md",
        "\n## 2.",
        "\nA sentence the benchmark wrote {n}.\n\n## 2.",
        "A sentence the benchmark wrote {n}.",
    ),
    "figure caption (.py)": (
        "figure-710",
        "src/posviz/figures/clock_hands.py",
        "caption = (",
        "caption = (\n        'Edited {n}. '",
        "Edited {n}. Try this first",
    ),
    "topic text (Markdown)": (
        "topic-positional-encoding",
        "content/topics/positional-encoding.md",
        "\nStart with the two",
        "\nA topic sentence the benchmark wrote {n}.\n\nStart with the two",
        "A topic sentence the benchmark wrote {n}.",
    ),
    "figure readout text (.py)": (
        "figure-710",
        "src/posviz/figures/clock_hands.py",
        'f"pos = **{self.pos}**',
        'f"edited {n} pos = **{self.pos}**',
        "edited {n} pos = ",
    ),
}
PLOTS = {
    f"page-{PAGE}": "posviz-710-hands",
    "figure-710": "posviz-710-hands",
    "topic-positional-encoding": "posviz-710-hands",
}
# Edits that show as a style, not as text: (route, file, old, new, a JS test of the page).
STYLES = {
    "stylesheet (site.css)": (
        "figure-710",
        "src/posviz/compose/static/site.css",
        "\nbody {",
        "\nmain h1 { outline: 1px solid rgb(1, 2, {n}); }\nbody {",
        "() => getComputedStyle(document.querySelector('main h1')).outlineColor"
        " === 'rgb(1, 2, {n})'",
    ),
}


# Whether the page shows ``text``: its DOM and Panel's shadow roots, not <noscript>.
HAS_TEXT = """(text) => {
  const seen = (root) => {
    for (const el of root.querySelectorAll("*")) {
      if (el.closest("noscript")) continue;
      for (const node of el.childNodes) {
        if (node.nodeType === Node.TEXT_NODE && node.data.includes(text)) return true;
      }
      if (el.shadowRoot && seen(el.shadowRoot)) return true;
    }
    return false;
  };
  return seen(document.body);
}"""


class Copy:
    """`posviz serve --dev` on copies of content/ and src/posviz."""

    def __init__(self, tmp: Path):
        self.tmp = tmp
        shutil.copytree(ROOT / "content", tmp / "content")
        shutil.copytree(
            ROOT / "src" / "posviz", tmp / "src" / "posviz", ignore=shutil.ignore_patterns("*.pyc")
        )
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {
            **os.environ,
            "PYTHONPATH": str(tmp / "src"),
            "POSVIZ_CONTENT": str(tmp / "content"),
            "PYTHONDONTWRITEBYTECODE": "1",
        }
        self.process = subprocess.Popen(
            [sys.executable, "-m", "posviz.cli", "serve", "--dev", "--port", str(self.port)]
            + ["--address", "127.0.0.1"],
            env=env,
            cwd=tmp,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_for_http(f"{self.url}/posviz-dev/state.json", 120, self.process)
        self.page = tmp / "content" / "pages" / "bench-gone.md"
        self.page.write_text(NEW_PAGE.replace("bench-new-page", "bench-gone"), "utf-8")

    def replace(self, relative: str, old: str, new: str) -> None:
        path = self.tmp / relative
        text = path.read_text("utf-8")
        assert old in text, f"{old!r} is not in {relative}"
        path.write_text(text.replace(old, new, 1), "utf-8")

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(20)


def shown(page, text: str) -> None:
    """Wait until ``text`` is on screen, checked every animation frame (not Playwright's
    backing-off locator polls, which would add up to a second to a time)."""
    page.wait_for_function(HAS_TEXT, arg=text, polling="raf", timeout=60_000)


def ready(page, route: str) -> None:
    """The route's text is shown and its figures are drawn."""
    page.wait_for_selector("main h1, main h2", timeout=60_000)
    if route in PLOTS:
        wait_for_plot(page, PLOTS[route], timeout=60_000)


def cold_load(browser, url: str, route: str) -> float:
    blocked: list = []
    context = sealed_context(browser, blocked)
    try:
        page = context.new_page()
        started = time.perf_counter()
        page.goto(f"{url}/{route}")
        ready(page, route)
        return time.perf_counter() - started
    finally:
        context.close()


def timed_edit(page, server: Copy, edit: tuple, n: int) -> float:
    route, relative, old, new, marker = edit
    started = time.perf_counter()
    server.replace(relative, old, new.replace("{n}", str(n)))
    shown(page, marker.replace("{n}", str(n)))
    took = time.perf_counter() - started
    server.replace(relative, new.replace("{n}", str(n)), old)  # undo; the tab follows
    page.get_by_text(marker.replace("{n}", str(n))).first.wait_for(state="detached", timeout=60_000)
    ready(page, route)
    return took


def timed_style(page, server: Copy, edit: tuple, n: int) -> float:
    route, relative, old, new, test = (part.replace("{n}", str(n)) for part in edit)
    started = time.perf_counter()
    server.replace(relative, old, new)
    page.wait_for_function(test, polling="raf", timeout=60_000)
    took = time.perf_counter() - started
    server.replace(relative, new, old)
    page.wait_for_function(f"() => !({test})()", timeout=60_000)
    return took


def deleted_page(page, server: Copy, n: int) -> float:
    """A page's file deleted while its tab is open: until the tab says it is gone."""
    started = time.perf_counter()
    server.page.unlink()
    shown(page, "there is no page at")
    took = time.perf_counter() - started
    server.page.write_text(NEW_PAGE.replace("bench-new-page", "bench-gone"), "utf-8")
    shown(page, "Its words.")
    return took


def new_page(page, server: Copy, n: int) -> float:
    path = server.tmp / "content" / "pages" / f"bench-new-page-{n}.md"
    text = NEW_PAGE.replace("bench-new-page", f"bench-new-page-{n}")
    title = f"A page the benchmark adds {n}"
    started = time.perf_counter()
    path.write_text(text.replace("A page the benchmark adds", title), "utf-8")
    shown(page, title)
    took = time.perf_counter() - started
    path.unlink()
    page.get_by_text(title).first.wait_for(state="detached", timeout=60_000)
    return took


def measure(args) -> dict:
    kinds = {
        **{name: (edit[0], timed_edit, edit) for name, edit in EDITS.items()},
        **{name: (edit[0], timed_style, edit) for name, edit in STYLES.items()},
        "new page (on home)": ("index", new_page, None),
        "deleted page (its own tab)": ("page-bench-gone", deleted_page, None),
    }
    times: dict[str, list[float]] = {name: [] for name in kinds}
    colds: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp, chromium() as browser:
        server = Copy(Path(tmp))
        try:
            routes = sorted({route for route, _, _ in kinds.values()} - {"page-bench-gone"})
            cold_load(browser, server.url, routes[0])  # the server's own first imports
            for n in range(args.rounds):
                for route in routes:
                    colds.setdefault(route, []).append(cold_load(browser, server.url, route))
                # One open tab, on the route the edit touches: as a maintainer works.
                for name, (route, timed, edit) in kinds.items():
                    blocked: list = []
                    context = sealed_context(browser, blocked)
                    tab = context.new_page()
                    said: list = []
                    tab.on("console", lambda message, said=said: said.append(message.text))
                    tab.goto(f"{server.url}/{route}")
                    ready(tab, route)
                    try:
                        took = timed(tab, server, edit, n) if edit else timed(tab, server, n)
                    except Exception:
                        print(f"  {name}: the tab said", *said[-12:], sep="\n    ")
                        raise
                    times[name].append(took)
                    context.close()
                    if blocked:
                        raise SystemExit(f"the page asked the network for {blocked[:3]}")
                done = ", ".join(f"{k} {v[-1]:.2f} s" for k, v in times.items())
                print(f"  round {n + 1}: {done}", flush=True)
        finally:
            server.stop()
    route_of = {name: route for name, (route, _, _) in kinds.items()}
    route_of["deleted page (its own tab)"] = "index"  # its cold load: a text page, as home
    cold = {route: statistics.median(values) for route, values in colds.items()}
    return {
        "edits": {
            name: {
                "route": route_of[name],
                "median_s": round(statistics.median(values), 3),
                "max_s": round(max(values), 3),
                "cold_load_s": round(cold[route_of[name]], 3),
                "ratio": round(statistics.median(values) / cold[route_of[name]], 3),
            }
            for name, values in times.items()
        },
        "rounds": args.rounds,
    }


def report(results: dict, args):
    rows = [
        [name, r["route"], r["median_s"], r["max_s"], r["cold_load_s"], r["ratio"]]
        for name, r in results["edits"].items()
    ]
    yield table(
        "posviz serve --dev: file write → shown in the open tab (medians, seconds)",
        ["edit", "route", "shown after", "worst", "cold load", "÷ cold load"],
        rows,
    )


BENCHMARK = Benchmark(name="dev_loop", doc=__doc__, measure=measure, report=report, rounds=3)

if __name__ == "__main__":
    sys.exit(run(BENCHMARK))
