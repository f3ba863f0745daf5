"""How many random cases a randomised test draws: a few by default, many on request.

The default run pays for a handful of random cases; the inputs that once found a
bug are kept as fixed cases beside them, so they run every time. ``POSVIZ_FUZZ=many``
(or a number) draws more, for a run that has the minutes::

    POSVIZ_FUZZ=many .venv/bin/python -m pytest tests/test_frames.py

The draws are seeded, so a case that fails fails again with the same setting,
and the few default cases are the first ones of the many.
"""

import os

ENV = "POSVIZ_FUZZ"


def cases(few: int, many: int) -> int:
    """How many random cases to draw: ``few``, or ``many`` under POSVIZ_FUZZ=many, or
    the number POSVIZ_FUZZ names."""
    asked = os.environ.get(ENV, "few").strip().lower()
    if asked in ("", "few"):
        return few
    if asked == "many":
        return many
    if asked.isdigit():
        return int(asked)
    raise ValueError(f"{ENV}={asked!r}: say 'few', 'many' or a number of cases")
