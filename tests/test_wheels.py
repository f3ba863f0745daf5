"""Pure wheels: slimming, deterministic writing, RECORD, and the download cache.

Tiny wheels are built in tmp_path; pip is replaced by fakes, never run.
"""

import base64
import csv
import hashlib
import io
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from posviz.build import wheels
from posviz.build.wheels import (
    PURE_PINS,
    WheelError,
    collect_pure_wheels,
    slim_wheel,
    write_wheel,
)

PANEL_FILES = {
    "panel/__init__.py": b"__version__ = '1.9.4'\n",
    "panel/package.json": b'{"name": "@holoviz/panel", "version": "1.9.4"}',
    "panel/bokeh.ext.json": b"{}",
    "panel/template/fast/fast.css": b".fast {}",
    "panel/dist/css/loading.css": b".loading {}",
    "panel/dist/panel.min.js": b"/* panel */" * 100,
    "panel/dist/bundled/reactiveesm/es-module-shims.min.js": b"/* shims */" * 100,
    "panel/dist/bundled/fastlisttemplate/fast_list_template.css": b".list {}",
    "panel/models/card.ts": b"export class Card {}",
    "panel/tests/test_card.py": b"def test(): pass\n",
    "panel/io/convert.py": b"# convert\n",
    "panel/io/x.js.map": b"{}",
    "panel/package-lock.json": b"{}",
}
PANEL_KEPT = {
    "panel/__init__.py",
    "panel/package.json",
    "panel/bokeh.ext.json",
    "panel/template/fast/fast.css",
    "panel/dist/css/loading.css",
    "panel/io/convert.py",
}
PANEL_STUBBED = {
    "panel/dist/panel.min.js",
    "panel/dist/bundled/reactiveesm/es-module-shims.min.js",
    "panel/dist/bundled/fastlisttemplate/fast_list_template.css",
}


def make_wheel(directory: Path, name: str, version: str, files: dict, when=(2024, 5, 6, 7, 8, 10)):
    """A wheel as pip would download it: arbitrary timestamps, a stale RECORD."""
    dist_info = f"{name}-{version}.dist-info"
    path = directory / f"{name}-{version}-py3-none-any.whl"
    directory.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as zf:
        for arcname, data in [
            *files.items(),
            (f"{dist_info}/METADATA", f"Name: {name}\nVersion: {version}\n".encode()),
            (f"{dist_info}/WHEEL", b"Wheel-Version: 1.0\nTag: py3-none-any\n"),
            (f"{dist_info}/RECORD", b"stale,,\n"),
        ]:
            info = zipfile.ZipInfo(arcname, date_time=when)
            info.external_attr = 0o100755 << 16
            zf.writestr(info, data)
    return path


def record_of(wheel: Path) -> dict:
    with zipfile.ZipFile(wheel) as zf:
        rows = list(csv.reader(io.StringIO(zf.read(_dist_info(zf) + "/RECORD").decode())))
    return {row[0]: (row[1], row[2]) for row in rows}


def _dist_info(zf):
    (name,) = {n.split("/")[0] for n in zf.namelist() if n.split("/")[0].endswith(".dist-info")}
    return name


def assert_record_matches(wheel: Path):
    """RECORD lists every other file once, with an independently recomputed hash and size."""
    record = record_of(wheel)
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        record_name = _dist_info(zf) + "/RECORD"
        assert set(record) == set(names)
        assert len(names) == len(set(names))
        assert record[record_name] == ("", "")
        for name in names:
            if name == record_name:
                continue
            data = zf.read(name)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).decode().rstrip("=")
            assert record[name] == (f"sha256={digest}", str(len(data))), name


# ------------------------------------------------------------------ slimming


