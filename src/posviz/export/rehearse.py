r"""An upgrade rehearsal: which of posviz's registered seams hold in other releases.

posviz touches private parts of Panel, Bokeh, HoloViews, Param and Pyodide, each
named once in ``posviz.internals`` (Python names, browser internals, and the
anchors posviz's edits of ``panel convert``'s page need). This reads a release's
files, without installing or importing it, and says of each seam: holds, gone,
or not rehearsed (its library is not one of those given)::

    python -m posviz.export.rehearse --panel 1.10.0 --bokeh 3.10.1 --pyodide 314.0.8 \\
        --out docs/rehearsal.md

With no version, a library is rehearsed as installed (Pyodide: the pinned release
the build uses), so ``python -m posviz.export.rehearse`` says whether today's
pins hold every seam (tests/test_rehearse.py runs that). Wheels come from pip,
Pyodide's core from npm, into ``$POSVIZ_CACHE/rehearsal``.
"""

import argparse
import importlib.util
import re
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path
from typing import NamedTuple

from posviz import internals
from posviz.export import distribution

REHEARSED = ("panel", "bokeh", "holoviews", "param", "pyodide")
BROWSER_PYTHON = "3.12"  # Pyodide 0.27's; wheels are fetched for it
# posviz's edits of `panel convert`'s page that are not patches (panel_patches.toml; adapter.py
# rewrite_page): the text each needs, and the file of the release that writes it.
# (library, file, the anchor, the texts that file writes it from)
PAGE_ANCHORS = (
    ("panel", "_templates/pyodide_handler.js", "pyodideWorker.onmessage = ", None),
    (
        "bokeh",
        "resources.py",
        "https://cdn.bokeh.org/bokeh/release/",
        ('"https://cdn.bokeh.org"', '"bokeh/release"'),
    ),
)
PATCHES = ("panel_worker", "panel_roots_sort", "panel_root_ids")  # export/panel_patches.toml


class Release(NamedTuple):
    """The files of one library's release: a folder holding its package."""

    library: str
    version: str
    root: Path  # for panel and bokeh, the package folder; for Pyodide, its core files


class Finding(NamedTuple):
    """What the rehearsal found of one seam."""

    kind: str  # "python", "browser" or "page anchor"
    seam: str
    library: str
    holds: bool | None  # None: its library is not rehearsed
    note: str = ""


# --- the releases ---------------------------------------------------------------------


def installed(library: str) -> Release:
    """The release this environment runs (Pyodide: the build's pinned core files)."""
    if library == "pyodide":
        folder = distribution.default_cache_root() / f"pyodide-{distribution.PYODIDE_VERSION}"
        if not (folder / "pyodide.js").is_file():
            folder = distribution.assemble()
        return Release("pyodide", distribution.PYODIDE_VERSION, folder)
    from importlib import metadata

    folder = Path(importlib.util.find_spec(library).origin).parent
    return Release(library, metadata.version(library), folder)


def downloaded(library: str, version: str, cache: Path) -> Release:
    """``library`` ``version`` from the registry (a wheel from pip, Pyodide from npm)."""
    target = cache / f"{library}-{version}"
    if not target.is_dir():
        work = cache / f"{library}-{version}.download"
        work.mkdir(parents=True, exist_ok=True)
        if library == "pyodide":
            run(["npm", "pack", f"pyodide@{version}", "--silent"], work)
            (archive,) = work.glob("pyodide-*.tgz")
            with tarfile.open(archive) as tar:
                tar.extractall(work / "unpacked", filter="data")
            (work / "unpacked" / "package").rename(target)
        else:
            # The release as the browser gets it: for Pyodide's Python (some need 3.12).
            pip = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:"]
            pip += ["--python-version", BROWSER_PYTHON]
            run([*pip, f"{library}=={version}", "-d", str(work), "-q"], work)
            (wheel,) = work.glob("*.whl")
            with zipfile.ZipFile(wheel) as archive:
                archive.extractall(work / "unpacked")
            (work / "unpacked" / library).rename(target)
    return Release(library, version, target)


def run(command: list[str], cwd: Path) -> None:
    """``command`` in ``cwd``, or exit naming it and what it printed."""
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=600)
    if done.returncode:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise SystemExit(f"posviz rehearse: {' '.join(command[3:6])} failed: {last}")


# --- Python seams, read from source -----------------------------------------------------


def module_file(root: Path, module: str) -> Path | None:
    """The source of ``module`` inside the package folder ``root`` (its top package)."""
    inner = module.split(".")[1:]
    for candidate in (
        root.joinpath(*inner).with_suffix(".py"),
        root.joinpath(*inner, "__init__.py"),
    ):
        if candidate.is_file():
            return candidate
    return None


