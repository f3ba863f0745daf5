"""A figure in Jupyter: docs/clock-hands.ipynb run by a real kernel (nbclient + ipykernel).

The client plays the notebook page's part as JupyterLab does: after each cell
it opens the comm of each Panel output, and it keeps every message the kernel
sends back over it. One kernel serves the module (it takes seconds to start and
to import Panel and HoloViews).
"""

import json
import uuid
from pathlib import Path

import numpy as np
import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

from posviz.figures import ClockHands  # noqa: E402

# a real Jupyter kernel: the full run's, not ./dev test --fast
pytestmark = pytest.mark.slow

NOTEBOOK = Path(__file__).resolve().parents[1] / "docs" / "clock-hands.ipynb"
EXEC_MIME = "application/vnd.holoviews_exec.v0+json"
PLOT_MODELS = {"Figure", "ColumnDataSource", "GlyphRenderer"}


class Frontend(nbclient.NotebookClient):
    """Executes cells, opens each Panel output's comm, and keeps what comes over it by cell."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, store_widget_state=False, **kwargs)
        self.received: dict[int, list[dict]] = {}

    def handle_comm_msg(self, outs, msg, cell_index):
        self.received.setdefault(cell_index, []).append(msg)
        super().handle_comm_msg(outs, msg, cell_index)

    def open_comms(self, cell):
        """What Panel's page script does for an output: open its client comm to the kernel."""
        for output in cell.get("outputs", []):
            if EXEC_MIME not in output.get("data", {}):
                continue
            for model in bokeh_models(docs_json(output)):
                if model["name"].endswith("CommManager"):
                    target = model["attributes"]["client_comm_id"]
                    content = {"comm_id": uuid.uuid4().hex, "target_name": target, "data": {}}
                    self.kc.shell_channel.send(self.kc.session.msg("comm_open", content))

    def run(self, source: str) -> list:
        """Run ``source`` as a new cell at the end; its outputs."""
        cell = nbformat.v4.new_code_cell(source)
        self.nb.cells.append(cell)
        self.execute_cell(cell, len(self.nb.cells) - 1)
        return cell.outputs

    def printed(self, source: str) -> str:
        """What the cell ``source`` prints. The kernel may send one print in several
        stream messages (it flushes on a timer), and a library may warn on stderr."""
        outputs = self.run(source)
        out = [o for o in outputs if o.get("output_type") == "stream" and o["name"] == "stdout"]
        assert out, f"the cell printed nothing; its outputs: {outputs}"
        return "".join(o["text"] for o in out)


@pytest.fixture(scope="module")
def notebook(tmp_path_factory):
    nb = nbformat.read(NOTEBOOK, as_version=4)
    folder = tmp_path_factory.mktemp("notebook")
    client = Frontend(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(folder)}}
    )
    with client.setup_kernel():
        for index, cell in enumerate(nb.cells):
            client.execute_cell(cell, index)  # raises, with the traceback, if a cell fails
            client.open_comms(cell)
        yield client


def cell_index(nb, text: str) -> int:
    [index] = [i for i, cell in enumerate(nb.cells) if text in cell.source]
    return index


def docs_json(output) -> dict:
    """The Bokeh document an output carries (Panel embeds it in the output's HTML)."""
    html = output["data"]["text/html"]
    start = html.index("docs_json = ") + len("docs_json = ")
    return json.JSONDecoder().raw_decode(html, start)[0]


def bokeh_models(tree) -> list[dict]:
    """Every Bokeh model written out in full in a document or patch."""
    found = []
    if isinstance(tree, dict):
        if tree.get("type") == "object" and "id" in tree:
            found.append(tree)
        for value in tree.values():
            found += bokeh_models(value)
    elif isinstance(tree, list):
        for value in tree:
            found += bokeh_models(value)
    return found


def displayed(notebook):
    """The figure cell's result: (output, its Bokeh models by id)."""
    cell = notebook.nb.cells[cell_index(notebook.nb, "ClockHands(pos=30)")]
    [result] = [o for o in cell.outputs if o.output_type == "execute_result"]
    return result, {m["id"]: m for m in bokeh_models(docs_json(result))}


def named(models: dict, name: str) -> list[dict]:
    return [m for m in models.values() if m["name"] == name]


def patches(messages: list[dict]) -> list[tuple[dict, dict]]:
    """The Bokeh PATCH-DOC messages among one comm's messages: (content, buffers by id).

    Panel sends a message as its header, metadata and content, then a
    reference and a payload per binary buffer (panel.io.notebook.send).
    """
    decoded, parts, buffer_id = [], [], None
    for msg in messages:
        data = msg["content"]["data"]
        if msg.get("buffers"):
            decoded[-1][1][buffer_id] = bytes(msg["buffers"][0])
            continue
        value = json.loads(data)
        if "msgtype" in value:
            parts = [value]
        elif parts and len(parts) < 3:
            parts.append(value)
            if len(parts) == 3 and parts[0]["msgtype"] == "PATCH-DOC":
                decoded.append((parts[2], {}))
        else:
            buffer_id = value["id"]
    return decoded


def events(notebook, source: str) -> list[tuple[dict, dict]]:
    """(event, buffers) of each document change the kernel sent for the cell ``source``."""
    messages = notebook.received.get(cell_index(notebook.nb, source), [])
    return [(e, buffers) for content, buffers in patches(messages) for e in content["events"]]


