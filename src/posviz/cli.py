"""`posviz serve | check | build | pyodide | new`: the maintainers' commands."""

import argparse
import sys
from pathlib import Path

from posviz import content, myst


def check_content(root=None) -> content.Library | None:
    """Load and validate content; on problems print them as file:line and return None."""
    try:
        return content.load(root)
    except FileNotFoundError as error:  # no content folder at all: what to set, in one line
        print(f"posviz: {error}", file=sys.stderr)
        return None
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
    from posviz import figures

    try:
        found = figures.FIGURES
    except figures.FigureModuleError as error:
        print(f"posviz: a figure module does not import:\n  {error}", file=sys.stderr)
        return 1
    # Each declared number, against the figure view it names: pages', then captions'.
    problems = content.check_numbers(site) + content.check_figure_numbers(found)
    if problems:
        print(f"posviz: content has {len(problems)} problem(s):", file=sys.stderr)
        for problem in sorted(problems, key=lambda p: (str(p.path), p.line)):
            print(f"  {problem}", file=sys.stderr)
        return 1
    print(
        f"posviz: content OK: {len(site.pages)} page(s), {len(site.topics)} topic(s), "
        f"the captions of {len(found)} figure(s)"
    )
    return 0


def cmd_serve(args) -> int:
    """Become `panel serve` with one entry script per route (posviz.serve)."""
    site = check_content()
    if site is None:
        return 1
    from posviz.serve import serve

    return serve(
        site,
        port=args.port,
        address=args.address,
        allow_websocket_origin=args.allow_websocket_origin,
        show=args.show,
        dev=args.dev,
        panel_args=args.panel_args,
    )


def cmd_build(args) -> int:
    """Build the static site into --out (see posviz.export.command)."""
    if check_content() is None:
        return 1
    from posviz.export.command import build

    return build(Path(args.out), cdn=args.cdn, base_url=args.base_url, figures=args.figures)


def figure_ids(text: str) -> list[int]:
    """``--figures``' value, ``710,96``, as ids (argparse reports a bad one in one line)."""
    words = [word.strip() for word in text.split(",") if word.strip()]
    bad = [word for word in words if not (word.isascii() and word.isdigit() and len(word) <= 9)]
    if bad or not words:
        raise argparse.ArgumentTypeError(
            f"{bad[0] if bad else text!r} is not a figure id; write ids with commas: 710,96"
        )
    return [int(word) for word in words]


def cmd_pyodide(args) -> int:
    """Assemble (or check) the cached Pyodide distribution and print where it is."""
    from posviz.export.distribution import DistributionError, assemble

    try:
        print(assemble())
    except (DistributionError, OSError) as error:
        first = str(error).splitlines()[0] if str(error) else type(error).__name__
        print(f"posviz pyodide: failed: {first}", file=sys.stderr)
        return 1
    return 0


def cmd_new(args) -> int:
    """Write a new figure module or page from its template (posviz.scaffold)."""
    from posviz import paths, scaffold

    try:
        if args.what == "figure" or args.content is None:  # both write where posviz runs
            scaffold.same_checkout(Path.cwd(), paths.repository_root())
        if args.what == "figure":
            written = scaffold.new_figure(args.name, args.id, args.title)
            hint = f"posviz new: wrote {written.module} (figure {args.id}); see /figure-{args.id}"
            if written.oracle is not None:
                hint += f"\nposviz new: wrote {written.oracle}: its oracle, what it draws"
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
    build.add_argument(
        "--figures",
        type=figure_ids,
        default=None,
        metavar="ID,ID",
        help="only these figures' own pages and the runtime, no article (docs that embed them)",
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

    plugin = commands.add_parser("myst-plugin", help="write the MyST / Jupyter Book 2 plugin")
    myst.add_arguments(plugin)
    plugin.set_defaults(run=myst.run)
    return top


def main(argv=None) -> int:
    """Run one posviz command; its exit code."""
    args = parser().parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
