"""`posviz serve --dev`: every edit shows in the open tab, with no restart and no manual reload.

Three parts, one per process, agreeing through one file:

- **The watcher** (``watch``, in ``posviz serve --dev``'s own process) looks at
  the content's files and the package's every few hundredths of a second. On a
  change it checks the content and writes ``state.json`` into a folder the server
  publishes at ``/posviz-dev/``: each route's digest, or the content's problems
  as ``file:line: problem``.
- **The server's sessions** (``serve_session``, from the dev entry scripts).
  A session first takes its route's digest, then drops posviz's modules if a
  package file changed since they were imported, so it runs the code on disk,
  and renders the page with that digest in it. Content is reloaded when its
  files change (``library``); while it has problems, pages keep the last good
  content and the overlay names the problems.
- **The page** (``dev_client.js``) polls ``state.json``. When its route's text
  digest changes it fetches its own URL and swaps in the new text around the
  live figures (they keep their state); when its code digest changes it swaps
  the text likewise, then draws its figures from a new server session in place,
  at the URL's slider values (no reload: BokehJS stays parsed). A page whose
  figures changed in number, or whose swap fails, reloads, keeping its scroll.

A route's digest has three parts. ``text``: the content its view reads, as
loaded (a page: itself and the pages it builds on; a figure: the pages that
show it; a listing: everything). ``code``: the package's files, but of the
figure modules only the ones the route shows (home and tag pages name every
figure). ``view``: that code less the maths, which shape only what the
figures draw. So an edit reaches only the routes that read the changed file,
and a maths edit redraws the figures alone.

Routes come and go without a restart: besides ``home`` and ``gallery``, one
entry script serves every ``topic-``, ``page-``, ``tag-`` and ``figure-`` route
(its file name is the URL pattern; Bokeh's server takes an app's path as a
regular expression, a seam named in ``posviz.internals``).
"""

import hashlib
import json
import os
import sys
import time
from pathlib import Path

# The variable `posviz serve --dev` sets on its server (serve.py, tests).
from posviz.urls import DEV_ENV as ENV  # noqa: F401

STATE_URL = "posviz-dev/state.json"  # relative to a page: routes are one level deep
STATE_FILE = "state.json"
STATE_ENV = "POSVIZ_DEV_STATE"  # where the watcher writes it, for the server (keep_fresh)
PACKAGE = Path(__file__).resolve().parents[1]  # posviz/
CODE_SUFFIXES = {".py", ".css", ".js", ".html", ".yaml", ".json"}
# The app path of every route a page of content adds (routes.py's names).
ANY_ROUTE = r"(?:topic|page|tag|figure)-[a-z0-9]+(?:-[a-z0-9]+)*"
POLL_S = 0.025
# Code that shapes only what the figures draw, never the text around them (the
# maths under them): its edit needs no new text.
DRAWN_ONLY = {"maths"}
# The page's own script asks for one half of it: "text" (its figures left undrawn)
# or "figures" (no text drawn).
ONLY_HEADER = "X-Posviz-Dev"
CACHE_KEY = "posviz-dev"  # in pn.state.cache: outlives the modules dropped on a code change


# --- what changed: files and digests -------------------------------------------------


def content_root() -> Path:
    """The content folder the site is served from."""
    from posviz import content

    return content.default_root()


def code_files() -> list[Path]:
    """The package's files whose change changes a page (no caches, no bytecode)."""
    return sorted(
        path
        for path in PACKAGE.rglob("*")
        if path.suffix in CODE_SUFFIXES and "__pycache__" not in path.parts and path.is_file()
    )


def content_files(root: Path) -> list[Path]:
    """Every file under the content folder ``root``."""
    return sorted(path for path in root.rglob("*") if path.is_file())


def stamp(paths: list[Path]) -> tuple:
    """What a poll compares: each file's name, size and modification time (cheap: no reads)."""
    found = []
    for path in paths:
        try:
            info = path.stat()
        except FileNotFoundError:  # deleted between the listing and the look
            continue
        found.append((str(path), info.st_size, info.st_mtime_ns))
    return tuple(found)


def code_snapshot() -> dict[Path, str]:
    """Each package file → the sha256 of its bytes, as they are now."""
    found = {}
    for path in code_files():
        try:
            found[path] = hashlib.sha256(path.read_bytes()).hexdigest()
        except FileNotFoundError:  # deleted between the listing and the read
            continue
    return found


