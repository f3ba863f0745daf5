"""Every private part of Panel, Bokeh, Param and CPython that posviz relies on.

A private name can vanish in any release, so each one is named here once,
with the reason no public API does the job, and ``tests/test_internals.py``
fails, naming it, when the installed version no longer has it. Code that
uses one imports it from here (Python) or is listed beside it (JavaScript).
"""

import functools
from pathlib import Path
from typing import NamedTuple

# --- Python ---------------------------------------------------------------------------

# Under a server Panel waits ``Syncable._debounce`` ms after a widget change
# before handling it, to batch a drag; its default is a slider's whole frame
# budget and Panel has no setting for it. Used by compose/views.py (servable).
DEBOUNCE = ("panel.reactive", "Syncable", "_debounce")


def set_server_debounce(milliseconds: int) -> None:
    """Make Panel batch widget events for ``milliseconds`` instead of its default."""
    from panel.reactive import Syncable

    Syncable._debounce = milliseconds


# Bokeh's server writes one message as several websocket frames (header,
# metadata, content, buffers) and leaves Nagle's algorithm on, so a frame can
# wait for the browser's delayed ACK, on every slider step (benchmarks/notes.md). Neither Bokeh
# nor Panel has a setting; tornado's ``set_nodelay`` must be called once the
# socket is open, so posviz wraps ``WSHandler.open``. Used by compose/views.py
# (servable).
WEBSOCKET_OPEN = ("bokeh.server.views.ws", "WSHandler", "open")


def send_frames_at_once() -> None:
    """Turn Nagle's algorithm off on every websocket Bokeh's server opens from now on."""
    from bokeh.server.views.ws import WSHandler

    opened = WSHandler.open
    if getattr(opened, "posviz_no_delay", False):
        return

    @functools.wraps(opened)
    def open(self):
        self.set_nodelay(True)
        return opened(self)

    open.posviz_no_delay = True
    WSHandler.open = open


# Panel writes where a served page's stylesheets live (its LOCAL_DIST, under the
# server's prefix) into the document's ``_template_variables["dist_url"]`` only as it
# renders the session's HTML page (``server_html_page_for_session``), and rewrites
# the models made before then. A session that Bokeh's server makes when a page's
# websocket arrives after its own session was discarded (a browser slower to connect
# than --unused-session-lifetime, 15 s by default) never has a page rendered: each of
# its models then linked Panel's CSS from cdn.holoviz.org, which an offline or
# firewalled reader cannot reach, and which no posviz page should ask for. Used by
# compose/views.py (servable), before the page's models are made.
SERVER_DIST_URL = [
    ("panel.io.resources", "", "LOCAL_DIST"),
    ("bokeh.document.document", "Document", "_template_variables"),
]


def serve_stylesheets_locally(doc) -> None:
    """Make ``doc``'s models link Panel's stylesheets from this server, page or none."""
    from panel.io.resources import LOCAL_DIST
    from panel.io.state import state

    local = f"{state.rel_path}/{LOCAL_DIST}" if state.rel_path else LOCAL_DIST
    doc._template_variables.setdefault("dist_url", local)


# The static site's worker (export/worker.js; its Python half is
# posviz/runtime/documents.py) keeps each page's Bokeh document in step with Python as
# ``panel convert``'s own worker does, through these two functions: ``panel
# convert`` exposes no public API for a worker of one's own.
PYODIDE_WORKER = ("panel.io.pyodide", ("_link_docs_worker", "_convert_json_patch"))

# Param checks a Number's bounds in ``_validate_bounds``; overriding it is the
# only way to add the allowed range to its error. Used by figures/model.py (FullBounds).
PARAM_VALIDATE_BOUNDS = ("param", "Number", "_validate_bounds")

