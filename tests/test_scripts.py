"""Each script the site ships finds every posviz module it uses (export/scripts.py).

A shipped script is joined from parts: modules that each set one global
(``root.posvizChecked = factory()``), then the script that uses them. A script
that can run before the page's other scripts (the frames script is async and sits
before the connect script; a worker is a scope of its own) must carry every module
whose global it reads. Stop 42's CI caught the frames script reading
``posvizSignals`` from the connect script, which a second page with the frames
script in its memory cache had not run yet: the frames never started, and neither
did Python.
"""

import re

import pytest

from posviz import assets
from posviz.export import scripts

DEFINES = re.compile(r"\broot\.([Pp]osviz[A-Z]\w*) = factory\(\)")
USES = re.compile(r"\b([Pp]osviz[A-Z]\w*)\.")
# Globals that are not modules: the page's state, set by scripts that run earlier
# or later and read only when they are there (the worker, the URL gate, the frames'
# own state, the file-page frame files).
STATE = {"posvizWorker", "posvizGate", "posvizFrames", "posvizFrameFiles", "posvizNumpy"}
# Every module is a part of some script: its global, from its own source.
MODULES = {
    name: DEFINES.search(assets.source("posviz.export", name)).group(1)
    for name in {
        part
        for parts in (
            scripts.CONNECT_PARTS,
            scripts.WORKER_PARTS,
            scripts.FRAMES_PARTS,
            scripts.SERVICE_WORKER_PARTS,
        )
        for part in parts[:-1]
    }
}
# Scripts that run on their own: each must define, before it, every module it reads.
ON_THEIR_OWN = {
    "connect": scripts.CONNECT_PARTS,
    "worker": scripts.WORKER_PARTS,
    "frames": scripts.FRAMES_PARTS,
    "service worker": scripts.SERVICE_WORKER_PARTS,
}


def test_every_shared_module_defines_one_global():
    assert MODULES, "no module parts found"
    assert len(set(MODULES.values())) == len(MODULES), MODULES


@pytest.mark.parametrize("script", sorted(ON_THEIR_OWN))
def test_a_script_that_runs_on_its_own_carries_every_module_it_reads(script):
    parts = ON_THEIR_OWN[script]
    defined = set()
    for part in parts:
        text = assets.source("posviz.export", part)
        read = set(USES.findall(text)) - STATE
        missing = read - defined - set(DEFINES.findall(text))
        assert not missing, (
            f"{part} in the {script} script reads {sorted(missing)}, which no part before it "
            f"defines ({', '.join(parts)}): add the module to export/scripts.py"
        )
        defined |= set(DEFINES.findall(text))


def test_the_check_can_fail():
    """The frames script without signals.js, as stop 42 first shipped it, is caught."""
    parts = tuple(p for p in scripts.FRAMES_PARTS if p != "signals.js")
    defined = set()
    for part in parts:
        defined |= set(DEFINES.findall(assets.source("posviz.export", part)))
    frames = assets.source("posviz.export", "frames.js")
    assert "posvizSignals" in set(USES.findall(frames)) - STATE - defined
