"""Pure-Python wheels for the Pyodide side of a static site.

The compiled packages (numpy, packaging) come from the Pyodide distribution
(``posviz.export.distribution``); everything else the site imports is a pure
``py3-none-any`` wheel collected here, slimmed of what a browser never reads, and
written deterministically so the same input gives byte-identical output.

Every download is pinned by sha256 in ``pins.json`` and made with
``pip --require-hashes``; a cached download is hashed again on every use.
markupsafe and pyyaml have no pure wheel on PyPI: they are built from their
pinned sdists, with pinned build requirements, reproducibly, and the built
wheel is pinned too.

Stdlib and ``packaging`` only: this module runs before (and without) panel or numpy.
"""

from __future__ import annotations

import base64
import csv
import fnmatch
import hashlib
import io
import os
import shutil
import sys
import tarfile
import tempfile
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from packaging.utils import InvalidWheelFilename, canonicalize_name, parse_wheel_filename

from posviz.export import pins, progress, system

from .distribution import default_cache_root

__all__ = [
    "PURE_PINS",
    "SLIM_RULES",
    "WheelError",
    "collect_pure_wheels",
    "raw_wheel",
    "slim_wheel",
    "write_wheel",
]

# What the page imports to render panel + holoviews figures with markdown text:
# name -> version, read from pins.json (the one place for versions and hashes).
# Found by importing panel/holoviews/bokeh, rendering curves, images and a
# Markdown pane, and listing sys.modules.  Left out on purpose, though declared
# by panel or bokeh: tornado (skipped on emscripten), xyzservices (tile sources
# only), tqdm (panel imports it in a try), nh3 (HTML sanitising only), requests,
# typing-extensions, panel-material-ui (never imported).  pyodide-http is
# there because panel skips importing pandas in Pyodide when it is present.
PURE_PINS: dict[str, str] = pins.pure_versions()
# Fixed zip timestamps for the sdist builds, so the built wheels match their pins.
_SOURCE_DATE_EPOCH = "315532800"  # 1980-01-01, the earliest a zip can hold


class WheelError(Exception):
    """A wheel could not be collected, built, or is not what Pyodide can use."""


def _escaped(name: str) -> str:
    """Distribution name as it appears in wheel file names (PEP 427 / 491)."""
    return canonicalize_name(name).replace("-", "_")


# --- slimming rules -----------------------------------------------------------


@dataclass(frozen=True)
class SlimRule:
    """Which files of a wheel Pyodide never reads.

    ``drop``: removed.  ``stub``: kept as empty files, for code that only tests a
    file's existence.  ``keep``: exempt from both.  Patterns are ``fnmatch``
    patterns over the whole archive path; ``*`` also crosses ``/``.
    """

    drop: tuple[str, ...] = ()
    stub: tuple[str, ...] = ()
    keep: tuple[str, ...] = ()


# "*" applies to every wheel; the others to the distribution of that name.
SLIM_RULES: dict[str, SlimRule] = {
    "*": SlimRule(
        drop=("tests/*", "*/tests/*", "*/examples/*", "*.map", "*.c", "*.pyx"),
    ),
    "bokeh": SlimRule(
        # BokehJS: the site serves its own copy; CDN-mode resources read only bokeh/_sri.
        drop=("bokeh/server/static/*",),
    ),
    "panel": SlimRule(
        # TypeScript sources and JS tooling files.
        drop=(
            "panel/*.ts",
            "panel/*.tsx",
            "panel/package-lock.json",
            "panel/tsconfig.json",
            "panel/eslint.config.js",
        ),
        # panel.js, bundled libraries, fonts, images: the site serves its own
        # copy, but panel picks a resource's URL by testing `is_file()` on it
        # under dist/bundled (bundled copy if present, else the npm CDN), so the
        # tree keeps its shape with empty files.  dist/css is read (loading
        # spinner, inlined CSS).  panel/package.json is read at import; untouched.
        stub=("panel/dist/*",),
        keep=("panel/dist/css/*",),
    ),
}


