"""The static export: the outside-URL scan, the manifest, determinism."""

import hashlib
import json
import re
import zipfile
from pathlib import Path

import pytest

from posviz.export.adapter import stable_ids
from posviz.export.command import EXEMPT, build
from posviz.export.scan import scan, scan_text
from tests.support.site import worker_site


@pytest.mark.parametrize(
    "suffix,text,url",
    [
        (
            ".html",
            '<script src="https://cdn.example.org/x.js"></script>',
            "https://cdn.example.org/x.js",
        ),
        (
            ".html",
            "<link rel='stylesheet' href='//fonts.example.com/a.css'>",
            "//fonts.example.com/a.css",
        ),
        (".html", "<img src=https://img.example.org/a.png>", "https://img.example.org/a.png"),
        (
            ".css",
            "a { background: url('https://img.example.org/b.png') }",
            "https://img.example.org/b.png",
        ),
        (".css", '@import "https://x.example.org/t.css";', "https://x.example.org/t.css"),
        (
            ".js",
            'importScripts("https://cdn.example.org/pyodide.js");',
            "https://cdn.example.org/pyodide.js",
        ),
        (".js", "await fetch(`https://api.example.org/data`)", "https://api.example.org/data"),
        (
            ".js",
            'const base = "https://cdn.jsdelivr.net/pyodide/v0.27.7/full/"',
            "https://cdn.jsdelivr.net/pyodide/v0.27.7/full/",
        ),
    ],
)
def test_scan_catches_absolute_urls_where_browsers_fetch(suffix, text, url):
    assert [found for _, found in scan_text(text, suffix)] == [url]


@pytest.mark.parametrize(
    "suffix,text",
    [
        (".html", '<a href="https://example.org/paper">the paper</a>'),
        (".html", '<script src="static/bokeh/bokeh.min.js"></script>'),
        (".js", 'document.createElementNS("http://www.w3.org/2000/svg", "svg")'),
        (".css", "a { background: url(../img/x.png) }"),
    ],
)
def test_scan_lets_links_namespaces_and_relative_urls_pass(suffix, text):
    assert scan_text(text, suffix) == []


def test_scan_reports_file_and_line_and_honours_only_the_named_exemption(tmp_path):
    (tmp_path / "a.html").write_text('<p>\n<script src="https://cdn.bokeh.org/b.js"></script>')
    (tmp_path / "b.js").write_text(
        'fetch("https://cdn.jsdelivr.net/npm/mathjax@3/x.js");\n'
        'fetch("https://cdn.jsdelivr.net/npm/other/y.js");'
    )
    findings = scan(tmp_path, {("b.js", "https://cdn.jsdelivr.net/npm/mathjax@"): "unused"})
    assert [(f.path.name, f.line, f.url) for f in findings] == [
        ("a.html", 2, "https://cdn.bokeh.org/b.js"),
        ("b.js", 2, "https://cdn.jsdelivr.net/npm/other/y.js"),
    ]
    assert str(findings[0]).endswith("a.html:2: would fetch https://cdn.bokeh.org/b.js")


def test_stable_ids_are_derived_from_the_route_in_order():
    html = (
        '<div id="0f8f8b9e-1111-4222-8333-944444444444"></div>'
        '<div id="aaaaaaaa-1111-4222-8333-944444444444"></div>'
        '"0f8f8b9e-1111-4222-8333-944444444444"'
    )
    once, again = stable_ids(html, "figure-710"), stable_ids(html, "figure-710")
    assert once == again != html
    ids = once.split('"')
    assert ids[1] == ids[5] != ids[3]
    assert stable_ids(html, "figure-96") != once


