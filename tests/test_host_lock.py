"""The build host is what requirements/host.lock says, by hash (issue 31, finding 8).

The static site ships hash-pinned wheels (export/pins.json); these tests hold the host
that renders and builds them to the same standard: ``./dev`` installs every
distribution, the build backend and pip included, from a lock with sha256 hashes,
and the environment the tests run in is exactly that lock.
"""

from __future__ import annotations

import re
import sys
import tomllib
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from packaging.markers import Marker
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "requirements" / "host.lock"
DEV = ROOT / "dev"
HASH = re.compile(r"--hash=sha256:[0-9a-f]{64}")


@dataclass(frozen=True)
class LockEntry:
    """One pinned requirement of the lock, where it starts and what it carries."""

    line: int
    name: str
    version: Version
    marker: Marker | None
    hashes: tuple[str, ...]
    options: tuple[str, ...]  # every `--option` on the entry, hashes included

    def applies(self) -> bool:
        """Whether this entry is installed on the interpreter running the tests."""
        return self.marker is None or self.marker.evaluate()


def lock_entries(path: Path = LOCK) -> list[LockEntry]:
    """The lock's entries: backslash-continued lines joined, comments dropped."""
    assert path.is_file(), f"{path}: missing; `./dev lock` writes it from pyproject.toml"
    entries, pending, start = [], "", 0
    for number, raw in enumerate(path.read_text("utf-8").splitlines(), start=1):
        text = "" if raw.lstrip().startswith("#") else raw.split(" #", 1)[0].strip()
        if not text:
            continue
        if not pending:
            start = number
        pending += text.removesuffix("\\") + " "
        if not text.endswith("\\"):
            entries.append(parse_entry(pending.strip(), start))
            pending = ""
    return entries


def parse_entry(text: str, line: int) -> LockEntry:
    """One logical line of the lock as a ``LockEntry``; a line that is no pin fails, naming it."""
    where = f"{LOCK.name}:{line}"
    requirement_text, _, rest = text.partition(" --")
    options = tuple("--" + option.strip() for option in rest.split(" --")) if rest else ()
    try:
        requirement = Requirement(requirement_text)
    except InvalidRequirement as error:
        raise AssertionError(f"{where}: not a requirement ({error})") from None
    pins = [spec.version for spec in requirement.specifier if spec.operator == "=="]
    assert len(pins) == 1 and len(requirement.specifier) == 1, f"{where}: not pinned with =="
    return LockEntry(
        line=line,
        name=canonicalize_name(requirement.name),
        version=Version(pins[0]),
        marker=requirement.marker,
        hashes=tuple(o for o in options if o.startswith("--hash=")),
        options=options,
    )


def locked_here() -> dict[str, Version]:
    """name -> version of every entry whose marker holds on this interpreter."""
    found: dict[str, Version] = {}
    for entry in lock_entries():
        if entry.applies():
            assert entry.name not in found, f"{LOCK.name}:{entry.line}: {entry.name} twice here"
            found[entry.name] = entry.version
    return found


def declared_requirements() -> list[tuple[str, Requirement]]:
    """(where, requirement) for every requirement pyproject.toml declares for the host."""
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    groups = {
        "[project] dependencies": pyproject["project"]["dependencies"],
        **{
            f"[project.optional-dependencies] {extra}": listed
            for extra, listed in pyproject["project"]["optional-dependencies"].items()
        },
        "[build-system] requires": pyproject["build-system"]["requires"],
    }
    return [(where, Requirement(text)) for where, listed in groups.items() for text in listed]


def test_every_installed_distribution_is_locked_at_its_version():
    locked = locked_here()
    installed = {
        canonicalize_name(dist.metadata["Name"]): Version(dist.version)
        for dist in metadata.distributions()
    }
    installed.pop("posviz", None)  # the project itself: installed editable, never locked
    differ = {
        name: (installed.get(name), locked.get(name))
        for name in sorted(installed.keys() | locked.keys())
        if installed.get(name) != locked.get(name)
    }
    assert not differ, (
        "the environment is not requirements/host.lock (name: (installed, locked)); "
        f"./dev re-creates .venv from the lock: {differ}"
    )


