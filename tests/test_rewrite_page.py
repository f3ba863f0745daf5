"""The edits posviz makes to the pages `panel convert` writes (export/adapter.py).

Each edit depends on text Panel writes; when that text is missing the build
must stop with the page and the text named, never ship a page without it.
"""

import json
import re

import pytest

from posviz.export.adapter import BUILD_PLACEHOLDER, CONNECT, edit, rewrite_page, share_page_scripts
from posviz.export.errors import BuildError
from posviz.export.payload import write_worker
from tests.support.site import worker_site

# The parts of a `panel convert --to pyodide-worker` page that posviz edits.
PAGE = """<!DOCTYPE html>
<html><head>
<script type="text/javascript" src="https://cdn.bokeh.org/bokeh/release/bokeh-3.9.2.min.js"></script>
<script type="text/javascript" src="https://cdn.bokeh.org/bokeh/release/bokeh-gl-3.9.2.min.js"></script>
<script type="text/javascript" src="https://cdn.bokeh.org/bokeh/release/bokeh-mathjax-3.9.2.min.js"></script>
</head>
<body class="pn-loading">
<script type="application/json" id="p1050">{"doc":{"roots":[
{"type":"object","name":"Row","id":"p1001","attributes":{"stylesheets":[".a { color: red; }"]}},
{"type":"object","name":"Row","id":"p1002",
 "attributes":{"stylesheets":[".a { color: red; }",".b{}"]}}
]}}</script>
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


def settings(html: str) -> dict:
    """The page's own settings for the shared connect script (placeholders as JSON)."""
    return json.loads(re.search(r'id="posviz-page">(.*?)</script>', html).group(1))


def test_every_edit_lands():
    html = rewrite_page(page(), "figure-96", cdn=False)
    assert "cdn.bokeh.org" not in html and "bokeh-gl-" not in html
    assert "static/bokeh/bokeh-3.9.2.min.js" in html
    assert "const pyodideWorker = window.posvizWorker" in html
    connect = html.index(f'<script src="{CONNECT[0]}">')
    assert html.index('id="posviz-page"') < connect < html.index("static/bokeh/bokeh-3.9.2.min.js")
    assert "new SharedWorker" in CONNECT[1] and "new SharedWorker" not in html
    assert html.index("posviz: what the reader sees") > html.index("pyodideWorker.onmessage")
    assert ".posviz-status" in html.split("</head>")[0]
    assert BUILD_PLACEHOLDER in html
    assert settings(html)["route"] == "figure-96"
    assert "bokeh-mathjax-" not in html
    # Live roots meet pre-rendered ones by creation order, on both sides.
    assert html.index("globalThis.posvizIdOrder = ") < html.index("pyodideWorker.onmessage = ")
    assert "JSON.parse(msg.root_ids).sort(posvizIdOrder)" in html
    assert "data_roots.sort((a, b) => posvizIdOrder(a[0], b[0]))" in html


def test_each_distinct_stylesheet_is_written_once_and_referred_to_after():
    html = rewrite_page(page(), "figure-96", cdn=False)
    text = re.search(r'<script type="application/json" id="p1050">(.*?)</script>', html, re.S)
    first, second = (
        root["attributes"]["stylesheets"] for root in json.loads(text.group(1))["doc"]["roots"]
    )
    [sheet] = first
    assert sheet["name"] == "InlineStyleSheet" and sheet["attributes"] == {
        "css": ".a { color: red; }"
    }
    assert second[0] == {"id": sheet["id"]}  # the same text: a reference to the one sheet
    assert second[1]["name"] == "InlineStyleSheet" and second[1]["id"] != sheet["id"]
    assert html.count(".a { color: red; }") == 1


def test_roots_are_ordered_by_the_number_in_their_id():
    from posviz.export.adapter import ID_ORDER

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
    assert "lacks" in message or "no bokeh-gl script" in message


def test_route_names_are_data_not_patterns():
    """A name with String.replace patterns or markup stays the literal it was."""
    name = "a$&b$'c</script><b>"
    html = rewrite_page(page(name), name, cdn=True)
    literal = re.search(r'id="posviz-page">(.*?)</script>', html).group(1)
    assert "</script>" not in literal
    assert settings(html)["route"] == name  # JSON reads \\u003c back as "<"


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
    site = worker_site(tmp_path)
    assert site["wheels"] == [
        {
            "path": "wheels/demo-1.0-py3-none-any.whl",
            "sha256": "2a97516c354b68848cdbd8f54a226a0a55b21ed138e207ad6c5cbb9c00aa5aea",
        }
    ]


def built_pages(tmp_path, names=("figure-96", "index")):
    for name in names:
        (tmp_path / f"{name}.html").write_text(rewrite_page(page(name), name, cdn=False))
    return {name: (tmp_path / f"{name}.html").read_text() for name in names}


def test_the_scripts_every_page_repeats_are_one_file_each(tmp_path):
    before = built_pages(tmp_path)
    share_page_scripts(tmp_path)
    [handler] = tmp_path.glob("posviz-page-*.js")
    text = handler.read_text()
    assert "pyodideWorker.onmessage = " in text and "posviz: what the reader sees" in text
    assert (tmp_path / CONNECT[0]).read_text() == CONNECT[1]
    for name, old in before.items():
        html = (tmp_path / f"{name}.html").read_text()
        assert "pyodideWorker.onmessage" not in html
        tag = f'<script src="{handler.name}"></script>'
        assert html.count(tag) == 1
        # The page is the page it was, with the handler's text where its tag is.
        assert html.replace(tag, f"<script>{text}</script>") == old
        assert settings(html)["route"] == name


def test_a_page_whose_handler_differs_fails_the_build_naming_it(tmp_path):
    built_pages(tmp_path)
    odd = tmp_path / "index.html"
    odd.write_text(odd.read_text().replace("const root_ids", "const root_ids2"))
    differs = r"^index\.html: .*differs from the one in figure-96\.html"
    with pytest.raises(BuildError, match=differs):
        share_page_scripts(tmp_path)
    assert not list(tmp_path.glob("posviz-*.js"))  # nothing written


def test_a_page_without_panels_handler_fails_the_build_naming_it(tmp_path):
    built_pages(tmp_path)
    bare = tmp_path / "index.html"
    bare.write_text("<html><body>no handler</body></html>")
    with pytest.raises(BuildError, match=r"^index\.html: .*lacks Panel.s handler script"):
        share_page_scripts(tmp_path)