def _slim_action(path: str, rules: list[SlimRule]) -> str:
    """'keep', 'stub' or 'drop' for archive ``path``."""
    if path.split("/", 1)[0].endswith(".dist-info"):
        return "keep"  # metadata always stays

    def matches(attr: str) -> bool:
        return any(fnmatch.fnmatchcase(path, p) for r in rules for p in getattr(r, attr))

    if matches("keep"):
        return "keep"
    if matches("stub"):
        return "stub"
    return "drop" if matches("drop") else "keep"


# --- wheel writing ------------------------------------------------------------


_ZIP_DATE = (1980, 1, 1, 0, 0, 0)
# Signatures over RECORD stop being valid once RECORD is rewritten.
_INVALIDATED = ("RECORD", "RECORD.jws", "RECORD.p7s")


def _record_hash(data: bytes) -> str:
    digest = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def write_wheel_archive(path: Path, dist_info: str, files: dict[str, bytes]) -> Path:
    """Write ``files`` plus a fresh RECORD as a deterministic zip at ``path``.

    Entries sorted, package files before ``.dist-info``, RECORD last; fixed
    timestamps, permissions and compression.
    """
    record_path = f"{dist_info}/RECORD"
    body = {k: v for k, v in files.items() if k not in {f"{dist_info}/{n}" for n in _INVALIDATED}}
    order = sorted(body, key=lambda p: (p.startswith(dist_info + "/"), p))

    record = io.StringIO()
    writer = csv.writer(record, lineterminator="\n")
    for name in order:
        writer.writerow([name, _record_hash(body[name]), len(body[name])])
    writer.writerow([record_path, "", ""])
    body[record_path] = record.getvalue().encode("utf-8")
    order.append(record_path)

    path.parent.mkdir(parents=True, exist_ok=True)
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as zf:
        for name in order:
            info = zipfile.ZipInfo(name, date_time=_ZIP_DATE)
            # empty stubs stored: deflating nothing still costs bytes
            info.compress_type = zipfile.ZIP_DEFLATED if body[name] else zipfile.ZIP_STORED
            info.create_system = 3
            info.external_attr = 0o100644 << 16
            zf.writestr(info, body[name], compresslevel=9)
    system.write_atomic(path, archive.getvalue())
    return path


def write_wheel(
    dest_dir: Path,
    name: str,
    version: str,
    files: dict[str, bytes],
    *,
    requires: list[str] | tuple[str, ...] = (),
    summary: str = "",
) -> Path:
    """Build a deterministic pure ``py3-none-any`` wheel from in-memory ``files``.

    ``files`` maps archive paths (e.g. ``posviz/__init__.py``) to contents;
    METADATA, WHEEL and RECORD are generated.
    """
    escaped = _escaped(name)
    dist_info = f"{escaped}-{version}.dist-info"
    for path in files:
        parts = path.split("/")
        if path.startswith("/") or "\\" in path or ".." in parts or "" in parts:
            raise WheelError(f"{path!r}: expected a relative POSIX path inside the wheel")
        if parts[0] == dist_info:
            raise WheelError(f"{path!r}: {dist_info}/ is generated, do not pass files there")

    metadata = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}"]
    if summary:
        metadata.append(f"Summary: {summary}")
    metadata += [f"Requires-Dist: {r}" for r in requires]
    wheel = [
        "Wheel-Version: 1.0",
        "Generator: posviz",
        "Root-Is-Purelib: true",
        "Tag: py3-none-any",
    ]
    body = dict(files)
    body[f"{dist_info}/METADATA"] = ("\n".join(metadata) + "\n").encode()
    body[f"{dist_info}/WHEEL"] = ("\n".join(wheel) + "\n").encode()
    out = Path(dest_dir) / f"{escaped}-{version}-py3-none-any.whl"
    return write_wheel_archive(out, dist_info, body)


def wheel_dist_info(names: list[str], wheel: Path) -> str:
    """The one ``.dist-info`` folder among a wheel's archive ``names``."""
    tops = {n.split("/", 1)[0] for n in names if n.split("/", 1)[0].endswith(".dist-info")}
    if len(tops) != 1:
        raise WheelError(f"{wheel.name}: expected one .dist-info folder, found {sorted(tops)}")
    return tops.pop()


