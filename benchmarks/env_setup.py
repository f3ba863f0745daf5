"""What making the project's environment from the lock costs, pip against uv (issue 32).

Each round makes a new venv in a temporary folder from ``requirements/host.lock``,
once with pip (``pip install --require-hashes --only-binary=:all: --no-compile``, the
venv's own pip, as ./dev did before) and once with uv (``uv pip install`` with the
same flags into a venv made without pip, as ./dev does now), then installs posviz
editable into it without build isolation, as ./dev does. Both read their own
caches, warm after the first round (``--cold`` gives each an empty cache of its
own every round: every wheel is downloaded). Reported: wall and CPU seconds (the
installers' processes and their children) and uv's ratio to pip in the same run.

    python -m benchmarks.env_setup --rounds 3
"""

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import ROOT, table
from benchmarks.runner import Benchmark, run

LOCK = ROOT / "requirements" / "host.lock"
UV = ROOT / ".venv-uv" / "bin" / "uv"
QUIET = ("--quiet", "--disable-pip-version-check")


def children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def commands(installer: str, venv: Path) -> list[list[str]]:
    python = str(venv / "bin" / "python")
    locked = ["--require-hashes", "--only-binary=:all:", "-r", str(LOCK)]
    project = ["--no-deps", "--no-build-isolation", "--editable", str(ROOT)]
    if installer == "pip":
        pip = [python, "-m", "pip", "install", *QUIET]
        return [
            [sys.executable, "-m", "venv", str(venv)],
            [*pip, *locked, "--no-compile"],
            [*pip, *project],
        ]
    uv = [str(UV), "pip", "install", "--quiet", "--python", python]
    return [
        [sys.executable, "-m", "venv", "--without-pip", str(venv)],
        [*uv, *locked],
        [*uv, *project],
    ]


def make(installer: str, cold: bool) -> dict:
    with tempfile.TemporaryDirectory(prefix=f"env-{installer}-") as scratch:
        env = None
        if cold:
            cache = str(Path(scratch) / "cache")
            env = {**os.environ, "PIP_CACHE_DIR": cache, "UV_CACHE_DIR": cache}
        cpu, start = children_cpu(), time.perf_counter()
        for command in commands(installer, Path(scratch) / "venv"):
            subprocess.run(command, check=True, env=env, capture_output=True)
        return {"wall": time.perf_counter() - start, "cpu": children_cpu() - cpu}


def measure(args) -> dict:
    if not UV.exists():
        raise SystemExit(f"{UV} is missing: run ./dev once (it installs uv from its lock)")
    rounds: dict[str, list[dict]] = {"pip": [], "uv": []}
    for _ in range(args.rounds):
        for installer in rounds:
            rounds[installer].append(make(installer, args.cold))
    medians = {
        installer: {key: statistics.median(r[key] for r in made) for key in ("wall", "cpu")}
        for installer, made in rounds.items()
    }
    return {
        "cold": args.cold,
        "rounds": rounds,
        "median": medians,
        "uv_over_pip": {key: medians["uv"][key] / medians["pip"][key] for key in ("wall", "cpu")},
    }


def report(results: dict, _args):
    rows = [
        [installer, f"{m['wall']:.1f}", f"{m['cpu']:.1f}"]
        for installer, m in results["median"].items()
    ]
    ratio = results["uv_over_pip"]
    rows.append(["uv ÷ pip", f"{ratio['wall']:.2f}", f"{ratio['cpu']:.2f}"])
    caches = "an empty cache each round" if results["cold"] else "warm caches"
    yield table(
        f"A new environment from the lock, then posviz editable ({caches}; medians)",
        ["installer", "wall s", "CPU s"],
        rows,
    )


def options(parser) -> None:
    parser.add_argument("--cold", action="store_true", help="an empty cache every round")


BENCHMARK = Benchmark(
    name="env_setup", doc=__doc__, measure=measure, report=report, rounds=3, options=options
)

if __name__ == "__main__":
    sys.exit(run(BENCHMARK))
