"""posviz.widget.Figure: a figure as an anywidget, its sliders synced both ways.

The first tests use the widget in this process (ipywidgets without a kernel);
the last ones run it in a real kernel through nbclient, and play the page's
part by sending the kernel a comm message as a page's widget manager does.
"""

import json

import numpy as np
import pytest

anywidget = pytest.importorskip("anywidget")

from posviz.figures import FIGURES  # noqa: E402
from posviz.widget import Figure  # noqa: E402

# a real Jupyter kernel: the full run's, not ./dev test --fast
pytestmark = pytest.mark.slow


def decoded(widget, key: str, column: str):
    """A column of the frame the widget holds, decoded from its pool as widget.js decodes it."""
    ref = widget._frame[key]["data"][column]
    offset, length, dtype, shape = widget._columns[ref["$"]]
    return np.frombuffer(widget._pool, dtype=dtype, count=length, offset=offset).reshape(shape)


def test_the_widget_opens_at_the_values_given_and_holds_its_drawing():
    widget = Figure(710, pos=24)
    assert (widget.pos, widget.d_model, widget.figure_id) == (24, 128, 710)
    assert [plot["key"] for plot in widget._plots] == ["hands", "dot"]
    names = json.dumps(widget._plots)
    assert "posviz-710-marks" in names and "posviz-710-hand0:label" in names
    assert widget._frame["line"] == {"location": 24}
    assert "pos = <strong>24</strong>" in widget._readout
    assert "BEGIN bokeh.min.js" in widget._bokeh_js and len(widget._bokeh_js) > 500_000
    sliders = {s["name"]: s for s in widget._sliders}
    assert sliders["pos"] == {
        "name": "pos", "label": "pos", "shown": True, "kind": "range", "start": 0, "end": 100,
        "step": 1,
    }  # fmt: skip
    assert sliders["d_model"]["step"] == 16


def test_setting_a_slider_from_python_sends_the_new_frame_and_readout():
    widget = Figure(710, pos=24)
    before = decoded(widget, "marks", "value").copy()
    widget.pos = 30
    assert widget.figure.pos == 30
    assert widget._frame["line"] == {"location": 30}
    assert np.all(decoded(widget, "marks", "position") == 30)
    assert not np.allclose(decoded(widget, "marks", "value"), before)
    assert "pos = <strong>30</strong>" in widget._readout and "pos = **30**" in widget.readout


@pytest.mark.parametrize(
    ("name", "value", "says"),
    [
        ("pos", 101, "pos = 101 refused: must be from 0 to 100"),
        ("pos", -1, "must be from 0 to 100"),
        ("pos", "abc", "pos = 'abc' refused: must be a whole number from 0 to 100"),
        ("pos", True, "must be a whole number from 0 to 100"),
        ("pos", 12.5, "must be a whole number from 0 to 100"),
        ("pos", None, "must be a whole number"),
        ("d_model", 24, "d_model = 24 refused: must be in steps of 16 from 16 to 1024"),
    ],
)
def test_a_value_the_figure_refuses_raises_one_line_naming_the_slider_and_its_bounds(
    name, value, says
):
    widget = Figure(710, pos=24)
    with pytest.raises(ValueError) as raised:
        setattr(widget, name, value)
    assert says in str(raised.value) and "\n" not in str(raised.value)
    assert str(raised.value).startswith("figure 710: ")
    assert (widget.pos, widget.figure.pos, widget.d_model) == (24, 24, 128)


@pytest.mark.parametrize(
    ("args", "values", "says"),
    [
        ((7100,), {}, "there is no figure 7100; the figures are "),
        (("710",), {}, "there is no figure '710'"),
        ((710,), {"p": 3}, "figure 710 has no slider 'p'; its sliders are pos, d_model"),
        ((710,), {"pos": 300}, "figure 710: pos = 300 refused: must be from 0 to 100"),
        ((4121,), {"row": 20}, "row = 20 refused: must be at most 15, not 20. Its bounds are 0"),
    ],
)
def test_a_bad_figure_or_value_at_creation_is_one_line(args, values, says):
    with pytest.raises(ValueError) as raised:
        Figure(*args, **values)
    assert says in str(raised.value) and "\n" not in str(raised.value)


def test_a_value_from_the_page_that_the_figure_refuses_snaps_back_with_a_message():
    widget = Figure(710, pos=24)
    sent = []
    widget.send_state = lambda key=None: sent.append(key)
    widget.set_state({"pos": 101})
    assert (widget.pos, widget.figure.pos) == (24, 24)
    assert widget.refused == "figure 710: pos = 101 refused: must be from 0 to 100"
    assert sent and "pos" in sent[-1]  # the page is sent the kernel's value again
    widget.set_state({"pos": 40})
    assert (widget.pos, widget.figure.pos, widget.refused) == (40, 40, "")
    widget.set_state({"refused": "anything"})  # the page cannot write the kernel's message
    assert widget.refused == ""


