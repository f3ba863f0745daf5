"""`posviz serve` hands panel serve every dashboard, with reload for maintainers;
`posviz build` and `posviz pyodide` fail in one line."""

import os
import stat

import pytest

from posviz import cli
from posviz.build import target
from posviz.compose.routes import routes
from posviz.content import load


@pytest.fixture
def repo(monkeypatch, tmp_path):
    """Entry scripts go to tmp_path/.posviz/, as if tmp_path were the checkout."""
    monkeypatch.setattr(target, "repository_root", lambda: tmp_path)
    return tmp_path


def run_serve(monkeypatch, *args):
    calls = []
    monkeypatch.setattr(os, "execve", lambda path, command, env: calls.append(command))
    cli.main(["serve", *args])
    (command,) = calls
    return command


def test_serve_passes_every_route_and_the_home_index(monkeypatch, repo):
    command = run_serve(monkeypatch, "--port", "5999")
    assert command[1:4] == ["-m", "panel", "serve"]
    scripts = [arg for arg in command if arg.endswith(".py")]
    assert sorted(p.rsplit("/", 1)[1][:-3] for p in scripts) == sorted(
        route.name for route in routes(load())
    )
    assert command[command.index("--port") + 1] == "5999"
    assert command[command.index("--index") + 1] == "index"
    assert "--autoreload" not in command and "--show" not in command


def test_serve_writes_its_scripts_into_a_private_folder_it_clears(monkeypatch, repo):
    folder = repo / ".posviz" / "serve-5998"
    folder.mkdir(parents=True)
    (folder / "planted.py").write_text("import os  # someone else's")
    command = run_serve(monkeypatch, "--port", "5998")
    scripts = [arg for arg in command if arg.endswith(".py")]
    assert {os.path.dirname(s) for s in scripts} == {str(folder)}
    assert not (folder / "planted.py").exists()
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700


def test_installed_serve_uses_a_fresh_private_temp_folder(monkeypatch):
    monkeypatch.setattr(target, "repository_root", lambda: None)
    first, second = cli.entries_folder(5997), cli.entries_folder(5997)
    try:
        assert first != second
        assert stat.S_IMODE(first.stat().st_mode) == 0o700
    finally:
        first.rmdir()
        second.rmdir()


def test_dev_mode_reloads_on_code_and_content_changes(monkeypatch, repo):
    command = run_serve(monkeypatch, "--dev", "--show")
    assert "--autoreload" in command and "--show" in command
    entry = next(arg for arg in command if arg.endswith("topic-positional-encoding.py"))
    text = open(entry).read()
    assert "from panel.io.reload import watch" in text
    assert "content/pages/attention-is-all-you-need.md" in text
    assert text.rstrip().endswith("servable('topic-positional-encoding')")


def test_build_into_a_file_is_one_line_and_exit_1(tmp_path, capsys):
    out = tmp_path / "notes.txt"
    out.write_text("mine")
    assert cli.main(["build", "--out", str(out)]) == 1
    captured = capsys.readouterr()
    assert captured.err == (
        f"posviz build: failed: {out} is a file, not a folder; choose a folder for the site\n"
    )
    assert out.read_text() == "mine"


def test_pyodide_failure_is_one_line(monkeypatch, capsys):
    from posviz.build import distribution

    def broken(*args, **kwargs):
        raise distribution.DistributionError(
            "fetching pyodide@0.27.7 from npm: 'npm' is not installed"
        )

    monkeypatch.setattr(distribution, "assemble", broken)
    assert cli.main(["pyodide"]) == 1
    assert capsys.readouterr().err == (
        "posviz pyodide: failed: fetching pyodide@0.27.7 from npm: 'npm' is not installed\n"
    )
