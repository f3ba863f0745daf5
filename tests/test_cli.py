"""`posviz serve` hands panel serve every dashboard, with reload for maintainers;
`posviz build` and `posviz pyodide` fail in one line."""

import os
import stat
from pathlib import Path

import pytest

from posviz import cli, paths, serve
from posviz.compose.routes import routes
from posviz.content import load


@pytest.fixture
def repo(monkeypatch, tmp_path):
    """Entry scripts go to tmp_path/.posviz/, as if tmp_path were the checkout."""
    monkeypatch.setattr(paths, "repository_root", lambda: tmp_path)
    return tmp_path


def run_serve(monkeypatch, *args, env=None):
    calls = []
    monkeypatch.setattr(os, "execve", lambda path, command, given: calls.append((command, given)))
    cli.main(["serve", *args])
    ((command, given),) = calls
    if env is not None:
        env.update(given)
    return command


def test_serve_checks_the_host_and_allows_what_it_is_told(monkeypatch, repo):
    import json

    from posviz.compose import hosts

    env = {}
    command = run_serve(
        monkeypatch, "--port", "5997", "--allow-websocket-origin", "docs.example:443", env=env
    )
    assert env["BOKEH_AUTH_MODULE"] == hosts.__file__
    assert json.loads(env[hosts.ENV]) == {
        "names": ["127.0.0.1", "::1", "localhost"],
        "patterns": ["docs.example:443"],
    }
    origins = [command[i + 1] for i, arg in enumerate(command) if arg == "--allow-websocket-origin"]
    assert origins == ["localhost:5997", "127.0.0.1:5997", "docs.example:443"]
    assert "BOKEH_AUTH_MODULE" not in os.environ  # only the server's environment


def test_serve_refuses_an_auth_module_of_its_own(monkeypatch, repo, capsys):
    monkeypatch.setattr(os, "execve", lambda *args: pytest.fail("served anyway"))
    assert cli.main(["serve", "--", "--auth-module", "mine.py"]) == 2
    assert "--auth-module is posviz's own (its Host check)" in capsys.readouterr().err


@pytest.mark.parametrize(
    "host, answered",
    [
        ("localhost:5006", True),
        ("LOCALHOST:5006", True),
        ("127.0.0.1:5006", True),
        ("[::1]:5006", True),
        ("localhost", True),
        ("192.168.1.5:5006", True),  # the --address served on
        ("docs.example", True),  # allowed, port 80 as in Bokeh's allowlist
        ("docs.example:8080", False),
        ("evil.example:5006", False),
        ("localhost.evil.example:5006", False),
        ("127.0.0.1.evil.example", False),
        ("[::1", False),
        ("", False),
        ("evil.example@localhost:5006", False),
    ],
)
def test_the_host_check_answers_only_local_and_allowed_names(host, answered):
    from bokeh.server.util import create_hosts_allowlist

    from posviz.compose import hosts

    given = hosts.settings("192.168.1.5", ["docs.example"])
    patterns = create_hosts_allowlist(given["patterns"], None)
    assert hosts.allowed(host, frozenset(given["names"]), patterns) is answered


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
    monkeypatch.setattr(paths, "repository_root", lambda: None)
    first, second = serve.entries_folder(5997), serve.entries_folder(5997)
    try:
        assert first != second
        assert stat.S_IMODE(first.stat().st_mode) == 0o700
    finally:
        first.rmdir()
        second.rmdir()


def test_dev_mode_serves_every_route_by_pattern_and_publishes_its_state(monkeypatch, repo):
    # --dev runs the server as a child (serve.run_dev, tested in tests/ui/test_serve_dev.py):
    # record what it would start instead of starting it.
    from posviz.compose import devloop

    calls = []

    def run_dev(command, env, state):
        calls.append((command, env, state))
        return 0

    monkeypatch.setattr(serve, "run_dev", run_dev)
    assert cli.main(["serve", "--dev", "--show"]) == 0
    [(command, env, state)] = calls
    assert "--autoreload" not in command and "--show" in command  # devloop reloads, not Panel
    assert env[devloop.ENV] == "1"
    static = command[command.index("--static-dirs") + 1 : command.index("--static-dirs") + 3]
    assert static[1] == f"posviz-dev={state}" and static[0].startswith("posviz-static=")
    assert command.count("--static-dirs") == 1  # a second would replace the first
    scripts = sorted(Path(arg).stem for arg in command if arg.endswith(".py"))
    assert scripts == sorted(["index", "gallery", devloop.ANY_ROUTE])
    entry = next(arg for arg in command if arg.endswith(f"{devloop.ANY_ROUTE}.py"))
    assert Path(entry).read_text().rstrip().endswith("serve_session(None)")


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
    from posviz.export import distribution

    def broken(*args, **kwargs):
        raise distribution.DistributionError(
            "fetching pyodide@0.27.7 from npm: 'npm' is not installed"
        )

    monkeypatch.setattr(distribution, "assemble", broken)
    assert cli.main(["pyodide"]) == 1
    assert capsys.readouterr().err == (
        "posviz pyodide: failed: fetching pyodide@0.27.7 from npm: 'npm' is not installed\n"
    )


def test_the_host_check_reads_what_serve_allows_and_refuses_with_403(monkeypatch):
    import importlib
    import json
    from types import SimpleNamespace

    from tornado.web import HTTPError

    from posviz.compose import hosts

    given = hosts.settings("0.0.0.0", ["docs.example:8443"])
    monkeypatch.setenv(hosts.ENV, json.dumps(given))
    module = importlib.reload(hosts)
    try:

        def asked_as(host):
            return SimpleNamespace(request=SimpleNamespace(host=host))

        assert module.NAMES == {"localhost", "127.0.0.1", "::1"}  # 0.0.0.0 is no name
        assert module.get_user(asked_as("docs.example:8443")) == "reader"
        assert module.get_user(asked_as("localhost:5006")) == "reader"
        assert module.get_user(asked_as("evil.example:5006")) is None
        with pytest.raises(HTTPError) as refused:
            module.get_login_url(asked_as("evil.example:5006"))
        assert refused.value.status_code == 403
    finally:
        monkeypatch.delenv(hosts.ENV)
        importlib.reload(hosts)
