"""posviz.widget in the notebook front ends themselves: JupyterLab and marimo.

Each is the real server from the test extras, run on loopback from this
environment with a home of its own, and driven in Chromium with every request
that leaves the machine blocked. In each, figure 710 opens at pos = 24, a
reader moves its slider and Python reads the new value, and Python sets
pos = 30 and the page's slider, plot and readout follow. Nothing of HoloViews'
or Panel's notebook scripts is asked for (they would come from a CDN), and no
legend is cut at the width of the front end's column.

VS Code's notebooks render anywidget through the same Jupyter widget manager as
JupyterLab; VS Code cannot be installed here, so it is not driven.
"""

import os
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import nbformat
import pytest
from playwright.sync_api import expect

from tests.support.browser import free_port, stop, wait_for_http

pytest.importorskip("anywidget")

pytestmark = pytest.mark.browser

OPEN = "from posviz.widget import Figure\nw = Figure(710, pos=24)\nw"
READ = 'print("pos read from Python:", w.pos)'
SET = "w.pos = 30"

MARIMO_APP = """\
import marimo

app = marimo.App()


@app.cell
def _():
    import marimo as mo

    from posviz.widget import Figure

    figure = Figure(710, pos=24)
    shown = mo.ui.anywidget(figure)
    shown
    return figure, mo, shown


@app.cell
def _(mo, shown):
    mo.md(f"pos read from Python: {shown.value['pos']}")
    return


@app.cell
def _(mo):
    set_thirty = mo.ui.run_button(label="pos = 30 from Python")
    set_thirty
    return (set_thirty,)


@app.cell
def _(figure, set_thirty):
    if set_thirty.value:
        figure.pos = 30
    return


if __name__ == "__main__":
    app.run()
"""

# Each plot's legend entries against its canvas, through Bokeh's shadow roots:
# the labels a plot narrower than its legend would cut.
CUT_LEGENDS = """() => {
  const deep = (root, out = []) => {
    for (const el of root.querySelectorAll('*')) {
      out.push(el);
      if (el.shadowRoot) deep(el.shadowRoot, out);
    }
    return out;
  };
  const cut = [];
  const plots = deep(document).filter((el) => el.matches('.posviz-widget-plot'));
  for (const plot of plots) {
    const all = deep(plot);
    const canvas = all.find((el) => el.tagName === 'CANVAS');
    const frame = canvas.getBoundingClientRect();
    for (const label of all.filter((el) => el.matches('.bk-label'))) {
      const r = label.getBoundingClientRect();
      if (r.width > 0 && (r.left < frame.left - 0.5 || r.right > frame.right + 0.5)) {
        cut.push(label.textContent.trim());
      }
    }
  }
  return {plots: plots.length, cut};
}"""


@contextmanager
def server(args: list, cwd: Path, ready: str):
    """A front end's server on loopback, its own home and config; yields its log's path."""
    home = cwd / "home"
    home.mkdir()
    env = {
        **os.environ,
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "JUPYTER_CONFIG_DIR": str(home / "jupyter-config"),
        "JUPYTER_DATA_DIR": str(home / "jupyter-data"),
        "JUPYTER_RUNTIME_DIR": str(home / "jupyter-runtime"),
        "JUPYTERLAB_SETTINGS_DIR": str(home / "lab-settings"),
        "JUPYTERLAB_WORKSPACES_DIR": str(home / "lab-workspaces"),
        "MARIMO_SKIP_UPDATE_CHECK": "1",
    }
    log = cwd / "server.log"
    with log.open("w") as out:
        process = subprocess.Popen(args, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT)
        try:
            wait_for_http(ready, 120, process)
            yield log
        finally:
            stop(process, 15)