def figure_files() -> dict[int, list[Path]]:
    """Each figure id → its own files: its module (model, frame, texts and drawing).

    Read from the source (no import: a module may be stale or broken).
    """
    from posviz import figures

    found = {}
    for _, path in figures._figure_modules():
        for figure_id in figures._declared_ids(path):
            found[figure_id] = [path]
    return found


def _text(*objects) -> str:
    """The digest of content as loaded: the dataclasses' reprs hold every field a view reads."""
    return hashlib.sha256(repr(objects).encode()).hexdigest()


def route_kinds(library, ids) -> dict[str, tuple[str, object, tuple]]:
    """Each route's name → (kind, key, figures shown), as ``routes.routes`` lists them.

    Read from the content and the figure ids in the modules' source, without
    importing a figure: a figure that fails to import still has its routes.
    """
    from posviz.compose import routes as r

    shown = dict.fromkeys(f for page in library.pages.values() for f in page.figures)
    order = (*shown, *(f for f in sorted(ids) if f not in shown))
    found = {r.HOME: ("home", None, ())}
    for topic in library.topics.values():
        figures = tuple(figure_id for figure_id, _ in library.figures_shown(topic))
        found[r.topic_route(topic.slug)] = ("topic", topic.slug, figures)
    for page in library.pages.values():
        found[r.page_route(page.slug)] = ("page", page.slug, tuple(page.figures))
    for tag in r.tagged(library):
        found[r.tag_route(tag)] = ("tag", tag, ())
    for figure_id in order:
        found[r.figure_route(figure_id)] = ("figure", figure_id, (figure_id,))
    found[r.GALLERY] = ("gallery", None, order)
    return found


def route_digests(library, names=None, snapshot=None) -> dict[str, dict[str, str]]:
    """Each route's name → ``{"text": …, "code": …}`` (see the module's docstring).

    ``text`` is taken from the loaded content, not the files, so a page's digest
    describes exactly the content it was drawn from.
    """
    snapshot = code_snapshot() if snapshot is None else snapshot
    by_figure = figure_files()
    owned = {path for paths in by_figure.values() for path in paths}
    shared = [p for p in snapshot if p not in owned]
    everything = _text(library.pages, library.topics)
    found = {}
    for name, (kind, key, figures) in route_kinds(library, by_figure).items():
        if names is not None and name not in names:
            continue
        if kind == "page":
            page = library.pages[key]
            text = _text(page, [library.pages[s] for s in page.builds_on])
        elif kind == "figure":
            text = _text(library.uses_of(key))
        else:  # home, topic, tag, gallery: listings of everything
            text = everything
        shown = by_figure.keys() if kind in ("home", "tag") else figures
        code = shared + [path for f in shown for path in by_figure.get(f, ())]
        files = sorted((str(path), snapshot.get(path, "(gone)")) for path in set(code))
        seen = [f for f in files if Path(f[0]).relative_to(PACKAGE).parts[0] not in DRAWN_ONLY]
        found[name] = {"text": text, "code": _text(files), "view": _text(seen)}
    return found


# --- the watcher (posviz serve --dev's own process) ------------------------------------


def check(root: Path) -> tuple[object, list[str]]:
    """(the content, no problems) or (None, each problem as ``file:line: problem``)."""
    from posviz import content

    try:
        return content.load(root), []
    except content.ContentError as error:
        return None, [str(problem) for problem in error.problems]
    except Exception as error:  # a figure module that no longer parses, say
        return None, [f"{type(error).__name__}: {error}"]


def write_state(folder: Path, state: dict) -> None:
    """Write ``state.json`` whole (a reader never sees half of it)."""
    folder.mkdir(parents=True, exist_ok=True)
    partial = folder / f".{STATE_FILE}.{os.getpid()}"
    partial.write_text(json.dumps(state, sort_keys=True), "utf-8")
    partial.replace(folder / STATE_FILE)


def refresh(folder: Path, root: Path, known: dict | None, say=print, checked=None) -> dict:
    """Check the content, write the state, tell the terminal what changed; the new routes.

    ``checked``: the content's (library, problems) when its files did not change.
    """
    library, problems = checked or check(root)
    if problems:
        write_state(folder, {"problems": problems, "routes": known or {}})
        say("posviz: the content has problems; the open pages show them:")
        for problem in problems:
            say(f"  {problem}")
        return known or {}
    now = route_digests(library)
    write_state(folder, {"problems": [], "routes": now})
    if known is not None:
        changed = sorted(name for name in now if now[name] != known.get(name))
        added = sorted(set(now) - set(known))
        gone = sorted(set(known) - set(now))
        parts = []
        if added:
            parts.append("added " + ", ".join(added))
        if gone:
            parts.append("removed " + ", ".join(gone))
        if changed:
            parts.append(f"{len(changed)} to refresh: " + ", ".join(changed[:8]))
        say("posviz: " + ("; ".join(parts) if parts else "no page changed"))
    return now


