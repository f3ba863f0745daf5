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
    return fill(source(package, name), f"{package.replace('.', '/')}/{name}", **fills)


def fill(text: str, where: str, **fills: str) -> str:
    """``text`` with each ``__KEY__`` replaced by ``fills[KEY]``, strictly (``render``)."""
    wanted = set(PLACEHOLDER.findall(text))
    if missing := sorted(wanted - fills.keys()):
        raise AssetError(f"{where}: placeholder(s) left unfilled: {', '.join(missing)}")
    if unknown := sorted(fills.keys() - wanted):
        raise AssetError(f"{where}: has no placeholder(s) {', '.join(unknown)} to fill")
    return PLACEHOLDER.sub(lambda match: fills[match.group(1)], text)


def script(package: str, name: str, **values) -> str:
    """A JavaScript file with each placeholder filled by the JSON of ``values[KEY]``."""
    return render(package, name, **{key: literal(value) for key, value in values.items()})


def literal(value) -> str:
    """``value`` as a JavaScript literal that is safe inside an HTML ``<script>``."""
    return json.dumps(value).replace("<", "\\u003c")


# --- ES modules, shipped as classic scripts -------------------------------------------
#
# The browser code is written as ES modules (``import``/``export`` between the files
# of one package). A page opened as a file (``file:``) cannot load a module script,
# Pyodide 0.27's worker is a classic one, and Panel's page takes the loader inline, so
# every shipped script is a bundle: each module it imports becomes an object made by
# a function of its own (its top level stays private), in the order they import each
# other, and the entry runs last. The grammar is kept small and checked: a line of
# another form, a module outside the package, or a cycle is an ``AssetError`` naming
# file:line.

IMPORT = re.compile(
    r'^import (?:\* as (?P<star>\w+)|\{(?P<names>[^}]*)\}) from "\./(?P<file>[\w.]+\.js)";$'
)
EXPORT_DECLARATION = re.compile(
    r"^export (?=(?:async )?function\*? (\w+)|(?:const|let|class) (\w+))"
)
EXPORT_LIST = re.compile(r"^export \{(?P<names>[^}]*)\};$")
MODULE_SYNTAX = re.compile(r"^\s*(?:import|export)\b(?!\s*\()")


def _names(listed: str) -> list[tuple[str, str]]:
    """``a, b as c`` as [("a", "a"), ("b", "c")]: (exported name, local name)."""
    pairs = []
    for item in filter(None, (part.strip() for part in listed.split(","))):
        name, _, local = item.partition(" as ")
        pairs.append((name.strip(), (local or name).strip()))
    return pairs


def module(package: str, name: str, text: str | None = None) -> tuple[list, str, list[str]]:
    """One module's imports [(file, line, binding)], its body without them, its exports.

    ``binding`` is the name of a namespace (``import * as X``) or a list of
    (exported, local) names. ``text``: the source, if already rendered.
    """
    where = f"{package.replace('.', '/')}/{name}"
    imports, body, exports = [], [], []
    for number, line in enumerate((source(package, name) if text is None else text).split("\n"), 1):
        if found := IMPORT.match(line):
            binding = found["star"] or _names(found["names"])
            imports.append((found["file"], number, binding))
            body.append("")  # the lines keep their numbers
        elif found := EXPORT_LIST.match(line):
            exports += [exported for exported, local in _names(found["names"]) if exported == local]
            if any(exported != local for exported, local in _names(found["names"])):
                raise AssetError(f"{where}:{number}: export a name as itself, not with 'as'")
            body.append("")
        elif found := EXPORT_DECLARATION.match(line):
            exports.append(found[1] or found[2])
            body.append(line[len("export ") :])
        elif MODULE_SYNTAX.match(line):
            raise AssetError(
                f"{where}:{number}: an import or export posviz's bundles cannot take: "
                f'{line.strip()[:80]!r} (import {{a, b}} or * as X from "./file.js"; '
                "export function, const, class or {a, b})"
            )
        else:
            body.append(line)
    return imports, "\n".join(body), exports


def _order(package: str, entry: str) -> list[str]:
    """The modules ``entry`` imports, each after those it imports, then ``entry``."""
    done, active = [], []

    def visit(name: str, by: str | None) -> None:
        if name in done:
            return
        if name in active:
            cycle = " → ".join([*active[active.index(name) :], name])
            raise AssetError(f"{package.replace('.', '/')}/{name}: imports form a cycle: {cycle}")
        try:
            source(package, name)
        except FileNotFoundError:
            if by is None:
                raise AssetError(f"{package.replace('.', '/')}/{name}: no such module") from None
            raise AssetError(f"{by}: imports {name}, which {package} does not have") from None
        active.append(name)
        for file, number, _ in module(package, name)[0]:
            visit(file, f"{package.replace('.', '/')}/{name}:{number}")
        active.pop()
        done.append(name)

    visit(entry, None)
    return done


def _variable(name: str) -> str:
    return "$" + re.sub(r"\W", "_", name.removesuffix(".js"))


def _bound(imports: list) -> str:
    """The entry's or a module's imports as ``const`` bindings to the module objects."""
    lines = []
    for file, _, binding in imports:
        if isinstance(binding, str):
            lines.append(f"const {binding} = {_variable(file)};")
        else:
            names = ", ".join(n if n == local else f"{n}: {local}" for n, local in binding)
            lines.append(f"const {{{names}}} = {_variable(file)};")
    return "\n".join(lines)


def _checked_imports(package: str, name: str, imports: list) -> None:
    """Each named import is exported by its module."""
    for file, number, binding in imports:
        if isinstance(binding, str):
            continue
        exported = set(module(package, file)[2])
        if missing := [n for n, _ in binding if n not in exported]:
            raise AssetError(
                f"{package.replace('.', '/')}/{name}:{number}: {file} does not export "
                f"{', '.join(missing)}"
            )


def module_object(package: str, name: str) -> str:
    """An expression for the object of module ``name``'s exports, with what it imports."""
    return bundle(package, name, expression=True)


def bundle(package: str, entry: str, expression: bool = False, **fills: str) -> str:
    """The classic script of ES module ``entry`` and every module it imports.

    ``fills`` go into the entry (``render``). With ``expression``, an expression
    whose value is the entry's exports instead of a statement.
    """
    order = _order(package, entry)
    pieces = [f"// posviz: {entry} and the modules it imports ({', '.join(order)}), as one script"]
    for name in order:
        if name != entry and (holes := placeholders(package, name)):
            raise AssetError(
                f"{package.replace('.', '/')}/{name}: an imported module takes no placeholders "
                f"({', '.join(sorted(holes))}); the entry's fills are the entry's alone"
            )
        text = render(package, name, **fills) if name == entry else None
        imports, body, exports = module(package, name, text)
        _checked_imports(package, name, imports)
        bound = _bound(imports)
        if name == entry and not expression:
            pieces.append(f"{bound}\n{body}")
        else:
            made = f"(() => {{\n{bound}\n{body}\nreturn {{{', '.join(exports)}}};\n}})()"
            if name == entry:
                return "(() => {\n" + "\n".join(pieces[1:]) + f"\nreturn {made};\n}})()"
            pieces.append(f"const {_variable(name)} = {made};")
    return "(() => {\n" + "\n".join(pieces) + "\n})();\n"
