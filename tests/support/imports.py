"""What a fresh Python imports: the probe of the tests that keep a layer free of a library."""

import ast
import subprocess
import sys


def imported(code: str, modules) -> tuple[list[str], str]:
    """Run ``code`` in a fresh Python; which of ``modules`` it imported, and what it printed.

    A failure of ``code`` fails the test with its traceback.
    """
    probe = (
        f"{code}\nimport sys as _sys\n"
        f"print(sorted(m for m in {sorted(modules)!r} if m in _sys.modules))\n"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    *printed, found = result.stdout.strip().split("\n")
    return ast.literal_eval(found), "\n".join(printed)
