"""Benchmark 4: `posviz serve` with 20 readers at once on the topic page.

Each reader is a Bokeh client session (``bokeh.client.pull_session``, one
thread and event loop each), not a browser: 20 Chromium pages would need far
more than this machine's cores. A reader opens /topic-positional-encoding,
tells Panel it has rendered (the ``DocumentReady`` event a browser sends;
without it Panel holds every plot update back), then moves figure 710's
*pos* slider ``--updates`` times: it sets the slider's value in its copy of
the document and times until the plot "posviz-710-hands" receives new data.
Between updates it pauses ``--think-ms`` (±50 %, seeded), like a reader
stepping with the arrow keys.

Memory is the resident set (VmRSS) of the `panel serve` process that
`posviz serve` starts: before any session (cold), after one warm-up session
has come and gone (warm: imports and caches paid once), with every reader
open, and after all have closed and the server has discarded their sessions
(it is started with short unused-session timeouts for that; Panel then
collects garbage some seconds later). A second, short wave of readers follows:
if the first wave's memory had leaked rather than stayed in the allocator,
RSS would climb again.

The client runs on the same two cores as the server, so its own CPU time is
reported too: a latency here includes the client decoding the patch.
"""

import os
import random
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

from benchmarks.common import plot_name, posviz_server, summary, table
from benchmarks.runner import Benchmark, elapsed, run
from posviz.drawing import stepped_slider
from posviz.figures import ClockHands

ROUTE = "/topic-positional-encoding"
SLIDER = ClockHands.param[stepped_slider(ClockHands())].label  # as the widget titles it
PLOT = plot_name(ClockHands.figure_id)
SECOND_WAVE_UPDATES = 2
RUN = 5  # steps up, then as many down: the value stays within 12 ± 5
# Discard a session one second after its last connection closes.
CLEANUP = ("--check-unused-sessions", "1000", "--unused-session-lifetime", "1000")
TICKS = os.sysconf("SC_CLK_TCK")


# --- the server process --------------------------------------------------------


@contextmanager
def panel_serve(port: int, *panel_args: str):
    """`posviz serve` with ``panel_args``; yields the server's pid.

    `posviz serve` becomes `panel serve` (exec), so this pid is the server.
    """
    with posviz_server(port, "--", *panel_args) as process:
        yield process.pid


def end(pid: int, grace_s: float = 10) -> None:
    """SIGTERM ``pid``, and SIGKILL it if it is still there after ``grace_s``."""
    for sig in (15, 9):
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + grace_s
        while time.monotonic() < deadline:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.2)


def rss_mb(pid: int) -> float:
    try:
        import psutil

        return psutil.Process(pid).memory_info().rss / 2**20
    except ImportError:
        status = Path(f"/proc/{pid}/status").read_text()
        kib = next(line.split()[1] for line in status.splitlines() if line.startswith("VmRSS:"))
        return int(kib) / 1024


