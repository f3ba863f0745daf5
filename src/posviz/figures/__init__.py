"""The live figures, and the registry from figure id to class."""

from posviz.figures.attention_cost import AttentionCost
from posviz.figures.base import Figure
from posviz.figures.clock_hands import ClockHands
from posviz.figures.parameter_budget import ParameterBudget
from posviz.figures.query_reach import QueryReach

FIGURES: dict[int, type[Figure]] = {
    figure.figure_id: figure for figure in (ParameterBudget, ClockHands, AttentionCost, QueryReach)
}

__all__ = ["FIGURES", "AttentionCost", "ClockHands", "Figure", "ParameterBudget", "QueryReach"]