# A value the browser sends is applied by ``Syncable._process_events``: it
# converts the value (IntSlider does int(value), a button group indexes its
# options) and sets the widget, whose pn.Param link sets the figure. A failure
# there is logged as a traceback and leaves the browser showing the refused
# value; Panel has no hook between "the browser sent" and "the widget changed".
# drawing/controls.py (SnapBack) overrides _process_events to check first (the
# widget parameter's own ``_validate``, then the figure's), and on a refusal
# triggers the parameters behind the refused properties (``_property_mapping``:
# parameter → Bokeh property) so the browser is sent the widget's own again.
# SnapBack also overrides ``_get_model``, where Panel makes a widget's Bokeh
# model in a document, to register the model with the document's guard, and
# ``_linked_properties`` (the properties Panel listens to), which names a property
# once per parameter behind it, so that one change is handled once.
SNAP_BACK = [
    ("panel.reactive", "Syncable", "_process_events"),
    ("panel.reactive", "Syncable", "_property_mapping"),
    ("panel.reactive", "Syncable", "_linked_properties"),
    ("panel.viewable", "Viewable", "_get_model"),
    ("param", "Parameter", "_validate"),
]

# A button group's description becomes a Bokeh Tooltip in Panel's TooltipMixin
# (``panel.widgets._mixin``), which places it to the group's right on one line and
# passes a Tooltip given instead through. drawing/controls.py (TipBelow) gives one,
# below the group and wrapping, in ``_process_param_change``; the mixin is found by
# its parameter ``description_delay``.
TOOLTIP_MIXIN = [
    ("panel.widgets._mixin", "TooltipMixin", "_process_param_change"),
    ("panel.widgets._mixin", "TooltipMixin", "description_delay"),
]

# Not private by name, but relied upon as undocumented behaviour: Bokeh's
# server applies a browser's PATCH-DOC by calling the document's own
# ``apply_json_patch`` with the session as ``setter`` (Panel's worker does the
# same, with "js"), and validates each value only while applying it, failing
# with a traceback. drawing/controls.py (guard) wraps that method on each
# document that holds a SnapBack widget, to refuse what the widget would.
PATCH_ENTRY = ("bokeh.document.document", "Document", "apply_json_patch")


# Not private by name, but no documented API either: what a HoloViews hook is
# given is the plot object, and posviz reads its Bokeh model (``plot.state``),
# its named Bokeh parts (``plot.handles``), and sends a change made there to
# the browser (``plot.push``). Used by drawing/__init__.py (the hooks and the steps).
HOLOVIEWS_PLOT = ("holoviews.plotting.bokeh.plot", "BokehPlot", ("state", "push", "handles"))

# Which data interfaces HoloViews tries, in order, is the class attribute
# ``datatype``; setting it is the only way to skip the pandas probe. Used by
# drawing/__init__.py (numpy_only).
DATATYPES = [
    ("holoviews.core.data", "Dataset", "datatype"),
    ("holoviews.element.raster", "Image", "datatype"),
]

# The static site's worker (RENDER) closes a page's session as Panel's server
# does, with a ``MockSessionContext``, and sets the read-only ``state.location``
# through ``edit_readonly``; neither is documented. Used by the worker's Python.
WORKER_SESSION = [
    ("panel.io.document", "", "MockSessionContext"),
    ("panel.util", "", "edit_readonly"),
]

# Bokeh names its models from one counter per process (``p1000``, ``p1001``, ...),
# so a page pre-rendered after other pages gets other ids than one pre-rendered
# alone, and Bokeh has no public way to restart it. The build restarts it before
# each route: a page's bytes then depend on that page alone, and a page reused
# from the cache (export/pagecache.py) equals a fresh one. Used by export/prerender.py.
MODEL_IDS = ("bokeh.util.serialization", "", "_simple_id")
BOKEH_FIRST_ID = 999  # the counter's value when Bokeh is imported


def restart_model_ids() -> None:
    """Make Bokeh number the next models from its first id again, as in a fresh process."""
    from bokeh.util import serialization

    with serialization._simple_id_lock:
        serialization._simple_id = BOKEH_FIRST_ID