def defines(root: Path, module: str, owner: str, attribute: str, depth: int = 0) -> bool:
    """Whether ``module[.owner]`` defines ``attribute`` in the release at ``root``.

    Defined: a def, an assignment, ``self.attribute =`` in a method, or a base class
    (in the module, or imported into it) that defines it. Read line by line, not
    parsed: a release may use syntax newer than the Python running this (3.12's
    ``def f[**P]``).
    """
    path = module_file(root, module)
    if path is None or depth > 6:
        return False
    text = path.read_text("utf-8")
    package = path.name == "__init__.py"
    if not owner:
        return bool(
            re.search(
                rf"^(?:async )?def {attribute}\b|^class {attribute}\b|^{attribute}\s*[:=]",
                text,
                re.M,
            )
        ) or (imported_from(text, module, attribute, package) is not None)
    found = re.search(rf"^class {owner}\b(?:\[[^\]]*\])?(?:\((?P<bases>[^)]*)\))?:", text, re.M)
    if not found:
        source = imported_from(text, module, owner, package)
        return source is not None and defines(root, source, owner, attribute, depth + 1)
    body = class_body(text, found.end())
    own = rf"^\s+(?:async )?def {attribute}\b|^\s+{attribute}\s*[:=]|\bself\.{attribute}\s*[:=]"
    if re.search(own, body, re.M):
        return True
    for base in re.split(r"\s*,\s*", (found.group("bases") or "").strip()):
        name = base.split("[")[0].split(".")[-1].strip()
        if not name or "=" in base or name == owner:
            continue
        source = (
            module
            if re.search(rf"^class {name}\b", text, re.M)
            else imported_from(text, module, name, package)
        )
        if source and defines(root, source, name, attribute, depth + 1):
            return True
    return False


def class_body(text: str, start: int) -> str:
    """The indented block that follows a class line ending at ``start``."""
    lines = text[start:].split("\n")[1:]
    body = []
    for line in lines:
        if line.strip() and not line.startswith((" ", "\t")):
            break
        body.append(line)
    return "\n".join(body)


def imported_from(text: str, module: str, name: str, is_package: bool = False) -> str | None:
    """The absolute module ``name`` is imported from in ``module``'s source, if any."""
    pattern = r"^from (\.*)([\w.]*) import (?:\(([^)]*)\)|([^\n(]*))"
    for found in re.finditer(pattern, text, re.M):
        dots, source, grouped, single = found.groups()
        names = grouped if grouped is not None else single
        names = re.sub(r"#[^\n]*", "", names)  # a comment inside the parentheses
        imported = {part.split(" as ")[-1].strip() for part in names.replace("\n", " ").split(",")}
        if name not in imported:
            continue
        if not dots:
            return source
        # "." is the package itself in its __init__, else the module's package.
        package = module.split(".") if is_package else module.split(".")[:-1]
        package = package[: len(package) - (len(dots) - 1)]
        return ".".join([*package, *([source] if source else [])])
    return None


def python_findings(releases: dict[str, Release]) -> list[Finding]:
    """``internals.python_internals()`` read in the releases' sources."""
    found = []
    for module, owner, attribute in internals.python_internals():
        library = module.split(".")[0]
        seam = f"{module}.{owner + '.' if owner else ''}{attribute}"
        release = releases.get(library)
        holds = None if release is None else defines(release.root, module, owner, attribute)
        found.append(Finding("python", seam, library, holds))
    return found


# Libraries the site does not ship (export/wheels.py leaves them out): a module the
# worker imports must not import one at its top level, or the live tier cannot start.
NOT_SHIPPED = ("pandas",)


def import_findings(releases: dict[str, Release]) -> list[Finding]:
    """Whether each module posviz's worker imports is free of libraries the site lacks.

    A top-level import of one (panel 1.10's ``panel.io.pyodide`` imports pandas)
    stops the live tier in the browser.
    """
    modules = sorted(
        {m for m, _, _ in internals.python_internals() if not m.startswith("bokeh.server")}
    )  # the server's modules stay on the host
    found = []
    for module in modules:
        library = module.split(".")[0]
        release = releases.get(library)
        path = module_file(release.root, module) if release else None
        holds = None
        if path is not None:
            text = path.read_text("utf-8")
            holds = not any(
                re.search(rf"^(?:import {name}\b|from {name}\b)", text, re.M)
                for name in NOT_SHIPPED
            )
        seam = f"{module} imports no {', '.join(NOT_SHIPPED)}"
        found.append(Finding("browser import", seam, library, holds))
    return found


# --- browser seams and page anchors ---------------------------------------------------------


