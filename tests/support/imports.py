"""What a fresh Python imports: the probe of the tests that keep a layer free of a library.

Each probe needs an interpreter that has imported nothing yet, so it runs in a
process of its own; ``imported_each`` runs many of them from ONE subprocess, which
imports the standard library's few modules it needs and forks a fresh child per
probe (the children run one after the other). ``imported`` is one probe.
"""

import ast
import json
import subprocess
import sys

# Runs in the subprocess: read the probes as JSON on stdin, fork one child per probe,
# print {name: {"found": [...], "printed": "..."} or {"error": traceback}} as JSON.
FORKING = r"""
import json, os, sys

def run(code, modules):
    import contextlib, io, traceback
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed):
            exec(compile(code, "<probe>", "exec"), {"__name__": "__main__"})
    except BaseException:
        return {"error": traceback.format_exc(), "printed": printed.getvalue()}
    found = sorted(m for m in modules if m in sys.modules)
    return {"found": found, "printed": printed.getvalue().strip()}

results = {}
for name, (code, modules) in json.loads(sys.stdin.read()).items():
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        with os.fdopen(write, "w") as out:
            out.write(json.dumps(run(code, modules)))
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as got:
        text = got.read()
    _, status = os.waitpid(pid, 0)
    results[name] = json.loads(text) if text else {"error": f"the probe died ({status})"}
print(json.dumps(results))
"""


def imported_each(probes: dict[str, tuple[str, tuple[str, ...]]]) -> dict[str, dict]:
    """Run each probe's code in a fresh child of one subprocess.

    ``probes``: name → (code, modules to look for). The answer: name → ``{"found":
    the modules it imported, "printed": what it printed}``, or ``{"error": its
    traceback}`` for a probe whose code raised.
    """
    done = subprocess.run(
        [sys.executable, "-c", FORKING],
        input=json.dumps({name: [code, list(mods)] for name, (code, mods) in probes.items()}),
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


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
