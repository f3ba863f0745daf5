"""Turns content and figures into Panel layouts (placeholder, grown in compose/)."""

import panel as pn

from posviz.figures import FIGURES


def figure_card(figure_id: int):
    figure = FIGURES[figure_id]()
    return pn.Column(pn.pane.Markdown(f"### {figure_id} · {figure.title}"), figure)


def gallery():
    pn.extension()
    return pn.Column(*[figure_card(figure_id) for figure_id in FIGURES])
