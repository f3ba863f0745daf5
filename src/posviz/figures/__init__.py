"""The live figures: one module per figure, found by looking rather than by a list.

Adding a figure is adding one module to this package that defines a
:class:`~posviz.figures.model.Figure` subclass with a ``figure_id``. Every
module here imports numpy and param only (``lint-imports`` holds it): the
drawing is ``posviz.drawing``'s.

* ``FIGURES`` (id → class, by id) imports every module of the package and
  collects the concrete ``Figure`` subclasses, as HoloViz's examples do with
  ``param.concrete_descendents`` (here ``param.descendents(..., concrete=True)``,
  which does not drop a class that shares another's name).
* ``figure_ids()`` reads the ids from the modules' source with :mod:`ast`, so
  content checks (``posviz check``) stay free of HoloViews and Panel.
* The classes are reachable by name too (``from posviz.figures import
  ClockHands``); they load on first use (PEP 562).
"""

import ast
import pkgutil
from importlib import import_module
from pathlib import Path

# Modules of this package that hold no figure.
NOT_FIGURES = frozenset({"model"})


def _figure_modules() -> list[tuple[str, Path]]:
    """(module name, source path) of each figure module, in name order."""
    found = []
    for info in pkgutil.iter_modules(__path__):
        if info.ispkg or info.name.startswith("_") or info.name in NOT_FIGURES:
            continue
        found.append((f"{__name__}.{info.name}", Path(info.module_finder.path) / f"{info.name}.py"))
    return sorted(found)


def _declared_ids(source: Path) -> list[int]:
    """The ``figure_id = <int>`` of each class defined at the top of ``source``."""
    tree = ast.parse(source.read_bytes(), str(source))
    ids = []
    for node in tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        for statement in node.body:
            target, value = None, None
            if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
                target, value = statement.targets[0], statement.value
            elif isinstance(statement, ast.AnnAssign):
                target, value = statement.target, statement.value
            if (
                isinstance(target, ast.Name)
                and target.id == "figure_id"
                and isinstance(value, ast.Constant)
                and type(value.value) is int
            ):
                ids.append(value.value)
    return ids


def figure_ids() -> frozenset[int]:
    """Every figure id, read from the figure modules' source without importing them."""
    return frozenset(i for _, source in _figure_modules() for i in _declared_ids(source))


class FigureModuleError(Exception):
    """A figure module that cannot be imported: ``file:line: what went wrong`` in one line."""


def _imported(name: str, source: Path):
    """The module ``name``; FigureModuleError naming its file and line if it fails."""
    import traceback

    try:
        return import_module(name)
    except Exception as error:
        frames = traceback.extract_tb(error.__traceback__)
        lines = [frame.lineno for frame in frames if Path(frame.filename) == source]
        if isinstance(error, SyntaxError) and error.lineno:
            lines.append(error.lineno)
        said = str(error).splitlines()[0] if str(error) else ""
        where = f"{source}:{lines[-1]}" if lines else str(source)
        raise FigureModuleError(f"{where}: {type(error).__name__}: {said}") from error


def discover() -> dict:
    """Import every figure module; figure id → ``Figure`` subclass, by id.

    Raises ValueError naming both classes when two figures share an id.
    """
    import param

    from posviz.figures.model import Figure

    modules = {name: _imported(name, source) for name, source in _figure_modules()}
    found: dict = {}
    for cls in param.descendents(Figure, concrete=True):
        module = modules.get(cls.__module__)
        # Only what a figure module defines now: not a subclass a test or a
        # notebook makes, nor the stale class of a module since reloaded.
        if getattr(module, cls.__name__, None) is not cls:
            continue
        other = found.setdefault(cls.figure_id, cls)
        if other is not cls:
            raise ValueError(
                f"figure id {cls.figure_id} is claimed by both {other.__module__}.{other.__name__}"
                f" and {cls.__module__}.{cls.__name__}; give one of them a new id"
            )
    return dict(sorted(found.items()))


def __getattr__(name):
    if name in NOT_FIGURES or name.startswith("_"):
        # A submodule not imported yet (``from posviz.figures import model``): let the
        # import system load it, without importing every figure first.
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if name == "FIGURES":
        figures = discover()
        globals()["FIGURES"] = figures
        return figures
    if name == "Figure":
        from posviz.figures.model import Figure

        return Figure
    figures = globals().get("FIGURES") or __getattr__("FIGURES")
    by_name = {cls.__name__: cls for cls in figures.values()}
    if name in by_name:
        return by_name[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
