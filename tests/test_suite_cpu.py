"""benchmarks/suite_cpu.py follows a command's processes, an orphaned one too, and
adds each one's CPU to its kind: checked against the CPU a child measured itself."""

import argparse
import os
import subprocess
import sys
import time

import pytest

from benchmarks.suite_cpu import TICK, Follower, kind, measure, what

# A shell starts a Python and waits for "go"; the test reads /proc once (so it knows both),
# then lets the shell end: the Python is handed to init, and only then spins for a
# CPU-second ("spin"), writes its own process_time, and sleeps until the test has read
# /proc once more ("ack"). Every step waits on a file, never on a time.
CHILD = (
    "import os, sys, time\n"
    "base = sys.argv[1]\n"
    "open(base + '.started', 'w').close()\n"
    "while not os.path.exists(base + '.spin'): time.sleep(0.01)\n"
    "start = time.process_time()\n"
    "while time.process_time() - start < 1.0: pass\n"
    "open(base + '.tmp', 'w').write(str(time.process_time()))\n"
    "os.rename(base + '.tmp', base)\n"
    "while not os.path.exists(base + '.ack'): time.sleep(0.01)\n"
)


def wait_for(path, follower=None):
    deadline = time.monotonic() + 300
    while not path.exists():
        assert time.monotonic() < deadline, f"{path.name} never came"
        if follower:
            follower.read()
        time.sleep(0.05)


def test_an_orphaned_child_s_cpu_is_counted_under_its_kind(tmp_path):
    out = tmp_path / "cpu"
    go = tmp_path / "cpu.go"
    script = f'"{sys.executable}" -c "$0" "$1" & while [ ! -e "$1.go" ]; do sleep 0.01; done'
    shell = subprocess.Popen(["sh", "-c", script, CHILD, str(out)])
    follower = Follower(shell.pid)
    wait_for(tmp_path / "cpu.started")
    follower.read()  # the shell and its child, both known
    go.touch()
    shell.wait()  # the child is an orphan now
    (tmp_path / "cpu.spin").touch()
    wait_for(out, follower)  # the child says when it has spun
    follower.read()  # the child is asleep now: this read holds all of its spin
    (tmp_path / "cpu.ack").touch()
    spent = float(out.read_text())
    python = follower.by_kind["python: other"] / TICK
    # /proc counts in ticks; the child's start-up and its short sleeps add a little.
    assert spent - 2 / TICK <= python <= spent + 0.2, (python, spent, dict(follower.by_kind))
    assert follower.by_kind["python: pytest"] == 0
    # The breakdown by program holds the same ticks, under the child's program.
    assert follower.by_program[("python: other", "-c")] == follower.by_kind["python: other"]


def test_kinds_are_named_from_the_executable_and_the_command_line(tmp_path):
    mine = kind(os.getpid())
    assert mine == "python: pytest", mine  # this test runs under pytest
    path_only = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(30)", str(tmp_path / "pytest-of-x")]
    )
    try:
        deadline = time.monotonic() + 60
        while (named := kind(path_only.pid)) == "other":  # exec'ing: named on a later read
            assert time.monotonic() < deadline, "the child never had a command line"
            time.sleep(0.01)
        assert named == "python: other"  # "pytest" in a path is not pytest
    finally:
        path_only.kill()
        path_only.wait()
    assert kind(2**22 + 7) == "gone before it was named"


def test_a_command_that_cannot_run_is_named(tmp_path):
    for command, cwd, said in [
        (["no-such-command-here"], tmp_path, "cannot run 'no-such-command-here'"),
        (["ls"], tmp_path / "missing", f"in {tmp_path / 'missing'}"),
        ([], tmp_path, "give the command after --"),
    ]:
        with pytest.raises(SystemExit) as stop:
            measure(argparse.Namespace(command=command, cwd=cwd, every=1.0))
        assert said in str(stop.value), stop.value


def test_a_python_program_is_named_by_its_module_script_or_code(tmp_path):
    cases = [
        ([sys.executable, "-u", "-m", "http.server", "0", "--bind", "127.0.0.1"], "http.server 0"),
        ([sys.executable, "-c", "import time; time.sleep(30)"], "-c"),
        (
            [
                sys.executable,
                "-W",
                "ignore::DeprecationWarning",
                "-X",
                "utf8",
                "-c",
                "import time; time.sleep(30)",
            ],
            "-c",
        ),
        ([sys.executable, str(tmp_path / "tool.py"), "serve", "x"], "tool.py serve"),
        ([sys.executable, str(tmp_path / "tool.py"), str(tmp_path)], "tool.py"),
    ]
    (tmp_path / "tool.py").write_text("import time\ntime.sleep(30)\n")
    for argv, expected in cases:
        process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 60
            while (named := what(process.pid)) is None:  # exec'ing: no command line yet
                assert time.monotonic() < deadline, f"{argv} never had a command line"
                time.sleep(0.01)
            assert named == expected, argv
        finally:
            process.kill()
            process.wait()
    assert what(2**22 + 7) == "gone before it was named"