def test_slim_wheel_drops_and_stubs_exactly_what_it_should(tmp_path):
    src = make_wheel(tmp_path / "in", "panel", "1.9.4", PANEL_FILES)
    out = slim_wheel(src, tmp_path / "out")
    with zipfile.ZipFile(out) as zf:
        contents = {n: zf.read(n) for n in zf.namelist() if ".dist-info/" not in n}
    assert set(contents) == PANEL_KEPT | PANEL_STUBBED
    assert all(contents[n] == b"" for n in PANEL_STUBBED)
    assert all(contents[n] == PANEL_FILES[n] for n in PANEL_KEPT)


def test_slim_wheel_drops_bokehjs_tests_and_examples(tmp_path):
    files = {
        "bokeh/__init__.py": b"",
        "bokeh/_sri/3.9.2.json": b"{}",
        "bokeh/server/static/js/bokeh.min.js": b"js",
        "bokeh/server/views/ws.py": b"",
        "holoviews_like/examples/demo.ipynb": b"{}",
        "tests/test_top.py": b"",
    }
    out = slim_wheel(make_wheel(tmp_path / "in", "bokeh", "3.9.2", files), tmp_path / "out")
    with zipfile.ZipFile(out) as zf:
        kept = {n for n in zf.namelist() if ".dist-info/" not in n}
    assert kept == {"bokeh/__init__.py", "bokeh/_sri/3.9.2.json", "bokeh/server/views/ws.py"}


def test_panel_rules_do_not_apply_to_other_wheels(tmp_path):
    files = {"other/dist/thing.js": b"js", "other/x.ts": b"ts"}
    out = slim_wheel(make_wheel(tmp_path / "in", "other", "1.0", files), tmp_path / "out")
    with zipfile.ZipFile(out) as zf:
        assert {n: zf.read(n) for n in files} == files


def test_slim_wheel_is_byte_identical_whatever_the_input_timestamps(tmp_path):
    a = slim_wheel(make_wheel(tmp_path / "a", "panel", "1.9.4", PANEL_FILES), tmp_path / "oa")
    again = slim_wheel(make_wheel(tmp_path / "a", "panel", "1.9.4", PANEL_FILES), tmp_path / "ob")
    later = make_wheel(tmp_path / "b", "panel", "1.9.4", PANEL_FILES, when=(2031, 1, 2, 3, 4, 6))
    b = slim_wheel(later, tmp_path / "oc")
    assert a.read_bytes() == again.read_bytes() == b.read_bytes()


def test_slim_wheel_writes_a_correct_record(tmp_path):
    out = slim_wheel(make_wheel(tmp_path / "in", "panel", "1.9.4", PANEL_FILES), tmp_path / "out")
    assert_record_matches(out)


def test_slim_wheel_fixes_zip_metadata_and_order(tmp_path):
    out = slim_wheel(make_wheel(tmp_path / "in", "panel", "1.9.4", PANEL_FILES), tmp_path / "out")
    with zipfile.ZipFile(out) as zf:
        infos = zf.infolist()
    assert {i.date_time for i in infos} == {(1980, 1, 1, 0, 0, 0)}
    assert {i.external_attr >> 16 for i in infos} == {0o100644}
    names = [i.filename for i in infos]
    package = [n for n in names if ".dist-info/" not in n]
    assert names[: len(package)] == sorted(package)
    assert names[-1] == "panel-1.9.4.dist-info/RECORD"


def test_slim_wheel_can_overwrite_its_source(tmp_path):
    src = make_wheel(tmp_path, "panel", "1.9.4", PANEL_FILES)
    out = slim_wheel(src, tmp_path)
    assert out == src
    assert_record_matches(out)


# ------------------------------------------------------------------- writing


