"""The edits posviz makes to the pages `panel convert` writes (build/export.py).

Each edit depends on text Panel writes; when that text is missing the build
must stop with the page and the text named, never ship a page without it.
"""

import json
import re

import pytest

from posviz.build.export import BUILD_PLACEHOLDER, BuildError, edit, rewrite_page, write_worker

# The parts of a `panel convert --to pyodide-worker` page that posviz edits.
PAGE = """<!DOCTYPE html>
<html><head>
<script type="text/javascript" src="https://cdn.bokeh.org/bokeh/release/bokeh-3.9.2.min.js"></script>
<script type="text/javascript" src="https://cdn.bokeh.org/bokeh/release/bokeh-gl-3.9.2.min.js"></script>
<script type="text/javascript" src="https://cdn.bokeh.org/bokeh/release/bokeh-mathjax-3.9.2.min.js"></script>
</head>
<body class="pn-loading">
<script type="application/json" id="docs">{}</script>
<script>
  const pyodideWorker = new Worker("./NAME.js");
  pyodideWorker.onmessage = async (event) => {
    const root_ids = JSON.parse(msg.root_ids)
    data_roots.sort((a, b) => a[0]<b[0] ? -1: 1)
  };
</script>
</body></html>
"""

ANCHORS = [
    "https://cdn.bokeh.org/bokeh/release/",
    "bokeh-gl-3.9.2.min.js",
    'const pyodideWorker = new Worker("./figure-96.js")',
    "pyodideWorker.onmessage = ",
    "</head>",
    "<script",
    "const root_ids = JSON.parse(msg.root_ids)",
    "data_roots.sort((a, b) => a[0]<b[0] ? -1: 1)",
]


def page(name="figure-96"):
    return PAGE.replace("NAME", name)


def test_every_edit_lands():
    html = rewrite_page(page(), "figure-96", cdn=False)
    assert "cdn.bokeh.org" not in html and "bokeh-gl-" not in html
    assert "static/bokeh/bokeh-3.9.2.min.js" in html
    assert "const pyodideWorker = window.posvizWorker" in html
    assert html.index("new SharedWorker") < html.index("static/bokeh/bokeh-3.9.2.min.js")
    assert html.index("posviz: what the reader sees") > html.index("pyodideWorker.onmessage")
    assert ".posviz-status" in html.split("</head>")[0]
    assert BUILD_PLACEHOLDER in html
    assert 'const ROUTE = "figure-96";' in html
    assert "bokeh-mathjax-" not in html
    # Live roots meet pre-rendered ones by creation order, on both sides.
    assert html.index("const posvizIdOrder") < html.index("pyodideWorker.onmessage = ")
    assert "JSON.parse(msg.root_ids).sort(posvizIdOrder)" in html
    assert "data_roots.sort((a, b) => posvizIdOrder(a[0], b[0]))" in html


def test_roots_are_ordered_by_the_number_in_their_id():
    from posviz.build.export import ID_ORDER

    script = (
        ID_ORDER + "\nconsole.log(JSON.stringify(['p10000', 'p9999', 'p1002'].sort(posvizIdOrder)))"
    )
    import shutil
    import subprocess

    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    out = subprocess.run([node, "-e", script], capture_output=True, text=True, check=True).stdout
    assert json.loads(out) == ["p1002", "p9999", "p10000"]


@pytest.mark.parametrize("anchor", ANCHORS)
def test_a_missing_anchor_fails_the_build_and_names_it(anchor):
    if anchor == "<script":  # no script at all: the first edit to need one says so
        broken = re.sub(r"<script[^>]*>.*?</script>", "", page(), flags=re.S)
    else:
        broken = page().replace(anchor, "")
    with pytest.raises(BuildError) as raised:
        rewrite_page(broken, "figure-96", cdn=False)
    message = str(raised.value)
    assert message.startswith("figure-96.html: the page panel ")
    assert "lacks" in message or "no bokeh-gl script" in message or "no document" in message


def test_route_names_are_data_not_patterns():
    """A name with String.replace patterns or markup stays the literal it was."""
    name = "a$&b$'c</script><b>"
    html = rewrite_page(page(name), name, cdn=True)
    literal = re.search(r"const ROUTE = (.*);", html).group(1)
    assert "</script>" not in literal
    assert json.loads(literal) == name  # JSON reads \\u003c back as "<"


def test_edit_names_page_and_anchor():
    with pytest.raises(BuildError, match=r"^p\.html: .*lacks 'needle'"):
        edit("haystack", "p.html", "needle", "x")
    assert edit("a-a-a", "p.html", "a", "b") == "b-b-b"
    assert edit("a-a-a", "p.html", "a", "b", first=True) == "b-a-a"


def test_write_worker_stamps_the_build_into_every_page(tmp_path):
    (tmp_path / "wheels").mkdir()
    (tmp_path / "wheels" / "demo-1.0-py3-none-any.whl").write_bytes(b"demo")
    (tmp_path / "a.html").write_text(f"const BUILD = {BUILD_PLACEHOLDER};")
    (tmp_path / "b.html").write_text("panel wrote this page, posviz never saw it")
    with pytest.raises(BuildError, match="b.html: .*__POSVIZ_BUILD__"):
        write_worker(tmp_path, ["demo-1.0-py3-none-any.whl"], "pyodide/", "static/", "3.12")
    (tmp_path / "b.html").write_text(f"const BUILD = {BUILD_PLACEHOLDER};")
    write_worker(tmp_path, ["demo-1.0-py3-none-any.whl"], "pyodide/", "static/", "3.12")
    stamped = {(tmp_path / n).read_text() for n in ("a.html", "b.html")}
    assert len(stamped) == 1 and BUILD_PLACEHOLDER not in stamped.pop()
    worker = (tmp_path / "posviz-worker.js").read_text()
    site = json.loads(worker.split("const SITE = ", 1)[1].split(";\nconst SHARED", 1)[0])
    assert site["wheels"] == [
        {
            "path": "wheels/demo-1.0-py3-none-any.whl",
            "sha256": "2a97516c354b68848cdbd8f54a226a0a55b21ed138e207ad6c5cbb9c00aa5aea",
        }
    ]
