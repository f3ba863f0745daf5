"""Every private or undocumented part of Panel, Bokeh, HoloViews and Param that posviz
uses still exists in the installed versions, and is still used where internals.py says."""

import ast
import importlib
import importlib.util
import re
import shutil
from pathlib import Path

import bokeh
import panel
import pytest

from posviz import internals
from posviz.figures.model import Slider

SRC = Path(internals.__file__).resolve().parent

# Where each private name is used: the declaration must not outlive its use.
USED_IN = {
    "_debounce": ["compose/views.py:internals.set_server_debounce"],
    "open": ["compose/views.py:internals.send_frames_at_once()"],
    "_validate_bounds": ["figures/model.py:FullBounds"],
    "_process_events": ["drawing/controls.py:def _process_events"],
    "_property_mapping": ["drawing/controls.py:self._property_mapping.items()"],
    "_get_model": ["drawing/controls.py:def _get_model"],
    "_linked_properties": ["drawing/controls.py:super()._linked_properties"],
    "apply_json_patch": ["drawing/controls.py:doc.apply_json_patch = "],
    "_validate": ["drawing/controls.py:._validate(read)"],
    "_process_param_change": ["drawing/controls.py:super()._process_param_change(params)"],
    "description_delay": ['drawing/controls.py:"description_delay" in widget_type.param'],
    "_link_docs_worker": ["runtime/documents.py:_link_docs_worker(doc"],
    "_convert_json_patch": ["runtime/documents.py:_convert_json_patch(patch)"],
    "state": ["drawing/__init__.py:plot.state."],
    "handles": ["drawing/__init__.py:plot.handles["],
    "push": ["drawing/__init__.py:plot.push()"],
    "datatype": ["drawing/__init__.py:Dataset.datatype", "drawing/__init__.py:hv.Image.datatype"],
    # The worker's Python: wherever it lives in the package.
    "MockSessionContext": ["*:MockSessionContext(document="],
    "edit_readonly": ["*:with edit_readonly(state.location)"],
    "_simple_id": ["export/prerender.py:internals.restart_model_ids()"],
    "_simple_id_lock": ["export/prerender.py:internals.restart_model_ids()"],
    "__init__": ["serve.py:write_dev_entries", "compose/devloop.py:ANY_ROUTE = "],
    "LOCAL_DIST": ["compose/views.py:internals.serve_stylesheets_locally("],
    "_template_variables": ["compose/views.py:internals.serve_stylesheets_locally("],
}


def defined(module: str, owner: str, attribute: str) -> bool:
    """Whether ``module[.owner].attribute`` exists; a browser-only module is read, not run."""
    try:
        target = importlib.import_module(module)
    except ImportError:  # panel.io.pyodide imports `js`, which only Pyodide has
        source = Path(importlib.util.find_spec(module).origin).read_text("utf-8")
        tree = ast.parse(source)
        scope = tree.body
        if owner:
            [cls] = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == owner]
            scope = cls.body
        return any(getattr(node, "name", None) == attribute for node in scope)
    found = getattr(target, owner) if owner else target
    if isinstance(found, type) and found.__name__ in _INSTANCE_ATTRIBUTES:
        names, make = _INSTANCE_ATTRIBUTES[found.__name__]
        if attribute in names:
            return attribute in vars(make())  # set by __init__, not on the class
    return hasattr(found, attribute)


def _a_document():
    from bokeh.document import Document

    return Document()


def _a_bokeh_plot():
    """A HoloViews Bokeh plot, as a hook receives one."""
    import holoviews as hv

    hv.extension("bokeh", logo=False)
    return hv.renderer("bokeh").get_plot(hv.Curve([1, 2]))


# Attributes an instance gets in __init__, and how to make one to look at.
_INSTANCE_ATTRIBUTES = {
    "BokehPlot": (("handles",), _a_bokeh_plot),
    "Document": (("_template_variables",), _a_document),
}


def uses(where: str) -> bool:
    path, text = where.split(":", 1)
    files = sorted(SRC.rglob("*.py")) if path == "*" else [SRC / path]
    return any(text in file.read_text("utf-8") for file in files)


@pytest.mark.parametrize(
    "module,owner,attribute",
    internals.python_internals(),
    ids=lambda part: part if isinstance(part, str) else None,
)
def test_each_python_internal_exists_where_it_is_declared(module, owner, attribute):
    if not all(uses(where) for where in USED_IN[attribute]):
        pytest.fail(f"{attribute} is declared in posviz/internals.py but no longer used")
    assert defined(module, owner, attribute), (
        f"{module}{'.' + owner if owner else ''} has no {attribute} any more "
        f"(panel {panel.__version__}, bokeh {bokeh.__version__}): see posviz/internals.py"
    )


