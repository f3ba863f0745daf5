"""A scratch content folder (one page showing figure 710, one topic) and site comparisons.

Small builds for the tests of the build's caches: fourteen routes, seconds each.
"""

import hashlib
from pathlib import Path

PAGE = """---
slug: clock
title: A clock of positions
kind: Read
builds_on: []
tags: [Scratch]
summary: A scratch page that shows one figure.
---

## 1. Hands

Each pair of dimensions turns like the hand of a clock.

::: figure 710

## 2. Reading

The hands together give each position its own reading.
"""
TOPIC = """---
slug: scratch
title: Scratch
category: Mechanisms
intro: A scratch topic over one page.
read_first: []
pages: [clock]
---
Read the one page.
"""


def write_content(root: Path) -> Path:
    """The scratch content under ``root`` (pages/clock.md, topics/scratch.md); ``root``."""
    (root / "pages").mkdir(parents=True)
    (root / "topics").mkdir()
    (root / "pages" / "clock.md").write_text(PAGE, "utf-8")
    (root / "topics" / "scratch.md").write_text(TOPIC, "utf-8")
    return root


def digest(folder: Path) -> dict[str, str]:
    """Each file of a built site (relative path) → its sha256."""
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def differences(one: Path, other: Path) -> list[str]:
    """Files that differ between two built sites (or exist in one only)."""
    a, b = digest(one), digest(other)
    return sorted(name for name in a.keys() | b.keys() if a.get(name) != b.get(name))
