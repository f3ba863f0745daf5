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
ffi.to_js = lambda value, **options: value
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