def test_write_wheel_is_deterministic_with_correct_metadata(tmp_path):
    files = {"posviz/__init__.py": b"X = 1\n", "posviz/content/a.md": b"# A\n"}
    a = write_wheel(tmp_path / "a", "PosViz-Site", "0.1.0", files, requires=["panel==1.9.4"])
    b = write_wheel(
        tmp_path / "b",
        "PosViz-Site",
        "0.1.0",
        dict(reversed(files.items())),
        requires=["panel==1.9.4"],
    )
    assert a.name == "posviz_site-0.1.0-py3-none-any.whl"
    assert a.read_bytes() == b.read_bytes()
    assert_record_matches(a)
    with zipfile.ZipFile(a) as zf:
        metadata = zf.read("posviz_site-0.1.0.dist-info/METADATA").decode()
        wheel = zf.read("posviz_site-0.1.0.dist-info/WHEEL").decode()
        assert zf.read("posviz/content/a.md") == b"# A\n"
    assert "Name: PosViz-Site\nVersion: 0.1.0\n" in metadata
    assert "Requires-Dist: panel==1.9.4" in metadata
    assert "Tag: py3-none-any" in wheel and "Root-Is-Purelib: true" in wheel


def test_written_wheel_is_importable_and_has_metadata(tmp_path):
    whl = write_wheel(tmp_path, "demo-pkg", "2.0", {"demo_pkg/__init__.py": b"ANSWER = 42\n"})
    code = (
        "import sys, importlib.metadata as md; sys.path.insert(0, sys.argv[1]);"
        "import demo_pkg; print(demo_pkg.ANSWER, md.version('demo-pkg'))"
    )
    out = subprocess.run([sys.executable, "-c", code, str(whl)], capture_output=True, text=True)
    assert out.stdout.split() == ["42", "2.0"], out.stderr


@pytest.mark.parametrize("bad", ["../evil.py", "/abs.py", "a//b.py", "demo-1.0.dist-info/X"])
def test_write_wheel_rejects_paths_outside_the_package(tmp_path, bad):
    with pytest.raises(WheelError, match="expected|generated"):
        write_wheel(tmp_path, "demo", "1.0", {bad: b""})


# ---------------------------------------------------------------- collecting


class FakePip:
    """Stands in for `python -m pip`: records calls, writes what pip would."""

    def __init__(self, make_platform_wheel=False):
        self.calls = []
        self.make_platform_wheel = make_platform_wheel

    def __call__(self, args, cwd, env=None):
        self.calls.append((list(args), dict(env or {})))
        out = Path(cwd) / args[args.index("-d" if "-d" in args else "-w") + 1]
        out.mkdir(parents=True, exist_ok=True)
        if args[0] == "download" and any(a.startswith("--no-binary") for a in args):
            self._sdist(args[-3], out)
        elif args[0] == "download":
            name, version = args[-3].split("==")
            tag = "cp312-cp312-manylinux_2_17_x86_64"
            write_wheel(out, name, version, {f"{name.replace('-', '_')}/__init__.py": b""})
            if self.make_platform_wheel:
                (out / f"{name}-{version}-py3-none-any.whl").rename(
                    out / f"{name}-{version}-{tag}.whl"
                )
        elif args[0] == "wheel":
            src = Path(args[2])
            name, version = src.name.rsplit("-", 1)
            write_wheel(
                out,
                name,
                version,
                {
                    f"{name}/__init__.py": b"",
                    f"{name}/setup_seen.py": (src / "setup.py").read_bytes(),
                },
            )

    @staticmethod
    def _sdist(spec, out):
        name, version = spec.split("==")
        setup = b"supports_speedups = platform.python_implementation() not in {'PyPy'}\n"
        with tarfile.open(out / f"{name}-{version}.tar.gz", "w:gz") as tar:
            info = tarfile.TarInfo(f"{name}-{version}/setup.py")
            info.size = len(setup)
            tar.addfile(info, io.BytesIO(setup))


@pytest.fixture
def fake_pip(monkeypatch):
    pip = FakePip()
    monkeypatch.setattr(wheels, "_pip", pip)
    return pip


def _no_slimming(*args, **kwargs):
    raise AssertionError("slimmed again although the slimmed wheel is cached")


