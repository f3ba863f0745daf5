"""A newcomer's copy of the checkout (tests/support/newcomer.py) holds what a fresh
clone holds: tracked files and new ones, nothing git ignores, no .git."""

import shutil
import subprocess

from tests.support.newcomer import ROOT, left_out


def git(folder, *args):
    subprocess.run(["git", *args], cwd=folder, check=True, capture_output=True)


def files(folder) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}


def test_the_copy_leaves_out_what_git_ignores_and_keeps_the_rest(tmp_path):
    repo = tmp_path / "repo"
    (repo / "src" / "__pycache__").mkdir(parents=True)
    (repo / ".gitignore").write_text(".venv*/\n__pycache__/\n/build/\n*.log\n")
    written = {
        "src/tracked.py": "kept",
        "src/new.py": "kept: an author's new file, not yet added",
        "build/page.html": "ignored, at the top only",
        "src/build/data.txt": "kept: /build/ is anchored",
        ".venv/bin/python": "ignored",
        ".venv-3.12/lib/big": "ignored, by the same pattern",
        "src/__pycache__/tracked.cpython-311.pyc": "ignored",
        "notes.log": "ignored",
    }
    for path, text in written.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text)
    git(repo, "init", "-q")
    git(repo, "add", ".gitignore", "src/tracked.py")
    shutil.copytree(repo, tmp_path / "copy", ignore=left_out(repo), symlinks=True)
    kept = {path for path, text in written.items() if text.startswith("kept")}
    assert files(tmp_path / "copy") == kept | {".gitignore"}


def test_this_checkouts_environments_are_left_out():
    here = [p.name for p in ROOT.iterdir()]
    skipped = left_out()(str(ROOT), here)
    assert ".git" in skipped and "src" not in skipped and "tests" not in skipped
    for name in here:
        if name.startswith(".venv"):  # .venv, .venv-3.12, .venv-uv: ./dev made them
            assert name in skipped, f"{name} would be copied"
