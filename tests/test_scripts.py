"""The browser code is ES modules; each shipped script is one bundle (posviz.assets.bundle).

A script that can run before the page's other scripts (the frames script is async
and sits before the connect script; a worker is a scope of its own) must carry
every module it uses. Stop 42's CI caught the frames script reading a module's
global from the connect script, which a second page with the frames script in its
memory cache had not run yet: the frames never started, and neither did Python.
Now a module is reached only by ``import``, and the bundle carries what is
imported: the tests below hold the bundler to that, run its output in Node, and
check that no source reads a module through the window any more.
"""

import importlib
import re
import shutil
import subprocess

import pytest

from posviz import assets
from posviz.export import scripts

# Globals that are not modules: the page's state, set by scripts that run earlier
# or later and read only when they are there (the worker, the URL gate, the frames'
# own state, the file-page frame files, the paint poll, the runtime's news).
STATE = {
    "posvizWorker",
    "posvizGate",
    "posvizFrames",
    "posvizFrameFiles",
    "posvizPaint",
    "posvizRuntime",
    "posvizLazy",
    "posvizLazyOff",
    "posvizPanel",
    "posvizNeedPanel",
    "posvizOffline",
    "posvizLiveMs",
    "posvizFilled",
    "posvizTimings",
    "posvizIdOrder",
}
GLOBAL = re.compile(r"(?<!dataset\.)\b([Pp]osviz[A-Z]\w*)\b")  # data-posviz-* are attributes
SOURCES = {
    package: sorted(
        path.name
        for path in importlib.resources.files(package).iterdir()
        if path.name.endswith(".js") and not path.name.startswith("panel_")
    )
    for package in ("posviz.export", "posviz.compose")
}
FILLS = {"worker.js": {"SITE": "{}"}, "sw.js": {"OFFLINE": '{"files": {}, "build": "b"}'}}


def node() -> str:
    found = shutil.which("node")
    assert found, "Node is missing: ./dev test installs it (apt-get nodejs)"
    return found


def run(script: str) -> str:
    done = subprocess.run(
        [node(), "-e", script], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


@pytest.mark.parametrize(("package", "name"), [(p, n) for p, ns in SOURCES.items() for n in ns])
def test_no_module_is_read_through_a_global(package, name):
    """What one file uses of another it imports; the window holds only the page's state."""
    read = set(GLOBAL.findall(assets.source(package, name))) - STATE
    assert not read, f"{package}/{name} reads {sorted(read)}: import the module instead"


@pytest.mark.parametrize("entry", scripts.ENTRIES)
def test_every_shipped_script_is_one_classic_script(entry, tmp_path):
    """No import or export is left in it, and Node parses it as a script."""
    text = scripts.bundled(entry, **FILLS.get(entry, {}))
    assert not re.search(r"^\s*(import|export)\b(?!\s*\()", text, re.M)
    (tmp_path / "bundle.cjs").write_text(text, "utf-8")
    done = subprocess.run([node(), "--check", str(tmp_path / "bundle.cjs")], capture_output=True)
    assert done.returncode == 0, done.stderr.decode()[-2000:]


# --- the bundler, on a package of the test's own -------------------------------------


class Package:
    """A package of the test's own, new for each test (``assets.source`` caches by name)."""

    made = 0

    def __init__(self, folder):
        Package.made += 1
        self.name = f"jsbundle_case_{Package.made}"
        self.root = folder / self.name
        self.root.mkdir()
        (self.root / "__init__.py").write_text("", "utf-8")

    def __call__(self, name: str, text: str) -> None:
        (self.root / name).write_text(text, "utf-8")


@pytest.fixture
def package(tmp_path, monkeypatch):
    """A package in ``tmp_path``; ``package(name, text)`` adds a file."""
    monkeypatch.syspath_prepend(str(tmp_path))
    made = Package(tmp_path)
    importlib.invalidate_caches()
    return made


def test_imports_and_exports_as_written(package):
    package(
        "counter.js",
        "let count = 0; // private to the module\n"
        "export function next() { count += 1; return count; }\n"
        "export const START = 0;\n",
    )
    package(
        "names.js",
        'import {next as bump} from "./counter.js";\n'
        "const count = 'names have their own top level';\n"
        "function shout(text) { return `${text}!`; }\n"
        "export {shout, bump, count};\n",
    )
    package(
        "main.js",
        'import * as Counter from "./counter.js";\n'
        'import {shout, bump, count} from "./names.js";\n'
        "console.log(JSON.stringify([Counter.next(), bump(), Counter.START, shout(__WORD__),"
        " count, typeof next]));\n",
    )
    text = assets.bundle(package.name, "main.js", WORD='"hi"')
    # counter.js is made once, though two modules import it: one count, 1 then 2.
    assert text.count("let count = 0") == 1
    assert run(text).strip() == ('[1,2,0,"hi!","names have their own top level","undefined"]')


def test_a_module_object_is_an_expression(package):
    package("grammar.js", "export const A = 1;\nexport function twice(x) { return 2 * x; }\n")
    made = assets.module_object(package.name, "grammar.js")
    assert run(f"const G = {made};\nconsole.log(G.twice(G.A), Object.keys(G).join());") == (
        "2 A,twice\n"
    )


@pytest.mark.parametrize(
    ("files", "message"),
    [
        ({"main.js": "export default 1;\n"}, r"main\.js:1: an import or export .*export default"),
        (
            {"main.js": "const a = 1;\nimport {\n  x,\n} from './x.js';\n"},
            r"main\.js:2: an import or export posviz's bundles cannot take",
        ),
        (
            {"main.js": 'import {x} from "../other/x.js";\n'},
            r"main\.js:1: an import or export",
        ),
        ({"main.js": 'import {x} from "./gone.js";\n'}, r"main\.js:1: imports gone\.js, which"),
        (
            {"main.js": 'import {y} from "./x.js";\n', "x.js": "export const x = 1;\n"},
            r"main\.js:1: x\.js does not export y",
        ),
        (
            {
                "main.js": 'import {a} from "./a.js";\n',
                "a.js": 'import {b} from "./b.js";\nexport const a = b;\n',
                "b.js": 'import {a} from "./a.js";\nexport const b = 1;\n',
            },
            r"imports form a cycle: a\.js → b\.js → a\.js",
        ),
        ({"main.js": "const a = 1;\nexport {a as b};\n"}, r"main\.js:2: export a name as itself"),
        (
            {"main.js": 'import {x} from "./x.js";\n', "x.js": "export const x = __X__;\n"},
            r"x\.js: an imported module takes no placeholders \(X\)",
        ),
        ({"other.js": "export const x = 1;\n"}, r"/main\.js: no such module$"),
    ],
    ids=[
        "default",
        "multi-line",
        "outside",
        "missing file",
        "missing name",
        "cycle",
        "renamed",
        "placeholder",
        "no entry",
    ],
)
def test_what_the_bundler_cannot_take_is_named_with_file_and_line(package, files, message):
    for name, text in files.items():
        package(name, text)
    with pytest.raises(assets.AssetError, match=message):
        assets.bundle(package.name, "main.js")