def test_collect_downloads_pinned_pure_wheels_once(tmp_path, fake_pip, monkeypatch):
    cache = tmp_path / "cache"
    first = collect_pure_wheels(["param", "narwhals==2.0.0"], tmp_path / "site", cache)
    assert [p.name for p in first] == [
        "narwhals-2.0.0-py3-none-any.whl",
        f"param-{PURE_PINS['param']}-py3-none-any.whl",
    ]
    (args, _), _ = fake_pip.calls
    assert args[:3] == ["download", "--no-deps", "--only-binary=:all:"]
    for flag, value in [
        ("--python-version", "3.12"),
        ("--platform", "any"),
        ("--implementation", "py"),
    ]:
        assert args[args.index(flag) + 1] == value
    assert "narwhals==2.0.0" in args
    assert {p.stat().st_mode & 0o777 for p in first} == {0o644}

    fake_pip.calls.clear()
    monkeypatch.setattr(wheels, "slim_wheel", _no_slimming)
    second = collect_pure_wheels(["param", "narwhals==2.0.0"], tmp_path / "site2", cache)
    assert fake_pip.calls == []
    assert [p.read_bytes() for p in second] == [p.read_bytes() for p in first]


def test_collect_uses_a_prepared_cache_without_pip(tmp_path, monkeypatch):
    def no_pip(*args, **kwargs):
        raise AssertionError("pip was called")

    monkeypatch.setattr(wheels, "_pip", no_pip)
    raw = tmp_path / "cache" / "wheels-py312" / "raw"
    write_wheel(raw, "pyviz_comms", PURE_PINS["pyviz-comms"], {"pyviz_comms/__init__.py": b"v=1"})
    (out,) = collect_pure_wheels(["pyviz-comms"], tmp_path / "site", tmp_path / "cache")
    with zipfile.ZipFile(out) as zf:
        assert zf.read("pyviz_comms/__init__.py") == b"v=1"


def test_collect_builds_markupsafe_without_speedups(tmp_path, fake_pip):
    (out,) = collect_pure_wheels(["markupsafe"], tmp_path / "site", tmp_path / "cache")
    assert out.name == f"markupsafe-{PURE_PINS['markupsafe']}-py3-none-any.whl"
    with zipfile.ZipFile(out) as zf:
        setup_seen = zf.read("markupsafe/setup_seen.py").decode()
    assert "supports_speedups = False and platform.python_implementation()" in setup_seen


def test_collect_builds_pyyaml_without_libyaml(tmp_path, fake_pip):
    collect_pure_wheels(["pyyaml"], tmp_path / "site", tmp_path / "cache")
    (download, _), (build, env) = fake_pip.calls
    assert "--no-binary=pyyaml" in download and build[0] == "wheel"
    assert env == {"PYYAML_FORCE_LIBYAML": "0"}


def test_collect_rejects_a_platform_wheel(tmp_path, monkeypatch):
    monkeypatch.setattr(wheels, "_pip", FakePip(make_platform_wheel=True))
    with pytest.raises(WheelError, match="expected a pure py3-none-any wheel, found cp312"):
        collect_pure_wheels(["param"], tmp_path / "site", tmp_path / "cache")


def test_collect_rejects_binaries_in_a_pure_wheel(tmp_path, monkeypatch):
    def pip_with_so(args, cwd, env=None):
        write_wheel(Path(cwd) / args[-1], "param", PURE_PINS["param"], {"param/_c.so": b"\x7fELF"})

    monkeypatch.setattr(wheels, "_pip", pip_with_so)
    with pytest.raises(WheelError, match=r"contains binaries \['param/_c.so'\]"):
        collect_pure_wheels(["param"], tmp_path / "site", tmp_path / "cache")


def test_collect_needs_a_version_for_unknown_packages(tmp_path, fake_pip):
    with pytest.raises(WheelError, match="'requests': no version given"):
        collect_pure_wheels(["requests"], tmp_path / "site", tmp_path / "cache")
    assert fake_pip.calls == []


def test_markupsafe_patch_fails_loudly_when_setup_changes(tmp_path):
    (tmp_path / "setup.py").write_text("setup()\n")
    with pytest.raises(WheelError, match="changed its setup.py"):
        wheels._patch_markupsafe(tmp_path)
