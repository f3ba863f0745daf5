"""The build's caches verify what they hold, and their keys cover every input (issue 31).

A damaged entry (a page cut short, frames with other numbers, scan findings
emptied, a slimmed wheel changed) is a miss with a one-line warning, and what
is made again is what a clean build makes. A build keeps nothing until its
checks pass. The pre-render runs in a clean environment, so a variable or a
``~/.bokeh/bokeh.yaml`` of one build does not poison the next; a host
library's version is part of every key.

Builds use the scratch content and page caches of this module's own; the
Pyodide runtime, the wheels and the real frames come from the shared build
cache, which these tests never damage.
"""

import gzip
import hashlib
import json
import shutil
from importlib import metadata
from pathlib import Path

import numpy as np
import pytest

from posviz import content
from posviz.compose.routes import routes
from posviz.export import bytecode, command, distribution, frames, pagecache, prerender, wheels
from posviz.export.command import build
from posviz.export.scan import scan_bytes
from posviz.figures import FIGURES
from tests.support.scratch import differences, write_content

# each test runs posviz build: the full run's, not ./dev test --fast
pytestmark = pytest.mark.slow


SETTINGS = {"cdn_root": "static/panel/", "base_url": None}
PAGE = "page-clock"
CHEAP_FIGURE = 2306  # the figure whose frames take least time to compute


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    """The scratch content's folder."""
    return write_content(tmp_path_factory.mktemp("scratch") / "content")


@pytest.fixture(autouse=True)
def scratch_content(scratch, monkeypatch):
    """Every build and key here reads the scratch content."""
    monkeypatch.setenv("POSVIZ_CONTENT", str(scratch))


@pytest.fixture(scope="module")
def reference(scratch, tmp_path_factory):
    """A clean build of the scratch content: (its site, its page cache)."""
    folder = tmp_path_factory.mktemp("reference")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("POSVIZ_CONTENT", str(scratch))
        patch.setenv(pagecache.CACHE_ENV, str(folder / "pages"))
        assert build(folder / "site") == 0
    return folder / "site", folder / "pages"


def scratch_keys(root: Path) -> dict[str, str]:
    """Each route of the content in ``root`` → the key of its page."""
    library = content.load(root)
    return pagecache.keys(list(routes(library)), library, root, SETTINGS)


def page_entry(cache: Path, root: Path, name: str) -> Path:
    """The file of the page cache ``cache`` that holds route ``name``'s page."""
    key = scratch_keys(root)[name]
    return cache / key[:2] / f"{key}.html"


def stand_in_frames(monkeypatch, folder: Path) -> None:
    """Frames computed in no time and kept in ``folder``: for builds whose frames
    nobody compares, so that the shared frames cache is left as it is."""
    monkeypatch.setattr(frames, "figure_frames", lambda cls: ({"figure": cls.figure_id}, b""))
    monkeypatch.setattr(pagecache, "frames_folder", lambda: folder)


def warned(err: str) -> list[str]:
    """The lines of ``err`` that report a damaged cache entry."""
    return [line for line in err.splitlines() if "does not match its sha256" in line]


# --- damaged entries -------------------------------------------------------------