def watch(folder: Path, keep_going, say=print) -> None:
    """Refresh ``folder``'s state at once and after every change, while ``keep_going()``."""
    from posviz.figures import figure_ids

    root = content_root()
    seen, known, checked = None, None, None
    while keep_going():
        now = stamp(content_files(root)), stamp(code_files())
        if now != seen:
            # The content is checked again when it changed, or when the figure ids it
            # may cite did; a code edit alone reuses it (a tenth of a second sooner).
            try:
                ids = figure_ids()
            except SyntaxError:  # check() names it
                ids = None
            if ids is None or checked is None or now[0] != seen[0] or ids != checked[0]:
                checked = (ids, check(root))
            seen = now
            known = refresh(folder, root, known, say, checked[1])
        time.sleep(POLL_S)


# --- the server's sessions --------------------------------------------------------------


def shared() -> dict:
    """State kept across sessions and module drops: in Panel's own cross-session cache."""
    import panel as pn

    return pn.state.cache.setdefault(CACHE_KEY, {})


def module_of(path: Path) -> str | None:
    """The module a package file is (``posviz.figures.clock_hands``), or None if not Python."""
    if path.suffix != ".py":
        return None
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_at_top(name: str) -> set[str]:
    """The posviz modules module ``name`` imports at its top level (so it holds their objects)."""
    import ast

    module = sys.modules.get(name)
    source = getattr(module, "__file__", None)
    if not source:
        return set()
    try:
        tree = ast.parse(Path(source).read_bytes())
    except (OSError, SyntaxError):
        return set()
    found = set()
    for node in tree.body:
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
            found |= {f"{node.module}.{alias.name}" for alias in node.names}
    return {n for n in found if n == "posviz" or n.startswith("posviz.")}


def stale_modules(changed: set[Path]) -> set[str]:
    """The loaded posviz modules to import again after ``changed`` files.

    Those files' own modules, and every module that imports one of them at its
    top level, transitively.

    A change to anything but a ``.py`` file (a script or stylesheet read when a module
    is imported) makes every posviz module stale.
    """
    loaded = {n for n in sys.modules if n == "posviz" or n.startswith("posviz.")}
    names = {module_of(path) for path in changed}
    if None in names:
        return loaded
    importers: dict[str, set[str]] = {}
    for name in loaded:
        for target in imported_at_top(name):
            importers.setdefault(target, set()).add(name)
    stale, todo = set(), [n for n in names if n in loaded]
    while todo:
        name = todo.pop()
        if name not in stale:
            stale.add(name)
            todo += importers.get(name, ())
    return stale


def fresh_session() -> bool:
    """Import again the posviz modules whose files changed since they were imported.

    Returns whether any were dropped.

    Only those and the modules that import them (``stale_modules``): a figure's
    edit re-runs that figure's module, not the site's. The figures' registry is
    rebuilt when a figure module goes.
    """
    now = stamp(code_files())
    memory = shared()
    before = memory.get("code")
    if before == now:
        return False
    if before is None:
        changed = None  # the first session: whatever was imported before it is suspect
    else:
        changed = {Path(entry[0]) for entry in set(before) ^ set(now)}
    stale = (
        {n for n in sys.modules if n == "posviz" or n.startswith("posviz.")}
        if changed is None
        else stale_modules(changed)
    )
    stale.discard(__name__)
    for name in stale:
        del sys.modules[name]
    figures = sys.modules.get("posviz.figures")
    touched = changed is None or any(path.parent == PACKAGE / "figures" for path in changed)
    if figures is not None and touched:
        # Found again: with the new classes, and with a figure module added or deleted
        # (a new file is no loaded module, so stale_modules cannot name it).
        vars(figures).pop("FIGURES", None)
    memory["code"] = now
    if any(n == "posviz.content" or n.startswith("posviz.content.") for n in stale):
        # Load it again with the new classes (the old one stays the fallback while the
        # content has problems).
        memory["content"] = None
    return True


