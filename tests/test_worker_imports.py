"""The worker's Python (posviz.runtime) imports panel without unittest.mock, and serves pages.

Each probe needs a fresh Python; the three run as children of one subprocess
(tests/support/imports.py).
"""

import json

import pytest

from tests.support.imports import imported_each

# fresh Python processes: the full run's, not ./dev test --fast
pytestmark = pytest.mark.slow

PROBE = """
import json, sys
from posviz.runtime.boot import import_panel
import_panel()
cache = sys.modules["panel.io.cache"]
during = [name for name in ("unittest", "unittest.mock") if name in sys.modules]
stand_in = cache.unittest.mock.Mock
import unittest.mock
real = unittest.mock.Mock()
real.method(1)
real.method.assert_called_once_with(1)
print(json.dumps({
    "after_import": during,
    "panel": "panel" in sys.modules,
    "stand_in_is_real": stand_in is unittest.mock.Mock,
    "real_module_file": bool(getattr(unittest.mock, "__file__", None)),
}))
"""


@pytest.fixture(scope="module")
def probed() -> dict[str, dict]:
    """Each probe's JSON line, from one subprocess (RUNTIME is defined below)."""
    answers = imported_each(
        {
            "panel": (PROBE, ()),
            "panel after unittest": ("import unittest.mock\n" + PROBE, ()),
            "runtime": (RUNTIME, ()),
            "later": (LATER, ()),
        }
    )
    for name, result in answers.items():
        assert "error" not in result, f"the {name} probe failed:\n{result['error']}"
    return {
        name: json.loads(result["printed"].splitlines()[-1]) for name, result in answers.items()
    }


def test_panel_imports_without_unittest_and_later_imports_get_the_real_module(probed):
    result = probed["panel"]
    assert result["after_import"] == []  # the stand-ins left sys.modules
    assert result["panel"]
    assert not result["stand_in_is_real"]  # panel's cache keyed on the stand-in
    assert result["real_module_file"]  # a later import loads the real one


def test_unittest_already_imported_is_left_alone(probed):
    result = probed["panel after unittest"]
    assert result["after_import"] == ["unittest", "unittest.mock"]
    assert result["stand_in_is_real"]  # panel got the real module


# Pyodide's own modules, as far as panel.io.pyodide touches them at import and render.
PYODIDE_STAND_INS = """
import sys, types
js = types.ModuleType("js")
js.JSON = js.XMLHttpRequest = object
js.Map = types.SimpleNamespace(new=dict)
js.Object = types.SimpleNamespace(entries=lambda value: value)
ffi = types.ModuleType("pyodide.ffi")
pyodide = types.ModuleType("pyodide")
class Bytes(bytes):  # what to_js makes of bytes: a typed array, whose .buffer a patch sends
    buffer = property(lambda self: self)
ffi.to_js = lambda value, **options: Bytes(value) if isinstance(value, bytes) else value
code = types.ModuleType("pyodide.code")
code.run_js = lambda source: None
pyodide.ffi, pyodide.code = ffi, code
sys.modules.update({"js": js, "pyodide": pyodide, "pyodide.ffi": ffi, "pyodide.code": code})
"""

RUNTIME = (
    PYODIDE_STAND_INS
    + """
import json
from posviz.runtime import boot
runtime = boot.start("static/panel/")
import os
rendered = json.loads(runtime.render(1, "figure-710", "?pos=37"))
docs_json, render_items, root_ids, timings = rendered
sent = []
runtime.link(1, lambda patch, buffers, *rest: sent.append(patch))
before = runtime.documents()
runtime.close(1)
runtime.close(1)  # a second close is harmless
print(json.dumps({
    "jsnull": ffi.jsnull,
    "cdn_root": os.environ["PANEL_CDN_ROOT"],
    "docs": json.loads(docs_json) if isinstance(docs_json, str) else docs_json,
    "timings": sorted(timings),
    "before": before,
    "after": runtime.documents(),
}))
"""
)


def test_the_runtime_renders_a_page_at_the_readers_values_and_closes_it(probed):
    result = probed["runtime"]
    assert result["cdn_root"] == "static/panel/"
    assert result["jsnull"] is None  # the shim panel 1.9 needs on Pyodide 0.27
    assert (result["before"], result["after"]) == (1, 0)
    assert result["timings"] == ["build view", "write doc"]
    (doc,) = result["docs"].values()
    sliders = [
        r["attributes"]
        for r in _models(doc["roots"])
        if r.get("name") == "Slider" and r["attributes"].get("title") == "pos"
    ]
    assert [s["value"] for s in sliders] == [37]  # the query's value, not the default 12


