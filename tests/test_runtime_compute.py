"""The worker's numpy tier (posviz.runtime.compute) writes what Panel and the build write."""

import json

import numpy as np
import panel as pn
import pytest
from bokeh.document import Document

from posviz.build import frames as build_frames
from posviz.compose.layout import deep_link
from posviz.figures import FIGURES
from posviz.runtime import compute
from tests.support.imports import imported

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
        "module": cls.frame_of.__module__,
        "sliders": build_frames.sliders_of(figure),
        "values": values,
        "link": deep_link(figure).split('href="', 1)[1].split("?", 1)[0],
        "title": cls.title,
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
    module = cls.frame_of.__module__
    if not module.startswith("posviz.frames."):
        # Not for this tier: it refuses the figure, by name, and Panel answers.
        text, _ = compute.answer(json.dumps(request(cls, figure.values())))
        assert json.loads(text) == {"refused": f"{module} is not a frame module"}
        pytest.skip(
            f"{cls.__name__} (figure {figure_id}) keeps its frame in {module}, so the "
            "numpy tier refuses it and Panel answers (CONTRIBUTING.md: move it to "
            "src/posviz/frames/ with readout, describe and table for the numpy tier)"
        )
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


def test_a_state_outside_the_sliders_is_refused_not_drawn():
    cls = FIGURES[4121]
    values = {**cls().values(), "side": 8, "row": 12}  # row 12 of an 8×8 image
    text, blob = compute.answer(json.dumps(request(cls, values)))
    assert json.loads(text) == {"refused": "row = 12 is outside 0..7"}
    assert blob == b""
    wrong = {**request(cls, cls().values()), "module": "os"}
    assert "not a frame module" in json.loads(compute.answer(json.dumps(wrong))[0])["refused"]


def test_the_numpy_tier_imports_no_panel_holoviews_bokeh_or_param():
    code = (
        "import json\n"
        "from posviz.runtime import compute\n"
        "sliders = [{'name': 'pos', 'kind': 'slider', 'bounds': [0, 100], 'label': 'pos'},"
        " {'name': 'd_model', 'kind': 'slider', 'bounds': [16, 1024], 'label': 'd_model'}]\n"
        "text, _ = compute.answer(json.dumps({'module': 'posviz.frames.clock_hands',"
        " 'sliders': sliders, 'values': {'pos': 3, 'd_model': 64}, 'link': 'figure-710',"
        " 'title': 't'}))\n"
        "assert json.loads(text)['text']['readout']\n"
    )
    modules = ("panel", "holoviews", "bokeh", "param", "pandas", "yaml")
    assert imported(code, modules)[0] == []