# Bokeh's server joins an app's path into a Tornado URL pattern unescaped
# (``BokehTornado.__init__``: ``route = key + p[0]``), so an app whose path is a
# regular expression answers every URL that matches it. ``posviz serve --dev``
# names one entry script after the pattern of the routes content adds
# (compose/devloop.py), so a page written while the server runs is served with no
# restart. Checked by tests/test_serve_dev.py, which serves such a page.
APP_PATH_PATTERN = ("bokeh.server.tornado", "BokehTornado", "__init__")


# --- Docs tools (markdown_ext.py: page_of) ---------------------------------------------

# The Markdown extension needs the page it converts (its source file, for file:line
# messages, and its URL, for relative links). Neither tool hands an extension its page:
# Zensical keeps it on its preprocessor registered as "rendering_context", MkDocs on
# its treeprocessor registered as "relpath". Read, never changed.
DOCS_PAGE_HOLDERS = (
    ("zensical.extensions.context", "ContextPreprocessor", "rendering_context", ("page", "config")),
    ("mkdocs.structure.pages", "_RelativePathTreeprocessor", "relpath", ("file", "config")),
)
ZENSICAL_CONTEXT, MKDOCS_RELPATH = (holder[2] for holder in DOCS_PAGE_HOLDERS)


# --- JavaScript (export/loader.js; the benchmarks wait on the same) ------------------------

# Panel marks the page ``<body class="pn-loading">`` until its document is
# rendered; the loader removes it once the pre-rendered figures are shown.
# Where: panel's shipped JS (panel.min.js).
PANEL_LOADING_CLASS = "pn-loading"

# ``Bokeh.index`` holds the page's root views and a view's ``has_finished()``
# says it has drawn: BokehJS has no public "drawn" event. The page's paint
# signal (export/signals.js) and the benchmarks wait on them. Where: BokehJS (bokeh.min.js).
BOKEH_JS_NAMES = ("index", "has_finished")

# ``Bokeh.documents`` lists the page's live documents, which BokehJS fills but
# does not document. The page script (compose/page_script.js: dark theme) and
# frames.js read it. Where: BokehJS (bokeh.min.js).
BOKEH_DOCUMENTS = "documents"

# The text replacements on the HTML that ``panel convert`` writes each fail the
# build when their anchor text is missing: see export/adapter.py (rewrite_page).


# --- JavaScript, checked in what the site ships -------------------------------------------
#
# Each private part of BokehJS, Pyodide or Panel's page script that posviz's browser
# code touches: where the library has it (a file of the built site, or of an installed
# package), a pattern that finds its definition there, the posviz files that use it,
# and why no public API does. ``check_js_seams`` runs on every build (export/payload.py),
# so a library whose internal moved fails the build naming the part, not a reader's
# page. tests/test_internals.py alters each one in a copy and sees the check fail.


class JsSeam(NamedTuple):
    """One private part of a library's browser code that posviz's scripts rely on."""

    name: str  # as posviz's code spells it
    library: str  # "BokehJS", "Pyodide", "Panel"
    file: str  # a glob in the built site ("static/bokeh/bokeh-*.min.js"), or "package:path"
    patterns: tuple[str, ...]  # regular expressions that find its definition in ``file``
    used_in: tuple[str, ...]  # posviz files (under src/posviz) that use it
    why: str


