"""`posviz serve | check | build | pyodide | new`: the maintainers' commands."""

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

from posviz import content, paths


def check_content(root=None) -> content.Library | None:
    """Load and validate content; on problems print them as file:line and return None."""
    try:
        return content.load(root)
    except content.ContentError as error:
        print(f"posviz: content has {len(error.problems)} problem(s):", file=sys.stderr)
        for problem in error.problems:
            print(f"  {problem}", file=sys.stderr)
        return None


def cmd_check(args) -> int:
    """Validate content/ and print each problem as file:line."""
    site = check_content(args.content)
    if site is None:
        return 1
    print(f"posviz: content OK: {len(site.pages)} page(s), {len(site.topics)} topic(s)")
    return 0


def cmd_serve(args) -> int:
    """Become `panel serve` with one entry script per route."""
    site = check_content()
    if site is None:
        return 1
    from posviz.compose import hosts
    from posviz.compose.entries import write_entries
    from posviz.compose.page import STATIC_DIR, STYLESHEET
    from posviz.compose.routes import HOME, routes

    if any(arg.split("=", 1)[0] == "--auth-module" for arg in args.panel_args):
        print(
            "posviz serve: --auth-module is posviz's own (its Host check); "
            "allow a host with --allow-websocket-origin HOST:PORT",
            file=sys.stderr,
        )
        return 2
    folder = entries_folder(args.port)
    watched = sorted(content.default_root().rglob("*.md")) if args.dev else []
    scripts = write_entries(routes(site), folder, watch=watched)
    command = [
        sys.executable,
        "-m",
        "panel",
        "serve",
        *map(str, scripts),
        "--port",
        str(args.port),
        "--address",
        args.address,
        "--index",
        HOME,
        "--num-procs",
        "1",
        # The pages' stylesheet, at the same relative URL as in the export.
        "--static-dirs",
        f"{STYLESHEET.split('/')[0]}={STATIC_DIR}",
    ]
    for origin in [
        f"localhost:{args.port}",
        f"127.0.0.1:{args.port}",
        *args.allow_websocket_origin,
    ]:
        command += ["--allow-websocket-origin", origin]
    env = {
        **os.environ,
        "BOKEH_AUTH_MODULE": hosts.__file__,  # Bokeh's --auth-module: the Host check
        hosts.ENV: json.dumps(hosts.settings(args.address, args.allow_websocket_origin)),
    }
    if args.show:
        command.append("--show")
    if args.dev:
        command.append("--autoreload")
    command += args.panel_args
    print(
        f"posviz: serving {len(scripts)} dashboards at http://{args.address}:{args.port}/",
        flush=True,
    )
    if args.dev:
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


def cmd_build(args) -> int:
    """Build the static site into --out (see posviz.build.export)."""
    if check_content() is None:
        return 1
    from posviz.build.export import build

    return build(Path(args.out), cdn=args.cdn, base_url=args.base_url)


def cmd_pyodide(args) -> int:
    """Assemble (or check) the cached Pyodide distribution and print where it is."""
    from posviz.build.distribution import DistributionError, assemble

    try:
        print(assemble())
    except (DistributionError, OSError) as error:
        first = str(error).splitlines()[0] if str(error) else type(error).__name__
        print(f"posviz pyodide: failed: {first}", file=sys.stderr)
        return 1
    return 0


def cmd_new(args) -> int:
    """Write a new figure module or page from its template (posviz.scaffold)."""
    from posviz import scaffold

    try:
        if args.what == "figure":
            path = scaffold.new_figure(args.name, args.id, args.title)
            hint = f"posviz new: wrote {path} (figure {args.id}); see /figure-{args.id}"
        else:
            path = scaffold.new_page(args.slug, args.title, args.content)
            hint = f"posviz new: wrote {path}; see /page-{args.slug}"
    except scaffold.ScaffoldError as error:
        print(f"posviz new: refused: {error}", file=sys.stderr)
        return 1
    print(hint)
    return 0


def parser() -> argparse.ArgumentParser:
    """The command line of `posviz`."""
    top = argparse.ArgumentParser(prog="posviz", description=__doc__)
    commands = top.add_subparsers(dest="command", required=True)

    serve = commands.add_parser("serve", help="serve every dashboard with panel serve")
    serve.add_argument("--port", type=int, default=5006)
    serve.add_argument("--address", default="localhost")
    serve.add_argument(
        "--allow-websocket-origin",
        action="append",
        default=[],
        metavar="HOST[:PORT]",
        help="also answer pages and websockets for this Host (repeatable; as in panel serve). "
        "By default only localhost names and --address are served, against DNS rebinding",
    )
    serve.add_argument("--show", action="store_true", help="open a browser")
    serve.add_argument(
        "--dev", action="store_true", help="reload when code or content changes (for maintainers)"
    )
    serve.add_argument(
        "panel_args",
        nargs="*",
        metavar="-- PANEL_ARG",
        help="after --, options passed on to panel serve as they are "
        "(e.g. -- --check-unused-sessions 1000)",
    )
    serve.set_defaults(run=cmd_serve)

    check = commands.add_parser("check", help="validate content/")
    check.add_argument("--content", type=Path, default=None, help="content folder to check")
    check.set_defaults(run=cmd_check)

    build = commands.add_parser("build", help="build the static offline site")
    build.add_argument("--out", default="site")
    build.add_argument(
        "--cdn", action="store_true", help="small variant that loads the runtime from public CDNs"
    )
    build.add_argument(
        "--base-url",
        default=None,
        help="the site's public URL: adds canonical links, Open Graph tags and sitemap.xml",
    )
    build.set_defaults(run=cmd_build)

    new = commands.add_parser("new", help="write a new figure module or page from a template")
    kinds = new.add_subparsers(dest="what", required=True)
    figure = kinds.add_parser("figure", help="src/posviz/figures/<name>.py")
    figure.add_argument("name", metavar="NAME", help="class name, like ClockHands")
    figure.add_argument("--id", type=int, required=True, help="figure id, unused so far")
    figure.add_argument("--title", default=None, help="title (default: from NAME)")
    page = kinds.add_parser("page", help="content/pages/<slug>.md")
    page.add_argument("slug", metavar="SLUG", help="lower-case words with hyphens")
    page.add_argument("--title", required=True)
    page.add_argument("--content", type=Path, default=None, help="content folder")
    new.set_defaults(run=cmd_new)

    pyodide = commands.add_parser("pyodide", help="assemble the verified Pyodide distribution")
    pyodide.set_defaults(run=cmd_pyodide)
    return top


def main(argv=None) -> int:
    """Run one posviz command; its exit code."""
    args = parser().parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
