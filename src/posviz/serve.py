"""`posviz serve`: the live site, one ``panel serve`` process with an entry script per route.

Beside ``posviz.export`` (the static export) in the layers of CONTRIBUTING: both
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
    ``dev`` makes every edit show in the open pages (``compose/devloop.py``);
    ``panel_args`` go on to panel serve as they are. Returns an exit status when it
    does not become the server.
    """
    from posviz.compose import devloop, hosts
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
    if dev:
        scripts = write_dev_entries(folder)
    else:
        scripts = write_entries(routes(site), folder)
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
        # The pages' stylesheet, at the same relative URL as in the export; under --dev
        # also the watcher's state, which the pages poll (compose/devloop.py).
        "--static-dirs",
        f"{STYLESHEET.split('/')[0]}={STATIC_DIR}",
        *([f"posviz-dev={folder / 'dev'}"] if dev else []),
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
        env[devloop.ENV] = "1"
        env[devloop.STATE_ENV] = str(folder / "dev" / devloop.STATE_FILE)
    command += list(panel_args)
    served = "every route, following edits" if dev else f"{len(scripts)} dashboards"
    print(f"posviz: serving {served} at http://{address}:{port}/", flush=True)
    if dev:
        return run_dev(command, env, folder / "dev")
    return run_panel(command, env)


def route_names(site: content.Library) -> tuple[str, ...]:
    """The routes' names, in order: what ``panel serve`` is started with."""
    from posviz.compose.routes import routes

    return tuple(route.name for route in routes(site))


def write_dev_entries(folder: Path) -> list[Path]:
    """The entry scripts of ``--dev``: home, the gallery, and one for every other route.

    That one's file name is the URL pattern of routes a page of content adds
    (``devloop.ANY_ROUTE``): Bokeh's server takes an app's path as a regular
    expression (``internals.APP_PATH_PATTERN``), so a page written while the
    server runs is served at once, with no restart.
    """
    from posviz.compose.devloop import ANY_ROUTE
    from posviz.compose.entries import DEV_TEMPLATE
    from posviz.compose.routes import GALLERY, HOME

    folder.mkdir(parents=True, exist_ok=True)
    for stale in folder.glob("*.py"):
        stale.unlink()
    scripts = []
    for file_name, name in [(HOME, HOME), (GALLERY, GALLERY), (ANY_ROUTE, None)]:
        path = folder / f"{file_name}.py"
        path.write_text(DEV_TEMPLATE.format(name=repr(name)), "utf-8")
        scripts.append(path)
    return scripts


def run_dev(command: list[str], env: dict[str, str], state: Path) -> int:
    """``panel serve`` as a child, and the watcher that tells its pages what changed.

    The server runs for the whole session: a new or deleted page needs no
    restart, and every edit reaches the open pages (``compose/devloop.py``).
    """
    import signal
    import subprocess

    from posviz.compose import devloop

    child = None

    def stop(signum, frame):
        if child is not None and child.poll() is None:
            child.terminate()
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, stop)
    try:
        devloop.refresh(state, devloop.content_root(), None)  # before the first page asks
        child = subprocess.Popen(command, env={**env, "PYTHONMALLOC": "malloc"})
        devloop.watch(state, keep_going=lambda: child.poll() is None)
        return child.returncode
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