BOKEH_MAIN = "static/bokeh/bokeh-[0-9]*.min.js"
JS_SEAMS = (
    JsSeam(
        "Bokeh.index",
        "BokehJS",
        BOKEH_MAIN,
        (r"\bindex=new Proxy\(new \w+\.ViewManager",),
        ("export/signals.js", "export/lazy.js"),
        "the page's root views: BokehJS has no public list of them, nor a drawn event",
    ),
    JsSeam(
        "view.has_finished()",
        "BokehJS",
        BOKEH_MAIN,
        (r"has_finished\(\)\{",),
        ("export/signals.js",),
        "whether a view has drawn: the loader starts Python once the figures are painted",
    ),
    JsSeam(
        "Bokeh.documents",
        "BokehJS",
        BOKEH_MAIN,
        (r"\b\w\.documents=\[\]",),
        ("compose/page_script.js", "export/frames.js"),
        "the page's documents, to find the pre-rendered models a frame changes",
    ),
    JsSeam(
        "Document.from_json",
        "BokehJS",
        BOKEH_MAIN,
        (r"static from_json\(",),
        ("export/lazy.js",),
        "wrapped so that the views of figures below the fold are made only when shown",
    ),
    JsSeam(
        "Bokeh.embed.embed_items",
        "BokehJS",
        BOKEH_MAIN,
        (r"\.embed_items=async function",),
        ("export/lazy.js",),
        "wrapped to learn which roots a page embeds before BokehJS draws them",
    ),
    JsSeam(
        "model.default_view",
        "BokehJS",
        BOKEH_MAIN,
        (r"default_view",),
        ("export/lazy.js",),
        "set to null to hold back a root's view until the reader scrolls to it",
    ),
    JsSeam(
        "view.request_paint() / model.references()",
        "BokehJS",
        BOKEH_MAIN,
        (r"request_paint\(\.\.\.\w+\)\{", r"references\(\)\{return \w+\.references\(this,"),
        ("export/lazy.js",),
        "painting the plots of a figure Python filled once more, which WebKit shows blank "
        "after their first paint (no public call repaints a view)",
    ),
    JsSeam(
        "properties.<name>.change",
        "BokehJS",
        BOKEH_MAIN,
        (r'this\.change=new [\w$.]+\.Signal0\(this\.obj,"change"\)',),
        ("export/frames.js", "export/lazy.js"),
        "a property's change signal, connected from outside any view: a slider moved in the "
        "preview, or Python filled a shell (a view's own connect needs a view)",
    ),
    JsSeam(
        "property.is_unset / get_value()",
        "BokehJS",
        BOKEH_MAIN,
        (r"get is_unset\(\)\{", r"\bget_value\(\)\{"),
        ("export/frame_index.js", "compose/page_script.js"),
        "reading a model's set properties to walk its subtree and to theme it",
    ),
    JsSeam(
        "model.setv(attrs)",
        "BokehJS",
        BOKEH_MAIN,
        (r"setv\(\w,\w=\{\}\)\{",),
        ("export/frame_apply.js", "export/frames.js", "compose/page_script.js"),
        "several properties set as one change (one redraw) when a frame is applied",
    ),
    JsSeam(
        "doc.get_model_by_name / all_models",
        "BokehJS",
        BOKEH_MAIN,
        (r"get_model_by_name\(\w\)\{", r"get all_models\(\)"),
        ("export/frame_index.js", "export/frames.js", "widget.js"),
        "the named models a frame's keys point at",
    ),
    JsSeam(
        "Bokeh.index.find(model) / view.bbox",
        "BokehJS",
        BOKEH_MAIN,
        (r"\*find\(\w\)\{yield\*this\.query\(", r"get bbox\(\)\{return this\._bbox\}"),
        ("drawing/fit_title.js", "compose/page_script.js"),
        "a plot's drawn view, for its canvas and frame boxes: a title is fitted to them; "
        "the dark theme clears its canvas",
    ),
    JsSeam(
        "view.canvas_view layers / undo_transform",
        "BokehJS",
        BOKEH_MAIN,
        (
            r"undo_transform\(\w\)\{",
            r"this\.canvas_view=this\._element_views\.get\(",
            r"this\.primary=this\.create_layer\(\),this\.overlays=this\.create_layer\(\)",
            r"\w&&\(\w\.scale\(\w,\w\),\w\.translate\(\.5,\.5\)\),this\.clear\(\)",
        ),
        ("compose/page_script.js",),
        "BokehJS clears a canvas layer from half a pixel in (prepare: translate, then "
        "clear), so a plot painted light then dark keeps a light edge at a pixel ratio of "
        "1; the page script clears its layers whole, without the transform, before the "
        "theme's repaint",
    ),
    JsSeam(
        "_createPyodideModule",
        "Pyodide",
        "pyodide/pyodide.js",
        (r'typeof _createPyodideModule!="function"',),
        ("export/worker.js",),
        "the worker runs the checked pyodide.asm.js itself, so loadPyodide loads no "
        "unchecked copy: it skips its own load when this function exists",
    ),
    JsSeam(
        "pyodide._module",
        "Pyodide",
        "pyodide/pyodide.asm.js",
        (r"\b\w\._module=Module\b",),
        ("export/worker.js",),
        "Emscripten's module, for the size of Pyodide's memory (runtimeInfo)",
    ),
    JsSeam(
        "history.pushState (Panel's Location)",
        "Panel",
        "package:panel/dist/panel.min.js",
        (r"_set_url_gated\(\w\)\{[^}]*window\.history\.pushState\(",),
        ("compose/url_gate.js",),
        "the live Location writes the URL once per slider value through history.pushState, "
        "called afresh each time: so the page's guarded pushState (one write per 250 ms, "
        "a replace) is the one it calls",
    ),
    JsSeam(
        "pyodideWorker / pn-loading",
        "Panel",
        "package:panel/_templates/pyodide_handler.js",
        (r"\bpyodideWorker\b", r"'pn-loading'"),
        ("export/loader.js",),
        "panel convert's page script: its worker variable, whose onmessage the loader "
        "wraps, and the class it marks a loading page with",
    ),
)


