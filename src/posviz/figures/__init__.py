"""The live figures, and ``FIGURES``: figure id → class.

Classes load on first use (PEP 562), so ``posviz.figures.registry`` and the
content checks stay free of HoloViews.
"""

from importlib import import_module

from posviz.figures.registry import FIGURE_CLASSES

__all__ = ["FIGURES", "AttentionCost", "ClockHands", "Figure", "ParameterBudget", "QueryReach"]

_BY_NAME = {name: module for module, name in FIGURE_CLASSES.values()}
_BY_NAME["Figure"] = "posviz.figures.base"


def __getattr__(name):
    if name == "FIGURES":
        figures = {
            figure_id: getattr(import_module(module), cls)
            for figure_id, (module, cls) in FIGURE_CLASSES.items()
        }
        globals()["FIGURES"] = figures
        return figures
    if name in _BY_NAME:
        value = getattr(import_module(_BY_NAME[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'posviz.figures' has no attribute {name!r}")
