"""The one registry of the package's JavaScript and CSS files, with their placeholders.

Code in another language lives in a file of that language (``compose/page.js``,
``styles/text.css``, ``export/connect.js``), linted as such (``./dev lint`` runs
Biome on the JavaScript). A file may hold placeholders, ``__NAME__`` in capitals,
that Python fills when it loads the file, as Bokeh's ``core/templates.py`` loads
its templates. Filling is strict: a placeholder left unfilled, or a value given
for a placeholder the file lacks, raises ``AssetError`` naming the file, so a
build stops rather than ship a script with a hole in it.
"""

import json
import re
from functools import cache
from importlib import resources

PLACEHOLDER = re.compile(r"__([A-Z][A-Z0-9_]*)__")


class AssetError(RuntimeError):
    """A JavaScript or CSS file does not match what its loader fills in."""


@cache
def source(package: str, name: str) -> str:
    """The text of file ``name`` of ``package`` (``"posviz.compose"``, ``"page.js"``)."""
    return resources.files(package).joinpath(name).read_text("utf-8")


def placeholders(package: str, name: str) -> set[str]:
    """The ``__NAME__`` placeholders of a file, by name."""
    return set(PLACEHOLDER.findall(source(package, name)))


def render(package: str, name: str, **fills: str) -> str:
    """The file with each ``__KEY__`` replaced by ``fills[KEY]``, every one of them.

    Raises ``AssetError`` when a placeholder has no value or a value no placeholder.
    """
    wanted = placeholders(package, name)
    where = f"{package.replace('.', '/')}/{name}"
    if missing := sorted(wanted - fills.keys()):
        raise AssetError(f"{where}: placeholder(s) left unfilled: {', '.join(missing)}")
    if unknown := sorted(fills.keys() - wanted):
        raise AssetError(f"{where}: has no placeholder(s) {', '.join(unknown)} to fill")
    return PLACEHOLDER.sub(lambda match: fills[match.group(1)], source(package, name))


def script(package: str, name: str, **values) -> str:
    """A JavaScript file with each placeholder filled by the JSON of ``values[KEY]``."""
    return render(package, name, **{key: literal(value) for key, value in values.items()})


def literal(value) -> str:
    """``value`` as a JavaScript literal that is safe inside an HTML ``<script>``."""
    return json.dumps(value).replace("<", "\\u003c")
