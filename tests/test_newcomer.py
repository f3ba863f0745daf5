"""What a newcomer does, in a copy of the repository: add CONTRIBUTING's figure
example and its oracle (taken from CONTRIBUTING.md itself), a figure with its
oracle and a page from `posviz new` (with a number declared from a figure view),
then run there what the new figures and page touch. All green.

Not the whole suite again: the main run tests every figure and page it has, so in
the copy only what the newcomer added can turn a test red. The copy runs the unit
tests parametrized by a new figure and those of the modules that read the registry
or the content (tests/support/newcomer.py selects them, as a plugin), and the two
new figures' views in the browser. The copy reuses this environment (``PYTHONPATH``
at the copy's ``src``) and its caches; the newcomer's export is built by
tests/ui/test_newcomer_export.py.
"""

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from posviz.figures import figure_ids
from tests.support.newcomer import NEWCOMER_ENV, ROOT, contributing_examples, left_out

pytestmark = pytest.mark.browser
# Not run again in the copy: this test itself.
LEFT_OUT_OF_THE_COPY = ("test_newcomer",)
FAILED = ("FAILED", "ERROR ")  # the summary lines of what did not pass


def run(copy: Path, *args: str, timeout: float, **extra: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(copy / "src"), "PYTHONDONTWRITEBYTECODE": "1"}
    env |= extra
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
    shutil.copytree(ROOT, copy, ignore=left_out(), symlinks=True)
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

    new = (5, new_id)
    pytest_args = ("-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", "-rfEsp")
    runs = {
        # What the new figures and page touch (tests/support/newcomer.py chooses).
        "unit tests": (
            *pytest_args,
            "-p",
            "tests.support.newcomer",
            "-m",
            "not browser",
            *(f"--ignore=tests/{name}.py" for name in LEFT_OUT_OF_THE_COPY),
        ),
        # The two new figures' own views: the others' are the main run's.
        "figure views": (
            *pytest_args,
            "tests/ui/test_figure_view.py",
            "-k",
            " or ".join(f"[{figure_id}]" for figure_id in new),
        ),
    }
    report, failed = {}, []
    chosen = {NEWCOMER_ENV: ",".join(map(str, new))}
    for what, args in runs.items():  # both run, so one's failure does not hide the other's
        started = time.monotonic()
        done = run(copy, *args, timeout=1500, **chosen)
        last = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
        print(f"newcomer copy, {what}: {last} ({time.monotonic() - started:.0f} s)")
        if done.returncode != 0:  # its failures first, then its summary
            failures = done.stdout.partition("= FAILURES =")[2][:6000]
            summary = "\n".join(line for line in done.stdout.splitlines() if line[:6] in FAILED)
            failed.append(f"{what}:\n{failures}\n{summary}\n{done.stderr[-2000:]}")
        report[what] = done.stdout
    assert not failed, "\n\n".join(failed)
    # The new figures were tested there, their drawings against their oracles too:
    # CONTRIBUTING's, and the one `posviz new figure` wrote beside its figure.
    assert "has no oracle" not in report["unit tests"]
    drawn = "PASSED tests/test_figures.py::test_every_slider_at_another_value_at_once_is_kept"
    for name in ("Squares", "SlopeLines"):
        assert f"{drawn}_and_drawn[{name}]" in report["unit tests"]
    # Each new figure's own checks ran (its frames step, among others), no old one's.
    stepped = "PASSED tests/test_frames.py::test_a_frame_applied_in_place_gives_the_models_a_"
    for figure_id in new:
        assert f"{stepped}fresh_plot_has[{figure_id}]" in report["unit tests"]
    assert f"{stepped}fresh_plot_has[710]" not in report["unit tests"]
    # The two new figures' views.
    assert "2 passed" in report["figure views"]
