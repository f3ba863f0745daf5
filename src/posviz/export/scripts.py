"""posviz's own browser scripts, each joined from its parts by the build.

The shared modules come first (each sets one global: posvizChecked,
posvizSignals and so on), the script that uses them last. A page loads
CONNECT_PARTS first thing, so the loader, an inline script after BokehJS, finds
posvizSignals there. The frames script is async and may run before it, and the
workers are scopes of their own: each carries every module it uses
(tests/test_scripts.py). A module joined twice into one page shares its state
through the window (signals.js: one paint poll).
"""

from posviz import assets

CONNECT_PARTS = ("signals.js", "connect.js")  # every page, before BokehJS
WORKER_PARTS = ("signals.js", "protocol.js", "checked.js", "worker.js")  # the last one takes SITE
# The frames script is async and sits before the connect script in the page, so it can
# run first (a second page, its copy in the memory cache): it carries every module it uses.
FRAMES_PARTS = (
    "signals.js",
    "links.js",
    "frame_apply.js",
    "frame_index.js",
    "checked.js",
    "frames.js",
)
SERVICE_WORKER_PARTS = ("checked.js", "offline_core.js", "sw.js")  # the last one takes OFFLINE


def joined(parts: tuple[str, ...], **fills: str) -> str:
    """The script made of ``parts`` in order; ``fills`` go into the last one."""
    *shared, last = parts
    return "".join(assets.render("posviz.export", name) for name in shared) + assets.render(
        "posviz.export", last, **fills
    )
