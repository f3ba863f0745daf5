"""The upgrade rehearsal (posviz/export/rehearse.py): it reads a release's files and says
which registered seams hold, on the pinned releases and on made-up ones."""

import re
import shutil
from pathlib import Path

import bokeh

from posviz import internals
from posviz.export import rehearse

ROOT = Path(__file__).resolve().parents[1]


def package(root: Path, files: dict[str, str]) -> Path:
    """A made-up package ``lib`` under ``root``: {relative path: source}."""
    for name, text in files.items():
        (root / "lib" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "lib" / name).write_text(text, "utf-8")
    return root / "lib"


def test_the_pinned_releases_hold_every_seam(capsys):
    assert rehearse.main([]) == 0
    said = capsys.readouterr().out
    registered = len(internals.python_internals()) + len(internals.JS_SEAMS)
    anchors = len(rehearse.PAGE_ANCHORS) + len(rehearse.PATCHES)
    held = int(re.search(r"\*\*(\d+) hold, 0 gone, 0 not rehearsed\*\*", said).group(1))
    assert held > registered + anchors  # and the browser's imports
    assert "| **no** |" not in said


def test_an_attribute_is_found_through_bases_imports_and_new_syntax(tmp_path):
    lib = package(
        tmp_path,
        {
            "__init__.py": "from .core import (  # noqa\n    Widget, helper,\n)\n",
            "core.py": (
                "from .base import Base as Base\n"
                "def locked[**P](self, callback) -> None: ...\n"  # 3.12 syntax
                "class Widget(Base, t.Generic[T]):\n"
                "    size = 3\n"
                "    def __init__(self):\n"
                "        self.handles = {}\n"
                "def helper(): ...\n"
            ),
            "base.py": "class Base:\n    def _process(self): ...\n    class Inner: ...\n",
        },
    )
    assert rehearse.defines(lib, "lib", "Widget", "_process")  # a base in another module
    assert rehearse.defines(lib, "lib.core", "Widget", "handles")  # set in a method
    assert rehearse.defines(lib, "lib.core", "Widget", "size")
    assert rehearse.defines(lib, "lib", "", "helper")  # re-exported by the package
    assert rehearse.defines(lib, "lib.core", "", "locked")
    assert not rehearse.defines(lib, "lib", "Widget", "_gone")
    assert not rehearse.defines(lib, "lib.core", "Missing", "size")
    assert not rehearse.defines(lib, "lib.nowhere", "", "helper")


def test_a_release_whose_bokehjs_lost_a_seam_is_reported_and_no_other(tmp_path):
    installed = Path(bokeh.__file__).parent
    bundle = installed / "server" / "static" / "js" / "bokeh.min.js"
    copy = tmp_path / "bokeh" / "server" / "static" / "js" / "bokeh.min.js"
    copy.parent.mkdir(parents=True)
    copy.write_text(bundle.read_text("utf-8").replace("static from_json(", "static from_doc("))
    releases = {"bokeh": rehearse.Release("bokeh", "9.9.9", tmp_path / "bokeh")}
    found = rehearse.browser_findings(releases, tmp_path / "work")
    gone = [f.seam for f in found if f.holds is False]
    assert gone == ["Document.from_json"]
    assert {f.library for f in found if f.holds is None} == {"pyodide", "panel"}


def test_a_release_whose_worker_module_imports_pandas_is_reported(tmp_path):
    lib = package(tmp_path, {"io/pyodide.py": "import json\nimport pandas\n", "__init__.py": ""})
    clean = package(tmp_path / "clean", {"io/pyodide.py": "def f():\n    import pandas\n"})
    findings = rehearse.import_findings({"panel": rehearse.Release("panel", "9", lib)})
    (pyodide,) = [f for f in findings if f.seam.startswith("panel.io.pyodide ")]
    assert pyodide.holds is False
    findings = rehearse.import_findings({"panel": rehearse.Release("panel", "9", clean)})
    (pyodide,) = [f for f in findings if f.seam.startswith("panel.io.pyodide ")]
    assert pyodide.holds is True  # an import inside a function runs only when called


def test_a_release_whose_page_script_changed_loses_its_anchors(tmp_path):
    installed = rehearse.installed("panel").root
    handler = installed / "_templates" / "pyodide_handler.js"
    copy = tmp_path / "panel" / "_templates" / "pyodide_handler.js"
    copy.parent.mkdir(parents=True)
    shutil.copy(handler, copy)
    text = copy.read_text("utf-8")
    copy.write_text(text.replace("new Worker(", "new Worker(url, {type: 'module'}) || new Worker("))
    releases = {"panel": rehearse.Release("panel", "9.9.9", tmp_path / "panel")}
    gone = [f.seam for f in rehearse.anchor_findings(releases) if f.holds is False]
    assert gone == ['const pyodideWorker = new Worker("./{{ name }}.js")']


def test_the_committed_report_is_the_commands_and_counts_its_rows():
    text = (ROOT / "docs" / "rehearsal.md").read_text("utf-8")
    assert "`python -m posviz.export.rehearse --panel 1.10.0 --bokeh 3.10.1" in text
    counts = re.search(r"\*\*(\d+) hold, (\d+) gone, (\d+) not rehearsed\*\*", text)
    row = r"^\| [a-z ]+ \| `.*` \| \w+ \| (yes|\*\*no\*\*|not rehearsed) \|"
    rows = re.findall(row, text, re.M)
    assert [int(n) for n in counts.groups()] == [
        rows.count("yes"),
        rows.count("**no**"),
        rows.count("not rehearsed"),
    ]


def test_the_committed_report_rehearses_every_registered_browser_seam():
    """The report in docs/ is regenerated when the register changes: each JS seam, once,
    with the files that use it (the command's rows; it stops a stale report)."""
    from posviz import internals

    text = (ROOT / "docs" / "rehearsal.md").read_text("utf-8")
    rows = re.findall(r"^\| browser \| `(.*)` \| \w+ \| [^|]+ \| (.*) \|$", text, re.M)
    assert sorted((name, where.strip()) for name, where in rows) == sorted(
        (seam.name, ", ".join(seam.used_in)) for seam in internals.JS_SEAMS
    )


def test_the_committed_report_rehearses_every_registered_python_internal():
    """As for the browser seams: each Python internal (``internals.python_internals``),
    once, and the import check of each module the worker imports. A register that grew
    without the report being rewritten fails here (it did: ``LOCAL_DIST``)."""
    from posviz import internals

    text = (ROOT / "docs" / "rehearsal.md").read_text("utf-8")
    rows = re.findall(r"^\| python \| `(.*)` \| \w+ \|", text, re.M)
    expected = [
        f"{module}.{owner + '.' if owner else ''}{attribute}"
        for module, owner, attribute in internals.python_internals()
    ]
    assert sorted(rows) == sorted(expected)
    imports = set(re.findall(r"^\| browser import \| `(\S+) imports no ", text, re.M))
    worker = {module for module, _, _ in internals.python_internals()}
    assert imports == {module for module in worker if not module.startswith("bokeh.server")}