def test_built_site_is_self_contained_and_described(built_site):
    assert scan(built_site, EXEMPT) == []
    manifest = json.loads((built_site / "site.json").read_text())
    by_path = {page["path"]: page for page in manifest["pages"]}
    topic = by_path["topic-positional-encoding.html"]
    assert {key: topic[key] for key in ("path", "kind", "title")} == {
        "path": "topic-positional-encoding.html",
        "kind": "topic",
        "title": "Positional encoding",
    }
    assert topic["figures"][:4] == [96, 710, 7256, 4121]  # the seed's, first and in its order
    assert len(topic["figures"]) == len(set(topic["figures"])) > 4
    assert by_path["index.html"]["kind"] == "home"
    assert {p["kind"] for p in manifest["pages"]} == {
        "home",
        "topic",
        "page",
        "tag",
        "figure",
        "gallery",
    }
    assert by_path["tag-self-attention.html"]["kind"] == "tag"
    assert by_path["gallery.html"]["kind"] == "gallery"
    for figure_id in (96, 710, 7256, 4121):
        assert by_path[f"figure-{figure_id}.html"]["figures"] == [figure_id]
    for page in manifest["pages"]:
        assert (built_site / page["path"]).is_file()
    site = worker_site(built_site)
    for wheel in site["wheels"]:
        data = (built_site / wheel["path"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == wheel["sha256"], wheel


def test_posviz_wheel_carries_the_content_but_not_the_build(built_site):
    wheel = next((built_site / "wheels").glob("posviz-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert "posviz/_content/topics/positional-encoding.md" in names
    assert "posviz/figures/clock_hands.py" in names
    assert "posviz/runtime/boot.py" in names  # the worker's Python, a module of the wheel
    assert not any(name.startswith("posviz/export/") for name in names)
    assert not any(name.startswith("posviz/templates/") for name in names)  # posviz new's
    # What only the host runs: the commands, the server, the docs plugins, posviz new.
    for module in ("cli", "serve", "sphinx", "mkdocs", "embed", "scaffold"):
        assert f"posviz/{module}.py" not in names
        assert f"posviz/__pycache__/{module}.cpython-312.pyc" not in names
    assert "posviz/embed.js" not in names
    assert "posviz/__pycache__/urls.cpython-312.pyc" in names  # a leaf the browser imports


def test_the_site_ships_a_lock_of_its_own_packages_and_pins_what_it_wrote(built_site):
    from posviz.export import distribution

    dist = distribution.assemble(packages=distribution.REQUIRED_PACKAGES)
    upstream = json.loads((dist / "pyodide-lock.json").read_text())
    folder = built_site / "pyodide"
    lock = json.loads((folder / "pyodide-lock.json").read_text())
    assert lock["info"] == upstream["info"]
    # Exactly the package files the site holds, each as the upstream lock has it.
    core = {"pyodide.js", "pyodide.asm.js", "pyodide.asm.wasm", "python_stdlib.zip"}
    shipped = {p.name for p in folder.iterdir()} - core - {"pyodide-lock.json"}
    assert {entry["file_name"] for entry in lock["packages"].values()} == shipped
    assert {"numpy", "packaging"} <= set(lock["packages"])
    for name, entry in lock["packages"].items():
        assert entry == upstream["packages"][name]
        assert set(entry["depends"]) <= set(lock["packages"]), name  # closed under depends
        digest = hashlib.sha256((folder / entry["file_name"]).read_bytes()).hexdigest()
        assert digest == entry["sha256"], name
    assert len(upstream["packages"]) > 10 * len(lock["packages"])
    # pyodide.mjs is for ES-module workers: the site's worker runs pyodide.js.
    assert not (folder / "pyodide.mjs").exists()
    # The worker checks each core file against the bytes the build wrote.
    pins = {file["name"]: file["sha256"] for file in worker_site(built_site)["core"]}
    assert set(pins) == core | {"pyodide-lock.json"}
    for name, expected in pins.items():
        assert hashlib.sha256((folder / name).read_bytes()).hexdigest() == expected, name
    assert pins["pyodide.asm.wasm"] == distribution.CORE_PINS["pyodide.asm.wasm"]  # as upstream
    # The worker fetches and checks the lock's files itself, numpy's with the core files.
    listed = worker_site(built_site)["packages"]
    assert {(p["path"], p["sha256"]) for p in listed} == {
        (f"pyodide/{entry['file_name']}", entry["sha256"]) for entry in lock["packages"].values()
    }
    assert [p["name"] for p in listed if p["numpy"]] == ["numpy"]


def test_wheels_carry_bytecode_compiled_by_pyodide(built_site):
    """Third-party modules become sourceless .pyc; posviz keeps source beside its bytecode."""
    panel_wheel = zipfile.ZipFile(next((built_site / "wheels").glob("panel-*.whl")))
    names = set(panel_wheel.namelist())
    assert "panel/__init__.pyc" in names and "panel/__init__.py" not in names
    header = panel_wheel.read("panel/__init__.pyc")[:16]
    assert header[:2] == (3531).to_bytes(2, "little")  # CPython 3.12's, whatever the host runs
    assert int.from_bytes(header[4:8], "little") == 0b01  # hash-based, unchecked
    posviz_names = zipfile.ZipFile(next((built_site / "wheels").glob("posviz-*.whl"))).namelist()
    assert "posviz/figures/clock_hands.py" in posviz_names
    assert "posviz/figures/__pycache__/clock_hands.cpython-312.pyc" in posviz_names


def digest(folder):
    return {
        path.relative_to(folder).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def test_the_same_inputs_give_a_byte_identical_site(built_site, tmp_path, monkeypatch):
    monkeypatch.setenv("POSVIZ_PAGE_CACHE", "0")  # every page pre-rendered again, none reused
    assert build(tmp_path / "again") == 0
    first, second = digest(built_site), digest(tmp_path / "again")
    assert first.keys() == second.keys()
    assert [name for name in first if first[name] != second[name]] == []


def test_build_refuses_a_folder_it_did_not_make(tmp_path, capsys):
    (tmp_path / "notes.txt").write_text("mine")
    (tmp_path / "site.json").write_text("{}")  # a site.json alone does not make it posviz's
    assert build(tmp_path) == 1
    err = capsys.readouterr().err
    assert err == (
        f"posviz build: failed: {tmp_path} is not empty and posviz did not make it "
        "(no .posviz-build.json); choose an empty or new folder\n"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt", "site.json"]
    assert (tmp_path / "notes.txt").read_text() == "mine"


def test_the_built_site_lists_its_own_files_in_the_marker(built_site):
    marker = json.loads((built_site / ".posviz-build.json").read_text())
    files = sorted(
        p.relative_to(built_site).as_posix()
        for p in built_site.rglob("*")
        if p.is_file() and p.name != ".posviz-build.json"
    )
    assert marker["files"] == files and "posviz-worker.js" in files
    assert not list(built_site.parent.glob(".site.posviz-*"))  # no sibling left behind


def test_building_again_over_a_previous_site_replaces_it(built_site, tmp_path):
    import shutil

    out = tmp_path / "site"
    shutil.copytree(built_site, out)
    (out / "index.html").write_text("an older build")
    (out / "old-page.html").write_text("a page an older build had")
    marker = json.loads((out / ".posviz-build.json").read_text())
    marker["files"].append("old-page.html")
    (out / ".posviz-build.json").write_text(json.dumps(marker))
    assert build(out) == 0
    assert digest(out) == digest(built_site)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]


@pytest.mark.slow  # a build of its own
def test_cdn_variant_loads_the_runtime_from_public_cdns(tmp_path):
    """One figure's page is enough: what --cdn changes is the runtime's and BokehJS's
    addresses and which files travel, the same for every page."""
    out = tmp_path / "cdn"
    assert build(out, cdn=True, figures=[710]) == 0
    assert not (out / "pyodide").exists() and not (out / "static").exists()
    worker = (out / "posviz-worker.js").read_text()
    assert '"pyodide": "https://cdn.jsdelivr.net/pyodide/v0.27.7/full/"' in worker
    page = (out / "figure-710.html").read_text()
    assert "https://cdn.bokeh.org/bokeh/release/bokeh-3.9.2.min.js" in page
    assert list((out / "wheels").glob("posviz-*.whl"))  # posviz itself still travels along


def test_without_node_the_wheels_keep_their_source_and_the_build_says_so(
    tmp_path, monkeypatch, capsys
):
    from posviz.export import bytecode, payload

    wheel = tmp_path / "demo-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr("demo/__init__.py", "ANSWER = 42\n")
    before = wheel.read_bytes()
    monkeypatch.setattr(bytecode.shutil, "which", lambda name: None)
    payload.precompile([wheel], tmp_path / "no-dist-needed")
    assert wheel.read_bytes() == before
    assert capsys.readouterr().out == (
        "posviz build: warning: node (Node.js) not found; "
        "wheels keep source only and pages start slower\n"
    )


def fake_node(calls):
    """Stands in for `node compile.mjs DIST WORK`: 'compiles' each wheel's modules."""
    import subprocess

    def run(command, **kwargs):
        work = Path(command[-1])
        calls.append(sorted(p.name for p in (work / "in").iterdir()))
        report = {}
        for wheel in (work / "in").iterdir():
            with zipfile.ZipFile(wheel) as archive:
                for name in archive.namelist():
                    if name.endswith(".py"):
                        target = work / "out" / wheel.name / (name + "c")
                        target.parent.mkdir(parents=True, exist_ok=True)
                        target.write_bytes(b"pyc of " + archive.read(name))
            report[wheel.name] = [1, 0]
        (work / "report.json").write_text(json.dumps(report))
        return subprocess.CompletedProcess(command, 0, "", "")

    return run


def demo_dist_and_wheel(tmp_path):
    dist = tmp_path / "dist"
    dist.mkdir()
    (dist / "pyodide-lock.json").write_text(
        json.dumps({"info": {"python": "3.12.7"}, "packages": {}})
    )
    wheel = tmp_path / "demo-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr("demo/__init__.py", "ANSWER = 42\n")
        archive.writestr("demo-1.0.dist-info/METADATA", "Name: demo\n")
    return dist, wheel


def compiled_once(tmp_path, monkeypatch):
    """The demo wheel's compiled twin, and a pin for it, from a first compile."""
    from posviz.export import bytecode

    dist, wheel = demo_dist_and_wheel(tmp_path)
    calls = []
    monkeypatch.setattr(bytecode.subprocess, "run", fake_node(calls))
    source = wheel.read_bytes()
    (first,), _ = bytecode.compile_wheels([wheel], dist, tmp_path / "scratch", {})
    good = first.read_bytes()
    wheel.write_bytes(source)  # unpinned: compiled in place; put the source back
    pinned = {wheel.name: hashlib.sha256(good).hexdigest()}
    return dist, wheel, good, pinned, calls


@pytest.mark.parametrize("sidecar", [False, True])
def test_a_tampered_cached_bytecode_wheel_is_caught_by_its_pin_and_compiled_again(
    tmp_path, monkeypatch, capsys, sidecar
):
    from posviz.export import bytecode

    dist, wheel, good, pinned, calls = compiled_once(tmp_path, monkeypatch)
    cache = tmp_path / "cache"
    (first,), report = bytecode.compile_wheels([wheel], dist, cache, pinned)
    assert first.read_bytes() == good and report["compiled_now"] == [wheel.name]
    assert zipfile.ZipFile(first).read("demo/__init__.pyc") == b"pyc of ANSWER = 42\n"
    (again,), report = bytecode.compile_wheels([wheel], dist, cache, pinned)
    assert len(calls) == 2 and report["compiled_now"] == []  # a hit

    # A file added to the cached wheel; with `sidecar`, the sha256 written beside
    # it (as earlier builds did) agrees with the tampered file.
    with zipfile.ZipFile(first, "a") as archive:
        archive.writestr("demo/evil.py", "import os\n")
    if sidecar:
        first.with_name(first.name + ".sha256").write_text(
            hashlib.sha256(first.read_bytes()).hexdigest() + "\n"
        )
    (third,), report = bytecode.compile_wheels([wheel], dist, cache, pinned)
    assert len(calls) == 3 and report["compiled_now"] == [wheel.name]
    assert third.read_bytes() == good
    assert "does not match its pin in posviz/export/pins.json" in capsys.readouterr().err


def test_a_fresh_compile_that_differs_from_its_pin_is_refused(tmp_path, monkeypatch):
    from posviz.export import bytecode

    dist, wheel, good, pinned, _ = compiled_once(tmp_path, monkeypatch)
    found = pinned[wheel.name]
    with pytest.raises(bytecode.BytecodeError) as error:
        bytecode.compile_wheels([wheel], dist, tmp_path / "cache", {wheel.name: "0" * 64})
    message = str(error.value)  # pins.check's words, as for every hash the build checks
    assert f"{wheel.name}: sha256 {found[:16]}…, expected {'0' * 16}…" in message
    assert 'compiled, under "bytecode", in posviz/export/pins.json' in message
    assert message.endswith("if that change is intended, pin the new sha256")
    assert "\n" not in message
    assert not list((tmp_path / "cache").rglob("*.whl"))  # nothing unpinned is kept


def test_an_unpinned_wheel_is_compiled_once_per_source_and_again_when_its_copy_differs(
    tmp_path, monkeypatch
):
    from posviz.export import bytecode

    dist, wheel, good, _, calls = compiled_once(tmp_path, monkeypatch)
    source = wheel.read_bytes()
    cache = tmp_path / "cache"
    for _ in range(2):
        wheel.write_bytes(source)  # each build collects the source wheel anew
        (twin,), report = bytecode.compile_wheels([wheel], dist, cache, {})
        assert twin == wheel and twin.read_bytes() == good
    assert len(calls) == 2 and report["compiled_now"] == []  # the second build: a hit
    (kept,) = cache.rglob("*.whl")
    kept.write_bytes(kept.read_bytes() + b"x")  # no longer the copy that was compiled
    wheel.write_bytes(source)
    (twin,), report = bytecode.compile_wheels([wheel], dist, cache, {})
    assert len(calls) == 3 and report["compiled_now"] == [wheel.name]
    assert twin.read_bytes() == good
    wheel.unlink()
    with zipfile.ZipFile(wheel, "w") as archive:  # a new source: a new key
        archive.writestr("demo/__init__.py", "ANSWER = 43\n")
        archive.writestr("demo-1.0.dist-info/METADATA", "Name: demo\n")
    (twin,), report = bytecode.compile_wheels([wheel], dist, cache, {})
    assert len(calls) == 4 and report["compiled_now"] == [wheel.name]


def test_the_pins_cover_every_compiled_wheel_the_site_ships(built_site):
    from posviz.export import pins

    shipped = {
        wheel.name: hashlib.sha256(wheel.read_bytes()).hexdigest()
        for wheel in (built_site / "wheels").glob("*.whl")
        if not wheel.name.startswith("posviz-")
    }
    assert shipped == pins.PINS["bytecode"]["wheels"]


def test_frames_are_listed_with_their_sha256_within_the_budget(built_site):
    import hashlib

    from posviz.export.frames import BUDGET

    manifest = json.loads((built_site / "site.json").read_text())
    listed = manifest["frames"]
    from posviz.figures import FIGURES

    assert set(listed) == {str(figure_id) for figure_id in FIGURES}
    total = 0
    for files in listed.values():
        for file in files.values():
            data = (built_site / file["path"]).read_bytes()
            assert hashlib.sha256(data).hexdigest() == file["sha256"]
            assert len(data) == file["bytes"]
            total += len(data)
    assert 0 < total <= BUDGET
    # Every page that shows a figure carries the script and its frames' settings.
    for page in manifest["pages"]:
        html = (built_site / page["path"]).read_text("utf-8")
        assert ('src="posviz-frames.js"' in html) == bool(page["figures"]), page["path"]


def test_no_inline_script_is_repeated_from_page_to_page(built_site):
    """What every page repeats is one cached file; inline, a page keeps only its own code."""
    inline = re.compile(r'<script(?: type="text/javascript")?>(.*?)</script>', re.S)
    pages = sorted(built_site.glob("*.html"))
    seen: dict[str, list[str]] = {}
    for page in pages:
        html = page.read_text("utf-8")
        for text in inline.findall(html):
            if len(text) > 200:
                seen.setdefault(text, []).append(page.name)
        for shared in ("posviz-connect-", "posviz-page-"):
            [src] = re.findall(rf'<script src="({shared}[0-9a-f]{{12}}\.js)"></script>', html)
            assert (built_site / src).is_file(), (page.name, src)
    repeated = {text[:60]: names for text, names in seen.items() if len(names) > 1}
    assert repeated == {}