def test_model_ids_restart_from_bokehs_first_id():
    import subprocess
    import sys

    from bokeh.util.serialization import make_id

    fresh = subprocess.run(
        [sys.executable, "-c", "from bokeh.util.serialization import make_id; print(make_id())"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    make_id(), make_id()
    internals.restart_model_ids()
    assert make_id() == fresh == f"p{internals.BOKEH_FIRST_ID + 1}"


def test_a_document_panel_renders_takes_its_stylesheets_from_the_server_once_told():
    """The seam does what servable relies on: Panel reads ``dist_url`` from the document
    as it makes a model. Without it (a session no page was rendered for) the model's
    stylesheets are cdn.holoviz.org's."""
    import panel as pn
    from bokeh.document import Document
    from bokeh.models import ImportedStyleSheet
    from panel.io.resources import CDN_DIST, LOCAL_DIST

    def urls(told: bool) -> list[str]:
        doc = Document()
        if told:
            internals.serve_stylesheets_locally(doc)
        root = pn.Row(pn.widgets.Button(label="go")).get_root(doc)
        sheets = root.select({"type": ImportedStyleSheet})
        return sorted({str(sheet.url) for sheet in sheets})

    untold, told = urls(False), urls(True)
    assert untold and all(url.startswith(CDN_DIST) for url in untold), untold
    assert told and all(url.startswith(LOCAL_DIST) for url in told), told
    assert len(told) == len(untold)


def test_debounce_is_set_through_the_declared_name():
    from panel.reactive import Syncable

    before = Syncable._debounce
    try:
        internals.set_server_debounce(7)
        assert Syncable._debounce == 7
    finally:
        Syncable._debounce = before


def test_full_bounds_still_overrides_params_bounds_check():
    import param

    class Box(param.Parameterized):
        side = Slider(default=3, bounds=(1, 9))

    with pytest.raises(ValueError, match=r"Its bounds are 1 to 9\.$"):
        Box(side=10)


def test_panel_still_marks_a_converted_page_loading_with_the_declared_class():
    from panel.io.loading import LOADING_INDICATOR_CSS_CLASS

    assert internals.PANEL_LOADING_CLASS == LOADING_INDICATOR_CSS_CLASS
    handler = Path(panel.__file__).parent / "_templates" / "pyodide_handler.js"
    assert f"'{internals.PANEL_LOADING_CLASS}'" in handler.read_text("utf-8")
    assert f'"{internals.PANEL_LOADING_CLASS}"' in (SRC / "export" / "loader.js").read_text()


def test_bokehjs_still_has_index_and_has_finished():
    bundle = (Path(bokeh.__file__).parent / "server" / "static" / "js" / "bokeh.min.js").read_text(
        "utf-8"
    )
    index, finished = internals.BOKEH_JS_NAMES
    # `Bokeh.index` is the module's exported view manager; has_finished() a view's method.
    assert re.search(rf"\b{index}=new Proxy\(new \w+\.ViewManager", bundle), (
        f"BokehJS {bokeh.__version__} no longer exports Bokeh.{index}: see posviz/internals.py"
    )
    assert f"{finished}(){{" in bundle, f"BokehJS {bokeh.__version__} views lost {finished}()"
    signals = (SRC / "export" / "signals.js").read_text("utf-8")  # the page's one paint signal
    assert f"Bokeh?.{index}" in signals and finished in signals


def test_every_server_websocket_turns_nagle_off_before_bokeh_opens_it(monkeypatch):
    from bokeh.server.views.ws import WSHandler

    calls = []

    class Connection:
        def set_nodelay(self, value):
            calls.append(("set_nodelay", value))

    monkeypatch.setattr(WSHandler, "open", lambda self: calls.append(("bokeh open", self)))
    internals.send_frames_at_once()
    internals.send_frames_at_once()  # a second entry script must not wrap it twice
    handler = WSHandler.__new__(WSHandler)
    handler.ws_connection = Connection()
    WSHandler.open(handler)
    assert calls == [("set_nodelay", True), ("bokeh open", handler)]


def test_bokehjs_still_keeps_its_documents_in_bokeh_documents():
    bundle = (Path(bokeh.__file__).parent / "server" / "static" / "js" / "bokeh.min.js").read_text(
        "utf-8"
    )
    name = internals.BOKEH_DOCUMENTS
    assert re.search(rf"\b\w\.{name}=\[\]", bundle) and f".{name}.push(this)" in bundle, (
        f"BokehJS {bokeh.__version__} no longer lists documents in Bokeh.{name}"
    )
    script = (SRC / "compose" / "page_script.js").read_text("utf-8")
    assert f"Bokeh.{name}" in script


def test_a_hook_still_gets_the_bokeh_model_its_parts_and_push():
    from bokeh.models import Model

    plot = _a_bokeh_plot()
    assert isinstance(plot.state, Model)
    assert "plot" in plot.handles and callable(plot.push)


@pytest.mark.parametrize(
    "holder", internals.DOCS_PAGE_HOLDERS, ids=lambda holder: f"{holder[0]}.{holder[1]}"
)
def test_each_docs_tools_page_holder_still_registers_and_keeps_the_page(holder):
    """The class is there, registers under the declared name, and sets the declared
    attributes in ``__init__`` (instance attributes: read in its source)."""
    import inspect

    module, owner, registered, attributes = holder
    cls = getattr(importlib.import_module(module), owner)
    source = inspect.getsource(inspect.getmodule(cls))
    assert f'"{registered}"' in source, f"{module} no longer registers {registered!r}"
    init = inspect.getsource(cls.__init__)
    for attribute in attributes:
        assert f"self.{attribute} = " in init, f"{module}.{owner} no longer keeps .{attribute}"
    used = (SRC / "markdown_ext.py").read_text("utf-8")
    assert "internals.ZENSICAL_CONTEXT" in used and "internals.MKDOCS_RELPATH" in used


# --- the browser's internals, in what the site ships ------------------------------------

# The words of a seam's name that its users spell (not "Bokeh", "model", ...).
GENERIC = {"Bokeh", "Document", "view", "model", "doc", "property", "attrs", "pyodide", "embed"}


def seam_words(seam) -> set[str]:
    return {word for word in re.findall(r"[\w-]+", seam.name) if word not in GENERIC}


@pytest.fixture(scope="module")
def shipped(built_site):
    """The built site: the files of its that JS_SEAMS names."""
    return built_site


def test_the_built_site_has_every_js_seam(shipped):
    assert internals.check_js_seams(shipped) == []


@pytest.mark.parametrize("seam", internals.JS_SEAMS, ids=lambda seam: seam.name)
def test_each_js_seam_is_still_used_where_declared(seam):
    for used in seam.used_in:
        text = (SRC / used).read_text("utf-8")
        assert any(word in text for word in seam_words(seam)), (
            f"{used} no longer uses {seam.name}: drop it from posviz/internals.py JS_SEAMS"
        )


@pytest.mark.parametrize("seam", internals.JS_SEAMS, ids=lambda seam: seam.name)
def test_a_library_that_changed_a_seam_fails_the_check_naming_it(seam, shipped, tmp_path):
    """A copy of the shipped file with the seam's definition altered (as an upgrade
    that renamed it would) is caught, and only that seam is reported."""
    packages = {}
    if seam.file.startswith("package:"):
        package, _, inner = seam.file.removeprefix("package:").partition("/")
        original = internals._seam_files(seam.file, shipped, {})[0]
        packages[package] = tmp_path / package
        copies = [packages[package] / inner]
    else:
        originals = internals._seam_files(seam.file, shipped, {})
        copies = [tmp_path / file.relative_to(shipped) for file in originals]
        original = originals[0]
    site = tmp_path
    for other in internals.JS_SEAMS:  # every other seam's files as shipped
        if not other.file.startswith("package:"):
            for file in internals._seam_files(other.file, shipped, {}):
                (site / file.relative_to(shipped)).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(file, site / file.relative_to(shipped))
        elif other.file.partition("/")[0] == seam.file.partition("/")[0]:
            # the same package's other files, so its other seams still hold
            inner = other.file.partition("/")[2]
            (packages[package] / inner).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(
                internals._seam_files(other.file, shipped, {})[0], packages[package] / inner
            )
    text = original.read_text("utf-8")
    altered = re.sub(seam.patterns[0], lambda found: found.group(0)[::-1], text)
    assert altered != text
    copies[0].parent.mkdir(parents=True, exist_ok=True)
    copies[0].write_text(altered, "utf-8")
    missing = internals.check_js_seams(site, packages)
    assert len(missing) == 1 and missing[0].startswith(f"{seam.library} no longer has {seam.name} ")
    assert all(used in missing[0] for used in seam.used_in)


@pytest.mark.slow  # a build of its own
def test_a_build_whose_bokehjs_lost_a_seam_fails_naming_it(tmp_path, monkeypatch, capsys):
    """As an upgrade would: the site's copy of BokehJS no longer defines
    ``Document.from_json``; the build stops and says which part, and who uses it."""
    from posviz.export import command

    copy_static = command.copy_static

    def upgraded(out, python):
        copy_static(out, python)
        for bundle in (out / "static" / "bokeh").glob("bokeh-[0-9]*.min.js"):
            text = bundle.read_text("utf-8")
            bundle.write_text(text.replace("static from_json(", "static from_doc("), "utf-8")

    monkeypatch.setattr(command, "copy_static", upgraded)
    assert command.build(tmp_path / "site", figures=[710]) == 1
    said = capsys.readouterr()
    assert "BokehJS no longer has Document.from_json" in said.err + said.out
    assert "export/lazy.js" in said.err + said.out
