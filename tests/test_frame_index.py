"""The browser's frame lookup (export/frame_index.js) on every shipped figure's real index.

For each figure the built site ships, Node reads ``frames/<id>.json.gz`` as the
page does and finds each state's frame from its values, as a reader's slider
move or a deep link would; Python's ``key_of`` must give the same key.
tests/js/frame_index.test.mjs covers the rules on hand-built indexes.
"""

import gzip
import json
import math
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from posviz.export.frames import WHOLE_SPACE, figure_frames, key_of, slider_values
from posviz.figures import FIGURES
from posviz.figures.model import Figure, Plot, Slider

FRAME_INDEX = Path(__file__).resolve().parents[1] / "src" / "posviz" / "export" / "frame_index.js"

# For each frame of the index on stdin: its key, the frame found for its values
# (by a link, and by moving each slider to it from the opening state), and the
# values with each implied slider settled; and the state a deep link to those values
# reaches (set slider by slider from the opening state).
LOOKUP = """
import {readFileSync} from "node:fs";
import {pathToFileURL} from "node:url";
const Index = await import(pathToFileURL(process.argv[1]).href);
const index = JSON.parse(readFileSync(0, "utf-8"));
const opening = index.frames[index.states[index.opening]].values;
const at = (frame) => index.frames.indexOf(frame);
const moveTo = (values, name) =>
  Index.frameFor(index, {...opening, [name]: values[name]}, name, opening);
const found = index.frames.map((frame, position) => ({
  at: position,
  key: Index.keyOf(index, frame.values),
  linked: at(Index.frameFor(index, frame.values, null, frame.values)),
  moved: Object.fromEntries(index.sliders.map((s) => [s.name, at(moveTo(frame.values, s.name))])),
  settled: Index.settled(index, frame.values),
  link: ((state) => ({at: at(state.frame), values: state.values}))(
    Index.linkState(index, frame.values)),
}));
const links = (index.links || []).map((link) => {
  const state = Index.linkState(index, link);
  return {at: at(state.frame), values: state.values};
});
console.log(JSON.stringify({found, links}));
"""


@pytest.fixture(scope="module")
def node():
    found = shutil.which("node")
    assert found, "Node is missing: ./dev test installs it (apt-get nodejs)"
    return found


def lookups(node, index: dict) -> list[dict]:
    done = subprocess.run(
        [node, "--input-type=module", "-e", LOOKUP, str(FRAME_INDEX)],
        input=json.dumps(index),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)["found"]


def linked(node, index: dict, links: list[dict]) -> list[dict]:
    """The state ``linkState`` reaches for each of ``links`` (frame position, -1: none)."""
    done = subprocess.run(
        [node, "--input-type=module", "-e", LOOKUP, str(FRAME_INDEX)],
        input=json.dumps({**index, "links": links}),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)["links"]


@pytest.mark.parametrize("figure_id", sorted(FIGURES))
def test_each_frame_is_found_from_its_values_as_python_keys_it(figure_id, built_site, node):
    index = json.loads(
        gzip.decompress((built_site / "frames" / f"{figure_id}.json.gz").read_bytes())
    )
    figure = FIGURES[figure_id]()
    opening = index["frames"][index["states"][index["opening"]]]["values"]
    for found in lookups(node, index):
        values = index["frames"][found["at"]]["values"]
        assert found["key"] == key_of(figure, values), (figure_id, values)
        assert index["states"][found["key"]] == found["at"], (figure_id, values)
        assert found["linked"] == found["at"], (figure_id, values)
        assert found["settled"] == values, (figure_id, values)
        implied = {s["name"] for s in index["sliders"] if s["implied"]}
        for name, at in found["moved"].items():
            one_moved = {**opening, name: values[name]}
            if one_moved == values:  # this frame is one move from the opening state
                assert at == found["at"], (figure_id, name, values)
            elif name in implied:  # a preset moves to the state its move names (none: stays)
                target = index["moves"][name][str(values[name])]
                expected = index["states"][target if target is not None else index["opening"]]
                assert at == expected, (figure_id, name, values)
            elif at != -1:  # a frame was found: it must be the one for that move
                assert index["frames"][at]["values"][name] == values[name], (figure_id, name)


def python_link(cls, link: dict) -> dict | None:
    """The values a figure has after a deep link's values are set in declaration order,
    as Python's DeepLinks sets them; None when a step is out of the bounds it meets."""
    figure = cls()
    try:
        for name in figure.sliders():
            if name in link:
                setattr(figure, name, link[name])
    except ValueError:
        return None
    return figure.values()