@pytest.fixture(scope="module")
def jupyterlab(tmp_path_factory):
    """JupyterLab serving a notebook whose cells open, read and set figure 710."""
    folder = tmp_path_factory.mktemp("jupyterlab")
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(source) for source in (OPEN, READ, SET)]
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
    nbformat.write(notebook, folder / "figure.ipynb")
    port = free_port()
    args = [
        sys.executable, "-m", "jupyterlab", "--no-browser", "--allow-root",
        "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}", f"--ServerApp.root_dir={folder}",
        "--IdentityProvider.token=", "--ServerApp.password=", "--LabApp.news_url=",
        "--LabApp.extension_manager=readonly",
    ]  # fmt: skip
    with server(args, folder, f"http://127.0.0.1:{port}/api") as log:
        yield f"http://127.0.0.1:{port}", log


@pytest.fixture(scope="module")
def marimo(tmp_path_factory):
    """marimo running an app whose cells open figure 710, read it, and set it from Python."""
    folder = tmp_path_factory.mktemp("marimo")
    (folder / "figure.py").write_text(MARIMO_APP, "utf-8")
    port = free_port()
    args = [
        sys.executable, "-m", "marimo", "-q", "-y", "run", "figure.py", "--headless",
        "--host", "127.0.0.1", "--port", str(port), "--no-token", "--no-sandbox",
    ]  # fmt: skip
    with server(args, folder, f"http://127.0.0.1:{port}/") as log:
        yield f"http://127.0.0.1:{port}", log


def followed_python(page, readout, pos, blocked: list, log: Path) -> None:
    """Python set pos = 30: the page's readout and slider show it, both plots' legends are
    whole, nothing left the machine, and neither the page nor the server failed."""
    expect(readout).to_contain_text("pos = 30")
    expect(pos).to_have_value("30")
    assert page.evaluate(CUT_LEGENDS) == {"plots": 2, "cut": []}
    assert blocked == [], blocked
    assert page.errors == [], page.errors
    assert "Traceback" not in log.read_text("utf-8")


def run_cell(page, index: int) -> None:
    """Run the notebook's cell ``index`` as a reader does: click into it, Shift+Enter."""
    page.locator(".jp-Notebook .jp-Cell").nth(index).locator(".cm-content").click()
    page.keyboard.press("Shift+Enter")


def test_in_jupyterlab_the_widget_answers_the_page_and_python_both_ways(jupyterlab, page, blocked):
    url, log = jupyterlab
    page.goto(f"{url}/lab/tree/figure.ipynb")
    page.get_by_text("Python 3 (ipykernel) | Idle").wait_for(timeout=120_000)
    run_cell(page, 0)
    readout = page.locator(".posviz-widget-readout")
    expect(readout).to_contain_text("pos = 24", timeout=120_000)
    page.wait_for_function("() => document.querySelector('[data-posviz-widget]')"
                           "?.dataset.posvizWidget === 'drawn'")  # fmt: skip
    pos = page.locator(".posviz-widget input[type=range]").first

    pos.fill("25")  # the reader's move: Python's value follows
    expect(readout).to_contain_text("pos = 25")
    run_cell(page, 1)
    expect(
        page.locator(".jp-OutputArea-output", has_text="pos read from Python: 25")
    ).to_have_count(1)

    run_cell(page, 2)  # Python's move: the page's slider, readout and plot follow
    followed_python(page, readout, pos, blocked, log)


def test_in_marimo_the_widget_answers_the_page_and_python_both_ways(marimo, page, blocked):
    url, log = marimo
    page.goto(url)
    readout = page.locator(".posviz-widget-readout")
    expect(readout).to_contain_text("pos = 24", timeout=120_000)
    expect(page.get_by_text("pos read from Python: 24")).to_be_visible()
    pos = page.locator(".posviz-widget input[type=range]").first

    pos.fill("25")  # the reader's move: the cell that reads it runs again
    expect(page.get_by_text("pos read from Python: 25")).to_be_visible()
    expect(readout).to_contain_text("pos = 25")

    page.get_by_role("button", name="pos = 30 from Python").click()  # Python's move
    followed_python(page, readout, pos, blocked, log)