def column(value: dict, buffers: dict) -> np.ndarray:
    return np.frombuffer(buffers[value["array"]["data"]["id"]], dtype=value["dtype"])


def test_the_figure_displays_as_a_live_panel_with_its_widgets_and_plots(notebook):
    result, models = displayed(notebook)
    assert {"text/html", EXEC_MIME, "text/plain"} <= result["data"].keys()
    assert "ClockHands(" in result["data"]["text/plain"]
    # The output names its root model: the kernel keeps that view live over a comm.
    [document] = docs_json(result).values()
    root = result["metadata"][EXEC_MIME]["id"]
    assert root in [r["id"] for r in document["roots"]]
    sliders = {m["attributes"]["title"]: m["attributes"] for m in named(models, "Slider")}
    assert {title: s["value"] for title, s in sliders.items()} == {"pos": 30, "d_model": 128}
    assert (sliders["pos"]["start"], sliders["pos"]["end"]) == (0, 100)
    assert (sliders["d_model"]["start"], sliders["d_model"]["step"]) == (16, 16)
    plots = {m["attributes"].get("name") for m in named(models, "Figure")}
    assert plots == {"posviz-710-hands", "posviz-710-dot"}
    [line] = named(models, "Span")
    assert line["attributes"]["location"] == 30
    # The readout, as Panel's HTML model holds it (escaped).
    texts = [m["attributes"].get("text", "") for m in named(models, "panel.models.markup.HTML")]
    assert any("pos = &lt;strong&gt;30&lt;/strong&gt;" in text for text in texts), texts


READ_MARKS = """
import gc, json
from bokeh.document import Document
# Panel keeps a notebook's documents in a private registry: find the displayed one by its root.
[doc] = [d for d in gc.get_objects()
         if isinstance(d, Document) and {root!r} in [r.id for r in d.roots]]
source = doc.get_model_by_id({source!r})
print(json.dumps({{key: [float(x) for x in source.data[key]] for key in ("position", "value")}}))
"""


def marks_source(models: dict) -> str:
    """The id of the data source of the marks where the hands cross pos (the one scatter)."""
    [source] = [
        r["attributes"]["data_source"]["id"]
        for r in named(models, "GlyphRenderer")
        if models[r["attributes"]["glyph"]["id"]]["name"] == "Scatter"
    ]
    return source


def test_setting_a_parameter_from_python_updates_the_figures_data_in_the_kernel(notebook):
    result, models = displayed(notebook)
    root, source = result["metadata"][EXEC_MIME]["id"], marks_source(models)

    def read():
        return json.loads(notebook.printed(READ_MARKS.format(root=root, source=source)))

    # The notebook's own cells set pos = 31 and d_model = 256.
    for pos in (None, 57, 0):
        if pos is not None:
            notebook.run(f"fig.pos = {pos}")
        want = ClockHands(pos=pos if pos is not None else 31, d_model=256)
        got = read()
        marks = want.frame()["marks"]["data"]
        positions, values = marks["position"], marks["value"]
        assert got["position"] == positions.tolist()
        np.testing.assert_allclose(got["value"], values, atol=1e-12)


def test_a_step_sends_the_page_only_what_changed_as_under_serve(notebook):
    _, models = displayed(notebook)
    [line] = named(models, "Span")
    marks = marks_source(models)
    sliders = {m["attributes"]["title"]: m["id"] for m in named(models, "Slider")}

    step = events(notebook, "fig.pos = 31")
    assert step, "the kernel sent nothing over the figure's comm for fig.pos = 31"
    changed = {(e["model"]["id"], e.get("attr")): (e, buffers) for e, buffers in step}
    assert changed[(line["id"], "location")][0]["new"] == 31
    assert changed[(sliders["pos"], "value")][0]["new"] == 31
    # The marks' columns, and only those, travel as data: the plot is not drawn anew.
    event, buffers = changed[(marks, "data")]
    assert event["kind"] == "ColumnDataChanged" and set(event["cols"]) == {"position", "value"}
    data = dict(event["data"]["entries"])
    marks = ClockHands(pos=31).frame()["marks"]["data"]
    positions, values = marks["position"], marks["value"]
    assert column(data["position"], buffers).tolist() == positions.tolist()
    np.testing.assert_allclose(column(data["value"], buffers), values, atol=1e-12)
    for cell in ("fig.pos = 31", "fig.d_model = 256"):
        new = {m["name"] for e, _ in events(notebook, cell) for m in bokeh_models(e)}
        assert not new & PLOT_MODELS, (cell, new)

    # d_model: the dot plot's title says the new number of hands, in place.
    wider = events(notebook, "fig.d_model = 256")
    [dot] = [m for m in named(models, "Figure") if m["attributes"]["name"] == "posviz-710-dot"]
    title = dot["attributes"]["title"]["id"]
    assert changed_to(wider, title, "text") == "Dot product, 128 hands"
    assert changed_to(wider, sliders["d_model"], "value") == 256


def changed_to(step, model_id: str, attr: str):
    [new] = [e["new"] for e, _ in step if e["model"]["id"] == model_id and e.get("attr") == attr]
    return new


def test_the_notebook_is_kept_without_outputs():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(nb)
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    assert code and all(not c.outputs and c.execution_count is None for c in code)
