"""Figure ids and where each figure's class lives; importing this is free.

Content validation needs the ids without paying for HoloViews, so the
registry names modules rather than importing them.
"""

FIGURE_CLASSES = {
    96: ("posviz.figures.parameter_budget", "ParameterBudget"),
    710: ("posviz.figures.clock_hands", "ClockHands"),
    7256: ("posviz.figures.attention_cost", "AttentionCost"),
    4121: ("posviz.figures.query_reach", "QueryReach"),
}
FIGURE_IDS = frozenset(FIGURE_CLASSES)
