"""``./dev test --figure ID``: which tests name a figure (conftest's selection).

The selection must come out the same in every pytest-xdist worker, so a test's
parameters are read as text that does not change between processes.
"""

import re

import pytest


def figure_words(ids) -> list:
    """Patterns naming each figure: its id as a whole number, its class, its module."""
    from posviz.figures import FIGURES

    words = []
    for raw in ids:
        if not raw.isdigit() or int(raw) not in FIGURES:
            raise pytest.UsageError(f"--figure {raw}: no such figure (known: {sorted(FIGURES)})")
        cls = FIGURES[int(raw)]
        module = cls.__module__.rsplit(".", 1)[-1]
        words.append(re.compile(rf"(?<!\d){cls.figure_id}(?!\d)|\b{cls.__name__}\b|{module}"))
    return words


def stable_text(value) -> str:
    """A parameter as text that is the same in every process: a class or function by its
    module and name, plain values and their containers by repr, anything else by its type.
    (``repr`` of a lambda holds its address: "at 0x7fa96b…" named figure 96 in one xdist
    worker and not in the other, which then refused to run.)"""
    if isinstance(value, (str, int, float, bool, type(None))):
        return repr(value)
    if isinstance(value, (list, tuple, set, frozenset)):
        return " ".join(stable_text(each) for each in value)
    if isinstance(value, dict):
        return " ".join(f"{stable_text(k)} {stable_text(v)}" for k, v in value.items())
    if hasattr(value, "__qualname__"):
        return f"{getattr(value, '__module__', '')}.{value.__qualname__}"
    return type(value).__qualname__
