"""Frames: each figure's values → what it shows, applied in place by one generic step.

For every figure, at a few random states and at every slider's bounds, the
models of a live view stepped there by its frame hold the same values as a
HoloViews plot built afresh at that state: every column of every named data
source, every named plot's title and ranges, every line and legend entry.

A few random states, not thirty: the frames the export writes (every state of its
grid) are pinned to seven significant digits by test_frame_digests, so the random states here
check the generic step, not the figures' values. ``POSVIZ_FUZZ=many`` draws the
thirty (tests/support/fuzz.py); the first few of them are the default ones.
"""

import numpy as np
import param
import pytest
from bokeh.document import Document
from bokeh.models import ColumnDataSource, GlyphRenderer, LegendItem, Plot, Range1d, Span

from posviz.drawing import model_name, step
from posviz.figures import FIGURES
from tests.support.fuzz import cases

# every figure's frames against fresh HoloViews plots: the full run's, not ./dev test --fast
pytestmark = pytest.mark.slow


STATES = cases(few=4, many=30)


def named(models) -> dict:
    return {m.name: m for m in models if (m.name or "").startswith("posviz-")}


def live_models(doc) -> dict:
    return named(doc.models)


def fresh_models(figure) -> dict:
    """The named models of the figure drawn afresh, as the page draws it (in its layout)."""
    import panel as pn

    doc = Document()
    doc.add_root(pn.panel(figure).get_root(doc))
    return named(doc.models)


def state_of(model) -> dict:
    """Every value of a named model a step may change, comparable."""
    if isinstance(model, ColumnDataSource):
        return {f"data.{k}": v for k, v in model.data.items()}
    if isinstance(model, Span):
        return {"location": model.location}
    if isinstance(model, LegendItem):
        return {"label": model.label.value}
    if isinstance(model, GlyphRenderer):  # named for finding; nothing of it moves
        return {}
    if isinstance(model, Plot):
        state = {"title.text": model.title.text}
        for axis in ("x_range", "y_range"):
            rng = getattr(model, axis)
            if isinstance(rng, Range1d):
                state |= {f"{axis}.start": rng.start, f"{axis}.end": rng.end}
            else:
                state[f"{axis}.factors"] = list(rng.factors)
        return state
    raise AssertionError(f"a named model of an unexpected type: {type(model).__name__}")


def properties(model, depth: int = 2, path: str = "") -> dict:
    """Every property of ``model`` and of the models it holds, ``depth`` levels down, flat.

    Data columns are left to ``state_of`` (compared to 1e-12, not exactly).
    """
    from bokeh.model import Model

    found = {}
    for name, value in model.properties_with_values(include_defaults=True).items():
        where = f"{path}{name}"
        if name == "data" and isinstance(model, ColumnDataSource):
            continue
        if isinstance(value, dict) and name.startswith("js_"):  # callbacks: by kind, not id
            found[where] = repr(
                {k: [(type(c).__name__, c.tags) for c in v] for k, v in value.items()}
            )
            continue
        items = value if isinstance(value, list | tuple) else [value]
        if any(isinstance(item, Model) for item in items):
            if depth:
                for n, item in enumerate(items):
                    if isinstance(item, Model):
                        found |= properties(item, depth - 1, f"{where}[{n}].")
            continue
        found[where] = float(value) if isinstance(value, int | float) else repr(value)
    return found


def assert_close(got, want, where):
    if isinstance(want, str) or (isinstance(want, list) and want and isinstance(want[0], str)):
        assert got == want, where
        return
    if isinstance(want, list) and want and isinstance(want[0], np.ndarray):
        assert len(got) == len(want), where
        for a, b in zip(got, want, strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12, err_msg=where)
        return
    np.testing.assert_allclose(
        np.asarray(got, dtype=float),
        np.asarray(want, dtype=float),
        rtol=1e-12,
        atol=1e-12,
        err_msg=where,
    )


def choices(figure, name) -> list:
    """Every value a slider takes on ``figure`` now: within the bounds the others gave it."""
    parameter = figure.param[name]
    if isinstance(parameter, param.Selector):
        objects = parameter.objects
        return list(objects.values() if isinstance(objects, dict) else objects)
    low, high = parameter.bounds
    return list(range(low, high + 1, parameter.step or 1))


