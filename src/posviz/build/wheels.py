"""Pure-Python wheels for the Pyodide side of a static site (Python 3.12).

The compiled packages (numpy, pandas, ...) come from the Pyodide distribution
(`posviz.build.distribution`); everything else the site imports is a pure
`py3-none-any` wheel collected here, slimmed of what a browser never reads, and
written deterministically so the same input gives byte-identical output.

Stdlib only: this module runs before (and without) panel or numpy.
"""

from __future__ import annotations

import base64
import csv
import fnmatch
import hashlib
import io
import json
import logging
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .distribution import default_cache_root

__all__ = [
    "PURE_PINS",
    "SLIM_RULES",
    "WheelError",
    "collect_pure_wheels",
    "slim_wheel",
    "write_wheel",
]

log = logging.getLogger(__name__)

PYTHON_VERSION = "3.12"  # Pyodide 0.27.7 runs CPython 3.12.7

# What the page imports to render panel + holoviews figures with markdown text,
# pinned to the versions in the development environment.  Found by importing
# panel/holoviews/bokeh, rendering curves, images and a Markdown pane, and
# listing sys.modules.  Left out on purpose, though declared by panel or bokeh:
# tornado (skipped on emscripten), xyzservices (tile sources only), tqdm (panel
# imports it in a try), nh3 (HTML sanitising only), requests, typing-extensions,
# panel-material-ui (never imported).  numpy, pandas, packaging & co come from
# the Pyodide lock.
PURE_PINS: dict[str, str] = {
    "bokeh": "3.9.2",
    "colorcet": "3.2.1",
    "holoviews": "1.23.2",
    "jinja2": "3.1.6",
    "linkify-it-py": "2.2.0",
    "markdown": "3.11.3",
    "markdown-it-py": "4.3.0",
    "markupsafe": "3.0.4",
    "mdit-py-plugins": "0.7.0",
    "mdurl": "0.1.2",
    "narwhals": "2.29.0",
    "panel": "1.9.4",
    "param": "2.4.2",
    "pyodide-http": "0.2.2",  # present, panel skips importing pandas in Pyodide
    "pyviz-comms": "3.0.6",
    "pyyaml": "6.0.4",
}


class WheelError(Exception):
    """A wheel could not be collected, built, or is not what Pyodide can use."""


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _escaped(name: str) -> str:
    """Distribution name as it appears in wheel file names (PEP 427 / 491)."""
    return re.sub(r"[-_.]+", "_", name).lower()


# ------------------------------------------------------------------ slimming rules