def browser_findings(releases: dict[str, Release], work: Path) -> list[Finding]:
    """``internals.JS_SEAMS`` against the releases' files, laid out as a site ships them."""
    site = work / "site"
    (site / "static" / "bokeh").mkdir(parents=True, exist_ok=True)
    (site / "pyodide").mkdir(parents=True, exist_ok=True)
    if "bokeh" in releases:
        bundle = releases["bokeh"].root / "server" / "static" / "js" / "bokeh.min.js"
        (site / "static" / "bokeh" / f"bokeh-{releases['bokeh'].version}.min.js").write_bytes(
            bundle.read_bytes()
        )
    if "pyodide" in releases:
        for name in ("pyodide.js", "pyodide.asm.js"):
            if (releases["pyodide"].root / name).is_file():
                (site / "pyodide" / name).write_bytes(
                    (releases["pyodide"].root / name).read_bytes()
                )
    packages = {"panel": releases["panel"].root} if "panel" in releases else {}
    found = []
    for seam in internals.JS_SEAMS:
        library = {"BokehJS": "bokeh", "Pyodide": "pyodide", "Panel": "panel"}[seam.library]
        if library not in releases:
            found.append(Finding("browser", seam.name, library, None))
            continue
        files = internals._seam_files(seam.file, site, packages)
        holds = any(internals._has_all(file.read_text("utf-8"), seam.patterns) for file in files)
        found.append(Finding("browser", seam.name, library, holds, ", ".join(seam.used_in)))
    return found


def anchor_findings(releases: dict[str, Release]) -> list[Finding]:
    """The texts posviz's edits of ``panel convert``'s page look for, in the release."""
    wanted = list(PAGE_ANCHORS)
    from posviz.export.adapter import panel_patches

    for name in PATCHES:  # a patch's "panel" line is Panel's text
        written = panel_patches()[name]["panel"].replace("__NAME__", "{{ name }}")
        wanted.append(("panel", "_templates/pyodide_handler.js", written, None))
    found = []
    for library, file, anchor, texts in wanted:
        release = releases.get(library)
        holds = None
        if release is not None:
            path = release.root / file
            source = path.read_text("utf-8") if path.is_file() else ""
            holds = bool(source) and all(text in source for text in texts or (anchor,))
        found.append(Finding("page anchor", anchor.strip(), library, holds, f"{library}/{file}"))
    return found


# --- the report ------------------------------------------------------------------------------


def report(releases: dict[str, Release], findings: list[Finding]) -> str:
    """The rehearsal as Markdown: the releases, a count, and a table of seams."""
    gone = [f for f in findings if f.holds is False]
    lines = [
        "# Upgrade rehearsal",
        "",
        "Written by `python -m posviz.export.rehearse "
        + " ".join(f"--{r.library} {r.version}" for r in releases.values())
        + "`: each seam registered in `posviz/internals.py`, read from the release's files.",
        "",
        "Releases: " + ", ".join(f"{r.library} {r.version}" for r in releases.values()) + ".",
        "",
        f"**{sum(f.holds is True for f in findings)} hold, {len(gone)} gone, "
        f"{sum(f.holds is None for f in findings)} not rehearsed** (their library was not given).",
        "",
        "| kind | seam | library | holds | where |",
        "|---|---|---|---|---|",
    ]
    for f in findings:
        holds = {True: "yes", False: "**no**", None: "not rehearsed"}[f.holds]
        lines.append(f"| {f.kind} | `{f.seam}` | {f.library} | {holds} | {f.note} |")
    return "\n".join(lines) + "\n"


def rehearse(
    versions: dict[str, str | None], cache: Path
) -> tuple[dict[str, Release], list[Finding]]:
    """The releases (downloaded when a version is given) and every seam's finding."""
    releases = {
        library: downloaded(library, version, cache) if version else installed(library)
        for library, version in versions.items()
    }
    findings = [
        *python_findings(releases),
        *import_findings(releases),
        *browser_findings(releases, cache / "layout"),
        *anchor_findings(releases),
    ]
    return releases, findings


def main(argv=None) -> int:
    """Rehearse; print the report (or write it to ``--out``); exit 1 if a seam is gone."""
    parser = argparse.ArgumentParser(
        prog="python -m posviz.export.rehearse", description=__doc__.split("\n")[0]
    )
    for library in REHEARSED:
        parser.add_argument(
            f"--{library}", metavar="VERSION", help=f"a {library} release (default: as installed)"
        )
    parser.add_argument("--out", type=Path, help="write the report here (Markdown)")
    args = parser.parse_args(argv)
    cache = distribution.default_cache_root() / "rehearsal"
    cache.mkdir(parents=True, exist_ok=True)
    releases, findings = rehearse({lib: getattr(args, lib) for lib in REHEARSED}, cache)
    text = report(releases, findings)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text, "utf-8")
        print(f"posviz rehearse: wrote {args.out}")
    else:
        print(text, end="")
    gone = [f for f in findings if f.holds is False]
    for f in gone:
        release = releases[f.library]
        print(f"posviz rehearse: gone in {f.library} {release.version}: {f.seam}", file=sys.stderr)
    return 1 if gone else 0


if __name__ == "__main__":
    sys.exit(main())
