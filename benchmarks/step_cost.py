"""Benchmark: what one slider step costs the Python side, per figure, in-process.

Each figure's Panel view is built into a Bokeh ``Document`` as `posviz serve`
builds it (``get_root(doc)``), with a document-change listener attached the
way the server's session is. Then a slider is stepped ``--steps`` times (runs
of five up, five down, as ``slider_latency.py`` presses the arrow keys): each
step sets the figure's parameter, lets Panel and HoloViews update the Bokeh
models, and serializes the resulting document events into the PATCH-DOC
message the server would send. Reported per figure: CPU ms per step
(``time.process_time``, this thread's process only: the server's cost per
update, without the network), wall ms, events and patch bytes per step.

``--against SRC`` runs the same measurement on another source tree (for
example ``/work/main/src``) in a child process first, so a before/after pair
comes from one run on one machine load; the table then shows the ratio.

No browser is involved: this is the server's half of a step (and, since the
export runs the same Python in Pyodide, the Python half of an export step).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

from benchmarks.common import summary, table
from benchmarks.runner import Benchmark, run
from posviz.drawing import stepped_slider
from posviz.figures import AttentionCost, ClockHands, ParameterBudget, QueryReach

HERE = Path(__file__).resolve().parent

# figure id -> the slider a benchmark steps (drawing.stepped_slider), then others
SLIDERS = {
    figure.figure_id: [stepped_slider(figure()), *others]
    for figure, others in (
        (ParameterBudget, ["n_layers"]),
        (ClockHands, ["d_model"]),
        (AttentionCost, ["m"]),
        (QueryReach, ["col", "side"]),
    )
}
RUN = 5


def values(parameter, start: int, count: int) -> list[int]:
    """``count`` slider values from ``start``: RUN steps up, RUN down, repeated."""
    step = parameter.step or 1
    out, value = [], start
    for n in range(count):
        value += step if n // RUN % 2 == 0 else -step
        out.append(value)
    return out


def measure(steps: int, warmup: int) -> dict:
    """Per figure and slider: the cost of one step (run in the measured source tree)."""
    os.environ.setdefault("POSVIZ_EXPORT", "")
    import panel as pn
    from bokeh.document import Document
    from bokeh.protocol import Protocol

    from posviz.figures import FIGURES

    protocol = Protocol()
    results = {}
    for figure_id, names in SLIDERS.items():
        per_slider = {}
        for name in names:
            figure = FIGURES[figure_id]()
            doc = Document()
            # As while the server handles a session's event: its document is
            # current, on the thread that owns it, and its page has connected.
            pn.state.curdoc = doc
            pn.state._thread_id = threading.get_ident()
            pn.state._connected[doc] = True
            root = pn.panel(figure).get_root(doc)
            doc.add_root(root)
            events = []
            doc.callbacks.on_change(events.append)
            parameter = figure.param[name]
            start = getattr(figure, name)
            cpu, wall, sizes, counts = [], [], [], []
            for n, value in enumerate(values(parameter, start, warmup + steps)):
                events.clear()
                c0, w0 = time.process_time(), time.perf_counter()
                setattr(figure, name, value)
                patched = [e for e in events if hasattr(e, "to_serializable")]
                message = protocol.create("PATCH-DOC", patched) if patched else None
                size = (
                    len(message.content_json) + sum(len(b.to_bytes()) for b in message.buffers)
                    if message
                    else 0
                )
                c1, w1 = time.process_time(), time.perf_counter()
                if n >= warmup:
                    cpu.append((c1 - c0) * 1000)
                    wall.append((w1 - w0) * 1000)
                    sizes.append(size)
                    counts.append(len(patched))
            per_slider[name] = {
                "cpu_ms": summary(cpu),
                "wall_ms": summary(wall),
                "events": statistics.median(counts),
                "patch_bytes": statistics.median(sizes),
            }
            doc.clear()
        results[str(figure_id)] = per_slider
    return results


def run_child(src: str, steps: int, warmup: int) -> dict:
    env = {**os.environ, "PYTHONPATH": src}
    output = subprocess.run(
        [sys.executable, "-m", "benchmarks.step_cost", "--child"]
        + ["--steps", str(steps), "--warmup", str(warmup)],
        cwd=HERE.parent,  # benchmarks is a package of the repository's root
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return json.loads(output.strip().splitlines()[-1])


def options(parser) -> None:
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--against", help="another source tree to measure first (before)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)


def measure_both(args) -> dict | None:
    if args.child:  # in the tree measured: the numbers to the parent, nothing written
        print(json.dumps(measure(args.steps, args.warmup)))
        return None

    load_before = os.getloadavg()
    before = run_child(args.against, args.steps, args.warmup) if args.against else None
    here = str(HERE.parent / "src")
    after = run_child(here, args.steps, args.warmup)
    load_after = os.getloadavg()
    return {
        "steps": args.steps,
        "warmup": args.warmup,
        "load_average": [load_before[0], load_after[0]],
        "before_src": args.against,
        "before": before,
        "after": after,
    }


def report(results: dict, args):
    before, after = results["before"], results["after"]
    load_before, load_after = results["load_average"]
    rows = []
    for figure_id, sliders in after.items():
        for name, r in sliders.items():
            row = [
                figure_id,
                name,
                r["cpu_ms"]["median"],
                r["cpu_ms"]["p95"],
                r["wall_ms"]["median"],
                r["events"],
                r["patch_bytes"],
            ]
            if before:
                b = before[figure_id][name]
                row[2:2] = [b["cpu_ms"]["median"], b["cpu_ms"]["p95"]]
                row += [b["patch_bytes"], round(r["cpu_ms"]["median"] / b["cpu_ms"]["median"], 2)]
            rows.append(row)
    header = ["figure", "slider"]
    if before:
        header += ["before cpu med", "before cpu p95"]
    header += ["cpu med ms", "cpu p95 ms", "wall med ms", "events", "patch bytes"]
    if before:
        header += ["before bytes", "cpu ratio"]
    yield table(
        f"One slider step, Python side, in-process ({args.steps} steps after {args.warmup}"
        f" warm-up; load average {load_before:.1f} → {load_after:.1f})",
        header,
        rows,
    )


BENCHMARK = Benchmark(
    name="step_cost",
    doc=__doc__.splitlines()[0],
    measure=measure_both,
    report=report,
    options=options,
)

if __name__ == "__main__":
    sys.exit(run(BENCHMARK))
