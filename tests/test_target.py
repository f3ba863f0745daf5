"""Where `posviz build` may write, and the swap that never loses the previous site.

Unit tests of posviz.export.target and of `build`'s failure paths; none runs a full build.
"""

import errno
import json
import os
from pathlib import Path

import pytest

from posviz.export import command, target
from posviz.export.target import MARKER, TargetError


def tree(folder: Path) -> dict:
    """Every file under `folder` with its bytes: 'untouched' means this is equal."""
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def fake_site(folder: Path, text="old site") -> Path:
    """A folder as a finished build leaves it."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "index.html").write_text(text)
    (folder / "wheels").mkdir(exist_ok=True)
    (folder / "wheels" / "a.whl").write_text("wheel")
    target.seal(folder, posviz="test")
    return folder


# ------------------------------------------------------------ refusals


@pytest.mark.parametrize(
    "make,reason",
    [
        (lambda p: p.write_text("a file"), "is a file, not a folder"),
        (lambda p: (p.mkdir(), (p / ".git").mkdir()), "holds .git (a repository)"),
        (
            lambda p: (
                p.mkdir(),
                (p / "site.json").write_text("{}"),
                (p / "thesis.tex").write_text("x"),
            ),
            f"is not empty and posviz did not make it (no {MARKER})",
        ),
        (
            lambda p: (fake_site(p), (p / "notes.txt").write_text("mine")),
            "holds notes.txt, which posviz did not write",
        ),
    ],
    ids=["file", "git", "someones-files", "site-with-extra-file"],
)
def test_check_refuses_with_one_line_saying_why(tmp_path, make, reason):
    out = tmp_path / "out"
    make(out)
    before = tree(tmp_path) if out.is_dir() else out.read_bytes()
    with pytest.raises(TargetError) as err:
        target.check(out)
    assert str(err.value) == f"{out} {reason}" + str(err.value)[len(f"{out} {reason}") :]
    assert reason in str(err.value) and "\n" not in str(err.value)
    assert (tree(tmp_path) if out.is_dir() else out.read_bytes()) == before


def test_check_refuses_a_symlink_even_to_an_empty_folder(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    with pytest.raises(TargetError, match="link is a symbolic link"):
        target.check(tmp_path / "link")


def test_check_refuses_root_home_and_the_repository(tmp_path, monkeypatch):
    with pytest.raises(TargetError, match="is the root of the file system"):
        target.check(Path("/"))
    monkeypatch.setenv("HOME", str(tmp_path))
    with pytest.raises(TargetError, match="is your home folder"):
        target.check(tmp_path)
    repo = target.repository_root()
    assert (repo / "pyproject.toml").is_file()
    for folder in (repo, repo.parent):
        with pytest.raises(TargetError, match="is the posviz repository or a folder holding it"):
            target.check(folder)
    target.check(repo / "site-that-does-not-exist")  # inside the repository is fine


def test_check_accepts_new_empty_and_posviz_folders(tmp_path):
    target.check(tmp_path / "new")
    (tmp_path / "empty").mkdir()
    target.check(tmp_path / "empty")
    target.check(fake_site(tmp_path / "site"))


# ------------------------------------------------------------------ swap


def test_swap_into_a_new_an_empty_and_a_previous_site(tmp_path):
    for out in (tmp_path / "new", tmp_path / "empty", fake_site(tmp_path / "old")):
        out.mkdir(exist_ok=True)
        built = target.fresh(out)
        (built / "index.html").write_text("new site")
        target.seal(built, posviz="test")
        target.swap(built, out)
        assert (out / "index.html").read_text() == "new site"
        assert not (out / "wheels").exists()
        assert json.loads((out / MARKER).read_text())["files"] == ["index.html"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty", "new", "old"]  # no siblings


def test_a_failed_swap_puts_the_previous_site_back(tmp_path, monkeypatch):
    out = fake_site(tmp_path / "site")
    before = tree(out)
    built = target.fresh(out)
    target.seal(built)
    real_replace = os.replace

    def failing(src, dst):
        if Path(src) == built:
            raise OSError(errno.ENOSPC, "No space left on device", str(dst))
        return real_replace(src, dst)

    monkeypatch.setattr(target.os, "replace", failing)
    with pytest.raises(OSError):
        target.swap(built, out)
    assert tree(out) == before


def test_recover_restores_a_site_cut_off_between_the_two_renames(tmp_path):
    out = fake_site(tmp_path / "site")
    before = tree(out)
    os.rename(out, tmp_path / ".site.posviz-old-123456")  # the first rename, then a crash
    stale = target.fresh(out)  # and a half-built sibling
    target.recover(out)
    assert tree(out) == before
    assert not stale.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]


def test_recover_leaves_unmarked_lookalike_folders_alone(tmp_path):
    mine = tmp_path / ".site.posviz-building-mine"
    mine.mkdir()
    (mine / "x").write_text("someone's")
    target.recover(tmp_path / "site")
    assert (mine / "x").read_text() == "someone's"


# ------------------------------------------------- build's failure paths


@pytest.fixture
def quick_build(monkeypatch, tmp_path):
    """`build` with a stand-in for the slow part (the real site is built once in conftest)."""
    calls = []

    def make_site(out, found, dist, python, cdn, base_url=None, library=None, figures_only=False):
        calls.append(out)
        (out / "index.html").write_text("new site")

    monkeypatch.setattr(command, "make_site", make_site)
    monkeypatch.setattr(command.distribution, "assemble", lambda **kw: tmp_path / "dist")
    monkeypatch.setattr(command.distribution, "python_version", lambda dist: "3.12")
    return calls


def one_line_failure(capsys, code, expected_code=1):
    out, err = capsys.readouterr()
    assert code == expected_code
    assert err.count("\n") == 1 and "Traceback" not in err + out, err
    return err.strip()


def test_build_twice_and_into_an_existing_empty_folder(tmp_path, quick_build, capsys):
    out = tmp_path / "site"
    out.mkdir()
    assert command.build(out) == 0
    assert command.build(out) == 0
    assert (out / "index.html").read_text() == "new site"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]


@pytest.mark.parametrize(
    "make,message",
    [
        (lambda p: p.write_text("my notes"), "is a file, not a folder"),
        (lambda p: (p.mkdir(), (p / "thesis.tex").write_text("x")), "posviz did not make it"),
        (lambda p: p.symlink_to(p.parent), "is a symbolic link"),
    ],
    ids=["file", "someones-folder", "symlink"],
)
def test_build_refuses_hostile_targets_in_one_line(tmp_path, quick_build, capsys, make, message):
    out = tmp_path / "out"
    make(out)
    before = tree(tmp_path)
    err = one_line_failure(capsys, command.build(out))
    assert err.startswith("posviz build: failed: ") and message in err
    assert tree(tmp_path) == before and quick_build == []


@pytest.mark.parametrize(
    "error,message",
    [
        (
            OSError(errno.ENOSPC, "No space left on device", "/x/wheels/panel.whl"),
            "No space left on device: /x/wheels/panel.whl",
        ),
        (
            command.wheels.WheelError("`pip download` failed (exit 1):\nERROR: line one\nline two"),
            "`pip download` failed (exit 1) (full output in ",
        ),
        (
            command.BuildError(
                "panel convert failed (exit 1):\nTraceback (most recent call last):"
            ),
            "panel convert failed (exit 1) (full output in ",
        ),
        (ValueError("a bug"), "failed unexpectedly: ValueError: a bug (traceback in "),
        (KeyboardInterrupt(), "interrupted; "),
    ],
    ids=["enospc", "wheel", "convert", "bug", "interrupt"],
)
def test_a_failing_build_leaves_the_previous_site_byte_for_byte(
    tmp_path, monkeypatch, quick_build, capsys, error, message
):
    out = fake_site(tmp_path / "site")
    before = tree(tmp_path)

    def fail(out, *args):
        (out / "half.html").write_text("half")
        raise error

    monkeypatch.setattr(command, "make_site", fail)
    code = command.build(out)
    err = one_line_failure(capsys, code, 130 if isinstance(error, KeyboardInterrupt) else 1)
    assert message in err
    assert tree(tmp_path) == before  # no sibling left either
    if "full output in " in err or "traceback in " in err:
        saved = Path(err.rsplit(" in ", 1)[1].rstrip(")"))
        assert saved.is_file() and saved.read_text()
        saved.unlink()


def test_after_a_killed_build_the_next_one_runs_normally(tmp_path, quick_build, capsys):
    out = fake_site(tmp_path / "site")
    target.fresh(out)  # what a SIGKILL mid-build leaves
    assert command.build(out) == 0
    assert (out / "index.html").read_text() == "new site"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]


def test_build_fails_when_the_host_libraries_differ_from_the_shipped_ones(
    tmp_path, monkeypatch, quick_build, capsys
):
    monkeypatch.setattr(command.bokeh, "__version__", "3.9.1")
    err = one_line_failure(capsys, command.build(tmp_path / "site"))
    assert "this environment has bokeh 3.9.1, but the site ships bokeh 3.9.2" in err
    assert not (tmp_path / "site").exists() and quick_build == []


def test_a_second_build_into_the_same_place_fails_at_once(tmp_path, quick_build, capsys):
    out = fake_site(tmp_path / "site")
    before = tree(tmp_path)
    with target.lock(out):
        err = one_line_failure(capsys, command.build(out))
    assert f"another posviz build is writing into {tmp_path}" in err
    assert tree(tmp_path) == before and quick_build == []


def test_an_unwritable_parent_is_one_line(tmp_path, monkeypatch, quick_build, capsys):
    out = fake_site(tmp_path / "site")
    before = tree(tmp_path)

    def refuse(out):
        raise PermissionError(errno.EACCES, "Permission denied", str(out.parent))

    monkeypatch.setattr(target, "fresh", refuse)
    err = one_line_failure(capsys, command.build(out))
    assert err == f"posviz build: failed: Permission denied: {tmp_path}"
    assert tree(tmp_path) == before and quick_build == []
