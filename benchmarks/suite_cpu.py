"""Where a command's CPU goes, by kind of process (issue 32: what the suite spends).

Runs the command given after ``--`` (for the suite: ``.ci/run`` or ``./dev test``
in a fresh clone, ``--cwd`` its folder) and reads ``/proc`` every ``--every``
seconds. Every process that descends from the command is followed by its pid and
start time, even after its parent has gone and it was handed to init, and its user
and system CPU is added to its kind: Chromium, Firefox, WebKit, Node, the pytest
processes, pip, other Python (``posviz serve`` and build subprocesses), Xvfb, or
other. A process that starts and ends between two reads is not seen: the line
"not seen" is the machine's whole busy CPU (``/proc/stat``) minus what was
followed, which also holds whatever else ran on the machine meanwhile.

The question it answers is the suite's time target: with two processes on two
cores the suite keeps the CPU busy, so its wall time is its CPU over two, and
only less CPU makes it faster.
"""

import os
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from benchmarks.common import ROOT, table
from benchmarks.runner import Benchmark, run

TICK = os.sysconf("SC_CLK_TCK")
PROGRAMS = 15  # the Python programs the report breaks down


def stat(pid: int) -> tuple[int, int, int] | None:
    """(parent pid, start time, user + system ticks) of a process, or None if it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()  # after "pid (comm) "
    return int(fields[1]), int(fields[19]), int(fields[11]) + int(fields[12])


def kind(pid: int) -> str:
    """What a process is, from its executable and its command line."""
    try:
        exe = os.readlink(f"/proc/{pid}/exe")
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return "gone before it was named"
    if not raw:  # exec'ing (see ``what``): "other" is named again on the next read
        return "other"
    argv = raw.split(b"\0")
    line = " ".join(part.decode("utf-8", "replace") for part in argv)
    name = Path(exe).name
    if "chromium" in exe or "chrome" in name:
        return "chromium"
    if "firefox" in exe:
        return "firefox"
    if "webkit" in exe.lower() or "MiniBrowser" in exe:
        return "webkit"
    if name.startswith("node"):
        return "node"
    if name.startswith("python"):
        words = line.split()
        pytest = any(word == "pytest" or word.endswith("/pytest") for word in words)
        if pytest or "exec(eval(" in line:  # pytest and its xdist processes
            return "python: pytest"
        if " -m pip" in line or "/pip" in line:
            return "python: pip"
        return "python: other"
    if name.startswith("Xvfb"):
        return "Xvfb"
    return "other"


def what(pid: int) -> str | None:
    """A Python process's program, for the breakdown of the Python kinds: ``-m NAME``
    and its first word (``posviz.cli serve``), a script's or console script's name and
    its first word (``sphinx-build -q``), or ``-c`` for code on the command line; a
    first word that is a path is left out (``posviz.export.prerender``).

    None while the process has no command line yet: /proc gives an empty one for a
    moment while a process execs (measured: 5 of 200 reads right after Popen returned).
    """
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return "gone before it was named"
    if not raw:
        return None
    argv = raw.decode("utf-8", "replace").split("\0")
    words = [word for word in argv[1:] if word]
    while words and words[0].startswith("-") and words[0] not in ("-m", "-c"):
        # Interpreter options (-u, -I ...), and the value of those that take one.
        words = words[2:] if words[0] in ("-W", "-X", "--check-hash-based-pycs") else words[1:]
    if not words:
        return "python"
    if words[0] == "-c":
        return "-c"
    program = words[1] if words[0] == "-m" else Path(words[0]).name
    after = words[2:3] if words[0] == "-m" else words[1:2]
    # A path as the first word (a build's own folder) would make each run a program of its own.
    return " ".join([program, *(word for word in after if "/" not in word)])


def busy_ticks() -> int:
    fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:8]]
    return sum(fields) - fields[3] - fields[4]  # all but idle and iowait


class Follower:
    """The command's processes, each by (pid, start time), and their CPU by kind."""

    def __init__(self, root: int):
        self.seen: dict[tuple[int, int], int] = {}  # (pid, start) -> ticks counted so far
        self.kinds: dict[tuple[int, int], str] = {}
        self.by_kind: Counter = Counter()
        self.by_program: Counter = Counter()  # (kind, program) of the Python kinds
        self.programs: dict[tuple[int, int], str] = {}
        self.root = root
        self.followed = {root}  # pids whose children are followed
        self.started = set()  # (pid, start) of every process followed

    def read(self) -> None:
        table_now = {}
        for entry in os.scandir("/proc"):
            if entry.name.isdigit():
                found = stat(int(entry.name))
                if found:
                    table_now[int(entry.name)] = found
        # Parents before children: a new process's parent may itself be new.
        changed = True
        while changed:
            changed = False
            for pid, (parent, _, _) in table_now.items():
                if pid not in self.followed and parent in self.followed:
                    self.followed.add(pid)
                    changed = True
        for pid, (_, start, ticks) in table_now.items():
            if pid not in self.followed:
                continue
            key = (pid, start)
            if key not in self.started:
                self.started.add(key)
                self.seen[key] = 0
            self.kinds[key] = kind(pid) if key not in self.kinds else self.kinds[key]
            if self.kinds[key] in ("other", "gone before it was named"):
                self.kinds[key] = kind(pid)  # a shell that has since exec'd its program
            if self.kinds[key].startswith("python") and key not in self.programs:
                if (program := what(pid)) is not None:  # else named on a later read
                    self.programs[key] = program
            delta = ticks - self.seen[key]
            if delta > 0:
                self.by_kind[self.kinds[key]] += delta
                if key in self.programs:
                    self.by_program[(self.kinds[key], self.programs[key])] += delta
                self.seen[key] = ticks
        # A pid that ended may come back as another process: follow it only as a child.
        self.followed &= set(table_now) | {self.root}