def states(cls):
    """STATES random states, then each slider at each bound with the others at their openings.

    A state is reached as a reader reaches it, slider by slider in declaration order, each
    drawn within the bounds the ones before it set (a query inside its image, a head among
    the heads). Now and then a slider the others imply (a preset) is picked instead.
    """
    rng = np.random.default_rng(cls.figure_id)
    found = []
    for _ in range(STATES):
        figure, values = cls(), {}
        for name in figure.sliders():
            if name in figure.implied:
                continue
            options = choices(figure, name)
            values[name] = options[rng.integers(len(options))]
            setattr(figure, name, values[name])
        if figure.implied and rng.random() < 0.2:
            name = figure.implied[0]
            options = choices(figure, name)
            values = {name: options[rng.integers(len(options))]}
        found.append(values)
    opening = cls()
    for name in opening.sliders():
        for bound in (0, -1):
            moved = cls()
            setattr(moved, name, choices(opening, name)[bound])  # the others follow, as in the page
            kept = [n for n in moved.sliders() if n not in moved.implied or n == name]
            found.append({n: getattr(moved, n) for n in kept})
    return found


@pytest.mark.parametrize("figure_id", sorted(FIGURES))
def test_a_frame_applied_in_place_gives_the_models_a_fresh_plot_has(figure_id):
    import panel as pn

    cls = FIGURES[figure_id]
    figure = cls()
    doc = Document()
    doc.add_root(pn.panel(figure).get_root(doc))
    for values in states(cls):
        for name, value in values.items():  # in order: an image side before a row in it
            setattr(figure, name, value)
        live, fresh = live_models(doc), fresh_models(cls(**figure.values()))
        assert live.keys() == fresh.keys() and live
        # Every model the frame names is drawn, and every property it sets is compared.
        frame = figure.frame()
        for key, changes in frame.items():
            name = model_name(figure, key)
            assert name in live, name
            expected = state_of(live[name])
            for path, value in changes.items():
                if path == "data":
                    for column in value:
                        assert f"data.{column}" in expected, (name, column)
                else:
                    assert path in expected, (name, path)
        for name, model in fresh.items():
            want, got = state_of(model), state_of(live[name])
            assert got.keys() == want.keys(), (values, name)
            for path in want:
                assert_close(got[path], want[path], f"{values} {name} {path}")
            # And every other property, of the model and of what it holds.
            want, got = properties(model), properties(live[name])
            moved = {
                p: (got.get(p), want.get(p))
                for p in want.keys() | got.keys()
                if got.get(p) != want.get(p)
            }
            assert not moved, (values, name, moved)


@pytest.mark.parametrize("figure_id", sorted(FIGURES))
def test_a_step_sends_only_what_the_frame_changed(figure_id):
    """The generic step skips columns and properties that already hold the frame's value."""
    import panel as pn

    figure = FIGURES[figure_id]()
    doc = Document()
    doc.add_root(pn.panel(figure).get_root(doc))
    events = []
    doc.on_change(lambda event: events.append(event))
    step(figure)  # at the values already drawn: nothing to send
    assert events == []


def decoded(pool, value):
    """A value the pool encoded, read back from its bytes as the page reads it."""
    if isinstance(value, dict) and "$" in value:
        offset, length, dtype, shape = pool.columns[value["$"]]
        array = np.frombuffer(
            bytes(pool.blob),
            dtype={"u1": "u1", "i4": "<i4", "f8": "<f8"}[dtype],
            count=length,
            offset=offset,
        )
        return array.astype(float).reshape(shape)
    if isinstance(value, dict):
        return {k: decoded(pool, v) for k, v in value.items()}
    if isinstance(value, list):
        return [decoded(pool, v) for v in value]
    return value


@pytest.mark.parametrize("figure_id", sorted(FIGURES))
def test_the_exports_frame_files_hold_each_frame_exactly(figure_id):
    from posviz.frames.pool import Pool

    cls = FIGURES[figure_id]
    pool = Pool()
    for values in states(cls)[:8]:
        figure = cls(**{k: v for k, v in values.items()})
        frame = figure.frame()
        back = decoded(pool, pool.encode(frame))
        for key, changes in frame.items():
            for path, value in changes.items():
                if path != "data":
                    assert back[key][path] == value, (key, path)
                    continue
                for column, want in value.items():
                    got = back[key]["data"][column]
                    if isinstance(want, list) and want and isinstance(want[0], str):
                        assert got == want
                    elif isinstance(want, list):  # an image column
                        for a, b in zip(got, want, strict=True):
                            np.testing.assert_array_equal(a, b)
                    else:
                        np.testing.assert_array_equal(got, np.asarray(want, dtype=float))
    # Each distinct array is stored once.
    assert len(pool.columns) == len(
        {
            (c[2], bytes(pool.blob[c[0] : c[0] + c[1] * {"u1": 1, "i4": 4, "f8": 8}[c[2]]]))
            for c in pool.columns
        }
    )
