"""The worker's Python half imports panel without unittest.mock (RENDER in build/export.py)."""

import json
import subprocess
import sys

from posviz.build.export import RENDER

PROBE = """
import json, sys, types
{function}
_posviz_import_panel()
cache = sys.modules["panel.io.cache"]
during = [name for name in ("unittest", "unittest.mock") if name in sys.modules]
stand_in = cache.unittest.mock.Mock
import unittest.mock
real = unittest.mock.Mock()
real.method(1)
real.method.assert_called_once_with(1)
print(json.dumps({{
    "after_import": during,
    "panel": "panel" in sys.modules,
    "stand_in_is_real": stand_in is unittest.mock.Mock,
    "real_module_file": bool(getattr(unittest.mock, "__file__", None)),
}}))
"""


def function_source() -> str:
    start = RENDER.index("def _posviz_import_panel")
    end = RENDER.index("\n_posviz_import_panel()")
    return RENDER[start:end]


def probe(prelude: str = "") -> dict:
    code = prelude + PROBE.format(function=function_source())
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_panel_imports_without_unittest_and_later_imports_get_the_real_module():
    result = probe()
    assert result["after_import"] == []  # the stand-ins left sys.modules
    assert result["panel"]
    assert not result["stand_in_is_real"]  # panel's cache keyed on the stand-in
    assert result["real_module_file"]  # a later import loads the real one


def test_unittest_already_imported_is_left_alone():
    result = probe("import unittest.mock\n")
    assert result["after_import"] == ["unittest", "unittest.mock"]
    assert result["stand_in_is_real"]  # panel got the real module
