"""Figure 4121: the grids are the reach of ``posviz.maths.reach``, the query darkest."""

from posviz.drawing import plots
from posviz.figures import query_reach as reach
from tests.oracles import rendered_sources

# The size each plot is designed at (layout test); its cells are square, so its shape is kept.
PLOT_SIZES = [(300, 330)] * 2
SQUARE_CELLS = True


def drawn_and_expected(figure, values: dict):
    """Both grids as drawn, and the reach under every scheme for these values."""
    drawn, expected = {}, {}
    geometry = reach.Geometry(
        **{name: values[name] for name in reach.Geometry.__dataclass_fields__ if name in values}
    )
    where = (values["row"], values["col"])
    for layers, plot in zip((1, 2), plots(figure), strict=True):
        grid = reach.reach(values["side"], *where, values["scheme"], layers, geometry)
        grid = grid.astype(float)
        grid[where] = 2
        drawn[f"{layers} layers"] = rendered_sources(plot)[0]["image"][0]
        expected[f"{layers} layers"] = grid
    # Geometry sliders show under some schemes only: check the reach under each.
    asked_scheme = figure.scheme
    for scheme in reach.SCHEMES:
        figure.scheme = scheme
        for layers in (1, 2):
            drawn[f"scheme {scheme}, {layers}"] = figure.reached(layers)
            expected[f"scheme {scheme}, {layers}"] = reach.reach(
                values["side"], *where, scheme, layers, geometry
            )
    figure.scheme = asked_scheme
    return drawn, expected
