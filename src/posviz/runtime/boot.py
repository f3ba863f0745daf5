"""Ready the worker's Python for Panel, then hand the worker its runtime.

``export/worker.js`` calls ``prepare``, then ``step`` for each of ``STEPS``
(between two steps it answers the pages' requests for frames, so that nothing
a reader does waits for the whole of Panel's import), then ``runtime``.
``start`` does all of it at once.
"""

# --- Imports -------------------------------------------------------------------

import importlib
import os
import sys
import types

# --- Globals -------------------------------------------------------------------

# What Panel's tier imports, one module at a time, each after what it needs;
# panel comes before holoviews, so that only panel's import takes the stand-in.
STEPS = (
    "param",
    "bokeh.models",
    "panel",
    "holoviews",
    "posviz.runtime.documents",
    "posviz.compose.views",
)

# --- General API ---------------------------------------------------------------


def prepare(cdn_root: str) -> None:
    """Settings Panel reads when it is imported, and the one gap in Pyodide 0.27 it hits."""
    os.environ["PANEL_CDN_ROOT"] = cdn_root
    os.environ["POSVIZ_EXPORT"] = "1"
    try:
        import pyodide.ffi
    except ImportError:  # not in Pyodide (tests on the host): nothing to shim
        return
    if not hasattr(pyodide.ffi, "jsnull"):
        pyodide.ffi.jsnull = None  # panel 1.9 expects it; Pyodide 0.27 maps JS null to None


def import_panel() -> None:
    """Import panel without unittest.mock.

    panel.io.cache imports unittest.mock only to key a hash function on Mock
    (0.1-0.16 s in Pyodide); a posviz page never hashes a Mock. The stand-in is
    in sys.modules only while panel imports: any later import of unittest.mock
    gets the real module.
    """

    class Mock:  # never instantiated
        pass

    mock = types.ModuleType("unittest.mock")
    mock.Mock = Mock
    unittest = types.ModuleType("unittest")
    unittest.mock = mock
    stand_ins = {"unittest": unittest, "unittest.mock": mock}
    if any(name in sys.modules for name in stand_ins):
        import panel  # noqa: F401  (the real modules are there already)

        return
    sys.modules.update(stand_ins)
    try:
        import panel  # noqa: F401
    finally:
        for name, module in stand_ins.items():
            if sys.modules.get(name) is module:
                del sys.modules[name]


def step(name: str) -> None:
    """Import one of ``STEPS`` (panel through ``import_panel``)."""
    if name == "panel":
        import_panel()
    else:
        importlib.import_module(name)


def runtime():
    """The worker's runtime (``documents.Runtime``), once ``STEPS`` are imported."""
    # Imported only now: it imports panel, which must see the settings of prepare.
    from posviz.runtime.documents import Runtime

    return Runtime()


def start(cdn_root: str):
    """Prepare, import every step and return the runtime, at once."""
    prepare(cdn_root)
    for name in STEPS:
        step(name)
    return runtime()
