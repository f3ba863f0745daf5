"""The page ↔ worker protocol (export/protocol.js) against the code on both sides of it.

The JS unit tests (tests/js/protocol.test.mjs) check what the worker refuses;
these read the sources that send and handle messages, so that a type added on
one side and not the other, or a request field Python reads and JS does not
send, fails here rather than in a reader's browser.
"""

import json
import re
import shutil
import subprocess
from pathlib import Path

import panel
import pytest

from posviz.runtime import compute

ROOT = Path(__file__).resolve().parents[1]
BUILD = ROOT / "src" / "posviz" / "export"
PANEL_HANDLER = Path(panel.__file__).parent / "_templates" / "pyodide_handler.js"


@pytest.fixture(scope="module")
def protocol():
    assert shutil.which("node"), "Node is missing: ./dev test installs it (apt-get nodejs)"
    script = (
        'const {pathToFileURL} = await import("node:url");'
        "const p = await import(pathToFileURL(process.argv[1]).href);"
        "console.log(JSON.stringify({...p}));"
    )
    done = subprocess.run(
        ["node", "--input-type=module", "-e", script, str(BUILD / "protocol.js")],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return json.loads(done.stdout)


def sent_types(text: str) -> set[str]:
    """The types of the messages a script posts: postMessage({type: "x", ...})."""
    return set(re.findall(r"""postMessage\(\{\s*['"]?type['"]?:\s*['"](\w+)['"]""", text))


def test_python_reads_the_fields_a_compute_request_carries(protocol):
    assert tuple(protocol["COMPUTE_REQUEST"]) == compute.REQUEST_FIELDS


def test_python_refuses_a_request_lacking_a_field_by_name():
    answer, pool = compute.answer(json.dumps({"module": "posviz.figures.x", "figure": "710"}))
    assert json.loads(answer) == {"refused": "the request lacks values, link"}
    assert pool == b""


def test_what_the_pages_send_is_what_the_worker_takes(protocol):
    pages = ("connect.js", "loader.js", "frames.js", "lazy.js")
    sent = set().union(*(sent_types((BUILD / name).read_text("utf-8")) for name in pages))
    sent |= sent_types(PANEL_HANDLER.read_text("utf-8"))  # patch, rendered, location
    worker = (BUILD / "worker.js").read_text("utf-8")
    handled = set(re.findall(r'^\s*case "(\w+)":', worker, re.M))
    # visibility and hold: answered in receive(), ahead of the chain
    handled |= set(re.findall(r'if \(message\.type === "(\w+)"\)', worker))
    assert sent == set(protocol["TO_WORKER"]) == handled


def test_what_the_worker_tells_a_page_is_what_the_page_knows(protocol):
    worker = (BUILD / "worker.js").read_text("utf-8")
    told = set(re.findall(r'post\(\{type: "(\w+)"', worker))
    told |= set(re.findall(r'local\(\{type: "(\w+)"', (BUILD / "connect.js").read_text("utf-8")))
    loader = (BUILD / "loader.js").read_text("utf-8")
    known = set(re.findall(r'msg\.type === "(\w+)"', loader))
    known |= {"patch", "idle"}  # Panel's pyodide handler takes these (loader.js hands it the rest)
    assert told <= set(protocol["TO_PAGE"]) == known
