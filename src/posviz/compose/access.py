"""The page script, importable where it was (its home is ``posviz.compose.page_script``)."""

from posviz.compose.page_script import (  # noqa: F401
    ACCESS_JS,
    LIGHT_INKS,
    REMAPPED,
    THEMED,
    access_js,
    install,
)
