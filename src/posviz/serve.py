"""`posviz serve`: the live site, one ``panel serve`` process with an entry script per route.

Beside ``posviz.build`` (the static export) in the layers of CONTRIBUTING: both
sit on ``compose`` and ``content``; ``cli`` parses the command line and calls
``serve`` with the checked content.
"""

import json
import os
import shutil
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from posviz import content, paths


def serve(
    site: content.Library,
    *,
    port: int = 5006,
    address: str = "localhost",
    allow_websocket_origin: Sequence[str] = (),
    show: bool = False,
    dev: bool = False,
    panel_args: Sequence[str] = (),
) -> int:
    """Become `panel serve` with one entry script per route of ``site``.

    ``allow_websocket_origin`` adds Host names answered (as in panel serve);
    ``dev`` reloads code and restarts when routes change; ``panel_args`` go on to
    panel serve as they are. Returns an exit status when it does not become the server.
    """
    from posviz.compose import hosts
    from posviz.compose.entries import write_entries
    from posviz.compose.page import STATIC_DIR, STYLESHEET
    from posviz.compose.routes import HOME, routes

    if any(arg.split("=", 1)[0] == "--auth-module" for arg in panel_args):
        print(
            "posviz serve: --auth-module is posviz's own (its Host check); "
            "allow a host with --allow-websocket-origin HOST:PORT",
            file=sys.stderr,
        )
        return 2
    folder = entries_folder(port)
    watched = sorted(content.default_root().rglob("*.md")) if dev else []
    scripts = write_entries(routes(site), folder, watch=watched)
    command = [
        sys.executable,
        "-m",
        "panel",
        "serve",
        *map(str, scripts),
        "--port",
        str(port),
        "--address",
        address,
        "--index",
        HOME,
        "--num-procs",
        "1",
        # The pages' stylesheet, at the same relative URL as in the export.
        "--static-dirs",
        f"{STYLESHEET.split('/')[0]}={STATIC_DIR}",
    ]
    for origin in [
        f"localhost:{port}",
        f"127.0.0.1:{port}",
        *allow_websocket_origin,
    ]:
        command += ["--allow-websocket-origin", origin]
    env = {
        **os.environ,
        "BOKEH_AUTH_MODULE": hosts.__file__,  # Bokeh's --auth-module: the Host check
        hosts.ENV: json.dumps(hosts.settings(address, allow_websocket_origin)),
    }
    if show:
        command.append("--show")
    if dev:
        command.append("--autoreload")
    command += list(panel_args)
    print(
        f"posviz: serving {len(scripts)} dashboards at http://{address}:{port}/",
        flush=True,
    )
    if dev:
        head, tail = command[:4], command[4 + len(scripts) :]  # [python -m panel serve] scripts
        return run_dev(head, tail, env, folder, route_names(site))
    return run_panel(command, env)


def route_names(site: content.Library) -> tuple[str, ...]:
    """The routes' names, in order: what ``panel serve`` is started with."""
    from posviz.compose.routes import routes

    return tuple(route.name for route in routes(site))


def changed_routes(known: tuple[str, ...], root=None) -> tuple[str, ...] | None:
    """The routes now, if the content's pages or topics changed which routes exist, else None.

    Content with problems keeps the running server (the problems are printed once per
    change of them by ``watch_routes``).
    """
    try:
        site = content.load(root)
    except content.ContentError:
        return None
    now = route_names(site)
    return now if now != known else None


DEV_POLL_S = 1.0


def run_dev(
    head: list[str], tail: list[str], env: dict[str, str], folder: Path, known: tuple[str, ...]
) -> int:
    """``panel serve`` as a child, started again when a page or topic is added or removed.

    ``panel serve`` takes its apps (one per route) when it starts, and
    ``--autoreload`` reloads the code of the ones it has: a new page's route is
    only served by a new server. Every second the content's routes are compared
    with the running server's; when they differ the entry scripts are written
    again and the server restarts on the same port (a second or two).
    """
    import signal
    import subprocess
    import time

    from posviz.compose.entries import write_entries
    from posviz.compose.routes import routes

    child = None
    scripts = sorted(folder.glob("*.py"))

    def stop(signum, frame):
        if child is not None and child.poll() is None:
            child.terminate()
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, stop)
    try:
        while True:
            command = [*head, *map(str, scripts), *tail]
            child = subprocess.Popen(command, env={**env, "PYTHONMALLOC": "malloc"})
            now = None
            while child.poll() is None and now is None:
                time.sleep(DEV_POLL_S)
                now = changed_routes(known)
            if now is None:
                return child.returncode
            added = sorted(set(now) - set(known))
            gone = sorted(set(known) - set(now))
            print(
                "posviz: the routes changed"
                + (f", added {', '.join(added)}" if added else "")
                + (f", removed {', '.join(gone)}" if gone else "")
                + "; restarting the server",
                flush=True,
            )
            child.terminate()
            child.wait()
            watched = sorted(content.default_root().rglob("*.md"))
            scripts = write_entries(routes(content.load()), folder, watch=watched)
            known = now
    except KeyboardInterrupt:
        return 130
    finally:
        if child is not None and child.poll() is None:
            child.terminate()
            try:
                child.wait(10)
            except subprocess.TimeoutExpired:
                child.kill()


def entries_folder(port: int) -> Path:
    """A private, emptied folder for the entry scripts of `posviz serve --port PORT`.

    In a checkout: the git-ignored ``.posviz/serve-PORT/`` (cleared on each start;
    one per port, so two servers never clear each other's). Installed: a fresh
    ``mkdtemp`` folder. Both are the user's own (0700): no one else can plant a script.
    """
    repo = paths.repository_root()
    if repo is None:
        return Path(tempfile.mkdtemp(prefix=f"posviz-serve-{port}-"))
    folder = repo / ".posviz" / f"serve-{port}"
    if folder.is_symlink() or folder.is_file():
        folder.unlink()
    elif folder.is_dir():
        shutil.rmtree(folder)
    folder.mkdir(parents=True, mode=0o700)
    return folder


def run_panel(command: list[str], env: dict[str, str]) -> int:
    """Become `panel serve` in environment `env`, so that a signal to posviz reaches the server.

    The server allocates through glibc's malloc rather than CPython's arenas
    (``PYTHONMALLOC=malloc``): an arena stays mapped while one small object in
    it lives, so a closed session's memory could not be handed back, whereas
    glibc's free pages are, by ``compose.memory.trim`` after each burst of
    closed sessions.
    """
    sys.stdout.flush()
    os.execve(command[0], command, {**env, "PYTHONMALLOC": "malloc"})
    return 1  # not reached