@dataclass(frozen=True)
class SlimRule:
    """Which files of a wheel Pyodide never reads.

    `drop`: removed.  `stub`: kept as empty files, for code that only tests a
    file's existence.  `keep`: exempt from both.  Patterns are `fnmatch`
    patterns over the whole archive path; `*` also crosses `/`.
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


def _rules_fingerprint() -> str:
    text = json.dumps({k: [r.drop, r.stub, r.keep] for k, r in sorted(SLIM_RULES.items())})
    return hashlib.sha256(text.encode()).hexdigest()[:10]


def _slim_action(path: str, rules: list[SlimRule]) -> str:
    """'keep', 'stub' or 'drop' for archive `path`."""
    if path.split("/", 1)[0].endswith(".dist-info"):
        return "keep"  # metadata always stays

    def matches(attr: str) -> bool:
        return any(fnmatch.fnmatchcase(path, p) for r in rules for p in getattr(r, attr))

    if matches("keep"):
        return "keep"
    if matches("stub"):
        return "stub"
    return "drop" if matches("drop") else "keep"


# --------------------------------------------------------------- wheel writing


_ZIP_DATE = (1980, 1, 1, 0, 0, 0)
# Signatures over RECORD stop being valid once RECORD is rewritten.
_INVALIDATED = ("RECORD", "RECORD.jws", "RECORD.p7s")


def _record_hash(data: bytes) -> str:
    digest = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def _write_wheel_archive(path: Path, dist_info: str, files: dict[str, bytes]) -> Path:
    """Write `files` plus a fresh RECORD as a deterministic zip at `path`.

    Entries sorted, package files before `.dist-info`, RECORD last; fixed
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
    tmp = _temp_beside(path)
    with zipfile.ZipFile(tmp, "w") as zf:
        for name in order:
            info = zipfile.ZipInfo(name, date_time=_ZIP_DATE)
            # empty stubs stored: deflating nothing still costs bytes
            info.compress_type = zipfile.ZIP_DEFLATED if body[name] else zipfile.ZIP_STORED
            info.create_system = 3
            info.external_attr = 0o100644 << 16
            zf.writestr(info, body[name], compresslevel=9)
    os.replace(tmp, path)
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
    """Build a deterministic pure `py3-none-any` wheel from in-memory `files`.

    `files` maps archive paths (e.g. `posviz/__init__.py`) to contents;
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
    return _write_wheel_archive(out, dist_info, body)


def _wheel_dist_info(names: list[str], wheel: Path) -> str:
    tops = {n.split("/", 1)[0] for n in names if n.split("/", 1)[0].endswith(".dist-info")}
    if len(tops) != 1:
        raise WheelError(f"{wheel.name}: expected one .dist-info folder, found {sorted(tops)}")
    return tops.pop()


def slim_wheel(src: Path, dest_dir: Path) -> Path:
    """Rewrite wheel `src` into `dest_dir` without files Pyodide never reads.

    What goes (or is emptied) is `SLIM_RULES`; RECORD is regenerated and the archive written
    deterministically (same input, byte-identical output).
    """
    src = Path(src)
    dist_name = _canonical(src.name.split("-", 1)[0])
    rules = [SLIM_RULES["*"]] + ([SLIM_RULES[dist_name]] if dist_name in SLIM_RULES else [])
    with zipfile.ZipFile(src) as zf:
        names = [i.filename for i in zf.infolist() if not i.is_dir()]
        dist_info = _wheel_dist_info(names, src)
        actions = {n: _slim_action(n, rules) for n in names}
        kept = {n: zf.read(n) for n, a in actions.items() if a == "keep"}
        kept.update({n: b"" for n, a in actions.items() if a == "stub"})
    out = _write_wheel_archive(Path(dest_dir) / src.name, dist_info, kept)
    log.info(
        "slimmed %s: %d files, %d dropped, %d emptied; %.2f -> %.2f MB",
        src.name,
        len(names),
        list(actions.values()).count("drop"),
        list(actions.values()).count("stub"),
        src.stat().st_size / 1e6,
        out.stat().st_size / 1e6,
    )
    return out


# ------------------------------------------------------------ collecting wheels


def _pip(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> None:
    cmd = [sys.executable, "-m", "pip", *args]
    started = time.perf_counter()
    try:
        subprocess.run(
            cmd,
            cwd=cwd,
            check=True,
            capture_output=True,
            text=True,
            env={**os.environ, **(env or {})},
        )
    except subprocess.CalledProcessError as exc:
        raise WheelError(
            f"`{' '.join(cmd)}` failed (exit {exc.returncode}):\n{exc.stderr.strip()}"
        ) from None
    log.info("pip %s (%.1f s)", " ".join(args), time.perf_counter() - started)


def _patch_markupsafe(src_dir: Path) -> None:
    """Switch the C speedups off; markupsafe falls back to `_native`."""
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


def _parse_requirement(req: str) -> tuple[str, str]:
    name, sep, version = req.partition("==")
    name = _canonical(name.strip())
    if not sep:
        if name not in PURE_PINS:
            raise WheelError(
                f"{req!r}: no version given and not in PURE_PINS; write it as NAME==VERSION"
            )
        version = PURE_PINS[name]
    return name, version.strip()


def _check_pure(wheel: Path, name: str, version: str) -> None:
    parts = wheel.name[: -len(".whl")].split("-")
    if _canonical(parts[0]) != name or parts[1] != version:
        raise WheelError(f"{wheel.name}: expected {name} {version}")
    py, abi, platform = parts[-3:]
    if "py3" not in py.split(".") or abi != "none" or platform != "any":
        raise WheelError(
            f"{wheel.name}: expected a pure py3-none-any wheel, found {py}-{abi}-{platform}; "
            "Pyodide cannot load platform wheels from PyPI"
        )
    with zipfile.ZipFile(wheel) as zf:
        binaries = [n for n in zf.namelist() if n.endswith((".so", ".pyd", ".dylib", ".dll"))]
    if binaries:
        raise WheelError(f"{wheel.name}: tagged pure but contains binaries {binaries[:3]}")


def _fetch_raw_wheel(name: str, version: str, raw_dir: Path) -> Path:
    """Download (or build from its sdist) the pure wheel for name==version into `raw_dir`."""
    raw_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="posviz-wheel-") as tmp:
        work = Path(tmp)
        spec = f"{name}=={version}"
        if name in SDIST_BUILDS:
            build = SDIST_BUILDS[name]
            # --no-binary for this package only: `:all:` would also build the
            # backend's own requirements (setuptools, Cython) from source.
            _pip(["download", "--no-deps", f"--no-binary={name}", spec, "-d", "sdist"], work)
            (sdist,) = (work / "sdist").iterdir()
            with tarfile.open(sdist) as tar:
                tar.extractall(work / "src", filter="data")
            (src_dir,) = (work / "src").iterdir()
            if build.patch:
                build.patch(src_dir)
            _pip(["wheel", "--no-deps", str(src_dir), "-w", "built"], work, env=dict(build.env))
            (wheel,) = (work / "built").glob("*.whl")
        else:
            _pip(
                [
                    "download",
                    "--no-deps",
                    "--only-binary=:all:",
                    "--python-version",
                    PYTHON_VERSION,
                    "--platform",
                    "any",
                    "--implementation",
                    "py",
                    spec,
                    "-d",
                    "dl",
                ],
                work,
            )
            (wheel,) = (work / "dl").glob("*.whl")
        _check_pure(wheel, name, version)
        out = raw_dir / wheel.name
        shutil.move(wheel, work / "checked.whl")
        os.replace(shutil.copyfile(work / "checked.whl", _temp_beside(out)), out)
    return out


def _temp_beside(path: Path) -> Path:
    """A fresh file next to `path`, so concurrent builds never share a temp name."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".part")
    os.close(fd)
    os.chmod(tmp, 0o644)  # mkstemp's 0600 would follow the file into the site
    return Path(tmp)


