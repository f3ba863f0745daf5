"""Where posviz runs from: a leaf (stdlib only) that any layer may import."""

from pathlib import Path


def repository_root() -> Path | None:
    """The source checkout posviz runs from, if it runs from one."""
    for folder in Path(__file__).resolve().parents:
        if (folder / "pyproject.toml").is_file() and (folder / "src" / "posviz").is_dir():
            return folder
    return None
