"""Where the test suite's time goes (issue 32), read from a run's JUnit report.

``./dev test`` writes ``.posviz/junit.xml`` on every run; this reads it (or
``--junit FILE``) and reports, per test module, the seconds its tests took
(setup, call and teardown, as pytest times them) and how many there are; the
browser tier's share (``tests/ui``); the slowest tests; and how well the run's
processes were balanced: the report's wall time against the tests' seconds
divided by the processes (``--processes``, default 2, ``./dev test``'s).

Nothing is run: it reports a run that happened, so its numbers are that run's.
"""

import sys
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

from benchmarks.common import ROOT, table
from benchmarks.runner import Benchmark, run

BROWSER = "tests/ui/"


def module_of(classname: str) -> str:
    """``tests.ui.test_frames.SomeClass`` -> ``tests/ui/test_frames.py``."""
    parts = classname.split(".")
    for end, part in enumerate(parts):
        if part.startswith("test_"):
            return "/".join(parts[: end + 1]) + ".py"
    return "/".join(parts) + ".py"


class ReportError(Exception):
    """The report is missing or is not a JUnit report: the message says which, and what to do."""


def tally(report: Path) -> dict:
    """Seconds and counts per module, the browser tier's share, and the slowest tests."""
    try:
        root = ET.parse(report).getroot()
    except FileNotFoundError:
        raise ReportError(
            f"{report}: no such report; ./dev test writes one there, or pass --junit FILE"
        ) from None
    except ET.ParseError as error:
        raise ReportError(f"{report}: not a JUnit report ({error})") from None
    suites = [root] if root.tag == "testsuite" else list(root.iter("testsuite"))
    modules: dict[str, dict] = defaultdict(lambda: {"seconds": 0.0, "tests": 0})
    tests = []
    for case in root.iter("testcase"):
        module = module_of(case.get("classname", ""))
        seconds = float(case.get("time", 0))
        modules[module]["seconds"] += seconds
        modules[module]["tests"] += 1
        tests.append({"test": f"{module}::{case.get('name')}", "seconds": round(seconds, 1)})
    total = sum(m["seconds"] for m in modules.values())
    browser = sum(m["seconds"] for name, m in modules.items() if name.startswith(BROWSER))
    ranked = sorted(modules.items(), key=lambda item: -item[1]["seconds"])
    return {
        "report": str(report),
        "wall_seconds": round(sum(float(s.get("time", 0)) for s in suites), 1),
        "tests": len(tests),
        "test_seconds": round(total, 1),
        "browser_seconds": round(browser, 1),
        "browser_share": round(browser / total, 3) if total else None,
        "modules": [
            {"module": name, "tests": m["tests"], "seconds": round(m["seconds"], 1)}
            for name, m in ranked
        ],
        "slowest": sorted(tests, key=lambda t: -t["seconds"])[:20],
    }


def measure(args) -> dict:
    try:
        found = tally(args.junit)
    except ReportError as error:
        sys.exit(f"benchmarks.suite_time: {error}")
    found["processes"] = args.processes
    if found["wall_seconds"]:
        # 1.0: every process busy until the end; below: one waited on the other's last module.
        found["balance"] = round(found["test_seconds"] / args.processes / found["wall_seconds"], 3)
    return found


def report(results: dict, args):
    rows = [[m["module"], m["tests"], f"{m['seconds']:.1f}"] for m in results["modules"][:25]]
    yield table("the 25 costliest modules", ["module", "tests", "seconds"], rows)
    yield (
        f"\n{results['tests']} tests, {results['test_seconds']:.0f} test-seconds, "
        f"{results['browser_share']:.0%} of them in {BROWSER}; "
        f"wall {results['wall_seconds']:.0f} s on {results['processes']} processes"
        + (f", balance {results['balance']:.2f}" if "balance" in results else "")
    )
    slow = [[t["test"][:110], f"{t['seconds']:.1f}"] for t in results["slowest"][:10]]
    yield table("the 10 slowest tests", ["test", "seconds"], slow)


def options(parser) -> None:
    parser.add_argument(
        "--junit",
        type=Path,
        default=ROOT / ".posviz" / "junit.xml",
        help="a pytest JUnit report (default .posviz/junit.xml, which ./dev test writes)",
    )
    parser.add_argument("--processes", type=int, default=2, help="the run's processes (default 2)")


BENCHMARK = Benchmark(
    name="suite_time", doc=__doc__, measure=measure, report=report, options=options
)

if __name__ == "__main__":
    sys.exit(run(BENCHMARK))
