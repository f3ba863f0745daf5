"""Where ``posviz build`` writes: checked first, built beside, swapped in last.

A site is built into a fresh hidden sibling of the output folder and moved into
place only once it is complete and has passed the offline scan, so a failed or
interrupted build leaves the previous site as it was. posviz replaces a folder
only when it made it: the marker file ``.posviz-build.json``, written last,
lists every file of the build, and a folder holding anything else is refused.

Stdlib (and posviz.paths) only, and no build step: these checks run before anything is built.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import tempfile
import uuid
from pathlib import Path

from posviz.paths import repository_root

MARKER = ".posviz-build.json"
# A sibling folder being built, or a previous site being swapped out.
_BUILDING, _OLD = "building", "old"


class TargetError(Exception):
    """The output folder may not be written; the message says why."""


def read_marker(folder: Path) -> dict | None:
    """The marker of a folder posviz built, or None when it holds none (or a foreign one)."""
    try:
        marker = json.loads((folder / MARKER).read_text("utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(marker, dict) or not isinstance(marker.get("files"), list):
        return None
    return marker


def files_of(folder: Path) -> list[str]:
    """Every file and link under ``folder``, as sorted POSIX paths relative to it."""
    found = []
    for path in folder.rglob("*"):
        if path.is_symlink() or not path.is_dir():
            found.append(path.relative_to(folder).as_posix())
    return sorted(found)


def check(out: Path) -> None:
    """Raise ``TargetError`` unless ``out`` is new, an empty folder, or a site posviz made."""
    out = Path(out)
    if out.is_symlink():
        raise TargetError(f"{out} is a symbolic link; give the folder it points to, or a new one")
    where = out.resolve()
    if where == Path(where.anchor):
        raise TargetError(f"{out} is the root of the file system; choose a folder for the site")
    if where == Path.home().resolve():
        raise TargetError(f"{out} is your home folder; choose a folder for the site")
    repo = repository_root()
    if repo is not None and (where == repo or where in repo.parents):
        raise TargetError(
            f"{out} is the posviz repository or a folder holding it; choose a folder "
            "inside it (e.g. site/) or elsewhere"
        )
    if not out.exists():
        return
    if not out.is_dir():
        raise TargetError(f"{out} is a file, not a folder; choose a folder for the site")
    if (out / ".git").exists():
        raise TargetError(f"{out} holds .git (a repository); choose a folder of its own")
    present = files_of(out)
    if not present and not any(out.iterdir()):
        return
    marker = read_marker(out)
    if marker is None:
        raise TargetError(
            f"{out} is not empty and posviz did not make it (no {MARKER}); "
            "choose an empty or new folder"
        )
    foreign = sorted(set(present) - set(marker["files"]) - {MARKER})
    if foreign:
        more = f" and {len(foreign) - 1} more" if len(foreign) > 1 else ""
        raise TargetError(
            f"{out} holds {foreign[0]}{more}, which posviz did not write; move it away "
            "or choose another folder"
        )


@contextlib.contextmanager
def lock(out: Path):
    """Hold the parent folder of ``out`` for one build; a second build there fails at once.

    An advisory lock on the folder itself, so no lock file is left beside the site.
    """
    out.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(out.parent, os.O_RDONLY)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise TargetError(
                f"another posviz build is writing into {out.parent}; wait for it to finish"
            ) from None
        yield
    finally:
        os.close(fd)


def _siblings(out: Path, kind: str) -> list[Path]:
    return sorted(out.parent.glob(f".{out.name}.posviz-{kind}-*"))


def recover(out: Path) -> None:
    """Undo what an interrupted build left beside ``out``.

    A swap cut short between its two renames leaves the previous site as an
    ``old`` sibling and no ``out``: it is put back. Other siblings are deleted,
    but only those with posviz's marker in them.
    """
    old = [p for p in _siblings(out, _OLD) if read_marker(p) is not None]
    if old and not os.path.lexists(out):
        os.rename(old.pop(), out)
    for folder in [*old, *_siblings(out, _BUILDING)]:
        if folder.is_dir() and not folder.is_symlink() and (folder / MARKER).is_file():
            shutil.rmtree(folder)


def fresh(out: Path) -> Path:
    """A new empty sibling folder of ``out`` to build into (marked as posviz's)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}.posviz-{_BUILDING}-"))
    os.chmod(folder, 0o755)  # mkdtemp's 0700 would follow the folder to the web server
    (folder / MARKER).write_text(json.dumps({"state": "building", "files": []}), "utf-8")
    return folder


def seal(folder: Path, **about) -> None:
    """Write the marker: what posviz made here, so a later build may replace it."""
    files = [name for name in files_of(folder) if name != MARKER]
    marker = {**about, "files": files}
    (folder / MARKER).write_text(json.dumps(marker, indent=1, sort_keys=True) + "\n", "utf-8")


def swap(built: Path, out: Path) -> None:
    """Put the finished ``built`` folder at ``out``; the previous site goes only after."""
    check(out)  # nothing may have appeared there while the site was built
    if not out.exists() or not any(out.iterdir()):
        os.replace(built, out)  # rename over an empty folder is atomic
        return
    old = out.parent / f".{out.name}.posviz-{_OLD}-{uuid.uuid4().hex[:12]}"
    os.rename(out, old)
    try:
        os.replace(built, out)
    except BaseException:
        os.rename(old, out)
        raise
    shutil.rmtree(old, ignore_errors=True)
