"""What the build does to the system: it writes files atomically and runs tools.

Stdlib only: ``distribution`` and ``wheels`` use it before panel or numpy load.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path


def temp_beside(path: Path) -> Path:
    """A fresh file next to ``path`` (0644), so concurrent builds never share a temp name."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".part")
    os.close(fd)
    os.chmod(tmp, 0o644)  # mkstemp's 0600 would follow the file into the site
    return Path(tmp)


def write_atomic(dest: Path, data: bytes) -> None:
    """Write ``data`` to ``dest`` through a temp file beside it: readers see all of it or none."""
    tmp = temp_beside(dest)
    try:
        tmp.write_bytes(data)
        os.replace(tmp, dest)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def run(
    cmd: list[str],
    cwd: Path,
    error: type[Exception],
    what: str | None = None,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess:
    """Run ``cmd`` in ``cwd``, its output captured; a failure is one ``error`` naming the command.

    ``what`` (what the build was doing) heads the message; ``env`` is added to the environment.
    """
    head = f"{what}: " if what else ""
    try:
        return subprocess.run(
            cmd,
            cwd=cwd,
            check=True,
            capture_output=True,
            text=True,
            env={**os.environ, **env} if env else None,
        )
    except FileNotFoundError:
        raise error(f"{head}{cmd[0]!r} is not installed") from None
    except subprocess.CalledProcessError as exc:
        raise error(
            f"{head}`{' '.join(cmd)}` failed (exit {exc.returncode}):\n{exc.stderr.strip()}"
        ) from None
