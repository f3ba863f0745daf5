"""Ready the worker's Python for Panel, then hand the worker its runtime.

``build/worker.js`` calls ``start`` once, after unpacking the wheels.
"""

# --- Imports -------------------------------------------------------------------

import os
import sys
import types

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


def start(cdn_root: str):
    """The worker's runtime (``documents.Runtime``), with Panel imported as set up here."""
    prepare(cdn_root)
    import_panel()
    # Imported only now: it imports panel, which must see the settings above.
    from posviz.runtime.documents import Runtime

    return Runtime()
