"""The three engines, importable where they were (their home is tests/support/engines.py)."""

from tests.support.engines import *  # noqa: F403
