"""The worker's numpy tier (posviz.runtime.compute) writes what Panel and the build write."""

import json

import numpy as np
import panel as pn
import pytest
from bokeh.document import Document

from posviz.drawing.layout import deep_link
from posviz.export import frames as build_frames
from posviz.figures import FIGURES
from posviz.runtime import compute

STATES = 8


def random_states(cls, rng):
    """States with several sliders moved at once (no precomputed frame holds most of them)."""
    opening = cls()
    found = []
    while len(found) < STATES:
        values = {}
        for name in opening.sliders():
            if name in opening.implied:
                continue
            options = build_frames.slider_values(opening, name)
            values[name] = options[rng.integers(len(options))]
        try:
            figure = cls(**values)
        except ValueError:  # a query outside the image: refused by the figure too
            continue
        found.append(figure.values())
    return found


def request(cls, values):
    """What posviz-frames.js sends for ``values`` (built from the page's own settings)."""
    figure = cls()
    return {
        "module": cls.__module__,
        "figure": cls.figure_id,
        "values": values,
        "link": deep_link(figure).split('href="', 1)[1].split("?", 1)[0],
    }


def decoded(columns, blob, value):
    """A value of the answer, read from its pool as the page reads it."""
    if isinstance(value, dict) and "$" in value:
        offset, length, dtype, shape = columns[value["$"]]
        array = np.frombuffer(
            blob, dtype={"u1": "u1", "i4": "<i4", "f8": "<f8"}[dtype], count=length, offset=offset
        )
        return array.astype(float).reshape(shape)
    if isinstance(value, dict):
        return {k: decoded(columns, blob, v) for k, v in value.items()}
    if isinstance(value, list):
        return [decoded(columns, blob, v) for v in value]
    return value


@pytest.mark.parametrize("figure_id", sorted(FIGURES))
def test_a_computed_frame_is_the_figures_frame_and_its_texts_are_panels(figure_id):
    cls = FIGURES[figure_id]
    figure = cls()
    doc = Document()
    doc.add_root(pn.panel(figure).get_root(doc))
    models = build_frames.text_models(figure, doc)
    for values in random_states(cls, np.random.default_rng(figure_id)):
        build_frames.set_state(figure, values)
        text, blob = compute.answer(json.dumps(request(cls, values)))
        got = json.loads(text)
        assert got["values"] == values
        # Panel's panes, as the build reads them for the precomputed frames.
        assert got["text"] == build_frames.texts(figure, models), values
        want = figure.frame()
        back = decoded(got["columns"], blob, got["part"])
        assert back.keys() == want.keys()
        for key, changes in want.items():
            for path, value in changes.items():
                if path != "data":
                    assert back[key][path] == value, (key, path)
                    continue
                for column, expected in value.items():
                    if isinstance(expected, list) and expected and isinstance(expected[0], str):
                        assert back[key]["data"][column] == expected
                    else:
                        np.testing.assert_array_equal(
                            np.asarray(back[key]["data"][column], dtype=float).squeeze(),
                            np.asarray(expected, dtype=float).squeeze(),
                        )


@pytest.mark.parametrize(
    "change,why",
    [
        (
            {"side": 8, "row": 12},
            "QueryReach: row 12 is outside a 8×8 image; its bounds are 0 to 7.",
        ),
        ({"side": 65}, "Its bounds are 8 to 64."),
        ({"scheme": "diagonal"}, "does not accept 'diagonal'"),
        ({"side": 16.5}, "side = 16.5 is not a whole number"),
        ({"side": True}, "side = True is not a whole number"),
        ({"colour": 1}, "figure 4121 takes the values"),
    ],
)
def test_a_state_the_figure_refuses_is_refused_by_the_tier_saying_why(change, why):
    cls = FIGURES[4121]
    text, blob = compute.answer(json.dumps(request(cls, {**cls().values(), **change})))
    assert why in json.loads(text)["refused"]
    assert blob == b""


def test_the_tier_answers_only_for_a_figure_module_and_its_figure():
    cls = FIGURES[4121]
    for module, figure in [("os", 4121), ("posviz.figures.model", 4121), (cls.__module__, 96)]:
        asked = {**request(cls, cls().values()), "module": module, "figure": figure}
        refused = json.loads(compute.answer(json.dumps(asked))[0])["refused"]
        assert module in refused


@pytest.mark.parametrize(
    "figure_id,change,why",
    [
        (710, {"d_model": 24}, "d_model = 24: must be in steps of 16 from 16 to 1024"),
        (710, {"d_model": 17}, "must be even, not 17"),
        (96, {"d_ff": 300}, "d_ff = 300: must be in steps of 256 from 256 to 8192"),
    ],
)
def test_the_tier_refuses_what_a_link_may_not_set_in_the_links_words(figure_id, change, why):
    """Step and parity as the deep-link grammar checks them (posviz/deeplinks.py), so the
    numpy tier never answers a state that Python's page would refuse."""
    cls = FIGURES[figure_id]
    text, blob = compute.answer(json.dumps(request(cls, {**cls().values(), **change})))
    assert why in json.loads(text)["refused"]
    assert blob == b""
