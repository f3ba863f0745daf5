"""Bytecode compiled ahead of time, by the Pyodide the site ships, for its wheels.

Importing panel, holoviews and bokeh from source costs the reader seconds:
Python compiles every module on the way. The build runs the site's own
Pyodide under Node.js once, compiles each module to an unchecked-hash
``.pyc`` (valid without its source), and rewrites the wheels: third-party
modules become sourceless ``.pyc`` files, as in Pyodide's own packages;
posviz keeps its sources beside the bytecode, for readable tracebacks.
Builds are byte-identical, so each compiled third-party wheel is pinned by
sha256 in ``pins.json`` ("bytecode"). Those are cached by wheel content and
checked against their pin on every use (a cached copy that differs is compiled
again); a fresh compile that differs from its pin stops the build. A wheel
with no pin (posviz's own code; the build adds the content after) is kept
under a key of its sha256 and the Pyodide lock, with the sha256 of what was
compiled beside it, and compiled afresh when either differs.
Without Node.js the build keeps the source-only wheels and says so.

The Python version (site-packages path, ``.pyc`` tag) is the lock's.
"""

import json
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from posviz.export import distribution, pins
from posviz.export.wheels import wheel_dist_info, write_wheel_archive

KEEP_SOURCE = ("posviz",)

NODE_SCRIPT = """
import { loadPyodide } from %(module)s;
const [dist, work] = process.argv.slice(2);
const py = await loadPyodide({ indexURL: dist + "/" });
py.FS.mkdirTree("/work");
py.FS.mount(py.FS.filesystems.NODEFS, { root: work }, "/work");
py.runPython(%(python)s);
"""

# Runs inside Pyodide: compile every .py of every wheel in /work/in to /work/out.
# Sources are unpacked to Pyodide's in-memory /tmp, as py_compile reads files.
COMPILE = """
import json, os, py_compile, zipfile

report = {}
for wheel in sorted(os.listdir("/work/in")):
    compiled = skipped = 0
    with zipfile.ZipFile(f"/work/in/{wheel}") as archive:
        for name in sorted(archive.namelist()):
            if not name.endswith(".py") or ".dist-info/" in name:
                continue
            source = f"/tmp/src/{wheel}/{name}"
            os.makedirs(os.path.dirname(source), exist_ok=True)
            with open(source, "wb") as out:
                out.write(archive.read(name))
            try:
                py_compile.compile(
                    source,
                    cfile=f"/work/out/{wheel}/{name}c",
                    dfile=f"%(site)s/{name}",
                    doraise=True,
                    invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH,
                )
            except py_compile.PyCompileError:
                skipped += 1
                continue
            compiled += 1
    report[wheel] = [compiled, skipped]
with open("/work/report.json", "w") as out:
    json.dump(report, out)
"""


class BytecodeError(RuntimeError):
    """Pyodide under Node.js could not compile the wheels."""


def node_available() -> bool:
    """Whether Node.js is on PATH (it runs Pyodide at build time)."""
    return shutil.which("node") is not None


def site_packages(python: str) -> str:
    """Where Pyodide installs wheels, for Python ``major.minor``."""
    return f"/lib/python{python}/site-packages"


def _rewrite(wheel: Path, compiled: Path, dest: Path, python: str) -> Path:
    """``wheel`` with its modules replaced (or joined) by the compiled ones."""
    with zipfile.ZipFile(wheel) as archive:
        files = {name: archive.read(name) for name in archive.namelist() if not name.endswith("/")}
    dist_info = wheel_dist_info(list(files), wheel)
    keep_source = wheel.name.split("-")[0] in KEEP_SOURCE
    for pyc in sorted(compiled.rglob("*.pyc")):
        name = pyc.relative_to(compiled).as_posix()[:-1]  # the .py it came from
        if keep_source:
            folder, _, module = name.rpartition("/")
            tag = python.replace(".", "")
            files[f"{folder}/__pycache__/{module[:-3]}.cpython-{tag}.pyc"] = pyc.read_bytes()
        else:
            del files[name]
            files[name + "c"] = pyc.read_bytes()
    return write_wheel_archive(dest / wheel.name, dist_info, files)