def test_a_page_entry_cut_short_is_rendered_again(
    reference, scratch, tmp_path, monkeypatch, capsys
):
    """As reported: a cached page with no ``</html>`` shipped at 14.9 KB, exit 0."""
    site, kept = reference
    cache = tmp_path / "pages"
    shutil.copytree(kept, cache)
    monkeypatch.setenv(pagecache.CACHE_ENV, str(cache))
    entry = page_entry(cache, scratch, PAGE)
    entry.write_bytes(entry.read_bytes()[: entry.stat().st_size // 2])
    capsys.readouterr()

    assert build(tmp_path / "site") == 0
    out, err = capsys.readouterr()
    assert differences(tmp_path / "site", site) == []
    (line,) = warned(err)
    assert f"page {PAGE}" in line and str(entry) in line
    assert "converting 1 dashboards" in out


def test_frames_with_other_numbers_are_computed_again(tmp_path, monkeypatch, capsys):
    """As reported: frames with their numbers halved shipped under a fresh sha256."""
    monkeypatch.setattr(pagecache, "frames_folder", lambda: tmp_path / "frames")
    index, blob = frames.figure_frames(FIGURES[CHEAP_FIGURE])
    text = json.dumps(index, separators=(",", ":")).encode()
    files = {"json": gzip.compress(text, mtime=0), "bin": gzip.compress(blob, mtime=0)}
    key = pagecache.frame_keys([CHEAP_FIGURE])[CHEAP_FIGURE]
    pagecache.store_frames(key, files)
    assert pagecache.cached_frames(key) == files
    # Other numbers, as valid a file as the true one: every float64 column halved.
    halved = bytearray(blob)
    for offset, length, dtype, _shape in index["columns"]:
        if dtype == "f8":
            column = np.frombuffer(blob, "<f8", length, offset)
            halved[offset : offset + 8 * length] = (column / 2).astype("<f8").tobytes()
    assert bytes(halved) != blob
    altered = gzip.compress(bytes(halved), mtime=0)
    for stored in (tmp_path / "frames").rglob("bin.gz"):
        stored.write_bytes(stored.read_bytes().replace(files["bin"], altered))
    capsys.readouterr()

    assert pagecache.cached_frames(key) is None
    (line,) = warned(capsys.readouterr().err)
    assert f"frames {key[:12]}" in line


def test_scan_findings_emptied_are_a_miss(tmp_path, monkeypatch, capsys):
    """An entry that says "nothing outside the site" of a page that fetches from outside."""
    monkeypatch.setenv(pagecache.CACHE_ENV, str(tmp_path / "pages"))
    page = b'<script src="https://cdn.jsdelivr.net/npm/x.js"></script>\n'
    found = pagecache.remembered_scan(page, ".html", scan_bytes)
    assert found
    (entry,) = (tmp_path / "pages" / "scans").rglob("*.json")
    entry.write_bytes(entry.read_bytes().replace(json.dumps(found).encode(), b"[]"))
    capsys.readouterr()

    assert pagecache.remembered_scan(page, ".html", scan_bytes) == found
    assert len(warned(capsys.readouterr().err)) == 1


def test_a_slimmed_wheel_changed_in_the_cache_is_slimmed_again(tmp_path, capsys):
    raw = wheels.write_wheel(
        tmp_path / "raw", "scratch", "1.0", {"scratch/__init__.py": b"VALUE = 1\n"}
    )
    for dest in ("one", "two"):
        (tmp_path / dest).mkdir()
    made = wheels.slim_remembered(raw, tmp_path / "one", tmp_path / "slim")
    (kept,) = (tmp_path / "slim").rglob("*.whl")
    kept.write_bytes(kept.read_bytes()[:-10] + b"0123456789")
    capsys.readouterr()

    again = wheels.slim_remembered(raw, tmp_path / "two", tmp_path / "slim")
    assert again.read_bytes() == made.read_bytes()
    assert len(warned(capsys.readouterr().err)) == 1


def test_compiled_bytecode_changed_in_the_cache_is_compiled_again(tmp_path, capsys):
    """posviz's own compiled wheel has no pin: the sha256 kept beside it stands for one."""
    done = tmp_path / "posviz-0.1.0-py3-none-any.whl"
    done.write_bytes(b"compiled")
    done.with_name(done.name + ".sha256").write_text(hashlib.sha256(b"other").hexdigest())

    assert bytecode._kept_unpinned(done) is False
    assert not done.exists()
    assert len(warned(capsys.readouterr().err)) == 1


# --- what a build keeps ----------------------------------------------------------


def test_a_build_that_fails_its_checks_keeps_nothing(reference, scratch, tmp_path, monkeypatch):
    """Pages and frames are kept only after the last check (the offline scan) passes.

    The cache lacks one page, which the build renders; every figure's frames are new.
    """
    _, kept = reference
    cache = tmp_path / "pages"
    shutil.copytree(kept, cache)
    monkeypatch.setenv(pagecache.CACHE_ENV, str(cache))
    page_entry(cache, scratch, PAGE).unlink()
    stand_in_frames(monkeypatch, tmp_path / "frames")
    monkeypatch.setattr(command, "scan", lambda *args: ["index.html:1: would fetch https://x.org/"])

    assert build(tmp_path / "site") == 1
    assert not page_entry(cache, scratch, PAGE).exists()
    assert not (tmp_path / "frames").exists() or not any((tmp_path / "frames").rglob("*.gz"))


def test_a_file_edited_during_a_build_leaves_nothing_cached(
    reference, scratch, tmp_path, monkeypatch, capsys
):
    """A page rendered from one version of its content must not be kept under the
    key of another: a source edited while the build runs keeps the whole build out."""
    _, kept = reference
    cache, root = tmp_path / "pages", tmp_path / "content"
    shutil.copytree(kept, cache)
    shutil.copytree(scratch, root)
    monkeypatch.setenv(pagecache.CACHE_ENV, str(cache))
    monkeypatch.setenv("POSVIZ_CONTENT", str(root))
    page_entry(cache, root, PAGE).unlink()  # so this build renders that page
    stand_in_frames(monkeypatch, tmp_path / "frames")
    before = scratch_keys(root)
    share = command.share_page_scripts

    def edited_meanwhile(out):  # after the pre-render, as a maintainer saves a file
        source = next((root / "pages").glob("*.md"))
        source.write_text(source.read_text("utf-8") + "\nA sentence saved mid-build.\n")
        share(out)

    monkeypatch.setattr(command, "share_page_scripts", edited_meanwhile)
    assert build(tmp_path / "site") == 0
    said = capsys.readouterr()
    assert "changed during the build: nothing of it is cached" in said.out + said.err
    assert not (cache / before[PAGE][:2] / f"{before[PAGE]}.html").exists()
    after = scratch_keys(root)[PAGE]
    assert not (cache / after[:2] / f"{after}.html").exists()


# --- keys cover every input --------------------------------------------------------


def test_the_environment_of_one_build_does_not_reach_the_next(reference, tmp_path, monkeypatch):
    """As reported: BOKEH_MINIFIED=false failed every later build; BOKEH_SIMPLE_IDS=no
    changed all 14 pages of the next. Bokeh's own settings file counts too."""
    site, _ = reference
    monkeypatch.setenv(pagecache.CACHE_ENV, str(tmp_path / "pages"))
    with monkeypatch.context() as poisoned:
        home = tmp_path / "home"
        (home / ".bokeh").mkdir(parents=True)
        (home / ".bokeh" / "bokeh.yaml").write_text("simple_ids: false\n")
        poisoned.setenv("POSVIZ_CACHE", str(distribution.default_cache_root()))
        poisoned.setenv("HOME", str(home))
        poisoned.setenv("BOKEH_SIMPLE_IDS", "no")
        poisoned.setenv("BOKEH_MINIFIED", "false")
        poisoned.setenv("PANEL_THROTTLED", "true")
        stand_in_frames(poisoned, tmp_path / "frames")
        assert build(tmp_path / "poisoned") == 0

    assert build(tmp_path / "next") == 0
    assert differences(tmp_path / "next", site) == []


def test_the_prerender_environment_is_a_clean_one(tmp_path, monkeypatch):
    ignored = ("BOKEH_MINIFIED", "PANEL_THROTTLED", "HV_DOC_HTML", "POSVIZ_DEV", "LC_ALL")
    for name in ignored:
        monkeypatch.setenv(name, "x")
    env = prerender.environment(tmp_path, "static/panel/", "https://example.org/site/")
    assert not set(ignored) & set(env)
    assert set(env) <= {*prerender.PASSED, *prerender.POSVIZ_PASSED} | {
        "HOME",
        "USERPROFILE",
        "PYTHONUSERBASE",
        "PYTHONUTF8",
        "PYTHONHASHSEED",
        "POSVIZ_EXPORT",
        "PANEL_CDN_ROOT",
        "POSVIZ_BASE_URL",
    }
    assert env["HOME"] == str(tmp_path)
    assert env["POSVIZ_BASE_URL"] == "https://example.org/site/"


@pytest.mark.parametrize("library", ["markdown-it-py", "jinja2", "param", "numpy", "pyviz-comms"])
def test_a_host_library_version_is_in_every_key(library, scratch, monkeypatch):
    pages, figures = scratch_keys(scratch), pagecache.frame_keys([710])
    real = metadata.version

    def version(name):
        same = name.replace("_", "-").lower() == library
        return "0.0.1" if same else real(name)

    monkeypatch.setattr(metadata, "version", version)
    after = scratch_keys(scratch)
    assert all(after[name] != key for name, key in pages.items())
    assert pagecache.frame_keys([710]) != figures


def test_the_rendering_variables_of_the_build_key_the_frames(monkeypatch):
    """Frames are computed in the build's own process, which reads them."""
    before = pagecache.frame_keys([710])
    monkeypatch.setenv("BOKEH_SIMPLE_IDS", "no")
    assert pagecache.frame_keys([710]) != before
