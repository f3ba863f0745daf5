"""The sha256 pins of everything ``posviz build`` downloads, kept in ``pins.json``.

A version number names a release; only a hash pins the bytes. Each download is
made with its hash required (``pip --require-hashes``, npm tarballs hashed here)
and each cached copy is hashed again every time a build uses it.

Stdlib only: this module runs before (and without) panel or numpy.
"""

from __future__ import annotations

import hashlib
import json
from importlib import resources
from pathlib import Path

PINS_FILE = "posviz/export/pins.json"
PINS: dict = json.loads(resources.files("posviz.export").joinpath("pins.json").read_text("utf-8"))


class PinError(Exception):
    """A downloaded or cached file does not have its pinned sha256."""


def sha256_file(path: Path) -> str:
    """The hex sha256 of the file at ``path``."""
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def matches(path: Path, expected: str) -> bool:
    """Whether ``path`` is a file with sha256 ``expected``."""
    return Path(path).is_file() and sha256_file(path) == expected


def check(
    path: Path, expected: str, what: str, *, data: bytes | None = None, pinned_in: str = PINS_FILE
) -> None:
    """Raise ``PinError`` unless ``path`` (or ``data``, read from it) has sha256 ``expected``.

    Every hash check of the build goes through here; ``pinned_in`` names the file
    that holds ``expected`` (``pins.json``, or Pyodide's lock).
    """
    found = sha256_file(path) if data is None else hashlib.sha256(data).hexdigest()
    if found != expected:
        raise PinError(
            f"{path}: sha256 {found[:16]}…, expected {expected[:16]}… pinned for {what} in "
            f"{pinned_in}; the file is damaged or not the pinned release"
        )


def pure_versions() -> dict[str, str]:
    """Version of every pure wheel the site ships (downloaded or built from an sdist)."""
    return {
        name: pin["version"] for name, pin in sorted({**PINS["wheels"], **PINS["sdists"]}.items())
    }
