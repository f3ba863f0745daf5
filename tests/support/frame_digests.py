"""Digests of what each figure's frames put in its plots, as the build writes them.

``python -m tests.support.frame_digests`` prints them; ``--write`` records them
in ``tests/data/frame_digests.json``, which ``tests/test_frame_digests.py``
compares against. Only the plots count: the frames' texts (readout, table, the
text alternative) are prose, free to change.
"""

import hashlib
import json
import sys
from pathlib import Path

RECORDED = Path(__file__).resolve().parents[1] / "data" / "frame_digests.json"


def digests(index: dict, blob: bytes) -> dict[str, str]:
    """sha256 of the frames' arrays (the binary file) and of the rest but their texts."""
    plots = {key: value for key, value in index.items() if key != "strings"}
    plots["frames"] = [{k: v for k, v in frame.items() if k != "text"} for frame in index["frames"]]
    text = json.dumps(plots, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    return {"arrays": hashlib.sha256(blob).hexdigest(), "plots": hashlib.sha256(text).hexdigest()}


def computed() -> dict[str, dict[str, str]]:
    """Every figure's digests, computed now by the build's own code."""
    from posviz.build.frames import figure_frames
    from posviz.figures import FIGURES

    return {str(fid): digests(*figure_frames(cls)) for fid, cls in FIGURES.items()}


if __name__ == "__main__":
    found = computed()
    print(json.dumps(found, indent=1))
    if "--write" in sys.argv:
        RECORDED.write_text(json.dumps(found, indent=1, sort_keys=True) + "\n", "utf-8")
