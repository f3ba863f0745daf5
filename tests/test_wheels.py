"""Pure wheels: slimming, deterministic writing, RECORD, and the download cache.

Tiny wheels are built in tmp_path; pip is replaced by fakes, never run.
"""

import base64
import csv
import hashlib
import io
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from posviz.export import wheels
from posviz.export.wheels import (
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

PY = "3.12"


def fake_wheel(store: Path, name: str, version: str, files: dict | None = None) -> Path:
    files = files or {f"{name.replace('-', '_')}/__init__.py": f"# {name}\n".encode()}
    return write_wheel(store, name, version, files)


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


class FakePip:
    """Stands in for `python -m pip`: records calls, copies what an index would serve.

    It serves what is in `store` and, like pip with --require-hashes, refuses a
    file whose hash is not the one in the requirements file.
    """

    def __init__(self, store: Path):
        self.store = store
        self.calls = []

    def __call__(self, args, cwd, env=None):
        self.calls.append((list(args), dict(env or {})))
        cwd = Path(cwd)
        if args[0] == "wheel":
            src = Path(args[args.index("--no-build-isolation") + 1])
            name, version = src.name.rsplit("-", 1)
            out = cwd / args[args.index("-w") + 1]
            write_wheel(
                out,
                name,
                version,
                {
                    f"{name}/__init__.py": b"",
                    f"{name}/setup_seen.py": (src / "setup.py").read_bytes(),
                },
            )
            return
        assert "--require-hashes" in args, args
        requirements = Path(cwd / args[args.index("-r") + 1]).read_text().splitlines()
        out = cwd / args[args.index("-d" if "-d" in args else "--target") + 1]
        out.mkdir(parents=True, exist_ok=True)
        for line in requirements:
            spec, _, digest = line.partition(" --hash=sha256:")
            name, version = spec.split("==")
            (found,) = [
                p
                for p in self.store.glob("*")
                if p.name.lower().startswith(f"{name.replace('-', '_')}-{version}".lower())
            ]
            if sha(found) != digest:
                raise wheels.WheelError(f"pip: THESE PACKAGES DO NOT MATCH THE HASHES ({found})")
            shutil.copy(found, out / found.name)


def fake_sdist(store: Path, name: str, version: str) -> Path:
    setup = b"supports_speedups = platform.python_implementation() not in {'PyPy'}\n"
    path = store / f"{name}-{version}.tar.gz"
    with tarfile.open(path, "w:gz") as tar:
        info = tarfile.TarInfo(f"{name}-{version}/setup.py")
        info.size = len(setup)
        info.mtime = 0
        tar.addfile(info, io.BytesIO(setup))
    return path


@pytest.fixture
def index(tmp_path, monkeypatch):
    """A fake package index with pinned param and narwhals wheels and two sdists."""
    store = tmp_path / "index"
    store.mkdir()
    table = {"wheels": {}, "sdists": {}, "build_requirements": {}}
    for name, version in [("param", "2.4.2"), ("narwhals", "2.29.0")]:
        table["wheels"][name] = {
            "version": version,
            "sha256": sha(fake_wheel(store, name, version)),
        }
    setuptools = fake_wheel(store, "setuptools", "84.2.1")
    table["build_requirements"]["setuptools"] = {"version": "84.2.1", "sha256": sha(setuptools)}
    for name, version in [("markupsafe", "3.0.4"), ("pyyaml", "6.0.4")]:
        sdist = fake_sdist(store, name, version)
        # what FakePip's `wheel` builds from it, as the real build is reproducible
        built = tmp_path / "built-once"
        src = tmp_path / "src" / f"{name}-{version}"
        src.mkdir(parents=True)
        (src / "setup.py").write_bytes(
            b"supports_speedups = False and platform.python_implementation() not in {'PyPy'}\n"
            if name == "markupsafe"
            else b"supports_speedups = platform.python_implementation() not in {'PyPy'}\n"
        )
        FakePip(store)(
            ["wheel", "--no-deps", "--no-build-isolation", str(src), "-w", str(built)], tmp_path
        )
        table["sdists"][name] = {
            "version": version,
            "sha256": sha(sdist),
            "wheel_sha256": sha(next(built.glob(f"{name}-*.whl"))),
        }
    pip = FakePip(store)
    monkeypatch.setattr(wheels, "_pip", pip)
    return pip, table


def _no_pip(*args, **kwargs):
    raise AssertionError("pip was called although the cache holds the pinned wheel")


def test_pure_pins_come_from_the_pins_file():
    from posviz.export import pins

    assert PURE_PINS["panel"] == pins.PINS["wheels"]["panel"]["version"]
    assert PURE_PINS["pyyaml"] == pins.PINS["sdists"]["pyyaml"]["version"]
    every = {**pins.PINS["wheels"], **pins.PINS["sdists"]}
    assert sorted(PURE_PINS) == sorted(every) and len(PURE_PINS) == 16
    for pin in [*every.values(), *pins.PINS["build_requirements"].values()]:
        assert len(pin["sha256"]) == 64


def test_collect_downloads_pinned_wheels_with_hashes_required_once(tmp_path, index, monkeypatch):
    pip, table = index
    cache = tmp_path / "cache"
    first = collect_pure_wheels(tmp_path / "site", PY, cache, ["param", "narwhals"], table)
    assert [p.name for p in first] == [
        "narwhals-2.29.0-py3-none-any.whl",
        "param-2.4.2-py3-none-any.whl",
    ]
    (args, _), _ = pip.calls
    assert args[:3] == ["download", "--no-deps", "--only-binary=:all:"]
    for flag, value in [
        ("--python-version", "3.12"),
        ("--platform", "any"),
        ("--implementation", "py"),
    ]:
        assert args[args.index(flag) + 1] == value
    assert "--require-hashes" in args
    assert {p.stat().st_mode & 0o777 for p in first} == {0o644}

    monkeypatch.setattr(wheels, "_pip", _no_pip)
    second = collect_pure_wheels(tmp_path / "site2", PY, cache, ["param", "narwhals"], table)
    assert [p.read_bytes() for p in second] == [p.read_bytes() for p in first]


def test_a_swapped_cached_wheel_is_detected_and_fetched_again(tmp_path, index, capsys):
    pip, table = index
    cache = tmp_path / "cache"
    (good,) = collect_pure_wheels(tmp_path / "site", PY, cache, ["param"], table)
    raw = cache / "wheels-py312" / "raw" / "param-2.4.2-py3-none-any.whl"
    fake_wheel(raw.parent, "param", "2.4.2", {"param/__init__.py": b"import os  # evil\n"})
    pip.calls.clear()
    (again,) = collect_pure_wheels(tmp_path / "site2", PY, cache, ["param"], table)
    assert len(pip.calls) == 1  # downloaded again
    assert again.read_bytes() == good.read_bytes()
    assert sha(raw) == table["wheels"]["param"]["sha256"]
    err = capsys.readouterr().err
    assert f"cached {raw} does not match its pin in posviz/export/pins.json" in err


def test_a_download_that_differs_from_its_pin_is_refused(tmp_path, index):
    pip, table = index
    table["wheels"]["param"]["sha256"] = "0" * 64
    with pytest.raises(wheels.WheelError, match="DO NOT MATCH THE HASHES"):
        collect_pure_wheels(tmp_path / "site", PY, tmp_path / "cache", ["param"], table)
    assert not list((tmp_path / "cache").rglob("*.whl"))


def test_collect_builds_markupsafe_without_speedups(tmp_path, index):
    pip, table = index
    (out,) = collect_pure_wheels(tmp_path / "site", PY, tmp_path / "cache", ["markupsafe"], table)
    assert out.name == "markupsafe-3.0.4-py3-none-any.whl"
    with zipfile.ZipFile(out) as zf:
        setup_seen = zf.read("markupsafe/setup_seen.py").decode()
    assert "supports_speedups = False and platform.python_implementation()" in setup_seen


def test_collect_builds_pyyaml_from_its_pinned_sdist_with_pinned_setuptools(tmp_path, index):
    pip, table = index
    collect_pure_wheels(tmp_path / "site", PY, tmp_path / "cache", ["pyyaml"], table)
    # The pinned setuptools first; then even the download (which runs the sdist's
    # metadata step) runs against it, never in an isolated environment of its own.
    (install, _), (download, download_env), (build, env) = pip.calls
    assert install[0] == "install" and "--require-hashes" in install and "--target" in install
    assert download[0] == "download" and "--no-build-isolation" in download
    assert "--no-binary=pyyaml" in download and "--require-hashes" in download
    assert build[0] == "wheel" and "--no-build-isolation" in build
    assert download_env == env
    assert env["PYYAML_FORCE_LIBYAML"] == "0"
    assert env["SOURCE_DATE_EPOCH"] == "315532800"
    assert env["PYTHONPATH"].endswith("build-env")


@pytest.mark.slow  # builds an sdist
def test_an_sdist_built_with_an_empty_cache_installs_nothing_unpinned(tmp_path, monkeypatch):
    """The real pip and registry: every file pip collects is a pinned one, by hash.

    pyyaml only (its sdist asks for Cython); markupsafe takes the same path.
    About 15 s: the sdist, setuptools and one wheel build, not a site build.
    """
    from posviz.export import pins

    log = tmp_path / "pip.log"
    monkeypatch.setenv("PIP_LOG", str(log))  # pip appends every call's log here
    wheel = wheels.raw_wheel("pyyaml", PY, tmp_path / "cache")
    assert sha(wheel) == pins.PINS["sdists"]["pyyaml"]["wheel_sha256"]
    text = log.read_text("utf-8")
    collected = sorted(
        line.split("Collecting ", 1)[1].split(" ", 1)[0]
        for line in text.splitlines()
        if " Collecting " in line
    )
    pinned = {"pyyaml": pins.PINS["sdists"]["pyyaml"], **pins.PINS["build_requirements"]}
    assert collected == sorted(f"{name}=={pin['version']}" for name, pin in pinned.items()), text
    for unpinned in ("Installing build dependencies", "Given no hashes", "Cython", "cython"):
        assert unpinned not in text, f"{unpinned!r} in pip's log:\n{text}"


def test_an_sdist_build_that_differs_from_its_pinned_wheel_is_refused(tmp_path, index):
    pip, table = index
    table["sdists"]["pyyaml"]["wheel_sha256"] = "1" * 64
    with pytest.raises(wheels.WheelError, match=r"built from its pinned sdist: .*pyyaml 6.0.4"):
        collect_pure_wheels(tmp_path / "site", PY, tmp_path / "cache", ["pyyaml"], table)


def test_collect_rejects_a_platform_wheel(tmp_path, index):
    pip, table = index
    (wheel,) = pip.store.glob("param-*.whl")
    platform = wheel.with_name("param-2.4.2-cp312-cp312-manylinux_2_17_x86_64.whl")
    wheel.rename(platform)
    table["wheels"]["param"]["sha256"] = sha(platform)
    with pytest.raises(WheelError, match="expected a pure py3-none-any wheel, found cp312"):
        collect_pure_wheels(tmp_path / "site", PY, tmp_path / "cache", ["param"], table)


def test_collect_rejects_binaries_in_a_pure_wheel(tmp_path, index):
    pip, table = index
    (wheel,) = pip.store.glob("param-*.whl")
    fake_wheel(pip.store, "param", "2.4.2", {"param/_c.so": b"\x7fELF"})
    table["wheels"]["param"]["sha256"] = sha(wheel)
    with pytest.raises(WheelError, match=r"contains binaries \['param/_c.so'\]"):
        collect_pure_wheels(tmp_path / "site", PY, tmp_path / "cache", ["param"], table)


def test_collect_refuses_packages_without_a_pin(tmp_path, index):
    pip, table = index
    with pytest.raises(WheelError, match="'requests': not pinned; add its version and sha256"):
        collect_pure_wheels(tmp_path / "site", PY, tmp_path / "cache", ["requests"], table)
    assert pip.calls == []


def test_markupsafe_patch_fails_loudly_when_setup_changes(tmp_path):
    (tmp_path / "setup.py").write_text("setup()\n")
    with pytest.raises(WheelError, match="changed its setup.py"):
        wheels._patch_markupsafe(tmp_path)


def test_pyproject_pins_what_the_site_ships():
    import tomllib

    pyproject = Path(__file__).parent.parent / "pyproject.toml"
    dependencies = tomllib.loads(pyproject.read_text())["project"]["dependencies"]
    for name in ("bokeh", "holoviews", "panel"):
        assert f"{name}=={PURE_PINS[name]}" in dependencies, name