def _models(value):
    """Every model object in a Bokeh document JSON."""
    if isinstance(value, dict):
        if value.get("type") == "object":
            yield value
        for item in value.values():
            yield from _models(item)
    elif isinstance(value, list):
        for item in value:
            yield from _models(item)


def topic_figures() -> list[int]:
    """The topic's figures, in page order."""
    from posviz import content

    data = content.load()
    return [figure_id for figure_id, _ in data.figures_shown(data.topics["positional-encoding"])]


TOPIC_FIGURES = topic_figures()
# Near the reader: the first. Wanted first by the page: the last. Failing: one between.
FIRST, WANTED, FAILS = TOPIC_FIGURES[0], TOPIC_FIGURES[-1], TOPIC_FIGURES[len(TOPIC_FIGURES) // 2]

# The topic with only its first figure near: the others are shells until filled, one
# per call, the wanted one first; one figure fails, and says so in its place.
LATER = (
    PYODIDE_STAND_INS
    + f"""
import json
from posviz.compose import page
from posviz.runtime import boot
runtime = boot.start("static/panel/")
TOPIC = "topic-positional-encoding"

def roots(doc):
    return {{root.name: root for root in doc.roots if str(root.name).startswith("figure-")}}

def kinds(root):
    return sorted(type(model).__name__ for model in root.references())

def classes(doc):
    return {{name: list(root.css_classes) for name, root in roots(doc).items()}}

runtime.render(1, TOPIC, "", "null")
whole = {{name: kinds(root) for name, root in roots(runtime.docs[1]).items()}}
whole_classes = classes(runtime.docs[1])
whole_later = len(runtime.later[1])
runtime.close(1)

real_layout = page.layout.figure_layout
def failing(figure, caption=True, shell=None):
    if figure.figure_id == {FAILS}:
        raise ValueError("a test figure that cannot draw")
    return real_layout(figure, caption, shell)
page.layout.figure_layout = failing

runtime.render(2, TOPIC, "", json.dumps([{FIRST}]))
doc = runtime.docs[2]
at_render = {{
    name: [list(root.css_classes), len(root.children)] for name, root in roots(doc).items()
}}
sent = []
runtime.link(2, lambda patch, buffers, *rest: sent.append(patch))
order, left = [], []
while True:
    before = {{item.figure.figure_id for item in runtime.later[2]}}
    left.append(runtime.fill(2, json.dumps([{WANTED}, "x", True])))
    order += sorted(before - {{item.figure.figure_id for item in runtime.later[2]}})
    if not left[-1]:
        break
after = roots(doc)
print(json.dumps({{
    "whole_later": whole_later,
    "whole_classes": whole_classes,
    "at_render": at_render,
    "order": order,
    "left": left,
    "patched": len(sent),
    "after_classes": classes(doc),
    "same_models": {{name: kinds(root) == whole[name]
                    for name, root in after.items() if name != "figure-{FAILS}"}},
    "failed_text": [str(getattr(part, "text", "")) for part in after["figure-{FAILS}"].children],
    "fill_when_done": runtime.fill(2, "[]"),
    "fill_closed": (runtime.close(2), runtime.fill(2, "[]"))[1],
}}))
"""
)


def test_far_figures_are_shells_at_first_and_each_fill_builds_one_the_wanted_first(probed):
    result = probed["later"]
    names = [f"figure-{figure_id}" for figure_id in TOPIC_FIGURES]
    # Given no near list, the whole page at once, as before.
    assert result["whole_later"] == 0
    assert result["whole_classes"] == {name: ["posviz-figure"] for name in names}
    # Given the first, the others are empty shells the page can tell apart.
    assert result["at_render"] == {
        name: [["posviz-figure"], result["at_render"][name][1]]
        if name == names[0]
        else [["posviz-later"], 0]
        for name in names
    }
    assert result["at_render"][names[0]][1] > 0
    # One per call, the page's wanted one first (its other entries are not ids), then page order.
    later = TOPIC_FIGURES[1:]
    assert result["order"] == [WANTED] + [f for f in later if f != WANTED]
    assert result["left"] == list(range(len(later) - 1, -1, -1))
    assert result["patched"] >= len(later)  # each reached the page as a change
    assert result["fill_when_done"] == result["fill_closed"] == 0
    # Filled, each holds what a whole build makes of it, model for model.
    assert result["after_classes"] == {name: ["posviz-figure"] for name in names}
    assert result["same_models"] == {name: True for name in names if name != f"figure-{FAILS}"}
    # The failing one says which figure, and why, in a line in its place.
    (text,) = result["failed_text"]
    assert f"Figure {FAILS} could not be drawn. ValueError: a test figure that cannot draw" in text
    assert "Traceback" not in text
