"""What a newcomer does, in a copy of the repository: add CONTRIBUTING's figure
example and its oracle (taken from CONTRIBUTING.md itself), a figure and a page
from `posviz new` (with a number declared from a figure view),
then run the unit tests and every figure's view in the browser there. All green.

The copy reuses this environment (``PYTHONPATH`` at the copy's ``src``) and its
Pyodide cache, so it costs the unit suite once more plus one browser test per
figure.
"""

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from posviz.figures import figure_ids
from tests.support.newcomer import LEFT_OUT, ROOT, contributing_examples

pytestmark = pytest.mark.browser
# Not run again in the copy: this test itself, and the serve-memory test, which
# measures the server's allocator over seventy sessions, not the content.
LEFT_OUT_OF_THE_COPY = ("test_newcomer", "test_serve_memory")


def run(copy: Path, *args: str, timeout: float) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(copy / "src"), "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("POSVIZ_CONTENT", None)
    for name in [name for name in env if name.startswith("PYTEST_XDIST")]:
        env.pop(name)  # the copy's run is its own, not one of this run's processes
    return subprocess.run(
        [sys.executable, *args],
        cwd=copy,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_a_newcomers_figure_and_page_leave_the_suite_green(tmp_path):
    copy = tmp_path / "posviz"
    shutil.copytree(ROOT, copy, ignore=LEFT_OUT, symlinks=True)
    examples = contributing_examples()
    assert set(examples) == {"src/posviz/figures/squares.py", "tests/oracles/squares.py"}
    for path, code in examples.items():
        assert not (copy / path).exists(), f"{path} exists already: the example must be new"
        (copy / path).write_text(code, "utf-8")

    new_id = max(figure_ids() | {5}) + 1
    commands = [
        ("new", "figure", "SlopeLines", "--id", str(new_id)),
        ("new", "page", "clocks-on-a-grid", "--title", "Clocks on a grid"),
        ("check",),
    ]
    for command in commands[:2]:
        done = run(copy, "-m", "posviz.cli", *command, timeout=120)
        assert done.returncode == 0, f"posviz {' '.join(command)}:\n{done.stderr}"
    # The author writes a claim with numbers, and says which figure view shows them.
    page = copy / "content" / "pages" / "clocks-on-a-grid.md"
    front, body = page.read_text("utf-8").split("\n---\n", 1)
    numbers = 'numbers:\n  "4": figure-5?n=4\n  "16": figure-5?n=4\n'
    claim = "Set n to 4 in the squares figure: the last square is 16.\n"
    page.write_text(f"{front}\n{numbers}---\n{body}\n{claim}", "utf-8")
    done = run(copy, "-m", "posviz.cli", *commands[2], timeout=120)
    assert done.returncode == 0, f"posviz check:\n{done.stderr}"
    assert run(copy, "-c", "import posviz; print(posviz.__file__)", timeout=60).stdout.startswith(
        str(copy)
    )

    pytest_args = ("-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs")
    runs = {
        # The whole unit suite, site builds, docs builds and the notebook included.
        "unit tests": (
            *pytest_args,
            "-m",
            "not browser",
            *(f"--ignore=tests/{name}.py" for name in LEFT_OUT_OF_THE_COPY),
        ),
        "figure views": (*pytest_args, "tests/ui/test_figure_view.py"),
    }
    report, failed = {}, []
    for what, args in runs.items():  # both run, so one's failure does not hide the other's
        started = time.monotonic()
        done = run(copy, *args, timeout=1500)
        last = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
        print(f"newcomer copy, {what}: {last} ({time.monotonic() - started:.0f} s)")
        if done.returncode != 0:
            failed.append(f"{what}:\n" + done.stdout[-6000:] + done.stderr[-2000:])
        report[what] = done.stdout
    assert not failed, "\n\n".join(failed)
    # The new figures were tested there: their generic checks ran, and the drawing
    # checks were skipped for want of an oracle, saying so by name.
    assert "Squares (figure 5) has no oracle" not in report["unit tests"]  # it has one
    assert f"SlopeLines (figure {new_id}) has no oracle" in report["unit tests"]
    # Every figure's view, the two new ones with the others.
    assert f"{len(figure_ids()) + 2} passed" in report["figure views"]