def compile_wheels(
    wheels: list[Path], dist: Path, cache: Path, pinned: dict[str, str] | None = None
) -> tuple[list[Path], dict]:
    """The wheels with bytecode, and what was done.

    ``pinned`` maps a wheel's file name to the sha256 of its compiled twin (default
    pins.json's "bytecode"). A pinned twin comes from ``cache`` when it matches its
    pin; an unpinned one is compiled now and written over its source wheel.
    """
    pinned = pins.PINS["bytecode"]["wheels"] if pinned is None else pinned
    python = distribution.python_version(dist)
    cache.mkdir(parents=True, exist_ok=True)
    keyed = {
        wheel: cache / pins.sha256_file(wheel)[:20] / wheel.name if wheel.name in pinned else wheel
        for wheel in wheels
    }
    lock = pins.sha256_file(dist / "pyodide-lock.json")[:20]
    unpinned = {
        wheel: cache / "unpinned" / f"{pins.sha256_file(wheel)[:20]}-{lock}" / wheel.name
        for wheel in wheels
        if wheel.name not in pinned
    }
    for wheel, done in unpinned.items():
        if _kept_unpinned(done):
            shutil.copy2(done, wheel)
        else:
            unpinned[wheel] = None  # compiled below, then kept
    todo = [
        wheel
        for wheel, done in keyed.items()
        if (wheel.name not in pinned and wheel in unpinned and unpinned[wheel] is None)
        or (wheel.name in pinned and not _intact(done, pinned[wheel.name]))
    ]
    fresh = {wheel: pins.sha256_file(wheel)[:20] for wheel in todo if wheel.name not in pinned}
    report: dict = {"compiled_now": [w.name for w in todo]}
    if todo:
        with tempfile.TemporaryDirectory() as folder:
            work = Path(folder)
            (work / "in").mkdir()
            for wheel in todo:
                shutil.copy2(wheel, work / "in" / wheel.name)
            script = work / "compile.mjs"
            script.write_text(
                NODE_SCRIPT
                % {
                    "module": json.dumps((dist / "pyodide.mjs").as_uri()),
                    "python": json.dumps(COMPILE % {"site": site_packages(python)}),
                },
                "utf-8",
            )
            result = subprocess.run(
                ["node", str(script), str(dist), str(work)], capture_output=True, text=True
            )
            if result.returncode:
                tail = (result.stderr or result.stdout)[-2000:]
                raise BytecodeError(f"compiling bytecode in Pyodide failed:\n{tail}")
            report["modules"] = json.loads((work / "report.json").read_text())
            for wheel in todo:
                target = keyed[wheel].parent
                target.mkdir(parents=True, exist_ok=True)
                done = _rewrite(wheel, work / "out" / wheel.name, target, python)
                if wheel.name in pinned:
                    _check_fresh(done, pinned[wheel.name])
                else:
                    kept = cache / "unpinned" / f"{fresh[wheel]}-{lock}" / wheel.name
                    kept.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(done, kept)
                    kept.with_name(kept.name + ".sha256").write_text(pins.sha256_file(kept))
    return [keyed[wheel] for wheel in wheels], report


def _check_fresh(done: Path, expected: str) -> None:
    """Refuse (and remove) a wheel just compiled that is not its pinned twin."""
    try:
        pins.check(done, expected, f'{done.name} compiled, under "bytecode",')
    except pins.PinError as error:
        done.unlink()
        raise BytecodeError(
            f"{error}. Its wheel, the slimming rules or Pyodide changed; "
            "if that change is intended, pin the new sha256"
        ) from None


def _kept_unpinned(done: Path) -> bool:
    """Whether ``done`` (an unpinned compiled wheel) is there with the sha256 kept beside it.

    One that differs is reported in one line and removed: it is compiled again.
    """
    recorded = done.with_name(done.name + ".sha256")
    if not done.is_file():
        return False
    if recorded.is_file() and pins.sha256_file(done) == recorded.read_text("utf-8").strip():
        return True
    print(
        f"posviz: cached bytecode {done} does not match its sha256; compiling it again",
        file=sys.stderr,
    )
    done.unlink()
    return False


def _intact(done: Path, expected: str) -> bool:
    """Whether the cached compiled wheel ``done`` is there with its pinned sha256."""
    if not done.is_file():
        return False
    if pins.matches(done, expected):
        return True
    print(
        f"posviz: cached bytecode {done} does not match its pin in {pins.PINS_FILE}; "
        "compiling it again",
        file=sys.stderr,
    )
    done.unlink()
    return False
