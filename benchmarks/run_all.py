"""Run every benchmark, then write benchmarks/RESULTS.md from their JSON.

`./dev bench` runs this. Each benchmark is a script that declares a
``runner.Benchmark`` and also runs alone: `python -m benchmarks.<name> --help`.
Each runs in its own process (its servers and browsers end with it).
"""

import argparse
import importlib
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.common import table

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
ORDER = [
    "export_size",
    "cold_load",
    "first_answer",
    "runtime",
    "step_cost",
    "slider_latency",
    "server_load",
    "baseline",
    "engines",
    "text_first",  # alone: --site before=DIR --site after=DIR for the before/after ratios
    "scale",
    "lazy",
    "dev_loop",  # posviz serve --dev: an edit until the open tab shows it
    "link_tiers",  # the topic's tiers through a throttled link (9 and 3 Mbit/s), beside stock
]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--only", action="append", choices=ORDER, help="these benchmarks only")
    parser.add_argument(
        "--rounds", type=int, help="passed to every benchmark that has rounds (default: theirs)"
    )
    args = parser.parse_args(argv)
    done = []
    for name in args.only or ORDER:
        benchmark = importlib.import_module(f"benchmarks.{name}").BENCHMARK
        command = [sys.executable, "-m", f"benchmarks.{name}"]
        if args.rounds is not None and benchmark.rounds is not None:
            command += ["--rounds", str(args.rounds)]
        print(f"\n=== {name} ===", flush=True)
        started = time.monotonic()
        code = subprocess.call(command, cwd=ROOT)
        done.append([name, round(time.monotonic() - started), "ok" if code == 0 else "failed"])
    from benchmarks.results_md import quote_targets, render

    (HERE / "RESULTS.md").write_text(render(HERE / "results"))
    quote_targets(ROOT / "README.md")
    print(table("Benchmarks run", ["benchmark", "seconds", ""], done))
    print("\nwrote benchmarks/RESULTS.md")
    return 1 if any(row[2] == "failed" for row in done) else 0


if __name__ == "__main__":
    sys.exit(main())
