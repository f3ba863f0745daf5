"""What every benchmark shares: a loopback file server, a sealed-off Chromium,
in-page timers, statistics, and the table + JSON every script prints and writes.

Timing here is measured, never asserted: the tests check behaviour, the
benchmarks report numbers (see RESULTS.md).
"""

import argparse
import json
import platform
import statistics
import subprocess
import time
from pathlib import Path

from tests.support import browser as _browser  # the one Chromium harness
from tests.support.pages import figure_card  # a far figure is scrolled to first (lazy.js)

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "benchmarks" / "out"  # scratch: built sites (not committed)
RESULTS = ROOT / "benchmarks" / "results"  # the JSON each benchmark writes (committed)

CHROMIUM = _browser.CHROMIUM
chromium = _browser.chromium
static_server = _browser.static_server

# Installed before any page script: records when the first Bokeh view has
# painted (pre-render or live) and, per keydown, when the plot data it caused
# was drawn.
PAGE_TIMERS = """
(() => {
  window.posvizBench = {firstPaint: null, live: null, latencies: [], pendingKey: null};
  const bench = window.posvizBench;
  // First paint: every root view of the first document drawn. Live: a second
  // document (the one Python made in the worker) drawn in its place.
  const frame = () => {
    const roots = window.Bokeh && Bokeh.index && Bokeh.index.roots;
    const drawn = roots && roots.length && roots.every(v => v.has_finished && v.has_finished());
    if (drawn && bench.firstPaint === null) bench.firstPaint = performance.now();
    if (drawn && Bokeh.documents.length >= 2 && bench.live === null) bench.live = performance.now();
    if (bench.live === null) requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
  document.addEventListener("keydown", (event) => { bench.pendingKey = event.timeStamp; }, true);
  bench.watch = (name) => {
    const docs = [...Bokeh.documents].reverse();
    for (const doc of docs) {
      const plot = doc.get_model_by_name(name);
      if (!plot) continue;
      for (const renderer of plot.renderers) {
        const source = renderer.data_source;
        if (!source || source.__posvizWatched) continue;
        source.__posvizWatched = true;
        source.change.connect(() => {
          if (bench.pendingKey === null) return;
          const started = bench.pendingKey;
          bench.pendingKey = null;
          requestAnimationFrame(() => bench.latencies.push(performance.now() - started));
        });
      }
      return true;
    }
    return false;
  };
})();
"""


def plot_name(figure_id: int) -> str:
    """The name of the plot a step of the figure redraws (``drawing.watched_plot``)."""
    from posviz.drawing import model_name, watched_plot
    from posviz.figures import FIGURES

    figure = FIGURES[figure_id]()
    return model_name(figure, watched_plot(figure))


def stepped_slider(figure_id: int) -> int:
    """The index, among the figure's slider handles (numbers, not choices), of the one stepped."""
    import param

    from posviz.drawing import stepped_slider as stepped
    from posviz.figures import FIGURES

    figure = FIGURES[figure_id]()
    numbers = [n for n in figure.sliders() if isinstance(figure.param[n], param.Number)]
    return numbers.index(stepped(figure))


def topic_figures(slug: str = "positional-encoding") -> list[int]:
    """The figure ids a topic page shows, in its order (as content says)."""
    from posviz.content import load

    library = load()
    return [figure_id for figure_id, _ in library.figures_shown(library.topics[slug])]


def machine() -> dict:
    cores = subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip()
    memory = Path("/proc/meminfo").read_text().split("\n")[0].split()[1]
    version = (
        subprocess.run([CHROMIUM, "--version"], capture_output=True, text=True).stdout.strip()
        if Path(CHROMIUM).exists()
        else None
    )
    return {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "cores": int(cores),
        "memory_gib": round(int(memory) / 2**20, 1),
        "python": platform.python_version(),
        "chromium": version,
    }


def summary(values: list[float]) -> dict:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))] if ordered else None
    return {
        "n": len(values),
        "median": round(statistics.median(values), 1) if values else None,
        "p95": round(p95, 1) if p95 is not None else None,
        "min": round(ordered[0], 1) if ordered else None,
        "max": round(ordered[-1], 1) if ordered else None,
    }


def table(title: str, header: list[str], rows: list[list]) -> str:
    widths = [max(len(str(cell)) for cell in column) for column in zip(header, *rows, strict=True)]

    def line(cells):
        return "| " + " | ".join(str(c).ljust(w) for c, w in zip(cells, widths, strict=True)) + " |"

    return "\n".join(
        [f"\n{title}", line(header), line(["-" * w for w in widths]), *map(line, rows)]
    )


def as_json(value):
    """``json.dumps``'s ``default``: a path as its text; anything else is refused, named."""
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"a benchmark result holds a {type(value).__name__}: {value!r}")


def write(name: str, results: dict) -> Path:
    """results/<name>.json; a folder in the results (a site: ``--site name=DIR``) as its path."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.json"
    text = json.dumps({"machine": machine(), **results}, indent=1, default=as_json)
    path.write_text(text + "\n")
    print(f"\nwrote {path.relative_to(ROOT)}")
    return path


def sealed_context(browser, blocked: list, init_scripts=()):
    """A fresh profile (empty cache) whose outside requests are aborted into ``blocked``."""
    return _browser.sealed_context(browser, blocked, (PAGE_TIMERS, *init_scripts))


def press_and_wait(
    page,
    figure_index: int,
    slider_index: int,
    plot: str,
    key: str,
    timeout_ms: float = 10_000,
    where_focused: bool = False,
) -> float:
    """Press ``key`` on a slider; the ms from keydown to the plot's new data drawn.

    ``where_focused``: press it wherever the focus is, as a keyboard reader does
    (the slider should have it), instead of focusing the slider first.
    """
    page.evaluate(f"window.posvizBench.watch({plot!r})")
    count = page.evaluate("window.posvizBench.latencies.length")
    if where_focused:
        page.keyboard.press(key)
    else:
        figure_card(page, figure_index).locator(".noUi-handle").nth(slider_index).press(key)
    page.wait_for_function(
        f"() => window.posvizBench.latencies.length > {count}", timeout=timeout_ms
    )
    return page.evaluate("window.posvizBench.latencies.at(-1)")


posviz_server = _browser.posviz_server  # `posviz serve` while a block runs


def site_folder(text: str) -> Path:
    """argparse type for ``--site``: a folder that ``posviz build`` made."""
    path = Path(text)
    if not (path / "site.json").is_file():
        raise argparse.ArgumentTypeError(
            f"{text} is not a built posviz export (it has no site.json); "
            "make one with ./dev build --out DIR"
        )
    return path


def named_site(text: str) -> tuple[str, Path]:
    """argparse type for ``--site name=folder``."""
    name, equals, folder = text.partition("=")
    if not (name and equals):
        raise argparse.ArgumentTypeError(f"{text!r}: give name=folder, e.g. before=/tmp/before")
    return name, site_folder(folder)


def built_site(out: Path | None = None) -> Path:
    """Build the export (cached wheels make this a few seconds) and return its folder."""
    from posviz.export.command import build

    out = out or OUT / "site"
    if build(out) != 0:
        raise SystemExit("posviz build failed")
    return out