def test_every_lock_entry_is_pinned_by_sha256_only():
    entries = lock_entries()
    assert len(entries) > 50, "the lock lists the whole host, not a few packages"
    for entry in entries:
        where = f"{LOCK.name}:{entry.line} ({entry.name})"
        assert entry.hashes, f"{where}: no --hash"
        assert all(HASH.fullmatch(h) for h in entry.hashes), f"{where}: a hash not sha256"
        assert entry.options == entry.hashes, f"{where}: options other than hashes"


def test_the_lock_holds_the_build_backend_and_pip():
    locked = {entry.name for entry in lock_entries()}
    assert {"pip", "setuptools", "wheel"} <= locked


def test_the_lock_satisfies_every_declared_requirement():
    by_name: dict[str, list[LockEntry]] = {}
    for entry in lock_entries():
        by_name.setdefault(entry.name, []).append(entry)
    for where, requirement in declared_requirements():
        name = canonicalize_name(requirement.name)
        assert name in by_name, f"pyproject.toml {where}: {requirement} is not in the lock"
        for entry in by_name[name]:
            assert requirement.specifier.contains(entry.version, prereleases=True), (
                f"pyproject.toml {where}: {requirement}, but {LOCK.name}:{entry.line} "
                f"locks {entry.version}; run ./dev lock"
            )


def dev_ensure_env() -> str:
    """The body of ``ensure_env`` in ./dev, a command continued over lines on one."""
    found = re.search(r"^ensure_env\(\) \{\n(.*?)^\}", DEV.read_text("utf-8"), re.M | re.S)
    assert found, "./dev: no ensure_env function"
    return re.sub(r"\\\n\s*", "", found[1])


def test_dev_installs_the_lock_by_hash_and_the_project_without_fetching():
    script = DEV.read_text("utf-8")
    assert re.search(r"^lock=requirements/host\.lock$", script, re.M), "./dev: no lock= line"
    body = dev_ensure_env()
    installs = [line for line in body.splitlines() if re.search(r"pip.*\binstall\b", line)]
    assert len(installs) == 2, installs
    locked, project = installs
    assert "--require-hashes" in locked and '-r "$lock"' in locked
    assert "--only-binary=:all:" in locked  # an sdist would be built with unlocked tools
    for flag in ("--no-deps", "--no-build-isolation"):
        assert flag in project, f"./dev: the project's install lacks {flag}"


def test_dev_stamp_covers_the_lock():
    body = dev_ensure_env()
    assert re.search(r'^\s*locked="\$\(sha256sum "\$lock"', body, re.M), body
    written = re.search(r'^\s*echo "(.*)" > "\$stamp"$', body, re.M)
    assert written and "$locked" in written[1], body
    # A lock that changed re-creates .venv: an install would keep what the lock dropped.
    assert re.search(r'"\$\{installed% \*\}" != "\$locked"', body), body
    made = [line for line in body.splitlines() if " -m venv " in line]
    assert len(made) == 1 and "--clear" in made[0] and made[0].endswith('"$venv"'), made


def test_every_installed_module_the_suite_imports_has_its_bytecode():
    """./dev compiles .venv once: under PYTHONDONTWRITEBYTECODE (this machine sets it)
    Python reads bytecode but never writes it, and every process compiled Panel,
    Bokeh and HoloViews from their source again."""
    import importlib.util
    import sysconfig

    import bokeh.plotting  # noqa: F401
    import holoviews  # noqa: F401
    import panel  # noqa: F401

    installed = Path(sysconfig.get_path("purelib"))
    sources = [
        Path(module.__file__)
        for module in list(sys.modules.values())
        if str(getattr(module, "__file__", None) or "").endswith(".py")
    ]
    ours = [path for path in sources if path.is_relative_to(installed)]
    assert len(ours) > 500  # Panel, Bokeh, HoloViews and what they import
    missing = [p for p in ours if not Path(importlib.util.cache_from_source(p)).is_file()]
    assert missing == [], f"{len(missing)} modules without bytecode, first {missing[:3]}"
