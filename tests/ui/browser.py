"""The Chromium harness, importable where it was (its home is tests/support/browser.py)."""

from tests.support.browser import *  # noqa: F403
from tests.support.browser import _Quiet  # noqa: F401