def slim_wheel(src: Path, dest_dir: Path) -> Path:
    """Rewrite wheel ``src`` into ``dest_dir`` without files Pyodide never reads.

    What goes (or is emptied) is ``SLIM_RULES``; RECORD is regenerated and the archive written
    deterministically (same input, byte-identical output).
    """
    src = Path(src)
    dist_name = str(parse_wheel_filename(src.name)[0])
    rules = [SLIM_RULES["*"]] + ([SLIM_RULES[dist_name]] if dist_name in SLIM_RULES else [])
    with zipfile.ZipFile(src) as zf:
        names = [i.filename for i in zf.infolist() if not i.is_dir()]
        dist_info = wheel_dist_info(names, src)
        actions = {n: _slim_action(n, rules) for n in names}
        kept = {n: zf.read(n) for n, a in actions.items() if a == "keep"}
        kept.update({n: b"" for n, a in actions.items() if a == "stub"})
    return write_wheel_archive(Path(dest_dir) / src.name, dist_info, kept)


# --- collecting wheels --------------------------------------------------------


def _pip(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> None:
    system.run([sys.executable, "-m", "pip", *args], cwd, WheelError, env=env)


def _patch_markupsafe(src_dir: Path) -> None:
    """Switch the C speedups off; markupsafe falls back to ``_native``."""
    setup = src_dir / "setup.py"
    text = setup.read_text(encoding="utf-8")
    prefix = "supports_speedups = "
    needle = prefix + "platform.python_implementation()"
    if needle not in text:
        raise WheelError(
            f"{setup}: expected the line `{needle} ...` to switch speedups off; this "
            "markupsafe version changed its setup.py, adapt `_patch_markupsafe`"
        )
    setup.write_text(text.replace(needle, prefix + "False and " + needle[len(prefix) :], 1))


@dataclass(frozen=True)
class SdistBuild:
    """A package with only platform wheels on PyPI, built pure from its sdist."""

    patch: Callable[[Path], None] | None = None
    env: tuple[tuple[str, str], ...] = ()


SDIST_BUILDS: dict[str, SdistBuild] = {
    "markupsafe": SdistBuild(patch=_patch_markupsafe),
    "pyyaml": SdistBuild(env=(("PYYAML_FORCE_LIBYAML", "0"),)),
}


def _pin_of(name: str, table: dict) -> tuple[str, str, bool]:
    """(version, sha256 of the wheel, built from an sdist?) for ``name``."""
    if name in table["sdists"]:
        pin = table["sdists"][name]
        return pin["version"], pin["wheel_sha256"], True
    if name in table["wheels"]:
        pin = table["wheels"][name]
        return pin["version"], pin["sha256"], False
    raise WheelError(f"{name!r}: not pinned; add its version and sha256 to {pins.PINS_FILE}")


def _check_pure(wheel: Path, name: str, version: str) -> None:
    try:
        found, found_version, _, tags = parse_wheel_filename(wheel.name)
    except InvalidWheelFilename as exc:
        raise WheelError(f"{wheel.name}: not a wheel file name ({exc})") from None
    if found != name or str(found_version) != version:
        raise WheelError(f"{wheel.name}: expected {name} {version}")
    if not any(t.interpreter == "py3" and t.abi == "none" and t.platform == "any" for t in tags):
        tag = "-".join(wheel.name[: -len(".whl")].split("-")[-3:])
        raise WheelError(
            f"{wheel.name}: expected a pure py3-none-any wheel, found {tag}; "
            "Pyodide cannot load platform wheels from PyPI"
        )
    with zipfile.ZipFile(wheel) as zf:
        binaries = [n for n in zf.namelist() if n.endswith((".so", ".pyd", ".dylib", ".dll"))]
    if binaries:
        raise WheelError(f"{wheel.name}: tagged pure but contains binaries {binaries[:3]}")


def _hashed(work: Path, name: str, version: str, sha256: str) -> str:
    """A requirements file that pins ``name`` by hash, for ``pip --require-hashes``."""
    path = work / f"{name}.txt"
    path.write_text(f"{name}=={version} --hash=sha256:{sha256}\n", "utf-8")
    return str(path)


def _build_from_sdist(name: str, version: str, table: dict, work: Path) -> Path:
    """Build the pure wheel of ``name`` from its pinned sdist with pinned build requirements.

    The build requirements are installed first, by hash, and every later step
    runs without build isolation against them: even ``pip download`` of an sdist
    runs its metadata step, which in an isolated environment would install
    whatever the sdist asks for (pyyaml: any Cython), unpinned.
    """
    build = SDIST_BUILDS[name]
    requirements = work / "build-requirements.txt"
    requirements.write_text(
        "".join(
            f"{req}=={pin['version']} --hash=sha256:{pin['sha256']}\n"
            for req, pin in sorted(table["build_requirements"].items())
        ),
        "utf-8",
    )
    _pip(
        [
            "install",
            "--no-deps",
            "--only-binary=:all:",
            "--require-hashes",
            "-r",
            str(requirements),
            "--target",
            "build-env",
        ],
        work,
    )
    env = {
        **dict(build.env),
        "PYTHONPATH": str(work / "build-env"),
        "SOURCE_DATE_EPOCH": _SOURCE_DATE_EPOCH,
    }
    # --no-binary for this package only: `:all:` would also refuse the pinned setuptools wheel.
    _pip(
        [
            "download",
            "--no-deps",
            "--no-build-isolation",
            f"--no-binary={name}",
            "--require-hashes",
            "-r",
            _hashed(work, name, version, table["sdists"][name]["sha256"]),
            "-d",
            "sdist",
        ],
        work,
        env,
    )
    (sdist,) = (work / "sdist").iterdir()
    with tarfile.open(sdist) as tar:
        tar.extractall(work / "src", filter="data")
    (src_dir,) = (work / "src").iterdir()
    if build.patch:
        build.patch(src_dir)
    _pip(["wheel", "--no-deps", "--no-build-isolation", str(src_dir), "-w", "built"], work, env)
    (wheel,) = (work / "built").glob("*.whl")
    return wheel


def _fetch_raw_wheel(name: str, version: str, python: str, table: dict, raw_dir: Path) -> Path:
    """Download (or build from its sdist) the pinned pure wheel of ``name`` into ``raw_dir``."""
    raw_dir.mkdir(parents=True, exist_ok=True)
    version, sha256, from_sdist = _pin_of(name, table)
    with tempfile.TemporaryDirectory(prefix="posviz-wheel-") as tmp:
        work = Path(tmp)
        if from_sdist:
            with progress.fetching(f"building {name} {version} from its sdist on PyPI", work):
                wheel = _build_from_sdist(name, version, table, work)
        else:
            # pip downloads into a temporary folder first: in ``work``, so its bytes can be shown.
            temporary = work / "pip-tmp"
            temporary.mkdir()
            with progress.fetching(f"fetching {name} {version} from PyPI", work):
                _pip(
                    [
                        "download",
                        "--no-deps",
                        "--only-binary=:all:",
                        "--python-version",
                        python,
                        "--platform",
                        "any",
                        "--implementation",
                        "py",
                        "--require-hashes",
                        "-r",
                        _hashed(work, name, version, sha256),
                        "-d",
                        "dl",
                    ],
                    work,
                    {"TMPDIR": str(temporary)},
                )
            (wheel,) = (work / "dl").glob("*.whl")
        try:  # the pin first: no archive is opened before its bytes are the pinned ones
            pins.check(wheel, sha256, f"{name} {version}")
        except pins.PinError as error:
            how = "built from its pinned sdist" if from_sdist else "downloaded"
            raise WheelError(f"{how}: {error}") from None
        _check_pure(wheel, name, version)
        out = raw_dir / wheel.name
        system.write_atomic(out, wheel.read_bytes())
    return out


def _cached(directory: Path, name: str, version: str) -> Path | None:
    if not directory.is_dir():
        return None
    for wheel in sorted(directory.glob(f"*-{version}-*.whl")):
        try:
            found, found_version, _, _ = parse_wheel_filename(wheel.name)
        except InvalidWheelFilename:
            continue
        if found == name and str(found_version) == version:
            return wheel
    return None


def raw_wheel(name: str, python: str, cache_root: Path | None = None, table: dict | None = None):
    """The pinned wheel of ``name`` as published (or built), from the cache when it verifies.

    A cached copy whose sha256 is not the pinned one is reported, deleted and
    fetched again.
    """
    table = table if table is not None else pins.PINS
    name = str(canonicalize_name(name))
    version, sha256, _ = _pin_of(name, table)
    root = Path(cache_root) if cache_root is not None else default_cache_root()
    raw_dir = root / f"wheels-py{python.replace('.', '')}" / "raw"
    cached = _cached(raw_dir, name, version)
    if cached is not None:
        if pins.matches(cached, sha256):
            return cached
        print(
            f"posviz: cached {cached} does not match its pin in {pins.PINS_FILE}; fetching again",
            file=sys.stderr,
        )
        cached.unlink()
    return _fetch_raw_wheel(name, version, python, table, raw_dir)


def collect_pure_wheels(
    dest: Path,
    python: str,
    cache_root: Path | None = None,
    names: list[str] | None = None,
    table: dict | None = None,
) -> list[Path]:
    """Slimmed pinned pure wheels for Python ``python`` (e.g. ``3.12``) in ``dest``.

    ``names``: default every wheel pinned in ``table`` (default pins.json).
    Downloads are cached under ``cache_root/wheels-py312/raw/`` and checked
    against their pins on every use. A slimmed wheel is kept under the sha256
    of the raw wheel's bytes and of this module (``slim/``), so what is reused
    is exactly what slimming those bytes gives.
    """
    table = table if table is not None else pins.PINS
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    wanted = names if names is not None else [*table["wheels"], *table["sdists"]]
    root = Path(cache_root) if cache_root is not None else default_cache_root()
    slim_dir = root / f"wheels-py{python.replace('.', '')}" / "slim"
    return [
        slim_remembered(raw_wheel(name, python, cache_root, table), dest, slim_dir)
        for name in sorted(str(canonicalize_name(n)) for n in wanted)
    ]


SLIMMER = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()
# What else shapes a slimmed wheel's bytes: the zip writer and the zlib under it.
ZIP_WRITER = f"{sys.version} zlib {zlib.ZLIB_RUNTIME_VERSION}"


def slim_remembered(src: Path, dest_dir: Path, slim_dir: Path) -> Path:
    """``slim_wheel(src, dest_dir)``, from ``slim_dir`` when these bytes were slimmed before.

    Each kept wheel has its sha256 beside it (``sha256``, in the same folder,
    which appears whole); one that differs is a miss, with a warning.
    """
    key = hashlib.sha256(f"{SLIMMER} {ZIP_WRITER} ".encode() + Path(src).read_bytes()).hexdigest()
    kept = slim_dir / key[:32]
    found = _kept_slim(kept)
    if found is not None:
        target = Path(dest_dir) / found.name
        target.write_bytes(found.read_bytes())
        return target
    made = slim_wheel(src, dest_dir)
    partial = slim_dir / f"{key[:32]}.{os.getpid()}.partial"
    partial.mkdir(parents=True, exist_ok=True)
    (partial / made.name).write_bytes(made.read_bytes())
    (partial / "sha256").write_text(pins.sha256_file(made), "utf-8")
    try:
        partial.replace(kept)  # whole or not at all, even with two builds at once
    except OSError:  # another build kept it first
        shutil.rmtree(partial, ignore_errors=True)
    return made


def _kept_slim(kept: Path) -> Path | None:
    """The slimmed wheel in ``kept`` when it has the sha256 kept beside it, else None.

    A damaged entry is reported in one line and removed, so it is slimmed again.
    """
    if not kept.is_dir():
        return None
    found = sorted(kept.glob("*.whl"))
    recorded = kept / "sha256"
    if len(found) == 1 and recorded.is_file():
        if pins.sha256_file(found[0]) == recorded.read_text("utf-8").strip():
            return found[0]
    print(
        f"posviz: cached slimmed wheel {kept} does not match its sha256; slimming it again",
        file=sys.stderr,
    )
    shutil.rmtree(kept, ignore_errors=True)
    return None