def check_js_seams(site: Path, packages: dict[str, Path] | None = None) -> list[str]:
    """One line per JS seam that ``site``'s shipped files (or the installed package) lack.

    ``packages``: package name → folder, for ``package:`` files (default: installed).
    """
    missing = []
    for seam in JS_SEAMS:
        files = _seam_files(seam.file, site, packages or {})
        found = [file for file in files if _has_all(file.read_text("utf-8"), seam.patterns)]
        if not found:
            where = ", ".join(str(file) for file in files) or f"no file matching {seam.file}"
            missing.append(
                f"{seam.library} no longer has {seam.name} ({where}); posviz uses it in "
                f"{', '.join(seam.used_in)}: {seam.why} (see posviz/internals.py JS_SEAMS)"
            )
    return missing


def _has_all(text: str, patterns: tuple[str, ...]) -> bool:
    import re

    return all(re.search(pattern, text) for pattern in patterns)


def _seam_files(file: str, site: Path, packages: dict[str, Path]) -> list[Path]:
    """The files a seam's ``file`` names: in the site, or in an installed package."""
    if file.startswith("package:"):
        package, _, inner = file.removeprefix("package:").partition("/")
        folder = packages.get(package)
        if folder is None:
            from importlib import util

            folder = Path(util.find_spec(package).origin).parent
        return [folder / inner] if (folder / inner).is_file() else []
    return sorted(site.glob(file))


def python_internals() -> list[tuple[str, str, str]]:
    """(module, owner or "", attribute) of each Python internal named above."""
    module, names = PYODIDE_WORKER
    plot_module, plot_class, plot_names = HOLOVIEWS_PLOT
    return [
        DEBOUNCE,
        WEBSOCKET_OPEN,
        PARAM_VALIDATE_BOUNDS,
        MODEL_IDS,
        APP_PATH_PATTERN,
        ("bokeh.util.serialization", "", "_simple_id_lock"),
        PATCH_ENTRY,
        *SNAP_BACK,
        *TOOLTIP_MIXIN,
        *[(module, "", n) for n in names],
        *[(plot_module, plot_class, n) for n in plot_names],
        *DATATYPES,
        *WORKER_SESSION,
        *SERVER_DIST_URL,
    ]