def measure(args) -> dict:
    if not args.command:
        sys.exit("benchmarks.suite_cpu: give the command after --, e.g. -- ./dev test --fast")
    busy_before, started = busy_ticks(), time.monotonic()
    try:
        command = subprocess.Popen(args.command, cwd=args.cwd)
    except OSError as error:  # no such program, or not runnable, or no such --cwd
        sys.exit(f"benchmarks.suite_cpu: cannot run {args.command[0]!r} in {args.cwd}: {error}")
    follower = Follower(command.pid)
    while command.poll() is None:
        follower.read()
        time.sleep(args.every)
    wall = time.monotonic() - started
    busy = (busy_ticks() - busy_before) / TICK
    kinds = {name: round(ticks / TICK, 1) for name, ticks in follower.by_kind.most_common()}
    followed = sum(kinds.values())
    return {
        "command": args.command,
        "cwd": str(args.cwd),
        "exit_code": command.returncode,
        "wall_seconds": round(wall, 1),
        "cpus": os.cpu_count(),
        "busy_cpu_seconds": round(busy, 1),
        "busy_share": round(busy / wall / os.cpu_count(), 3),
        "followed_cpu_seconds": round(followed, 1),
        "not_seen_cpu_seconds": round(busy - followed, 1),
        "processes": len(follower.started),
        "by_kind": kinds,
        "python_programs": [
            {"kind": kind_, "program": program, "cpu_seconds": round(ticks / TICK, 1)}
            for (kind_, program), ticks in follower.by_program.most_common(PROGRAMS)
        ],
    }


def report(results: dict, args):
    busy = results["busy_cpu_seconds"] or 1
    rows = [
        [name, f"{seconds:.0f}", f"{seconds / busy:.0%}"]
        for name, seconds in results["by_kind"].items()
    ]
    rows.append(
        [
            "not seen",
            f"{results['not_seen_cpu_seconds']:.0f}",
            f"{results['not_seen_cpu_seconds'] / busy:.0%}",
        ]
    )
    yield table("CPU by kind of process", ["kind", "CPU seconds", "of the busy CPU"], rows)
    programs = [
        [row["kind"], row["program"], f"{row['cpu_seconds']:.0f}"]
        for row in results.get("python_programs", [])
    ]
    if programs:
        yield table(
            f"\nthe {len(programs)} costliest Python programs",
            ["kind", "program", "CPU seconds"],
            programs,
        )
    yield (
        f"\n{' '.join(results['command'])}: exit {results['exit_code']}, "
        f"wall {results['wall_seconds']:.0f} s, {results['busy_cpu_seconds']:.0f} CPU-seconds "
        f"busy on {results['cpus']} CPUs ({results['busy_share']:.0%} of them), "
        f"{results['processes']} processes followed"
    )


def options(parser) -> None:
    parser.add_argument("--cwd", type=Path, default=ROOT, help="where the command runs")
    parser.add_argument("--every", type=float, default=1.0, help="seconds between reads")
    parser.add_argument("command", nargs="*", help="the command, after --")


BENCHMARK = Benchmark(
    name="suite_cpu", doc=__doc__, measure=measure, report=report, options=options
)

if __name__ == "__main__":
    sys.exit(run(BENCHMARK))