def library():
    """The content, loaded again when its files change; the last good one while it has problems."""
    from posviz import content

    memory = shared()
    if memory.get("pinned") is not None:  # one page is being drawn: from one content
        return memory["pinned"]
    root = content_root()
    now = stamp(content_files(root))
    if memory.get("content") != now or "library" not in memory:
        try:
            memory["library"] = content.load(root)
        except content.ContentError:
            if "library" not in memory:
                raise
        memory["content"] = now
    return memory["library"]


def requested_route() -> str:
    """The route a session was opened at (see ``route_of``)."""
    import panel as pn

    return route_of(pn.state.curdoc.session_context.request.path)


def route_of(path: str) -> str:
    """The route of a session's request path: the page's URL path without its slashes.

    A session Bokeh makes when a page's websocket comes after the page's own session
    was discarded (a browser slower than --unused-session-lifetime) is opened at the
    websocket's path, the page's path with Bokeh's "/ws" after it.
    """
    route = path.strip("/")
    return route.removesuffix("/ws")


def keep_fresh(state: Path) -> None:
    """Once per server: import changed modules again as soon as the watcher sees a change.

    Between requests, on the server's own event loop, so that the page that asks
    for the new code next does not pay for the import. It looks at one file, the
    watcher's ``state``, which is written after every change: not at the package.
    """
    memory = shared()
    if memory.get("keeping"):
        return
    from tornado.ioloop import PeriodicCallback

    def refresh_modules():
        try:
            written = state.stat().st_mtime_ns
        except FileNotFoundError:
            return
        if written == memory.get("state") or not fresh_session():
            memory["state"] = written
            return
        memory["state"] = written
        try:
            from posviz.figures import FIGURES  # noqa: F401  (imports the figure modules again)
        except Exception:  # noqa: S110  the page that asks next shows the error, file and line
            pass

    memory["keeping"] = PeriodicCallback(refresh_modules, POLL_S * 1000)
    memory["keeping"].start()


def serve_session(name: str | None = None) -> None:
    """What a dev entry script runs: fresh code, then the page with the digest it was drawn from.

    The code's digest is read before the modules are dropped and imported again,
    so a file saved meanwhile makes the page look older than it is (it reloads
    once more), never newer. The text's digest is taken from the very content
    object the view then reads.
    """
    import panel as pn

    name = name or requested_route()
    snapshot = code_snapshot()
    fresh_session()
    if STATE_ENV in os.environ:
        keep_fresh(Path(os.environ[STATE_ENV]))
    try:
        from posviz.compose.views import servable
    except Exception as error:  # the code does not load: say so, and follow the fix
        broken_page(error)
        return

    memory = shared()
    try:
        memory["pinned"] = library()
        digest = route_digests(memory["pinned"], {name}, snapshot).get(name)
    except Exception:  # content never loaded: the page says why
        memory["pinned"], digest = None, None
    headers = pn.state.curdoc.session_context.request.headers if pn.state.curdoc else {}
    only = headers.get(ONLY_HEADER)
    try:
        servable(
            name,
            dev={"route": name, "digest": digest, "state": STATE_URL, "only": only},
        )
    finally:
        memory["pinned"] = None


def where(error: BaseException) -> str:
    """``file:line: `` of the deepest frame of posviz's own code (or the bad file) in ``error``."""
    import traceback

    if isinstance(error, SyntaxError) and error.filename:
        return f"{error.filename}:{error.lineno}: "
    frames = [
        frame
        for frame in traceback.extract_tb(error.__traceback__)
        if Path(frame.filename).resolve().is_relative_to(PACKAGE)
    ]
    return f"{frames[-1].filename}:{frames[-1].lineno}: " if frames else ""


def broken_page(error: BaseException) -> None:
    """The page when posviz's own modules fail to import: the error, and a reload on the fix."""
    import html

    import panel as pn
    from bokeh.models import CustomJS

    from posviz import assets

    message = f"{where(error)}{type(error).__name__}: {error}"
    pn.pane.HTML(
        '<div id="posviz-dev-overlay" role="alert"><h2>posviz serve --dev: the code does not '
        f"load</h2><p>{html.escape(message)}</p></div>"
    ).servable(title="posviz: error")
    follow = assets.script("posviz.compose", "dev_follow.js", STATE=STATE_URL)
    pn.state.curdoc.js_on_event("document_ready", CustomJS(code=follow))
