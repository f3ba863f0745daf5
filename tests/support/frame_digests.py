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

import numpy as np

RECORDED = Path(__file__).resolve().parents[1] / "data" / "frame_digests.json"


# Significant digits the digests keep. numpy's sin, cos and exp differ in the last bit
# from one CPU to another (AVX-512 takes other kernels than AVX2), and such a bit also
# changes which arrays the pool finds equal; seven digits are far above both.
DIGITS = 7


def resolved(value, columns: list, blob: bytes):
    """``value`` with each pool reference replaced by its array, rounded to ``DIGITS``."""
    if isinstance(value, dict) and set(value) == {"$"}:
        offset, size, dtype, shape = columns[value["$"]]
        array = np.frombuffer(
            blob, dtype=np.dtype(dtype).newbyteorder("<"), count=size, offset=offset
        )
        if dtype == "f8":
            return [float(f"{v:.{DIGITS}g}") for v in array.tolist()] + [shape]
        return [*array.tolist(), shape]
    if isinstance(value, dict):
        return {k: resolved(v, columns, blob) for k, v in value.items()}
    if isinstance(value, list):
        return [resolved(v, columns, blob) for v in value]
    if isinstance(value, float):
        return float(f"{value:.{DIGITS}g}")
    return value


def digests(index: dict, blob: bytes) -> dict[str, str]:
    """sha256 of the frames' arrays and of the rest but their texts, each array read out
    of the pool and every number rounded to ``DIGITS``: a last-bit difference between CPUs
    changes them only if it crosses a rounding boundary."""
    columns = index["columns"]
    arrays = [resolved({"$": n}, columns, blob) for n in range(len(columns))]
    plots = {k: v for k, v in index.items() if k not in ("strings", "columns")}
    plots["frames"] = [{k: v for k, v in frame.items() if k != "text"} for frame in index["frames"]]
    plots = resolved(plots, columns, blob)
    distinct = sorted({dump(array) for array in arrays})  # a pool may hold an array twice
    return {"arrays": sha256(dump(distinct)), "plots": sha256(dump(plots))}


def dump(value) -> str:
    """``value`` as compact JSON."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def sha256(text: str) -> str:
    """The hex sha256 of ``text``'s UTF-8 bytes."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def computed() -> dict[str, dict[str, str]]:
    """Every figure's digests, computed now by the build's own code."""
    from posviz.export.frames import figure_frames
    from posviz.figures import FIGURES

    return {str(fid): digests(*figure_frames(cls)) for fid, cls in FIGURES.items()}


if __name__ == "__main__":
    found = computed()
    print(json.dumps(found, indent=1))
    if "--write" in sys.argv:
        RECORDED.write_text(json.dumps(found, indent=1, sort_keys=True) + "\n", "utf-8")
