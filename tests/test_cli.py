"""`posviz serve` hands panel serve every dashboard, with reload for maintainers."""

import os

from posviz import cli
from posviz.compose.routes import routes
from posviz.content import load


def run_serve(monkeypatch, *args):
    calls = []
    monkeypatch.setattr(os, "execv", lambda path, command: calls.append(command))
    cli.main(["serve", *args])
    (command,) = calls
    return command


def test_serve_passes_every_route_and_the_home_index(monkeypatch, tmp_path):
    monkeypatch.setattr(cli.tempfile, "gettempdir", lambda: str(tmp_path))
    command = run_serve(monkeypatch, "--port", "5999")
    assert command[1:4] == ["-m", "panel", "serve"]
    scripts = [arg for arg in command if arg.endswith(".py")]
    assert sorted(p.rsplit("/", 1)[1][:-3] for p in scripts) == sorted(
        route.name for route in routes(load())
    )
    assert command[command.index("--port") + 1] == "5999"
    assert command[command.index("--index") + 1] == "index"
    assert "--autoreload" not in command and "--show" not in command


def test_dev_mode_reloads_on_code_and_content_changes(monkeypatch, tmp_path):
    monkeypatch.setattr(cli.tempfile, "gettempdir", lambda: str(tmp_path))
    command = run_serve(monkeypatch, "--dev", "--show")
    assert "--autoreload" in command and "--show" in command
    entry = next(arg for arg in command if arg.endswith("topic-positional-encoding.py"))
    text = open(entry).read()
    assert "from panel.io.reload import watch" in text
    assert "content/pages/attention-is-all-you-need.md" in text
    assert text.rstrip().endswith("servable('topic-positional-encoding')")
