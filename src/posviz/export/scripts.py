"""posviz's own browser scripts, each an ES module bundled with what it imports.

Each script the site ships is one entry module (``posviz.assets.bundle``): the
modules it imports (checked fetching, the paint signal, the link grammar and so
on) travel inside it, so a script never depends on another having run first.
The frames script is async and may run before the connect script; the workers
are scopes of their own. A module bundled into two scripts of one page shares
its state through the window (signals.js: one paint poll).
"""

from posviz import assets

CONNECT = "connect.js"  # every page, before BokehJS
WORKER = "worker.js"  # takes SITE
FRAMES = "frames.js"
SERVICE_WORKER = "sw.js"  # takes OFFLINE
LOADER = "loader.js"  # inside Panel's page script (export/adapter.py)
ENTRIES = (CONNECT, WORKER, FRAMES, SERVICE_WORKER, LOADER)


def bundled(entry: str, **fills: str) -> str:
    """The script of ``entry`` and every module it imports; ``fills`` go into ``entry``."""
    return assets.bundle("posviz.export", entry, **fills)
