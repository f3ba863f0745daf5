"""Bytecode compiled ahead of time, by the Pyodide the site ships, for its wheels.

Importing panel, holoviews and bokeh from source costs the reader seconds:
Python compiles every module on the way. The build runs the site's own
Pyodide under Node.js once, compiles each module to an unchecked-hash
``.pyc`` (valid without its source), and rewrites the wheels: third-party
modules become sourceless ``.pyc`` files, as in Pyodide's own packages;
posviz keeps its sources beside the bytecode, for readable tracebacks.
Results are cached by wheel content. Without Node.js the build keeps the
source-only wheels and says so.
"""

import hashlib
import json
import shutil
import subprocess
import tempfile
import zipfile
from pathlib import Path

from posviz.build.wheels import _wheel_dist_info, _write_wheel_archive

SITE_PACKAGES = "/lib/python3.12/site-packages"
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
COMPILE = """
import importlib._bootstrap_external as external
import json, os, zipfile
from importlib.util import source_hash

report = {}
for wheel in sorted(os.listdir("/work/in")):
    compiled = skipped = 0
    with zipfile.ZipFile(f"/work/in/{wheel}") as archive:
        for name in sorted(archive.namelist()):
            if not name.endswith(".py") or ".dist-info/" in name:
                continue
            source = archive.read(name)
            try:
                code = compile(source, f"%(site)s/{name}", "exec", dont_inherit=True)
            except SyntaxError:
                skipped += 1
                continue
            target = f"/work/out/{wheel}/{name}c"
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "wb") as out:
                out.write(external._code_to_hash_pyc(code, source_hash(source), checked=False))
            compiled += 1
    report[wheel] = [compiled, skipped]
with open("/work/report.json", "w") as out:
    json.dump(report, out)
"""


def node_available() -> bool:
    return shutil.which("node") is not None


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:20]


def _rewrite(wheel: Path, compiled: Path, dest: Path) -> Path:
    """``wheel`` with its modules replaced (or joined) by the compiled ones."""
    with zipfile.ZipFile(wheel) as archive:
        files = {name: archive.read(name) for name in archive.namelist() if not name.endswith("/")}
    dist_info = _wheel_dist_info(list(files), wheel)
    keep_source = wheel.name.split("-")[0] in KEEP_SOURCE
    for pyc in sorted(compiled.rglob("*.pyc")):
        name = pyc.relative_to(compiled).as_posix()[:-1]  # the .py it came from
        if keep_source:
            folder, _, module = name.rpartition("/")
            files[f"{folder}/__pycache__/{module[:-3]}.cpython-312.pyc"] = pyc.read_bytes()
        else:
            del files[name]
            files[name + "c"] = pyc.read_bytes()
    return _write_wheel_archive(dest / wheel.name, dist_info, files)


def compile_wheels(wheels: list[Path], dist: Path, cache: Path) -> tuple[list[Path], dict]:
    """The wheels with bytecode (from ``cache`` when seen before), and what was done."""
    cache.mkdir(parents=True, exist_ok=True)
    keyed = {wheel: cache / _digest(wheel) / wheel.name for wheel in wheels}
    todo = [wheel for wheel, done in keyed.items() if not done.exists()]
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
                    "python": json.dumps(COMPILE % {"site": SITE_PACKAGES}),
                },
                "utf-8",
            )
            result = subprocess.run(
                ["node", str(script), str(dist), str(work)], capture_output=True, text=True
            )
            if result.returncode:
                tail = (result.stderr or result.stdout)[-2000:]
                raise RuntimeError(f"compiling bytecode in Pyodide failed:\n{tail}")
            report["modules"] = json.loads((work / "report.json").read_text())
            for wheel in todo:
                target = keyed[wheel].parent
                target.mkdir(parents=True, exist_ok=True)
                _rewrite(wheel, work / "out" / wheel.name, target)
    return [keyed[wheel] for wheel in wheels], report