def cpu_s(pid: int) -> float:
    """User + system CPU seconds of ``pid`` so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def settle(pid: int, cap_s: float) -> list[float]:
    """RSS once a second while the server discards closed sessions and collects them.

    Panel collects garbage a few seconds after the last session is destroyed,
    so RSS falls (if at all) about 10 s after close; stop once it has fallen
    and held for 3 s, or after ``cap_s``.
    """
    samples = [round(rss_mb(pid), 1)]
    while len(samples) <= cap_s:
        time.sleep(1)
        samples.append(round(rss_mb(pid), 1))
        if samples[-1] < samples[0] - 1 and len(set(samples[-4:])) == 1:
            break
    return samples


# --- one reader ----------------------------------------------------------------


def no_delay(session) -> None:
    """Send this client's websocket frames at once, as a browser does (TCP_NODELAY).

    Bokeh writes one message as several frames (header, metadata, content);
    without TCP_NODELAY the second waits for the server's delayed ACK, which
    added ~50 ms to every update measured here and is not what readers see.
    Reaches through bokeh.client's wrapper to tornado's connection.
    """
    session._connection._socket._socket.protocol.set_nodelay(True)


class Reader(threading.Thread):
    """One session: open the page, then on ``go`` step the slider, then on ``leave`` close."""

    def __init__(
        self,
        url: str,
        updates: int,
        think_ms: float,
        seed: int,
        go: threading.Event,
        leave: threading.Event,
        timeout_s: float = 20,
    ):
        super().__init__(daemon=True)
        self.url, self.updates, self.think_ms = url, updates, think_ms
        self.go, self.leave, self.timeout_s = go, leave, timeout_s
        self.random = random.Random(seed)
        self.opened, self.done, self.closed = (threading.Event() for _ in range(3))
        self.latencies, self.replies, self.errors = [], [], []
        self.step = 0
        self.pending = self.replied = None

    def run(self):
        import panel.models  # noqa: F401  (Panel's Bokeh models, so the client can decode them)
        from bokeh.client import pull_session
        from bokeh.events import DocumentReady
        from bokeh.models import Slider

        try:
            self.session = pull_session(url=self.url)
            no_delay(self.session)
            doc = self.doc = self.session.document
            self.slider = next(m for m in doc.models if isinstance(m, Slider) and m.title == SLIDER)
            plot = doc.select_one({"name": PLOT})
            for renderer in plot.renderers:
                if hasattr(renderer, "data_source"):
                    renderer.data_source.on_change("data", self._data_changed)
            doc.on_change(self._document_changed)
            doc.add_next_tick_callback(lambda: doc.callbacks.send_event(DocumentReady()))
            self.waiting = doc.add_periodic_callback(self._wait_for_go, 20)
            self.opened.set()
            self.session._loop_until_closed()  # runs this session's loop until it closes
        except Exception as error:  # reported, and the benchmark goes on without it
            self.errors.append(repr(error))
        finally:
            self.opened.set()
            self.done.set()
            self.closed.set()

    # Everything below runs on this session's own event loop.

    def _wait_for_go(self):
        if self.go.is_set():
            self.doc.remove_periodic_callback(self.waiting)
            self._move()

    def _move(self):
        self.step += 1
        direction = 1 if (self.step - 1) // RUN % 2 == 0 else -1
        self.pending, self.replied = time.perf_counter(), None
        self.slider.value = self.slider.value + direction
        self.deadline = self.doc.add_timeout_callback(self._timed_out, self.timeout_s * 1000)

    def _document_changed(self, event):
        if self.pending is not None and self.replied is None and event.setter is self.session:
            self.replied = time.perf_counter()
            self.replies.append((self.replied - self.pending) * 1000)

    def _data_changed(self, attr, old, new):
        if self.pending is None:
            return
        self.latencies.append((time.perf_counter() - self.pending) * 1000)
        self.pending = None
        self.doc.remove_timeout_callback(self.deadline)
        self._next()

    def _timed_out(self):
        self.errors.append(f"update {self.step}: no new plot data within {self.timeout_s} s")
        self.pending = None
        self._next()

    def _next(self):
        if self.step < self.updates:
            pause = self.think_ms * self.random.uniform(0.5, 1.5)
            self.doc.add_timeout_callback(self._move, pause)
        else:
            self.done.set()
            self.waiting = self.doc.add_periodic_callback(self._wait_for_leave, 50)

    def _wait_for_leave(self):
        if self.leave.is_set():
            self.doc.remove_periodic_callback(self.waiting)
            self.session.close()


def wait_all(events: list[threading.Event], deadline: float) -> bool:
    return all(event.wait(max(0.0, deadline - time.monotonic())) for event in events)


def crowd(
    url: str, count: int, updates: int, think_ms: float, seed: int, pid: int, limit_s: float
) -> dict:
    """``count`` readers at once; RSS and CPU at each phase."""
    go, leave = threading.Event(), threading.Event()
    readers = [Reader(url, updates, think_ms, seed + n, go, leave) for n in range(count)]
    started = time.monotonic()
    deadline = started + limit_s
    sampling = threading.Event()
    samples = []

    def sample():
        while not sampling.wait(0.25):
            samples.append(rss_mb(pid))

    threading.Thread(target=sample, daemon=True).start()
    for reader in readers:
        reader.start()
    wait_all([r.opened for r in readers], deadline)
    time.sleep(1)  # let the server finish each session's on-load work
    opened_s = time.monotonic() - started
    rss_open = rss_mb(pid)
    server_cpu, client_cpu, moving = cpu_s(pid), sum(os.times()[:2]), time.monotonic()
    go.set()
    wait_all([r.done for r in readers], deadline)
    moving = time.monotonic() - moving
    server_cpu, client_cpu = cpu_s(pid) - server_cpu, sum(os.times()[:2]) - client_cpu
    rss_updated = rss_mb(pid)
    leave.set()
    wait_all([r.closed for r in readers], deadline + 10)
    sampling.set()
    latencies = [x for r in readers for x in r.latencies]
    return {
        "sessions": count,
        "updates_per_session": updates,
        "think_ms": think_ms,
        "open_s": round(opened_s, 1),
        "moving_s": round(moving, 1),
        "updates_done": len(latencies),
        "updates_per_s": round(len(latencies) / moving, 1),
        "latency_ms": summary(latencies),
        "first_reply_ms": summary([x for r in readers for x in r.replies]),
        "per_session_median_ms": [summary(r.latencies)["median"] for r in readers],
        "server_cpu_s": round(server_cpu, 1),
        "client_cpu_s": round(client_cpu, 1),
        "server_cpu_ms_per_update": round(1000 * server_cpu / max(1, len(latencies)), 1),
        "rss_open_mb": round(rss_open, 1),
        "rss_updated_mb": round(rss_updated, 1),
        "rss_max_mb": round(max(samples + [rss_open, rss_updated]), 1),
        "errors": [e for r in readers for e in r.errors],
    }


def measure(port: int, sessions: int, updates: int, think_ms: float, settle_s: float) -> dict:
    with panel_serve(port, *CLEANUP) as pid:
        url = f"http://127.0.0.1:{port}{ROUTE}"
        cold = rss_mb(pid)
        warmup = crowd(url, 1, 4, think_ms, 0, pid, 60)
        warm_series = settle(pid, settle_s)
        load = crowd(url, sessions, updates, think_ms, 1, pid, 150)
        after_series = settle(pid, settle_s)
        # A second, shorter wave: if the first wave's sessions were leaked, RSS grows again.
        again = crowd(url, sessions, SECOND_WAVE_UPDATES, think_ms, 2, pid, 90)
        again_series = settle(pid, settle_s)
    warm, after = warm_series[-1], after_series[-1]
    peak = load["rss_max_mb"]
    growth = peak - warm
    return {
        "route": ROUTE,
        "slider": SLIDER,
        "plot": PLOT,
        "panel_serve_args": list(CLEANUP),
        "rss_cold_mb": round(cold, 1),
        "rss_warm_mb": warm,
        "rss_after_mb": after,
        "rss_settle_warm_mb": warm_series,
        "rss_settle_after_mb": after_series,
        "mb_per_session_open": round((load["rss_open_mb"] - warm) / sessions, 1),
        "mb_per_session_peak": round(growth / sessions, 1),
        "returned_vs_warm_pct": round(100 * (peak - after) / growth) if growth > 0 else None,
        "returned_vs_cold_pct": round(100 * (peak - after) / (peak - cold))
        if peak > cold
        else None,
        "second_wave_peak_mb": again["rss_max_mb"],
        "rss_settle_second_wave_mb": again_series,
        "warmup": warmup,
        "load": load,
        "second_wave": again,
    }


def report(r: dict):
    load = r["load"]
    errors = [e for part in ("warmup", "load", "second_wave") for e in r[part]["errors"]]
    latency, reply = load["latency_ms"], load["first_reply_ms"]
    yield (
        table(
            f"posviz serve, {load['sessions']} sessions on {r['route']} moving '{r['slider']}' "
            f"({load['updates_per_session']} updates each, think {load['think_ms']:.0f} ms ±50 %)",
            ["measure", "value", "target"],
            [
                [
                    "updates done",
                    f"{load['updates_done']} in {load['moving_s']} s ({load['updates_per_s']}/s)",
                    "",
                ],
                [
                    "update latency p50 / p95 ms",
                    f"{latency['median']} / {latency['p95']}",
                    "p95 <= 150",
                ],
                ["first reply p50 / p95 ms", f"{reply['median']} / {reply['p95']}", ""],
                [
                    "single session p50 / p95 ms (warm-up)",
                    f"{r['warmup']['latency_ms']['median']} / {r['warmup']['latency_ms']['p95']}",
                    "",
                ],
                ["server CPU per update ms", load["server_cpu_ms_per_update"], "<= 15"],
                ["client CPU s (this process)", load["client_cpu_s"], ""],
                ["RSS cold / warm MB", f"{r['rss_cold_mb']:.1f} / {r['rss_warm_mb']:.1f}", ""],
                [
                    "RSS all open / after updates / max MB",
                    f"{load['rss_open_mb']:.1f} / {load['rss_updated_mb']:.1f}"
                    f" / {load['rss_max_mb']:.1f}",
                    "",
                ],
                [
                    "MB per session, open / max",
                    f"{r['mb_per_session_open']} / {r['mb_per_session_peak']}",
                    "<= 25",
                ],
                [
                    f"RSS {len(r['rss_settle_after_mb']) - 1} s after close MB",
                    f"{r['rss_after_mb']:.1f}",
                    "",
                ],
                [
                    "growth returned, vs warm / vs cold %",
                    f"{r['returned_vs_warm_pct']} / {r['returned_vs_cold_pct']}",
                    ">= 90",
                ],
                [
                    "second wave peak / after MB",
                    f"{r['second_wave_peak_mb']:.1f} / {r['rss_settle_second_wave_mb'][-1]:.1f}",
                    "",
                ],
                ["errors", len(errors), "0"],
            ],
        )
    )
    for error in errors[:5]:
        yield (f"  error: {error}")


def options(parser) -> None:
    parser.add_argument("--port", type=int, default=5081)
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--updates", type=int, default=20)
    parser.add_argument("--think-ms", type=float, default=1000)
    parser.add_argument(
        "--settle-s",
        type=float,
        default=20,
        help="at most this many seconds for the server to discard and collect closed sessions",
    )


def measure_all(args) -> dict:
    results = measure(args.port, args.sessions, args.updates, args.think_ms, args.settle_s)
    results["wall_s"] = round(elapsed(args), 1)
    return results


BENCHMARK = Benchmark(
    name="server_load",
    doc=__doc__,
    measure=measure_all,
    report=lambda results, args: report(results),
    options=options,
)

if __name__ == "__main__":
    sys.exit(run(BENCHMARK))