def _cached(directory: Path, name: str, version: str) -> Path | None:
    if not directory.is_dir():
        return None
    for wheel in sorted(directory.glob(f"*-{version}-*.whl")):
        if _canonical(wheel.name.split("-", 1)[0]) == name:
            return wheel
    return None


def collect_pure_wheels(
    requirements: list[str] | None,
    dest: Path,
    cache_root: Path | None = None,
) -> list[Path]:
    """Slimmed pure wheels for `requirements` (default: all of `PURE_PINS`) in `dest`.

    Each requirement is `NAME==VERSION` or a bare name pinned by `PURE_PINS`.
    Downloads and slimmed copies are cached under `cache_root/wheels-py312/`,
    so a second run calls no pip.
    """
    root = Path(cache_root) if cache_root is not None else default_cache_root()
    cache = root / f"wheels-py{PYTHON_VERSION.replace('.', '')}"
    raw_dir, slim_dir = cache / "raw", cache / f"slim-{_rules_fingerprint()}"
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    reqs = requirements if requirements is not None else [f"{n}=={v}" for n, v in PURE_PINS.items()]

    out = []
    for name, version in sorted(_parse_requirement(r) for r in reqs):
        slim = _cached(slim_dir, name, version)
        if slim is None:
            raw = _cached(raw_dir, name, version) or _fetch_raw_wheel(name, version, raw_dir)
            slim = slim_wheel(raw, slim_dir)
        target = dest / slim.name
        os.replace(shutil.copyfile(slim, _temp_beside(target)), target)
        out.append(target)
    return out
