"""Long work shows progress as pip does: a moving line on a terminal, plain lines elsewhere.

The streams here are fakes that say whether they are a terminal; the clock is
real but short (``progress.TICK`` is shortened), so the moving line is seen
redrawn, not assumed.
"""

import io
import json
import re
import time
from pathlib import Path

import pytest

from posviz.export import distribution, progress


class Terminal(io.StringIO):
    def isatty(self):
        return True


class Log(io.StringIO):
    def isatty(self):
        return False


@pytest.fixture(autouse=True)
def quick(monkeypatch):
    monkeypatch.setattr(progress, "TICK", 0.02)


def frames(text: str) -> list[str]:
    """What a terminal showed, redraw by redraw (each starts with the erase sequence)."""
    return [part for part in text.split(progress.CLEAR) if part]


def wait_until(holds, what: str, seconds: float = 30.0) -> None:
    """Wait on a state the progress thread reaches (never on a fixed sleep)."""

    deadline = time.monotonic() + seconds
    while not holds():
        assert time.monotonic() < deadline, f"waited {seconds:.0f} s for {what}"
        time.sleep(0.01)


def test_steps_on_a_terminal_are_one_line_counted_and_timed():
    shown = Terminal()
    steps = progress.Steps("posviz build")
    steps.start(3, shown)
    steps.step("converting 2 dashboards")
    steps.say("warning: one thing")
    steps.step("computing the figures' frames")

    def redraws():
        return [f for f in frames(shown.getvalue()) if f.startswith("posviz build [2/3] computing")]

    wait_until(lambda: len(redraws()) >= 2, "the clock to redraw the step's line")
    steps.finish()
    text = shown.getvalue()
    assert any(
        re.fullmatch(r"posviz build \[1/3\] converting 2 dashboards · \d+ s", f)
        for f in frames(text)
    )
    assert "posviz build: warning: one thing\n" in text  # a line that stays
    assert len(redraws()) >= 2  # redrawn in place, not printed again
    assert text.endswith(progress.CLEAR)  # the moving line is gone at the end
    assert text.count("\n") == 1  # only the warning took a line


def test_steps_off_a_terminal_are_plain_lines_and_nothing_is_rewritten():
    shown = Log()
    steps = progress.Steps("posviz build")
    steps.start(2, shown)
    steps.step("converting 2 dashboards")
    steps.step("collecting wheels")
    steps.finish()
    text = shown.getvalue()
    assert text == "posviz build: converting 2 dashboards\nposviz build: collecting wheels\n"
    assert "\r" not in text and "\x1b" not in text


def test_a_download_on_a_terminal_counts_its_bytes_as_they_arrive(tmp_path):
    shown = Terminal()

    def seen():
        counts = [re.search(r"· ([0-9.]+ [kM]?B) ·", f) for f in frames(shown.getvalue())]
        return [c.group(1) for c in counts if c]

    started = time.monotonic()
    with progress.fetching("fetching pyodide@0.27.7 from npm", tmp_path, shown):
        for n, size in enumerate(("600.0 kB", "1.2 MB", "1.8 MB")):
            (tmp_path / f"part{n}").write_bytes(b"x" * 600_000)
            wait_until(lambda size=size: size in seen(), f"the count to show {size}")
    took = time.monotonic() - started
    text = shown.getvalue()
    assert "600.0 kB" in seen() and "1.2 MB" in seen()  # the count grew while it ran
    # The last line gives the size and the time it took: as long as it ran here, however
    # long a loaded machine makes that (it said "1 s" once, in CI's 3.12 tier at nice 19).
    last = re.search(r"posviz: fetching pyodide@0\.27\.7 from npm: 1\.8 MB in (\d+) s\n\Z", text)
    assert last, text[-120:]
    assert int(last.group(1)) <= round(took) + 1, (last.group(1), took)


def test_a_download_off_a_terminal_says_one_line_when_done(tmp_path):
    shown = Log()
    with progress.fetching("fetching wheels", tmp_path, shown):
        (tmp_path / "a.whl").write_bytes(b"x" * 2500)
    assert re.fullmatch(r"posviz: fetching wheels: 2\.5 kB in \d+ s\n", shown.getvalue())


def test_a_failed_download_leaves_no_moving_line_and_no_done_line(tmp_path):
    shown = Terminal()
    with pytest.raises(RuntimeError):
        with progress.fetching("fetching wheels", tmp_path, shown):
            raise RuntimeError("the registry is gone")
    assert shown.getvalue().endswith(progress.CLEAR)
    assert not re.search(r" in \d+ s", shown.getvalue())


@pytest.mark.parametrize("size,said", [(812, "812 B"), (3_400_000, "3.4 MB"), (0, "0 B")])
def test_sizes_read_as_a_reader_reads_them(size, said):
    assert progress.human(size) == said


def test_the_npm_fetch_keeps_its_cache_where_its_bytes_are_counted(tmp_path, monkeypatch, capsys):
    """The runtime's download is the long one: its bytes land where ``fetching`` looks."""
    seen = {}

    def fake_run(cmd, cwd, what, env):
        seen["env"] = env
        cache = cwd / "npm-cache"
        cache.mkdir()
        (cache / "content").write_bytes(b"x" * 4000)
        (cwd / "pyodide-0.27.7.tgz").write_bytes(b"not the pinned tarball")
        return type("Done", (), {"stdout": json.dumps([{"filename": "pyodide-0.27.7.tgz"}])})

    monkeypatch.setattr(distribution, "_run", fake_run)
    with pytest.raises(distribution.DistributionError):
        distribution.fetch_npm_release(tmp_path)  # the fake tarball fails its pin after
    assert seen["env"] == {"npm_config_cache": str(tmp_path / "npm-cache")}
    assert re.search(
        r"fetching pyodide@0\.27\.7 from npm: 4\.0 kB in \d+ s", capsys.readouterr().out
    )


def test_a_wheel_fetched_from_pypi_counts_its_bytes_and_ends_with_its_size(
    tmp_path, monkeypatch, capsys
):
    """pip's temporary download lands in the folder ``fetching`` counts, and the wheel's own
    line ends with the bytes that arrived."""
    from posviz.export import wheels

    seen = {}

    def fake_pip(args, cwd, env=None):
        seen["env"] = env
        partial = Path(env["TMPDIR"]) / "pip-unpack" / "download"
        partial.parent.mkdir(parents=True)
        partial.write_bytes(b"x" * 7000)  # what the count sees while pip runs
        (cwd / "dl").mkdir()
        (cwd / "dl" / "bokeh-3.9.2-py3-none-any.whl").write_bytes(b"not the pinned wheel")

    monkeypatch.setattr(wheels, "_pip", fake_pip)
    with pytest.raises(wheels.WheelError):
        wheels.raw_wheel("bokeh", "3.12", cache_root=tmp_path)  # the fake fails its pin after
    assert Path(seen["env"]["TMPDIR"]).name == "pip-tmp"
    out = capsys.readouterr().out
    assert re.search(r"posviz: fetching bokeh 3\.9\.2 from PyPI: 7\.\d kB in \d+ s\n", out), out
