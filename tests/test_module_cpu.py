"""benchmarks/module_cpu.py gives each test the CPU its processes spent while it ran:
checked against the CPU a child process measured itself."""

import argparse
import json
import re

import pytest

from benchmarks.module_cpu import measure

# The first test starts a Python that spins for a CPU-second, writes its own
# process_time and then waits on its stdin, alive, so the plugin's read at the
# test's end sees all of its spin. The second test lets it end, and spends next to
# nothing itself. Each step waits on state (a file, a pipe), never on a time.
TESTS = """
import subprocess, sys, time
from pathlib import Path

CHILD = (
    "import sys, time\\n"
    "start = time.process_time()\\n"
    "while time.process_time() - start < 1.0: pass\\n"
    "open(sys.argv[1] + '.tmp', 'w').write(str(time.process_time()))\\n"
    "import os; os.rename(sys.argv[1] + '.tmp', sys.argv[1])\\n"
    "sys.stdin.read()\\n"
)
SPENT = Path(__file__).with_name("spent")
child = []


def test_a_spends_a_cpu_second_in_a_child():
    child.append(subprocess.Popen([sys.executable, "-c", CHILD, str(SPENT)], stdin=subprocess.PIPE))
    deadline = time.monotonic() + 300
    while not SPENT.exists():
        assert time.monotonic() < deadline
        time.sleep(0.02)


def test_b_lets_the_child_end():
    child[0].stdin.close()
    assert child[0].wait() == 0
"""


# A pytest run of its own on an xdist worker: 5 s alone, 25 s beside the fast tier's
# other process (a quarter of that tier's wall), so the full run's, not the edit loop's.
@pytest.mark.slow
def test_each_test_gets_what_its_processes_spent(tmp_path):
    (tmp_path / "test_spend.py").write_text(TESTS)
    (tmp_path / "pytest.ini").write_text("[pytest]\n")  # the tmp folder is its own rootdir
    results = measure(argparse.Namespace(pytest=[str(tmp_path)], cwd=tmp_path))
    assert results["exit_code"] == 0
    spent = float((tmp_path / "spent").read_text())
    by_test = {t["test"].rsplit("::", 1)[1]: t["by_kind"] for t in results["tests"]}
    spender = by_test["test_a_spends_a_cpu_second_in_a_child"]
    # /proc counts in ticks; the child's start-up adds a little.
    assert spent - 0.05 <= spender["python: other"] <= spent + 0.3, (spender, spent)
    ender = by_test["test_b_lets_the_child_end"]
    assert sum(ender.values()) < 0.5 * spent, ender
    [module] = results["modules"]
    assert module["tests"] == 2
    total = spender["python: other"] + ender.get("python: other", 0)
    assert abs(module["by_kind"]["python: other"] - total) <= 0.1, (module, total)
    json.dumps(results)  # what the runner writes


@pytest.mark.slow  # a pytest run of its own, as above
def test_arguments_that_run_no_test_fail_naming_them(tmp_path):
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    missing = str(tmp_path / "test_typo.py")
    with pytest.raises(SystemExit, match=re.escape(f"ran no test of {missing} (exit ") + "[1-9]"):
        measure(argparse.Namespace(pytest=[missing], cwd=tmp_path))