@pytest.mark.parametrize("figure_id", sorted(FIGURES))
def test_a_deep_link_reaches_the_state_python_sets_and_a_frame_only_when_every_step_has_one(
    figure_id, built_site, node
):
    index = json.loads(
        gzip.decompress((built_site / "frames" / f"{figure_id}.json.gz").read_bytes())
    )
    check_deep_links(FIGURES[figure_id], index, node)


def check_deep_links(cls, index: dict, node):
    """Each frame's values as a link, and links that move two sliders at once (the
    values of two one-slider frames combined): JS must show the values Python sets,
    from a frame when one step at a time reaches a frame, else for the numpy tier."""
    opening = index["frames"][index["states"][index["opening"]]]["values"]
    explicit = [s["name"] for s in index["sliders"] if not s["implied"]]
    one_slider = {}  # slider name -> a frame's values that differ from the opening in it alone
    for frame in index["frames"]:
        moved = [name for name in explicit if frame["values"][name] != opening[name]]
        if len(moved) == 1:
            one_slider.setdefault(moved[0], frame["values"])
    links = [frame["values"] for frame in index["frames"]]
    names = sorted(one_slider)
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]
    links += [{**opening, a: one_slider[a][a], b: one_slider[b][b]} for a, b in pairs]
    checked = unframed = 0
    for link, state in zip(links, linked(node, index, links), strict=True):
        expected = python_link(cls, link)
        if expected is None:
            continue
        checked += 1
        shown = index["frames"][state["at"]]["values"] if state["at"] != -1 else state["values"]
        assert shown == expected, (cls.figure_id, link, state)
        if state["at"] == -1:
            unframed += 1
        elif link in links[: len(index["frames"])]:
            assert index["frames"][state["at"]]["values"] == link, (cls.figure_id, link, state)
    assert checked, cls.figure_id
    # Two sliders moved: a figure whose every state the build framed (a space of at most
    # WHOLE_SPACE) has a frame for each; any other has none for most, and the numpy
    # tier answers.
    if pairs and whole_space(cls):
        assert unframed == 0, (cls.figure_id, pairs)
    elif pairs:
        assert unframed, (cls.figure_id, pairs)
    return len(pairs), unframed


def whole_space(cls) -> bool:
    """Whether the build frames every state of the figure (export/frames.py, WHOLE_SPACE)."""
    figure = cls()
    return math.prod(len(slider_values(figure, name)) for name in figure.sliders()) <= WHOLE_SPACE


# --- both directions, on two small figures of the test's own ------------------------
# No built-in figure has a space of at most WHOLE_SPACE states, so these two, alike
# but for the second slider's range, check each direction of the two-slider rule.

X = np.arange(0, 11)


class Lines(Figure):
    """A line y = a · x + b: two sliders, 10 × 10 states."""

    figure_id = 999_001
    title = "Lines"
    caption = "A line through b with slope a, for the frame index tests: move either slider."

    a = Slider(default=2, bounds=(0, 9), label="a", doc="The slope.")
    b = Slider(default=3, bounds=(0, 9), label="b", doc="Where the line meets the y-axis.")

    def frame(self):
        return {"line": {"data": {"y": self.a * X + self.b}}, "plot": {"title.text": "line"}}

    def draw(self, hv, frame):
        line = hv.Curve((X, frame["line"]["data"]["y"]), "x", "y")
        return [Plot("plot", {"line": line}, xlim=(0, 10), ylim=(0, 100))]

    def readout(self):
        return f"a = **{self.a}** · b = **{self.b}**"


class WideLines(Lines):
    """The same line with b from 0 to 99: 10 × 100 states, more than WHOLE_SPACE."""

    figure_id = 999_002
    b = Slider(default=3, bounds=(0, 99), label="b", doc="Where the line meets the y-axis.")


@pytest.mark.parametrize("cls,framed", [(Lines, True), (WideLines, False)])
def test_two_sliders_moved_find_a_frame_exactly_when_the_build_frames_every_state(
    cls, framed, node
):
    assert whole_space(cls) is framed
    index, _ = figure_frames(cls)
    assert (len(index["frames"]) == 100) is framed
    pairs, unframed = check_deep_links(cls, index, node)
    assert pairs == 1
    assert (unframed == 0) is framed
