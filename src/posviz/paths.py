"""Where posviz runs from: a leaf (stdlib only) that any layer may import."""

from pathlib import Path


def repository_root() -> Path | None:
    """The source checkout posviz runs from, if it runs from one."""
    return checkout_of(Path(__file__))


def checkout_of(path: Path) -> Path | None:
    """The posviz source checkout that holds ``path``, if one does."""
    path = path.resolve()
    for folder in (path, *path.parents):
        if (folder / "pyproject.toml").is_file() and (folder / "src" / "posviz").is_dir():
            return folder
    return None
