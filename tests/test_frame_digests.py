"""What the shipped figures put in their plots stays what it was when they moved to one
description each (issue 27): the frames the build writes, texts aside, every number
to seven significant digits.

The digests in tests/data/frame_digests.json were first computed by the code before
the move, byte for byte; they were re-recorded once, rounded, when a CPU without
AVX-512 gave figures 710 and 7256 other last bits of sin and cos (numpy picks its
kernels by CPU). A figure changed on purpose is re-recorded with
``python -m tests.support.frame_digests --write`` (its prose never needs it).
"""

import json

import pytest

from posviz.export.frames import figure_frames
from posviz.figures import FIGURES
from tests.support.frame_digests import RECORDED, digests

# every shipped figure's frames computed again: the full run's, not ./dev test --fast
pytestmark = pytest.mark.slow

BEFORE = json.loads(RECORDED.read_text("utf-8"))


@pytest.mark.parametrize("figure_id", sorted(BEFORE, key=int))
def test_a_shipped_figures_frames_are_the_bytes_recorded(figure_id):
    found = digests(*figure_frames(FIGURES[int(figure_id)]))
    assert found == BEFORE[figure_id], (
        f"figure {figure_id}'s frames changed; on purpose? re-record them: "
        "python -m tests.support.frame_digests --write"
    )


def test_the_digests_see_a_change_of_one_value_and_not_of_prose():
    index, blob = figure_frames(FIGURES[7256])
    moved = json.loads(json.dumps(index))
    moved["parts"][0]["tie"]["location"] += 1
    reworded = {**index, "strings": [s.replace("k", "K") for s in index["strings"]]}
    assert digests(moved, blob)["plots"] != digests(index, blob)["plots"]
    assert digests(index, blob[:-1] + b"\x01")["arrays"] != digests(index, blob)["arrays"]
    assert digests(reworded, blob) == digests(index, blob)