def test_the_widget_follows_its_model_and_the_bounds_other_sliders_move():
    widget = Figure(4121, side=64, row=40)
    widget.side = 16
    assert widget.row == 15  # the figure moved the query inside the smaller image
    row = next(s for s in widget._sliders if s["name"] == "row")
    assert (row["start"], row["end"]) == (0, 15)
    widget.set_state({"row": 20})
    assert widget.row == 15 and "Its bounds are 0 to 15" in widget.refused
    shown = {s["name"]: s["shown"] for s in widget._sliders}
    assert not shown["query_length"]  # used only by the 1D block scheme
    widget.scheme = "block-1d"
    assert next(s for s in widget._sliders if s["name"] == "query_length")["shown"]
    widget.figure.col = 3  # set on the model, as a Panel view of it would
    assert widget.col == 3


@pytest.mark.parametrize("figure_id", sorted(FIGURES))
def test_every_figure_is_a_widget_whose_frame_names_its_drawn_models(figure_id):
    widget = Figure(figure_id)
    names = json.dumps(widget._plots)
    for key in widget._frame:
        assert f'"posviz-{figure_id}-{key}"' in names, key
    assert all(s["kind"] in ("range", "buttons") for s in widget._sliders)


# --- in a real kernel ---------------------------------------------------------------

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"


class Frontend(nbclient.NotebookClient):
    """Runs cells one by one and keeps the widget comms the kernel opens, as a page does."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.opened: dict[str, dict] = {}  # comm id → the state it opened with

    def handle_comm_msg(self, outs, msg, cell_index):
        content = msg["content"]
        if msg["msg_type"] == "comm_open":
            self.opened[content["comm_id"]] = content["data"]["state"]
        super().handle_comm_msg(outs, msg, cell_index)

    def run(self, source: str) -> list:
        cell = nbformat.v4.new_code_cell(source)
        self.nb.cells.append(cell)
        self.execute_cell(cell, len(self.nb.cells) - 1)
        return cell.outputs

    def printed(self, source: str) -> dict:
        """What the cell prints, as JSON."""
        out = [o for o in self.run(source) if o.get("output_type") == "stream"]
        return json.loads("".join(o["text"] for o in out if o["name"] == "stdout"))

    def send_update(self, comm_id: str, state: dict) -> None:
        """What a page's widget manager sends when a control sets a trait."""
        data = {"method": "update", "state": state, "buffer_paths": []}
        content = {"comm_id": comm_id, "data": data}
        self.kc.shell_channel.send(self.kc.session.msg("comm_msg", content))


@pytest.fixture(scope="module")
def kernel(tmp_path_factory):
    folder = tmp_path_factory.mktemp("widget-notebook")
    client = Frontend(
        nbformat.v4.new_notebook(),
        timeout=300,
        kernel_name="python3",
        resources={"metadata": {"path": str(folder)}},
    )
    with client.setup_kernel():
        yield client


STATE = """
import json
print(json.dumps({"pos": w.pos, "readout": w._readout, "line": w._frame["line"],
                  "refused": w.refused, "sent": sent}))
"""


def test_in_a_kernel_the_widget_reads_and_sets_its_sliders_both_ways(kernel):
    outputs = kernel.run(
        "import json\n"
        "from posviz.widget import Figure\n"
        "w = Figure(710, pos=24)\n"
        "sent = []  # what the kernel sends the page\n"
        "send = w._send\n"
        "w._send = lambda msg, buffers=None: (sent.append(msg.get('state')), send(msg, buffers))\n"
        "w"
    )
    # The widget and nothing else: no notebook JS of HoloViews or Panel (from a CDN).
    [shown] = outputs
    assert shown["output_type"] == "execute_result", outputs
    model_id = shown["data"][WIDGET_MIME]["model_id"]
    opened = kernel.opened[model_id]
    assert (opened["pos"], opened["figure_id"], opened["_model_name"]) == (24, 710, "AnyModel")
    assert "posviz-710-marks" in json.dumps(opened["_plots"])

    state = kernel.printed("print(json.dumps(w.pos))")
    assert state == 24
    state = kernel.printed("w.pos = 30\n" + STATE)
    assert state["pos"] == 30 and state["line"] == {"location": 30}
    assert "pos = <strong>30</strong>" in state["readout"]
    assert any(s and s.get("pos") == 30 for s in state["sent"])
    assert any(s and s.get("_frame", {}).get("line") == {"location": 30} for s in state["sent"])

    # Python's own bad value: one line naming the slider and its bounds.
    refused = kernel.printed(
        "try:\n    w.pos = 101\nexcept ValueError as why:\n    print(json.dumps(str(why)))"
    )
    assert refused == "figure 710: pos = 101 refused: must be from 0 to 100"

    # The page's bad value: dropped, the page sent 30 back and told why.
    kernel.printed("sent.clear()\nprint(1)")
    kernel.send_update(model_id, {"pos": 101})
    state = kernel.printed(STATE)
    assert state["pos"] == 30
    assert state["refused"] == "figure 710: pos = 101 refused: must be from 0 to 100"
    assert {"pos": 30} in [{"pos": s.get("pos")} for s in state["sent"] if s and "pos" in s]
    assert any(s and s.get("refused") == state["refused"] for s in state["sent"])

    # The page's good value: the figure moves, the frame and the readout follow.
    kernel.send_update(model_id, {"pos": 57})
    state = kernel.printed(STATE)
    assert state["pos"] == 57 and state["line"] == {"location": 57} and state["refused"] == ""
    assert "pos = <strong>57</strong>" in state["readout"]
