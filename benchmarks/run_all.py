"""Run every benchmark, then write benchmarks/RESULTS.md from their JSON.

`./dev bench` runs this. Each benchmark also runs alone:
`python -m benchmarks.<name>.py --help`.
"""

import subprocess
import sys
import time
from pathlib import Path

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
]


def main() -> int:
    failed = []
    for name in ORDER:
        print(f"\n=== {name} ===", flush=True)
        started = time.monotonic()
        if subprocess.call([sys.executable, "-m", f"benchmarks.{name}"], cwd=ROOT) != 0:
            failed.append(name)
        print(f"({name}: {time.monotonic() - started:.0f} s)", flush=True)
    from benchmarks.results_md import quote_targets, render

    (HERE / "RESULTS.md").write_text(render(HERE / "results"))
    quote_targets(ROOT / "README.md")
    print(f"\nwrote benchmarks/RESULTS.md{'; failed: ' + ', '.join(failed) if failed else ''}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
