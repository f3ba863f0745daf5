"""Which test modules spend the suite's CPU, and in which kind of process (issue 32).

``benchmarks.suite_cpu`` says which kinds of process spent a whole run's CPU; this
says which tests did. It runs pytest on the arguments after ``--``, on one test
process (``-n 1``, pytest-randomly off), with this module as a plugin. In that test
process, the plugin follows it and every process it starts (suite_cpu's
``Follower``: the browsers, servers and builds, and theirs) and reads them as each
test starts and ends, in the test process itself (the events the controller gets
come late on a busy machine), and every ``EVERY`` seconds between. What they spent between
a test's start and its end is that test's, by kind of process. Nothing else on the
machine is counted, so another run beside it changes little. A module's fixtures are
paid by the test that first needs them (the site build, a browser, a cold start
shared by the module). A process that starts and ends between two reads is not seen.

Each module's CPU, by kind, and the costliest tests are printed and written to
``results/<name>.json``.
"""

import json
import os
import subprocess
import sys
import threading
import time
from collections import Counter, defaultdict
from pathlib import Path

from benchmarks.common import ROOT, table
from benchmarks.runner import Benchmark, run
from benchmarks.suite_cpu import TICK, Follower

OUT = "POSVIZ_MODULE_CPU_OUT"  # where the plugin writes what it measured
EVERY = 0.5  # s between reads while a test runs
TESTS = 20  # the costliest tests reported


# --- the pytest plugin (``-p benchmarks.module_cpu``) ---------------------------------


class Ledger:
    """Every process the run starts, read on a thread and at each test's start and end;
    what they spent while each test ran, by kind."""

    def __init__(self):
        self.follower = Follower(os.getpid())
        self.lock = threading.Lock()
        self.started: dict[str, tuple[Counter, float]] = {}
        self.tests: list[dict] = []
        self.done = threading.Event()
        self.thread = threading.Thread(target=self.keep_reading, daemon=True)
        self.thread.start()

    def keep_reading(self) -> None:
        while not self.done.wait(EVERY):
            self.read()

    def read(self) -> Counter:
        with self.lock:
            self.follower.read()
            return Counter(self.follower.by_kind)

    def start(self, nodeid: str) -> None:
        self.started[nodeid] = (self.read(), time.monotonic())

    def finish(self, nodeid: str) -> None:
        before, began = self.started.pop(nodeid)
        spent = self.read()
        spent.subtract(before)
        self.tests.append(
            {
                "test": nodeid,
                "wall_seconds": round(time.monotonic() - began, 2),
                "by_kind": {k: round(t / TICK, 2) for k, t in spent.items() if t > 0},
            }
        )

    def close(self, path: Path) -> None:
        self.done.set()
        self.thread.join()
        path.write_text(json.dumps(self.tests, indent=1) + "\n")


_ledger: Ledger | None = None


def pytest_configure(config) -> None:
    global _ledger
    if os.environ.get(OUT) and hasattr(config, "workerinput"):  # the one test process
        _ledger = Ledger()


def pytest_runtest_logstart(nodeid, location) -> None:
    if _ledger:
        _ledger.start(nodeid)


def pytest_runtest_logfinish(nodeid, location) -> None:
    if _ledger:
        _ledger.finish(nodeid)


def pytest_unconfigure(config) -> None:
    if _ledger:
        _ledger.close(Path(os.environ[OUT]))


# --- the benchmark ------------------------------------------------------------------


def module_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def measure(args) -> dict:
    if not args.pytest:
        sys.exit("benchmarks.module_cpu: give pytest's arguments after --, e.g. -- tests/ui")
    out = Path(args.cwd) / ".posviz" / "module_cpu.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.unlink(missing_ok=True)
    command = [sys.executable, "-m", "pytest", "-n", "1", "-p", "no:randomly", "-q"]
    command += ["-p", "benchmarks.module_cpu", *args.pytest]
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    env = {**os.environ, OUT: str(out), "PYTHONPATH": path}
    began = time.monotonic()
    finished = subprocess.run(command, cwd=args.cwd, env=env, check=False)
    if not out.is_file():
        code = finished.returncode
        sys.exit(f"benchmarks.module_cpu: pytest wrote no measurements (exit {code})")
    tests = json.loads(out.read_text())
    if not tests:  # a path that does not exist, a -k that matches nothing, a typo
        sys.exit(
            f"benchmarks.module_cpu: pytest ran no test of {' '.join(args.pytest)} "
            f"(exit {finished.returncode}); its output above says why"
        )
    modules: dict[str, dict] = defaultdict(lambda: {"tests": 0, "wall": 0.0, "by_kind": Counter()})
    for test in tests:
        module = modules[module_of(test["test"])]
        module["tests"] += 1
        module["wall"] += test["wall_seconds"]
        module["by_kind"].update(test["by_kind"])
    by_cpu = sorted(modules.items(), key=lambda item: -sum(item[1]["by_kind"].values()))
    return {
        "pytest": args.pytest,
        "exit_code": finished.returncode,
        "wall_seconds": round(time.monotonic() - began, 1),
        "modules": [
            {
                "module": name,
                "tests": module["tests"],
                "wall_seconds": round(module["wall"], 1),
                "cpu_seconds": round(sum(module["by_kind"].values()), 1),
                "by_kind": {k: round(v, 1) for k, v in module["by_kind"].most_common()},
            }
            for name, module in by_cpu
        ],
        "tests": sorted(tests, key=lambda test: -sum(test["by_kind"].values()))[:TESTS],
    }


def report(results: dict, args):
    kinds = ["chromium", "firefox", "webkit", "python: pytest", "python: other", "node"]
    rows = [
        [
            m["module"],
            m["tests"],
            f"{m['cpu_seconds']:.0f}",
            *[f"{m['by_kind'].get(k, 0):.0f}" for k in kinds],
            f"{m['wall_seconds']:.0f}",
        ]
        for m in results["modules"]
    ]
    yield table(
        "CPU seconds by test module (one test process; a module's fixtures in its first test)",
        ["module", "tests", "CPU", *kinds, "wall"],
        rows,
    )
    tests = [
        [t["test"][:110], f"{sum(t['by_kind'].values()):.1f}", f"{t['wall_seconds']:.1f}"]
        for t in results["tests"]
    ]
    yield table(f"\nthe {len(tests)} costliest tests", ["test", "CPU s", "wall s"], tests)
    total = sum(m["cpu_seconds"] for m in results["modules"])
    yield (
        f"\npytest {' '.join(results['pytest'])}: exit {results['exit_code']}, "
        f"wall {results['wall_seconds']:.0f} s, {total:.0f} CPU-seconds in its tests"
    )


def options(parser) -> None:
    parser.add_argument("--cwd", type=Path, default=ROOT, help="where pytest runs")
    parser.add_argument("pytest", nargs="*", help="pytest's arguments, after --")


BENCHMARK = Benchmark(
    name="module_cpu", doc=__doc__, measure=measure, report=report, options=options
)

if __name__ == "__main__":
    sys.exit(run(BENCHMARK))
